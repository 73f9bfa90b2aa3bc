package tsc

import (
	"bufio"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// checkStep asserts what stepFromDeltas promises for any input, recounting
// every figure from the differences independently of the rule's own code.
func checkStep(t *testing.T, deltas []uint64, s StepInfo) {
	t.Helper()
	if !(s.Step >= 1) || math.IsInf(s.Step, 0) {
		t.Fatalf("Step = %v, want finite and ≥ 1 (%+v)", s.Step, s)
	}
	var nz []uint64
	var g uint64
	for _, d := range deltas {
		if d != 0 {
			nz = append(nz, d)
			g = gcd(g, d)
		}
	}
	if s.Deltas != len(nz) {
		t.Fatalf("Deltas = %d, want %d non-zero differences", s.Deltas, len(nz))
	}
	if len(nz) == 0 {
		if s.Step != 1 || s.GCD != 1 || s.Quantized || s.OffGrid != 0 || s.Outliers != 0 {
			t.Fatalf("no differences: got %+v", s)
		}
		return
	}
	slices.Sort(nz)
	if s.GCD != g || s.MinDelta != nz[0] {
		t.Fatalf("GCD, MinDelta = %d, %d; want %d, %d", s.GCD, s.MinDelta, g, nz[0])
	}
	median := nz[(len(nz)-1)/2]
	outliers, off := 0, 0
	for _, d := range nz {
		if d > 1<<44 || median <= 1<<40 && d > 16*median {
			outliers++
			continue
		}
		k := math.Round(float64(d) / s.Step)
		if k < 1 || math.Abs(float64(d)-k*s.Step) >= 1 {
			off++
		}
	}
	if s.Outliers != outliers {
		t.Fatalf("Outliers = %d, want %d above 16× the median %d", s.Outliers, outliers, median)
	}
	if !s.Quantized {
		if s.Step != float64(s.GCD) || s.OffGrid != 0 {
			t.Fatalf("not quantized: Step %v must be GCD %d with OffGrid 0 (%d)", s.Step, s.GCD, s.OffGrid)
		}
		return
	}
	if s.Step <= float64(s.GCD) {
		t.Fatalf("quantized Step %v not above GCD %d", s.Step, s.GCD)
	}
	if s.Step < minFracQuantum && s.Step != math.Trunc(s.Step) {
		t.Fatalf("Step %v below %d must be a whole number of ticks", s.Step, minFracQuantum)
	}
	if s.OffGrid != off {
		t.Fatalf("OffGrid = %d, but %d differences lie a tick or more from every multiple of %v", s.OffGrid, off, s.Step)
	}
	if share := s.OffGridShare(); share > maxOffGridShare {
		t.Fatalf("OffGridShare = %v > %v", share, maxOffGridShare)
	}
}

// readTrace reads one difference a line.
func readTrace(t testing.TB, path string) []uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ds []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ds = append(ds, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestStepFromRecordedTraces runs the rule on differences recorded on real
// machines (testdata/README.md). Every file must be listed here.
func TestStepFromRecordedTraces(t *testing.T) {
	want := map[string]float64{
		// Zen 5 guest: 26-tick quantum, 1 to 7 differences of 1 tick.
		"kvm-amd-zen5-2596mhz-1.txt":        26,
		"kvm-amd-zen5-2596mhz-2.txt":        26,
		"kvm-amd-zen5-2596mhz-3.txt":        26,
		"kvm-amd-zen5-2596mhz-cpu0.txt":     26,
		"kvm-amd-zen5-2596mhz-unpinned.txt": 26,
		// Family 25 model 17 guest: 26-tick quantum with 1-tick differences
		// and differences of 26k−1 ticks, at rates that vary by the minute.
		"kvm-amd-fam25-2596mhz-clean.txt": 26,
		"kvm-amd-fam25-2596mhz-low.txt":   26,
		"kvm-amd-fam25-2596mhz-high.txt":  26,
		"kvm-amd-fam25-2596mhz-high2.txt": 26,
		"kvm-amd-fam25-2596mhz-cpu0.txt":  26,
		// qemu-aarch64-static 7.2 on that machine: CNTVCT at 62.5 MHz taken
		// from the host's microsecond clock (most of the 4000 pairs read 0).
		"qemu-aarch64-7.2-cntvct-62.5mhz.txt": 62.5,
		// Zen 3 guest (family 25 model 1): TSC 2445.406 MHz read in steps
		// of 24 and 25 ticks, every difference within half a tick of a
		// multiple of 24.5 but for a few interrupted pairs.
		"kvm-amd-zen3-2445mhz-1.txt":    24.5,
		"kvm-amd-zen3-2445mhz-2.txt":    24.5,
		"kvm-amd-zen3-2445mhz-cpu0.txt": 24.5,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("testdata holds %d traces, the table %d", len(files), len(want))
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("%s is not in the table", name)
			}
			ds := readTrace(t, path)
			s := stepFromDeltas(ds)
			checkStep(t, ds, s)
			if math.Abs(s.Step-w) > 0.1 {
				t.Fatalf("Step = %v, want %v ± 0.1 (%+v)", s.Step, w, s)
			}
			t.Logf("Step %.4f, GCD %d, %d off-grid (%.2f%%), %d outliers", s.Step, s.GCD, s.OffGrid, 100*s.OffGridShare(), s.Outliers)
		})
	}
}

