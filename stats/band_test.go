package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// quantize returns what a counter of the given step reads for a duration
// d: the difference of two reads, the first at a random phase of the step.
func quantize(r *rand.Rand, d, step float64) float64 {
	if step == 0 {
		return d
	}
	phase := r.Float64() * step
	return step * (math.Floor((phase+d)/step) - math.Floor(phase/step))
}

// pairedRun simulates n interleaved pairs: A takes base ticks and B
// base·ratio(i), both scaled by a core-clock factor that wanders from round
// to round (shared within a pair), with independent noise of sd ticks, read
// by a counter of the given step.
func pairedRun(seed uint64, n int, base, step, sd float64, ratio func(i int) float64) (a, b []float64) {
	r := rand.New(rand.NewPCG(seed, 2))
	clock := 1.0
	for i := range n {
		clock *= math.Exp(0.003 * r.NormFloat64())
		a = append(a, quantize(r, base*clock+sd*r.NormFloat64(), step))
		b = append(b, quantize(r, base*clock*ratio(i)+sd*r.NormFloat64(), step))
	}
	return a, b
}

func constRatio(q float64) func(int) float64 { return func(int) float64 { return q } }

func TestComparePairedDerivedBand(t *testing.T) {
	// The issue: 10000 against 10020 dependent ADDs, about 6000 ticks on a
	// 2-tick counter, tight pairs, a ratio of 1.0019. A fixed ±0.2% band
	// hid it.
	tightA, tightB := pairedRun(1, 60, 6000, 2, 0.5, constRatio(1.0019))
	fastA, fastB := pairedRun(2, 60, 6000, 2, 0.5, constRatio(1/1.0019))
	// A counter of 26-tick steps on about 7000-tick samples: half a step is
	// about 0.19%. The Walsh averages bunch at multiples of half a step, so
	// the interval is narrow but sits on 1.0018 for a true 1.002: only the
	// band keeps it from a verdict.
	coarseA, coarseB := pairedRun(3, 60, 7000, 26, 2, constRatio(1.002))
	// The ratio moves from 1.000 to 1.010 between the run's halves.
	driftA, driftB := pairedRun(4, 60, 6000, 0, 0.5, func(i int) float64 {
		if i < 30 {
			return 1
		}
		return 1.01
	})
	tests := []struct {
		name        string
		a, b        []float64
		opt         CompareOptions
		wantVerdict string
		wantSource  string
		wantReason  string
		detectable  func(d float64) bool
	}{
		{"0.19% slower, tight pairs, quantum given", tightA, tightB, CompareOptions{Quantum: 2},
			VerdictSlower, BandQuantum, "lies beyond the noise band ±0.017% derived from the counter quantum",
			func(d float64) bool { return d < 0.002 }},
		{"0.19% slower, quantum estimated", tightA, tightB, CompareOptions{},
			VerdictSlower, BandQuantum, "derived from the counter quantum", nil},
		{"0.19% faster", fastA, fastB, CompareOptions{},
			VerdictFaster, BandQuantum, "excludes 1", nil},
		{"the old fixed 0.2% band hides it", tightA, tightB, CompareOptions{NoiseBand: 0.002},
			VerdictSame, BandFixed, "but reaches into the fixed noise band ±0.2%", nil},
		{"no band", tightA, tightB, CompareOptions{NoiseBand: NoNoiseBand},
			VerdictSlower, BandNone, "no noise band", nil},
		{"coarse counter", coarseA, coarseB, CompareOptions{Quantum: 26},
			VerdictSame, BandQuantum, "reaches into the noise band ±0.18% derived from the counter quantum",
			func(d float64) bool { return d > 0.0018 }},
		{"drifting ratio", driftA, driftB, CompareOptions{},
			VerdictSame, BandDrift, "derived from the ratio's drift within the run",
			func(d float64) bool { return d > 0.005 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ComparePaired(tt.a, tt.b, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.wantVerdict || c.BandSource != tt.wantSource || !strings.Contains(c.Reason, tt.wantReason) {
				t.Errorf("verdict %q, band %v (%s), reason %q; want %q, %s, reason with %q",
					c.Verdict, c.NoiseBand, c.BandSource, c.Reason, tt.wantVerdict, tt.wantSource, tt.wantReason)
			}
			if c.Detectable < c.NoiseBand || (tt.detectable != nil && !tt.detectable(c.Detectable)) {
				t.Errorf("Detectable %v with band %v: not as expected", c.Detectable, c.NoiseBand)
			}
			switch c.BandSource {
			case BandQuantum:
				if c.NoiseBand != c.QuantumBand || c.DriftBand > c.QuantumBand {
					t.Errorf("quantum band: %+v", c)
				}
			case BandDrift:
				if c.NoiseBand != c.DriftBand || c.QuantumBand > c.DriftBand || !(c.DriftBand > 0.003 && c.DriftBand < 0.01) {
					t.Errorf("drift band: NoiseBand %v DriftBand %v QuantumBand %v; want the drift's ±0.5%% less the halves' intervals", c.NoiseBand, c.DriftBand, c.QuantumBand)
				}
			}
			if q := tt.opt.Quantum; q > 0 && (c.Quantum != q || !closeTo(c.QuantumBand, q/(2*min(Median(tt.a), Median(tt.b))), 1e-12)) {
				t.Errorf("Quantum %v QuantumBand %v, want %v and half of it over the smaller median", c.Quantum, c.QuantumBand, q)
			}
		})
	}
}

func TestVisibleQuantum(t *testing.T) {
	tests := []struct {
		name  string
		sides [][]float64
		want  float64
	}{
		{"continuous", [][]float64{{1.5, 2.25, 3.125}, {7, 8.5}}, 0},
		{"2-tick steps", [][]float64{{6000, 6002, 6002, 6006}, {6010, 6014}}, 2},
		{"per call: 26 ticks over 4 calls", [][]float64{{100, 106.5, 106.5, 113}}, 6.5},
		{"all equal", [][]float64{{5, 5, 5}}, 0},
		{"the smaller of two quantized sides", [][]float64{{10, 12, 12}, {10, 11, 11}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := visibleQuantum(tt.sides...); got != tt.want {
				t.Errorf("visibleQuantum = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestComparePairedDetectable checks that Detectable means what it says: a
// true difference of that size is called in about DetectablePower of the
// repetitions.
func TestComparePairedDetectable(t *testing.T) {
	const n, trials = 40, 200
	pa, pb := pairedRun(5, n, 5000, 0, 10, constRatio(1))
	pilot, err := ComparePaired(pa, pb, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := pilot.Detectable
	called := 0
	for i := range trials {
		a, b := pairedRun(uint64(100+i), n, 5000, 0, 10, constRatio(1+d))
		c, err := ComparePaired(a, b, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == VerdictSlower {
			called++
		}
	}
	t.Logf("Detectable %.4g%%: a true difference of that size called in %d of %d runs", 100*d, called, trials)
	if p := float64(called) / trials; p < 0.6 || p > 0.97 {
		t.Errorf("a difference of Detectable = %v called in %v of the runs, want about %v", d, p, DetectablePower)
	}
}

// TestComparePairedMinBand: MinBand raises a narrower derived or fixed band
// to itself (source BandSpread), so a difference smaller than the sides'
// own spread is not called; a wider band, or no band at all, is left as it
// is; a MinBand outside [0, 1) is a bad parameter.
func TestComparePairedMinBand(t *testing.T) {
	a, b := pairedRun(7, 60, 6000, 2, 1, constRatio(1.01)) // a clear 1% difference
	tests := []struct {
		name       string
		opt        CompareOptions
		band       float64
		source     string
		verdict    string
		detectable float64 // at least
	}{
		{"no floor", CompareOptions{}, -1, "", VerdictSlower, 0},
		{"floor below the band", CompareOptions{NoiseBand: 0.005, MinBand: 0.001}, 0.005, BandFixed, VerdictSlower, 0.005},
		{"floor above the difference", CompareOptions{MinBand: 0.02}, 0.02, BandSpread, VerdictSame, 0.02},
		{"floor above a fixed band", CompareOptions{NoiseBand: 0.002, MinBand: 0.015}, 0.015, BandSpread, VerdictSame, 0.015},
		{"no band asked", CompareOptions{NoiseBand: NoNoiseBand, MinBand: 0.02}, 0, BandNone, VerdictSlower, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ComparePaired(a, b, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.band >= 0 && (c.NoiseBand != tt.band || c.BandSource != tt.source) {
				t.Errorf("band ±%v (%s), want ±%v (%s)", c.NoiseBand, c.BandSource, tt.band, tt.source)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %q (%s), want %q", c.Verdict, c.Reason, tt.verdict)
			}
			if c.Detectable < tt.detectable {
				t.Errorf("detectable %v below the band %v", c.Detectable, tt.detectable)
			}
			if tt.source == BandSpread && !strings.Contains(c.Reason, "spread of the sides' own figures") {
				t.Errorf("reason %q does not name the sides' spread", c.Reason)
			}
		})
	}
	for _, bad := range []float64{-0.1, 1, math.NaN(), math.Inf(1)} {
		if _, err := ComparePaired(a, b, CompareOptions{MinBand: bad}); err == nil {
			t.Errorf("MinBand %v: no error", bad)
		}
	}
}
