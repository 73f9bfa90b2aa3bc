package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestNewKBestErrors(t *testing.T) {
	tests := []struct {
		name      string
		k         int
		eps, abs  float64
		max       int
		wantInMsg string
	}{
		{"k zero", 0, 0.01, 0, 10, "k = 0"},
		{"k negative", -3, 0.01, 0, 10, "k = -3"},
		{"eps negative", 3, -0.5, 0, 10, "eps = -0.5"},
		{"eps NaN", 3, math.NaN(), 0, 10, "eps = NaN"},
		{"eps Inf", 3, math.Inf(1), 0, 10, "eps = +Inf"},
		{"absTol negative", 3, 0.01, -1, 10, "absTol = -1"},
		{"absTol NaN", 3, 0.01, math.NaN(), 10, "absTol = NaN"},
		{"absTol Inf", 3, 0.01, math.Inf(1), 10, "absTol = +Inf"},
		{"maxSamples below k", 3, 0.01, 0, 2, "maxSamples = 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kb, err := NewKBest(tt.k, tt.eps, tt.abs, tt.max)
			if err == nil || kb != nil {
				t.Fatalf("NewKBest(%d, %v, %v, %d) = %v, %v; want nil and an error", tt.k, tt.eps, tt.abs, tt.max, kb, err)
			}
			if !errors.Is(err, ErrBadParam) {
				t.Errorf("error %q does not wrap ErrBadParam", err)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) || !strings.HasPrefix(err.Error(), "stats: ") {
				t.Errorf("error %q: want prefix \"stats: \" and to contain %q", err, tt.wantInMsg)
			}
		})
	}
	if _, err := NewKBest(3, 0, 0, 3); err != nil {
		t.Errorf("NewKBest(3, 0, 0, 3) = %v; boundary values must be accepted", err)
	}
}

func TestKBestConvergence(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name          string
		k             int
		eps, abs      float64
		max           int
		samples       []float64
		wantDone      []bool // Add's result after each sample
		wantConverged bool
		wantBest      []float64
		wantRejected  int
	}{
		{
			name: "converges exactly at (1+eps)v1 == vK", k: 3, eps: 0.01, max: 10,
			samples:  []float64{100, 105, 101, 100.5},
			wantDone: []bool{false, false, false, true}, wantConverged: true,
			wantBest: []float64{100, 100.5, 101},
		},
		{
			name: "just outside eps", k: 3, eps: 0.01, max: 10,
			samples:  []float64{100, 101.01, 100.5},
			wantDone: []bool{false, false, false},
			wantBest: []float64{100, 100.5, 101.01},
		},
		{
			name: "fewer than k samples never converge", k: 3, eps: 1, max: 10,
			samples:  []float64{5, 5},
			wantDone: []bool{false, false},
			wantBest: []float64{5, 5},
		},
		{
			name: "gives up at maxSamples", k: 2, eps: 0, max: 3,
			samples:  []float64{5, 7, 9},
			wantDone: []bool{false, false, true},
			wantBest: []float64{5, 7},
		},
		{
			name: "larger samples do not displace kept ones", k: 2, eps: 0, max: 10,
			samples:  []float64{4, 3, 9, 3},
			wantDone: []bool{false, false, false, true}, wantConverged: true,
			wantBest: []float64{3, 3},
		},
		{
			name: "absTol floor converges where eps cannot", k: 3, eps: 0.001, abs: 2, max: 10,
			samples:  []float64{10, 12, 11},
			wantDone: []bool{false, false, true}, wantConverged: true,
			wantBest: []float64{10, 11, 12},
		},
		{
			name: "just above absTol", k: 3, eps: 0.001, abs: 2, max: 10,
			samples:  []float64{10, 12.5, 11},
			wantDone: []bool{false, false, false},
			wantBest: []float64{10, 11, 12.5},
		},
		{
			name: "eps wins when larger than absTol", k: 2, eps: 0.1, abs: 2, max: 10,
			samples:  []float64{100, 109},
			wantDone: []bool{false, true}, wantConverged: true,
			wantBest: []float64{100, 109},
		},
		{
			name: "NaN and Inf ignored but counted", k: 2, eps: 0.1, max: 10,
			samples:  []float64{nan, 10, inf, -inf, 10.5},
			wantDone: []bool{false, false, false, false, true}, wantConverged: true,
			wantBest: []float64{10, 10.5}, wantRejected: 3,
		},
		{
			name: "NaN stream still ends at maxSamples", k: 1, eps: 0, max: 3,
			samples:      []float64{nan, nan, nan},
			wantDone:     []bool{false, false, true},
			wantRejected: 3,
		},
		{
			name: "k=1 converges on the first valid sample", k: 1, eps: 0, max: 5,
			samples:  []float64{nan, 7},
			wantDone: []bool{false, true}, wantConverged: true,
			wantBest: []float64{7}, wantRejected: 1,
		},
		{
			name: "convergence lost when a much smaller value arrives", k: 2, eps: 0.1, max: 10,
			samples:  []float64{10, 10.5, 5},
			wantDone: []bool{false, true, false},
			wantBest: []float64{5, 10},
		},
		{
			name: "adding after done keeps working", k: 2, eps: 0.1, max: 10,
			samples:  []float64{10, 10.5, 10.2, 20},
			wantDone: []bool{false, true, true, true}, wantConverged: true,
			wantBest: []float64{10, 10.2},
		},
		{
			name: "negative values use |v1|", k: 2, eps: 0.5, max: 10,
			samples:  []float64{-10, -6},
			wantDone: []bool{false, true}, wantConverged: true,
			wantBest: []float64{-10, -6},
		},
		{
			name: "zeros agree", k: 2, eps: 0.01, max: 10,
			samples:  []float64{0, 0},
			wantDone: []bool{false, true}, wantConverged: true,
			wantBest: []float64{0, 0},
		},
		{
			name: "max reached and converged on the same sample", k: 2, eps: 0, max: 2,
			samples:  []float64{1, 1},
			wantDone: []bool{false, true}, wantConverged: true,
			wantBest: []float64{1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kb, err := NewKBest(tt.k, tt.eps, tt.abs, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range tt.samples {
				if got := kb.Add(v); got != tt.wantDone[i] {
					t.Errorf("Add(%v) (sample %d) = %v, want %v; best %v", v, i, got, tt.wantDone[i], kb.Best())
				}
				if kb.Done() != tt.wantDone[i] {
					t.Errorf("Done() after sample %d = %v, want %v", i, kb.Done(), tt.wantDone[i])
				}
			}
			checkKBest(t, kb, len(tt.samples), tt.wantRejected, tt.wantConverged, tt.wantBest)
		})
	}
}

