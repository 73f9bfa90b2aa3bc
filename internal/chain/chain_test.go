package chain

import (
	"runtime"
	"testing"
)

func pow(m uint64, n int) uint64 {
	r := uint64(1)
	for i := 0; i < n; i++ {
		r *= m
	}
	return r
}

func TestChainsComputeWhatTheySay(t *testing.T) {
	for _, n := range []int{-5, 0, 1, 2, 15, 16, 17, 31, 32, 33, 1000, 1023} {
		wantAdd := uint64(0)
		if n > 0 {
			wantAdd = uint64(n)
		}
		if got := Add(n); got != wantAdd {
			t.Errorf("Add(%d) = %d, want %d", n, got, wantAdd)
		}
		wantMul := uint64(1)
		if n > 0 {
			wantMul = pow(ImulMultiplier, n)
		}
		if got := Imul(n); got != wantMul {
			t.Errorf("Imul(%d) = %#x, want %#x", n, got, wantMul)
		}
	}
}

func TestFromVariantsContinue(t *testing.T) {
	if got := AddFrom(AddFrom(7, 100), 23); got != 130 {
		t.Fatalf("AddFrom chain = %d, want 130", got)
	}
	if got, want := ImulFrom(Imul(17), 15), Imul(32); got != want {
		t.Fatalf("ImulFrom(Imul(17), 15) = %#x, want Imul(32) = %#x", got, want)
	}
	if AddFrom(5, -1) != 5 || ImulFrom(9, 0) != 9 {
		t.Fatal("n ≤ 0 must return x unchanged")
	}
}

func TestImulLatencyKnownOnlyWhenExact(t *testing.T) {
	c, known := ImulLatency()
	if known && !Exact() {
		t.Fatalf("ImulLatency known=%v for the inexact pure-Go chains", known)
	}
	if Exact() && runtime.GOARCH == "amd64" && !known {
		t.Fatal("the amd64 IMUL latency is documented but reported unknown")
	}
	if known != (c > 0) {
		t.Fatalf("ImulLatency = %v, %v: known must mean a positive latency", c, known)
	}
	if known && c <= AddLatency {
		t.Fatalf("ImulLatency %v not above AddLatency %v", c, AddLatency)
	}
}

func TestImulLatencyArm(t *testing.T) {
	tests := []struct {
		name              string
		implementer, part int
		cycles            float64
		core              string
		known             bool
	}{
		{"Cortex-A76", 0x41, 0xd0b, 4, "Cortex-A76", true},
		{"Neoverse N1", 0x41, 0xd0c, 4, "Neoverse N1", true},
		{"Neoverse V1", 0x41, 0xd40, 2, "Neoverse V1", true},
		{"unlisted Arm core", 0x41, 0xd03, 0, "", false},
		{"QEMU max (implementer reserved for software)", 0x00, 0x051, 0, "", false},
		{"Apple", 0x61, 0x022, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, core, known := ImulLatencyArm(tt.implementer, tt.part)
			if c != tt.cycles || core != tt.core || known != tt.known {
				t.Fatalf("ImulLatencyArm(%#x, %#x) = %v, %q, %v; want %v, %q, %v", tt.implementer, tt.part, c, core, known, tt.cycles, tt.core, tt.known)
			}
		})
	}
}