// TestStepFromShortTraces: Steps takes stepPairs pairs, fewer than the
// recorded traces hold; every run of stepPairs consecutive pairs of every
// trace (the non-zero differences among them) must give the trace's step.
func TestStepFromShortTraces(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		ds := readTrace(t, path)
		whole := stepFromDeltas(ds).Step
		// The traces hold the non-zero differences of 4000 pairs: a run of
		// stepPairs pairs holds that share of them.
		n := len(ds) * stepPairs / 4000
		for from := 0; from+n <= len(ds); from += n {
			s := stepFromDeltas(ds[from : from+n])
			if math.Abs(s.Step-whole) > 0.1 {
				t.Errorf("%s: differences %d to %d: Step = %v, the whole trace's %v (%+v)", filepath.Base(path), from, from+n, s.Step, whole, s)
			}
		}
	}
}

// model simulates MeasureStep's loop on a counter whose value at time ns is
// read(ns): a pair costs readNs plus loopNs per spacing round plus an
// exponential jitter, a share of pairs is interrupted for 5–50 µs, and the
// next pair starts at a random phase.
type model struct {
	read      func(ns float64) uint64
	readNs    float64
	loopNs    float64
	jitterNs  float64
	interrupt float64
}

func (m model) deltas(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	t := 1e6 + r.Float64()*1e6
	ds := make([]uint64, 0, n)
	for i := 0; i < n; i++ {
		a := m.read(t)
		dur := m.readNs + float64(i%64)*m.loopNs + r.ExpFloat64()*m.jitterNs
		if r.Float64() < m.interrupt {
			dur += 5000 + 45000*r.Float64()
		}
		if b := m.read(t + dur); b > a {
			ds = append(ds, b-a)
		}
		t += dur + 100*r.Float64()
	}
	return ds
}

