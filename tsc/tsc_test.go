package tsc

import (
	"runtime"
	"sort"
	"testing"
)

func TestStopNotBeforeStart(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < 10000; i++ {
		a := Start()
		b := Stop()
		if b < a {
			t.Fatalf("read %d: Stop %d < Start %d", i, b, a)
		}
		c, auxA := StartCPU()
		d, auxB := StopCPU()
		if d < c {
			t.Fatalf("read %d: StopCPU %d < StartCPU %d", i, d, c)
		}
		if !HasAux() && (auxA != 0 || auxB != 0) {
			t.Fatalf("HasAux false but aux = %d, %d", auxA, auxB)
		}
	}
}

func TestCounterIsKnownName(t *testing.T) {
	switch c := Counter(); c {
	case CounterRDTSC, CounterCNTVCT, CounterMonotonic:
	default:
		t.Fatalf("Counter() = %q", c)
	}
	hz, ok := NominalHz()
	if ok != (hz > 0) {
		t.Fatalf("NominalHz = %v, %v: ok must mean hz > 0", hz, ok)
	}
	if Counter() == CounterMonotonic && hz != 1e9 {
		t.Fatalf("monotonic counter must be 1e9 Hz, got %v", hz)
	}
}

func TestPairInAsmIsSmall(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if Counter() == CounterRDTSC && !HasAux() {
		t.Skip("no RDTSCP: PairInAsm is not available")
	}
	v := make([]uint64, 1001)
	for i := range v {
		v[i] = PairInAsm()
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	// The median back-to-back pair must be far below a millisecond's worth of
	// ticks at any plausible frequency (an invariant, not a timing target).
	if v[500] > 1_000_000 {
		t.Fatalf("median PairInAsm = %d ticks", v[500])
	}
}

func TestAuxCPUOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" || !HasAux() {
		t.Skip("IA32_TSC_AUX holds the CPU number only on Linux with RDTSCP")
	}
	_, aux := StopCPU()
	if c := AuxCPU(aux); c < 0 || c >= 4096 {
		t.Fatalf("AuxCPU(%#x) = %d", aux, c)
	}
	if c := AuxCPU(aux); c >= runtime.NumCPU() {
		t.Fatalf("AuxCPU = %d but NumCPU = %d", c, runtime.NumCPU())
	}
}

func TestElapsed(t *testing.T) {
	tests := []struct {
		start, stop, want uint64
		ok                bool
	}{
		{10, 15, 5, true},
		{10, 10, 0, true},
		{15, 10, 0, false},
		{^uint64(0) - 1, ^uint64(0), 1, true},
	}
	for _, tt := range tests {
		got, ok := Elapsed(tt.start, tt.stop)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Elapsed(%d,%d) = %d,%v want %d,%v", tt.start, tt.stop, got, ok, tt.want, tt.ok)
		}
	}
}

func TestGCD(t *testing.T) {
	for _, tt := range [][3]uint64{{0, 4, 4}, {4, 6, 2}, {2, 2, 2}, {9, 6, 3}, {7, 5, 1}} {
		if g := gcd(tt[0], tt[1]); g != tt[2] {
			t.Errorf("gcd(%d,%d)=%d want %d", tt[0], tt[1], g, tt[2])
		}
	}
}

func BenchmarkStartStop(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var s uint64
	for b.Loop() {
		a := Start()
		s += Stop() - a
	}
	b.ReportMetric(float64(s)/float64(b.N), "ticks/pair")
}

func BenchmarkStartStopCPU(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var s uint64
	for b.Loop() {
		a, _ := StartCPU()
		c, _ := StopCPU()
		s += c - a
	}
	b.ReportMetric(float64(s)/float64(b.N), "ticks/pair")
}

func BenchmarkPairInAsm(b *testing.B) {
	var s uint64
	for b.Loop() {
		s += PairInAsm()
	}
	b.ReportMetric(float64(s)/float64(b.N), "ticks/pair")
}

// TestFence checks that Fence can be called between counter reads on every
// build (LFENCE on amd64, ISB on arm64, a plain call elsewhere) and that
// the counter does not go backwards across it.
func TestFence(t *testing.T) {
	for i := 0; i < 100; i++ {
		a := Start()
		Fence()
		b := Stop()
		if b < a {
			t.Fatalf("Stop %d < Start %d across Fence", b, a)
		}
	}
}