// checkKBest asserts the observable state of kb.
func checkKBest(t *testing.T, kb *KBest, count, rejected int, converged bool, best []float64) {
	t.Helper()
	if kb.Count() != count {
		t.Errorf("Count() = %d, want %d", kb.Count(), count)
	}
	if kb.Rejected() != rejected {
		t.Errorf("Rejected() = %d, want %d", kb.Rejected(), rejected)
	}
	if kb.Converged() != converged {
		t.Errorf("Converged() = %v, want %v", kb.Converged(), converged)
	}
	if got := kb.Best(); !slices.Equal(got, best) {
		t.Errorf("Best() = %v, want %v", got, best)
	}
	if kb.Kept() != len(best) {
		t.Errorf("Kept() = %d, want %d", kb.Kept(), len(best))
	}
	if len(best) == 0 {
		if !math.IsNaN(kb.Min()) {
			t.Errorf("Min() = %v with nothing kept, want NaN", kb.Min())
		}
	} else if kb.Min() != best[0] {
		t.Errorf("Min() = %v, want %v", kb.Min(), best[0])
	}
	sp := kb.Spread()
	switch {
	case len(best) < kb.K():
		if !math.IsNaN(sp) {
			t.Errorf("Spread() = %v with %d of %d kept, want NaN", sp, len(best), kb.K())
		}
	case best[0] != 0:
		if want := (best[len(best)-1] - best[0]) / best[0]; sp != want {
			t.Errorf("Spread() = %v, want %v", sp, want)
		}
	}
}

func TestKBestBestIsACopy(t *testing.T) {
	kb, err := NewKBest(2, 0.1, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	kb.Add(3)
	kb.Add(4)
	b := kb.Best()
	b[0] = -100
	if kb.Min() != 3 {
		t.Errorf("changing the slice from Best changed the tracker: Min() = %v, want 3", kb.Min())
	}
}

func TestKBestReset(t *testing.T) {
	kb, err := NewKBest(3, 0.01, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{9, math.NaN(), 8, 7} {
		kb.Add(v)
	}
	if !kb.Done() {
		t.Fatal("want Done after maxSamples samples")
	}
	kb.Reset()
	checkKBest(t, kb, 0, 0, false, nil)
	if kb.Done() {
		t.Error("Done() after Reset = true, want false")
	}
	// Reused, it behaves like a fresh tracker with the same parameters.
	for i, v := range []float64{100, 100.5, 101} {
		if done := kb.Add(v); done != (i == 2) {
			t.Errorf("after Reset, Add(%v) = %v", v, done)
		}
	}
	checkKBest(t, kb, 3, 0, true, []float64{100, 100.5, 101})
}

// TestKBestKeepsSmallest checks against sorting the whole stream.
func TestKBestKeepsSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 5, 17} {
		kb, err := NewKBest(k, 0, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		var all []float64
		for range 500 {
			v := math.Round(r.Float64() * 1000) // ties on purpose
			all = append(all, v)
			kb.Add(v)
		}
		slices.Sort(all)
		if got := kb.Best(); !slices.Equal(got, all[:k]) {
			t.Errorf("k=%d: Best() = %v, want %v", k, got, all[:k])
		}
	}
}

func TestKBestAddDoesNotAllocate(t *testing.T) {
	kb, err := NewKBest(5, 0.001, 0, math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	v := 1000.0
	allocs := testing.AllocsPerRun(1000, func() {
		v = v*0.999 + 1
		kb.Add(v)
		kb.Add(math.NaN())
	})
	if allocs != 0 {
		t.Errorf("Add allocates %v times per run, want 0", allocs)
	}
}

func BenchmarkKBestAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = 1000 + 50*r.ExpFloat64() // noise only lengthens, as with timings
	}
	kb, err := NewKBest(5, 0.001, 0, math.MaxInt)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		kb.Add(vals[i&(len(vals)-1)])
	}
}