// The counters seen so far, as models.
var (
	// Intel Xeon guest: a 2.1 GHz TSC that counts by 2 (even values only).
	intelEven = model{read: func(ns float64) uint64 { return 2 * uint64(ns*1.05) }, readNs: 20, loopNs: 0.3, jitterNs: 2, interrupt: 1e-3}
	// AMD Zen 3 guest: 2445.432 MHz updated every 10 ns, so a step adds 24
	// or 25 ticks in a fixed pattern.
	zen3 = model{read: func(ns float64) uint64 { return uint64(math.Floor(ns/10) * 24.45432) }, readNs: 25, loopNs: 0.31, jitterNs: 2, interrupt: 1e-3}
	// AMD Zen 5 guest: exactly 26 ticks every 10 ns (strays are added apart).
	zen5 = model{read: func(ns float64) uint64 { return 26 * uint64(ns/10) }, readNs: 25, loopNs: 0.27, jitterNs: 3, interrupt: 1e-3}
	// This machine read as 2596.14 MHz updated every 10 ns: 25.9614 ticks a
	// step, so differences are 26k or 26k−1.
	fam25 = model{read: func(ns float64) uint64 { return uint64(math.Floor(ns/10) * 25.96142) }, readNs: 25, loopNs: 0.27, jitterNs: 3, interrupt: 1e-3}
	// arm64 generic timers counting every tick at 1 GHz, 62.5 MHz, 25 MHz.
	arm1GHz  = model{read: func(ns float64) uint64 { return uint64(ns) }, readNs: 30, loopNs: 1, jitterNs: 2, interrupt: 1e-3}
	arm62MHz = model{read: func(ns float64) uint64 { return uint64(ns * 0.0625) }, readNs: 30, loopNs: 1, jitterNs: 2, interrupt: 1e-3}
	arm25MHz = model{read: func(ns float64) uint64 { return uint64(ns * 0.025) }, readNs: 30, loopNs: 1, jitterNs: 2, interrupt: 1e-3}
	// Armv8.6 scaled counter: 1 GHz nominal, advancing 40 ticks every 40 ns.
	arm40 = model{read: func(ns float64) uint64 { return 40 * uint64(ns/40) }, readNs: 30, loopNs: 1, jitterNs: 2, interrupt: 1e-3}
	// qemu-user: CNTVCT derived from the host's microsecond clock, at
	// QEMU's 62.5 MHz (62.5 ticks a µs) and at 1 GHz (1000 ticks a µs).
	qemu62 = model{read: func(ns float64) uint64 { return uint64(math.Floor(ns/1000) * 62.5) }, readNs: 300, loopNs: 5, jitterNs: 200, interrupt: 1e-3}
	qemu1G = model{read: func(ns float64) uint64 { return 1000 * uint64(ns/1000) }, readNs: 300, loopNs: 5, jitterNs: 200, interrupt: 1e-3}
	// The Go monotonic clock where it is a true 1-ns clock: slower, noisier
	// reads.
	mono1ns = model{read: func(ns float64) uint64 { return uint64(ns) }, readNs: 45, loopNs: 0.3, jitterNs: 15, interrupt: 2e-3}
)

// withStrays returns ds with a share of its differences (chosen at random,
// deterministically) replaced by stray(r).
func withStrays(ds []uint64, share float64, seed uint64, stray func(r *rand.Rand) uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x57a7))
	out := slices.Clone(ds)
	for i := range out {
		if r.Float64() < share {
			out[i] = stray(r)
		}
	}
	return out
}

func oneTick(*rand.Rand) uint64 { return 1 }

// uniformNoise returns n differences drawn evenly from [lo, hi].
func uniformNoise(n int, lo, hi, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x0115e))
	ds := make([]uint64, n)
	for i := range ds {
		ds[i] = lo + r.Uint64N(hi-lo+1)
	}
	return ds
}

func repeat(v uint64, n int) []uint64 {
	ds := make([]uint64, n)
	for i := range ds {
		ds[i] = v
	}
	return ds
}

