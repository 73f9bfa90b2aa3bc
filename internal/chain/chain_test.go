package chain

import (
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
		if got := AddImm(n); got != wantAdd {
			t.Errorf("AddImm(%d) = %d, want %d", n, got, wantAdd)
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
	if got := AddImmFrom(AddImmFrom(7, 100), 23); got != 130 {
		t.Fatalf("AddImmFrom chain = %d, want 130", got)
	}
	if got, want := ImulFrom(Imul(17), 15), Imul(32); got != want {
		t.Fatalf("ImulFrom(Imul(17), 15) = %#x, want Imul(32) = %#x", got, want)
	}
	if AddFrom(5, -1) != 5 || AddImmFrom(5, 0) != 5 || ImulFrom(9, 0) != 9 {
		t.Fatal("n ≤ 0 must return x unchanged")
	}
}

// TestAddUsesTheAddend checks that Add's links add the value in memory, not
// an immediate: with the addend changed, the chain's sum follows it.
func TestAddUsesTheAddend(t *testing.T) {
	old := addend
	t.Cleanup(func() { addend = old })
	addend = 3
	if got := AddFrom(1, 33); got != 1+3*33 {
		t.Fatalf("AddFrom(1, 33) with addend 3 = %d, want %d", got, 1+3*33)
	}
}