func TestStepFromDeltas(t *testing.T) {
	const n = 4000
	zen5Strays := func(share float64, stray func(*rand.Rand) uint64) []uint64 {
		return withStrays(zen5.deltas(n, 5), share, 55, stray)
	}
	tests := []struct {
		name      string
		deltas    []uint64
		step, tol float64
		quantized bool
	}{
		// Hand-written cases (kept from the first rule).
		{"none", nil, 1, 0, false},
		{"step 2", []uint64{20, 22, 24, 26, 40, 38}, 2, 0, false},
		{"step 1", []uint64{20, 21, 23, 40}, 1, 0, false},
		{"quantum 24.45", []uint64{24, 25, 49, 73, 74, 98, 98, 122, 245, 489, 955}, 24.45, 0.05, true},
		{"not multiples", []uint64{24, 37, 49}, 1, 0, false},
		{"quantum with interrupt", []uint64{24, 25, 49, 73, 74, 98, 98, 122, 245, 50001}, 24.45, 0.05, true},

		// Every counter seen so far, simulated.
		{"intel even 2.1 GHz", intelEven.deltas(n, 1), 2, 0, false},
		{"zen3 24.45", zen3.deltas(n, 2), 24.454, 0.05, true},
		{"zen5 26 clean", zen5.deltas(n, 3), 26, 0, false},
		{"zen5 26, 0.5% 1-tick", zen5Strays(0.005, oneTick), 26, 0.1, true},
		{"zen5 26, 1.2% 1-tick", zen5Strays(0.012, oneTick), 26, 0.1, true},
		{"fam25 25.96 (26k, 26k-1)", fam25.deltas(n, 4), 26, 0.1, true},
		{"fam25 25.96, 1% 1-tick", withStrays(fam25.deltas(n, 4), 0.01, 44, oneTick), 26, 0.1, true},
		{"arm64 1 GHz", arm1GHz.deltas(n, 6), 1, 0, false},
		{"arm64 62.5 MHz (0 or 1 tick)", arm62MHz.deltas(n, 7), 1, 0, false},
		{"arm64 25 MHz (0 or 1 tick)", arm25MHz.deltas(n, 8), 1, 0, false},
		{"arm64 40-tick steps", arm40.deltas(n, 9), 40, 0, false},
		{"qemu-user 62.5 MHz, 1 µs steps", qemu62.deltas(n, 10), 62.5, 0.05, true},
		{"qemu-user 1 GHz, 1 µs steps", qemu1G.deltas(n, 11), 1000, 0, false},

		// Fine counters: no quantum may be invented.
		{"monotonic 1 ns", mono1ns.deltas(n, 12), 1, 0, false},
		{"uniform noise 30..200", uniformNoise(n, 30, 200, 13), 1, 0, false},
		{"uniform noise 1..100000", uniformNoise(n, 1, 100000, 14), 1, 0, false},
		{"uniform noise 40..42", uniformNoise(n, 40, 42, 15), 1, 0, false},

		// Adversarial strays. Up to 1 difference in 4 off the grid, the grid
		// is kept (with OffGrid saying how many): 1-tick differences are
		// impossible readings (a pair of reads takes tens of ticks), and
		// sizing samples for 1 tick when most reads move by 26 is the
		// mistake this rule exists to avoid. Beyond 1 in 4 the grid no
		// longer describes the counter and Step falls back to the GCD.
		{"zen5, 5% 1-tick", zen5Strays(0.05, oneTick), 26, 0.1, true},
		{"zen5, 20% 1-tick", zen5Strays(0.20, oneTick), 26, 0.1, true},
		{"zen5, 30% 1-tick", zen5Strays(0.30, oneTick), 1, 0, false},
		{"zen5, 5% uniform 1..200", zen5Strays(0.05, func(r *rand.Rand) uint64 { return 1 + r.Uint64N(200) }), 26, 0.1, true},
		{"zen5, 20% uniform 1..200", zen5Strays(0.20, func(r *rand.Rand) uint64 { return 1 + r.Uint64N(200) }), 26, 0.1, true},
		{"zen3, 5% uniform 1..200", withStrays(zen3.deltas(n, 16), 0.05, 66, func(r *rand.Rand) uint64 { return 1 + r.Uint64N(200) }), 24.454, 0.05, true},
		// An even-only counter with odd strays keeps step 2 (exact
		// multiples): 80% even of 4000 is far from the 50% of a fine counter.
		{"intel even, 1% odd", withStrays(intelEven.deltas(n, 17), 0.01, 77, func(r *rand.Rand) uint64 { return 2*r.Uint64N(60) + 41 }), 2, 0, true},
		{"intel even, 20% odd", withStrays(intelEven.deltas(n, 18), 0.20, 88, func(r *rand.Rand) uint64 { return 2*r.Uint64N(60) + 41 }), 2, 0, true},

		// Few differences: a grid needs 30 bits of evidence.
		{"3 differences", []uint64{26, 52, 1}, 1, 0, false},
		{"16 differences", zen5.deltas(16, 19), 26, 0, false},
		{"16 differences, one 1-tick", append(zen5.deltas(15, 19), 1), 26, 0.1, true},
		{"one difference", []uint64{26}, 26, 0, false},

		// All equal: the GCD is the only honest answer.
		{"all 50", repeat(50, n), 50, 0, false},
		{"all 1", repeat(1, n), 1, 0, false},

		// Huge outliers: left out above 16× the median, and above 2^44 ticks
		// even when they are the majority (float64 cannot place them on a
		// grid to a tick).
		{"zen5, 10% huge", withStrays(zen5.deltas(n, 20), 0.10, 99, func(r *rand.Rand) uint64 { return math.MaxUint64 - r.Uint64N(1<<40) }), 26, 0.1, true},
		{"zen5, 60% huge", withStrays(zen5.deltas(n, 21), 0.60, 98, func(r *rand.Rand) uint64 { return math.MaxUint64 - r.Uint64N(1<<40) }), 26, 0.1, true},
		{"max uint64", []uint64{math.MaxUint64, math.MaxUint64}, math.MaxUint64, 0, false},

		// A quantum of 40.4 seen mostly at even multiples (80/81, 161/162)
		// with 5% at the third: the divisor, not 80.8, is the step.
		{"even multiples mostly", evenMultiples(n), 40.4, 0.05, true},
		// Two adjacent values are all a fine counter could show if its
		// reads never varied, and exactly what qemu's 62/63 looks like: the
		// rule cannot tell them apart and reports a quantum. MeasureStep's
		// spacing loop spreads a fine counter over many more values.
		{"two adjacent values (limit)", uniformNoise(n, 40, 41, 22), 40.5, 0.05, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stepFromDeltas(tt.deltas)
			checkStep(t, tt.deltas, got)
			if got.Quantized != tt.quantized || math.Abs(got.Step-tt.step) > tt.tol {
				t.Fatalf("Step %v quantized %v, want %v ± %v quantized %v (%+v)", got.Step, got.Quantized, tt.step, tt.tol, tt.quantized, got)
			}
		})
	}
}

// evenMultiples returns differences of a 40.4-tick quantum: 60% two
// quanta, 35% four, 5% three.
func evenMultiples(n int) []uint64 {
	r := rand.New(rand.NewPCG(23, 0xe7e))
	ds := make([]uint64, n)
	for i := range ds {
		k := 2.0
		switch u := r.Float64(); {
		case u < 0.05:
			k = 3
		case u < 0.40:
			k = 4
		}
		phase := r.Float64()
		ds[i] = uint64(math.Floor(k*40.4 + phase))
	}
	return ds
}

// TestMeasureStepInvariants checks the live counter without assuming what
// it is: whatever step the rule finds, the differences of the same run
// must fit it as StepInfo states (GCD, MinDelta, OffGrid, Outliers recounted
// independently). Nothing here depends on how noisy the machine is.
func TestMeasureStepInvariants(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < 5; i++ {
		ds := readDeltas(4000)
		s := stepFromDeltas(ds)
		checkStep(t, ds, s)
		t.Logf("run %d: Step %.4f, GCD %d, quantized %v, %d off-grid (%.2f%%), %d outliers", i, s.Step, s.GCD, s.Quantized, s.OffGrid, 100*s.OffGridShare(), s.Outliers)
	}
	s := MeasureStep(100)
	if !(s.Step >= 1) || math.IsInf(s.Step, 0) || s.Deltas > 100 || s.OffGrid+s.Outliers > s.Deltas {
		t.Fatalf("MeasureStep(100) = %+v", s)
	}
	if s := Steps(); s != Steps() {
		t.Fatalf("Steps() is not cached: %+v then %+v", s, Steps())
	}
}

func TestOffGridShare(t *testing.T) {
	tests := []struct {
		s    StepInfo
		want float64
	}{
		{StepInfo{}, 0},
		{StepInfo{Deltas: 4000, OffGrid: 16}, 0.004},
		{StepInfo{Deltas: 4000, OffGrid: 16, Outliers: 2000}, 0.008},
		{StepInfo{Deltas: 10, Outliers: 10}, 0},
	}
	for _, tt := range tests {
		if got := tt.s.OffGridShare(); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v.OffGridShare() = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestGridBits pins the evidence figure to hand-computed values.
func TestGridBits(t *testing.T) {
	tests := []struct {
		on, off int
		p, want float64
	}{
		{10, 0, 0.5, 10},
		{3, 1, 0.25, 6 - 2}, // 3·2 bits less log2 C(4,1) = 2
		{0, 5, 0.5, 0},
		{5, 0, 1, 0},
	}
	for _, tt := range tests {
		if got := gridBits(tt.on, tt.off, tt.p); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("gridBits(%d, %d, %v) = %v, want %v", tt.on, tt.off, tt.p, got, tt.want)
		}
	}
}

// FuzzStepFromDeltas: for any differences, no panic, and every promise of
// StepInfo holds (checkStep: Step finite and ≥ 1, counts consistent).
func FuzzStepFromDeltas(f *testing.F) {
	enc := func(ds []uint64, wide bool) []byte {
		var b []byte
		for _, d := range ds {
			if wide {
				b = binary.LittleEndian.AppendUint64(b, d)
			} else {
				b = binary.LittleEndian.AppendUint16(b, uint16(d))
			}
		}
		return b
	}
	f.Add(enc(zen5.deltas(200, 1), false), false)
	f.Add(enc(withStrays(zen3.deltas(200, 2), 0.05, 3, oneTick), false), false)
	f.Add(enc(intelEven.deltas(100, 4), false), false)
	f.Add(enc([]uint64{math.MaxUint64, 1, 0, 26}, true), true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, wide bool) {
		// 2 bytes a difference keeps values small, where grids are likely;
		// 8 reaches the extremes. At most 4096, as MeasureStep's default.
		var ds []uint64
		for len(data) > 0 && len(ds) < 4096 {
			if wide && len(data) >= 8 {
				ds = append(ds, binary.LittleEndian.Uint64(data))
				data = data[8:]
			} else if len(data) >= 2 {
				ds = append(ds, uint64(binary.LittleEndian.Uint16(data)))
				data = data[2:]
			} else {
				ds = append(ds, uint64(data[0]))
				data = data[1:]
			}
		}
		checkStep(t, ds, stepFromDeltas(ds))
	})
}

func BenchmarkStepFromDeltas(b *testing.B) {
	for _, bc := range []struct {
		name   string
		deltas []uint64
	}{
		{"zen5 trace", readTrace(b, filepath.Join("testdata", "kvm-amd-zen5-2596mhz-1.txt"))},
		{"uniform noise 30..200", uniformNoise(4000, 30, 200, 1)},
		{"monotonic 1 ns", mono1ns.deltas(4000, 2)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				stepFromDeltas(bc.deltas)
			}
		})
	}
}

// BenchmarkMeasureStep times MeasureStep(4000) and shows how steady it is
// on this machine: the median and largest Step of the run and the share of
// calls within 0.1 tick of the largest (at-max). Pin it (taskset -c 1).
func BenchmarkMeasureStep(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var steps []float64
	for b.Loop() {
		steps = append(steps, MeasureStep(4000).Step)
	}
	slices.Sort(steps)
	top := steps[len(steps)-1]
	at := 0
	for _, s := range steps {
		if s >= top-0.1 {
			at++
		}
	}
	b.ReportMetric(steps[len(steps)/2], "median-step")
	b.ReportMetric(top, "max-step")
	b.ReportMetric(float64(at)/float64(len(steps)), "at-max")
}
