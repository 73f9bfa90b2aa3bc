package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lognormal returns n samples around base with multiplicative noise sigma.
func lognormal(r *rand.Rand, n int, base, sigma float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = base * math.Exp(sigma*r.NormFloat64())
	}
	return xs
}

func scaled(r *rand.Rand, a []float64, factor, sigma float64) []float64 {
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = v * factor * math.Exp(sigma*r.NormFloat64())
	}
	return b
}

func TestComparePairedIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a := lognormal(r, 10, 1000, 0.05)
	c, err := ComparePaired(a, slices.Clone(a), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.N != 10 || c.Ratio != 1 || c.Lo != 1 || c.Hi != 1 || c.PValue != 1 || c.Significant || c.Verdict != VerdictSame {
		t.Errorf("identical inputs: got %+v; want ratio 1, CI [1,1], p 1, %q", c, VerdictSame)
	}
	if c.Zeros != 10 || len(c.Warnings) != 1 || !errors.Is(c.Warnings[0], ErrCoarse) {
		t.Errorf("identical inputs: Zeros %d, Warnings %v; want 10 and one ErrCoarse", c.Zeros, c.Warnings)
	}
	// Continuous values without repeats: no visible quantum; a steady ratio:
	// no drift. The derived band is 0, and so is what could be detected.
	if c.Test != "wilcoxon" || c.Alpha != 0.05 || c.Confidence != 0.95 || c.NoiseBand != 0 || c.BandSource != BandQuantum || c.Quantum != 0 || c.DriftBand != 0 || c.Detectable != 0 {
		t.Errorf("defaults not filled in: %+v", c)
	}
	if !strings.Contains(c.Reason, "does not reject") {
		t.Errorf("Reason %q, want it to say the test does not reject", c.Reason)
	}
}

func TestComparePairedDetectsOnePercent(t *testing.T) {
	tests := []struct {
		name        string
		factor      float64
		wantVerdict string
	}{
		{"B 1% slower", 1.01, VerdictSlower},
		{"B 1% faster", 1 / 1.01, VerdictFaster},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			a := lognormal(r, 40, 5000, 0.02)
			b := scaled(r, a, tt.factor, 0.003)
			c, err := ComparePaired(a, b, DefaultCompareOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Significant || c.Verdict != tt.wantVerdict || !(c.PValue < 0.01) {
				t.Errorf("got significant %v verdict %q p %v; want true %q p < 0.01", c.Significant, c.Verdict, c.PValue, tt.wantVerdict)
			}
			if !(c.Lo <= tt.factor && tt.factor <= c.Hi) || !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) {
				t.Errorf("CI [%v, %v] (ratio %v) does not contain the true ratio %v", c.Lo, c.Hi, c.Ratio, tt.factor)
			}
			if !c.Exact || c.Zeros != 0 || c.Warnings != nil {
				t.Errorf("Exact %v Zeros %d Warnings %v; want true 0 nil", c.Exact, c.Zeros, c.Warnings)
			}
		})
	}
}

// TestComparePairedAA checks the false positive rate and the interval's
// coverage on A/A data: both columns from the same distribution.
func TestComparePairedAA(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const trials = 200
	var sig, sigNoBand, rejected, covered int
	for range trials {
		a := lognormal(r, 40, 2000, 0.01)
		b := lognormal(r, 40, 2000, 0.01)
		c, err := ComparePaired(a, b, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Significant {
			sig++
		}
		if c.PValue < c.Alpha {
			rejected++
		}
		if c.Lo <= 1 && 1 <= c.Hi {
			covered++
		}
		c, err = ComparePaired(a, b, CompareOptions{NoiseBand: NoNoiseBand})
		if err != nil {
			t.Fatal(err)
		}
		if c.Significant {
			sigNoBand++
		}
	}
	t.Logf("A/A, %d trials: significant %d (no band %d), p < 0.05 %d, CI covers 1 in %d", trials, sig, sigNoBand, rejected, covered)
	if trials-sig < 180 {
		t.Errorf("A/A: %d of %d trials not significant, want >= 180", trials-sig, trials)
	}
	// The test is calibrated: about 5% rejections (10 of 200, sd ~3).
	if rejected > 20 || sigNoBand > 20 {
		t.Errorf("A/A: p < 0.05 in %d trials, significant without band in %d; want <= 20 (5%% level)", rejected, sigNoBand)
	}
	if covered < 180 {
		t.Errorf("A/A: the 95%% CI covers the true ratio in %d of %d trials, want >= 180", covered, trials)
	}
}

// TestComparePairedHodgesLehmann checks Ratio, Lo and Hi against a brute
// force over all Walsh averages.
func TestComparePairedHodgesLehmann(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{6, 7, 10, 20, 33} {
		a := lognormal(r, n, 100, 0.1)
		b := scaled(r, a, 1.05, 0.05)
		c, err := ComparePaired(a, b, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var walsh []float64
		for i := range n {
			for j := i; j < n; j++ {
				walsh = append(walsh, (math.Log(b[i]/a[i])+math.Log(b[j]/a[j]))/2)
			}
		}
		slices.Sort(walsh)
		m := len(walsh)
		hl := walsh[m/2]
		if m%2 == 0 {
			hl = (walsh[m/2-1] + walsh[m/2]) / 2
		}
		k := ciRank(n, 0.95)
		for _, v := range []struct {
			name      string
			got, want float64
		}{
			{"Ratio", c.Ratio, math.Exp(hl)},
			{"Lo", c.Lo, math.Exp(walsh[k-1])},
			{"Hi", c.Hi, math.Exp(walsh[int64(m)-k])},
		} {
			if !closeTo(v.got, v.want, 1e-12) {
				t.Errorf("n=%d: %s = %v, want %v", n, v.name, v.got, v.want)
			}
		}
	}
}

func TestWalshKth(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, d := range [][]float64{
		{0},
		{-1, 0, 0, 2},
		{3, 3, 3},
		{-5e-3, -1e-300, 0, 1e-300, 7e-3},
		{math.Round(r.NormFloat64()), math.Round(r.NormFloat64()), r.NormFloat64(), -2, -2, 0, 1, 1, 1},
	} {
		d = slices.Clone(d)
		slices.Sort(d)
		var sums []float64
		for i := range d {
			for j := i; j < len(d); j++ {
				sums = append(sums, d[i]+d[j])
			}
		}
		slices.Sort(sums)
		for k := 1; k <= len(sums); k++ {
			if got := walshKth(d, int64(k)); got != sums[k-1] {
				t.Errorf("walshKth(%v, %d) = %v, want %v", d, k, got, sums[k-1])
			}
		}
	}
}

// TestCIRank checks the interval ranks against published critical values of
// the Wilcoxon signed-rank test (two-sided 5%: reject when W <= w, so
// C = w+1) and the normal branch against the exact distribution.
func TestCIRank(t *testing.T) {
	tests := []struct {
		n    int
		conf float64
		want int64
	}{
		{6, 0.95, 1},   // w = 0
		{10, 0.95, 9},  // w = 8
		{15, 0.95, 26}, // w = 25
		{20, 0.95, 53}, // w = 52
		{10, 0.90, 11}, // w = 10
		{8, 0.99, 1},   // w = 0
	}
	for _, tt := range tests {
		if got := ciRank(tt.n, tt.conf); got != tt.want {
			t.Errorf("ciRank(%d, %v) = %d, want %d", tt.n, tt.conf, got, tt.want)
		}
	}
	// Normal approximation just beyond exactMax against the exact count.
	n := exactMax + 1
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i + 1
	}
	p := signedRankNull(ranks)
	exact, cdf := int64(1), p[0]
	for cdf+p[exact] <= 0.025 {
		cdf += p[exact]
		exact++
	}
	if got := ciRank(n, 0.95); got < exact-1 || got > exact+1 {
		t.Errorf("ciRank(%d, 0.95) = %d (normal), exact %d; want within 1", n, got, exact)
	}
}

// TestSignedRankExact checks the exact p-value, ties and zeros included,
// against a brute-force enumeration of all 2^n sign patterns with mid-ranks
// computed the slow way.
func TestSignedRankExact(t *testing.T) {
	cases := [][]float64{
		{1, 2, 3, 4, 5, 6},                       // all positive: p = 2/64
		{-1, 2, -3, 4, -5, 6, 7},                 // mixed
		{1, -1, 2, 2, -2, 3, 0, 0, 5, -0.5, 0.5}, // ties and zeros
		{-4, -4, -4, 1, 1, 2, 9, -9, 3},
	}
	for _, d := range cases {
		sorted := slices.Clone(d)
		slices.Sort(sorted)
		got, exact, zeros := signedRank(sorted)

		var nz []float64
		for _, v := range d {
			if v != 0 {
				nz = append(nz, v)
			}
		}
		rank := make([]float64, len(nz))
		for i, v := range nz {
			less, equal := 0, 0
			for _, w := range nz {
				if math.Abs(w) < math.Abs(v) {
					less++
				} else if math.Abs(w) == math.Abs(v) {
					equal++
				}
			}
			rank[i] = float64(less) + float64(equal+1)/2
		}
		stat := func(mask uint) float64 {
			s := 0.0
			for i := range nz {
				if mask&(1<<i) != 0 {
					s += rank[i]
				}
			}
			return s
		}
		var obs float64
		for i, v := range nz {
			if v > 0 {
				obs += rank[i]
			}
		}
		var lo, hi int
		total := 1 << len(nz)
		for mask := range uint(total) {
			s := stat(mask)
			if s <= obs+1e-9 {
				lo++
			}
			if s >= obs-1e-9 {
				hi++
			}
		}
		want := math.Min(1, 2*float64(min(lo, hi))/float64(total))
		if !closeTo(got, want, 1e-12) || !exact || zeros != len(d)-len(nz) {
			t.Errorf("signedRank(%v) = %v, %v, %d; want %v, true, %d", d, got, exact, zeros, want, len(d)-len(nz))
		}
	}
	if p, _, _ := signedRank([]float64{1, 2, 3, 4, 5, 6}); p != 2.0/64 {
		t.Errorf("six positive values: p = %v, want 2/64", p)
	}
}

// TestSignedRankNormal checks the normal approximation beyond exactMax
// against the exact distribution computed directly.
func TestSignedRankNormal(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, shift := range []float64{0, 0.1, 0.2} {
		d := make([]float64, exactMax+50)
		for i := range d {
			d[i] = math.Round(10*(r.NormFloat64()+shift)) / 10 // ties
		}
		slices.Sort(d)
		p, exact, _ := signedRank(d)
		if exact {
			t.Fatalf("n = %d: want the normal approximation", len(d))
		}
		// Exact p from the same ranks through the convolution.
		var nz []float64
		for _, v := range d {
			if v != 0 {
				nz = append(nz, v)
			}
		}
		slices.SortFunc(nz, func(x, y float64) int {
			if math.Abs(x) < math.Abs(y) {
				return -1
			}
			if math.Abs(x) > math.Abs(y) {
				return 1
			}
			return 0
		})
		w := make([]int, len(nz))
		obs := 0
		for i := 0; i < len(nz); {
			j := i
			for j < len(nz) && math.Abs(nz[j]) == math.Abs(nz[i]) {
				j++
			}
			for l := i; l < j; l++ {
				w[l] = i + 1 + j
				if nz[l] > 0 {
					obs += w[l]
				}
			}
			i = j
		}
		dist := signedRankNull(w)
		var lo, hi float64
		for s, ps := range dist {
			if s <= obs {
				lo += ps
			}
			if s >= obs {
				hi += ps
			}
		}
		want := math.Min(1, 2*math.Min(lo, hi))
		t.Logf("shift %v: normal p %v, exact p %v", shift, p, want)
		if math.Abs(p-want) > 0.01*want+1e-4 {
			t.Errorf("shift %v: normal p = %v, exact %v", shift, p, want)
		}
	}
}

func TestComparePairedLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	a := lognormal(r, 5000, 300, 0.05)
	b := scaled(r, a, 0.99, 0.01)
	c, err := ComparePaired(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Exact || c.Verdict != VerdictFaster || !(c.Lo <= 0.99 && 0.99 <= c.Hi) || c.Hi-c.Lo > 0.002 {
		t.Errorf("n=5000: got %+v; want normal p, %q, a narrow CI around 0.99", c, VerdictFaster)
	}
}

func TestComparePairedNoiseBand(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	a := lognormal(r, 60, 1000, 0.01)
	b := scaled(r, a, 1.004, 0.0005) // a real but small 0.4% difference
	tests := []struct {
		band float64
		want string
	}{
		{NoNoiseBand, VerdictSlower},
		{DerivedNoiseBand, VerdictSlower}, // the default: derived, tiny here
		{0.002, VerdictSlower},            // the old fixed default
		{0.01, VerdictSame},
	}
	for _, tt := range tests {
		c, err := ComparePaired(a, b, CompareOptions{NoiseBand: tt.band})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != tt.want || c.Significant != (tt.want != VerdictSame) {
			t.Errorf("NoiseBand %v: verdict %q (CI [%v, %v], p %v), want %q", tt.band, c.Verdict, c.Lo, c.Hi, c.PValue, tt.want)
		}
	}
}

func TestComparePairedErrors(t *testing.T) {
	six := []float64{1, 2, 3, 4, 5, 6}
	with := func(i int, v float64) []float64 {
		s := slices.Clone(six)
		s[i] = v
		return s
	}
	tests := []struct {
		name      string
		a, b      []float64
		opt       CompareOptions
		wantErr   error
		wantInMsg string
	}{
		{"length mismatch", six, six[:5], CompareOptions{}, ErrLengthMismatch, "len(a) = 6, len(b) = 5"},
		{"five pairs", six[:5], six[:5], CompareOptions{}, ErrTooFew, "at least 6 pairs for a 0.95 confidence interval, got 5"},
		{"99% needs 8", six, six, CompareOptions{Confidence: 0.99}, ErrTooFew, "at least 8 pairs"},
		{"zero a", with(2, 0), six, CompareOptions{}, ErrBadValue, "a[2] = 0"},
		{"negative b", six, with(1, -1), CompareOptions{}, ErrBadValue, "b[1] = -1"},
		{"NaN b", six, with(5, math.NaN()), CompareOptions{}, ErrBadValue, "b[5] = NaN"},
		{"Inf a", with(0, math.Inf(1)), six, CompareOptions{}, ErrBadValue, "a[0] = +Inf"},
		{"alpha 1", six, six, CompareOptions{Alpha: 1}, ErrBadParam, "Alpha = 1"},
		{"alpha negative", six, six, CompareOptions{Alpha: -0.05}, ErrBadParam, "Alpha = -0.05"},
		{"alpha NaN", six, six, CompareOptions{Alpha: math.NaN()}, ErrBadParam, "Alpha = NaN"},
		{"confidence 1", six, six, CompareOptions{Confidence: 1}, ErrBadParam, "Confidence = 1"},
		{"noise band 2", six, six, CompareOptions{NoiseBand: 2}, ErrBadParam, "NoiseBand = 2"},
		{"noise band NaN", six, six, CompareOptions{NoiseBand: math.NaN()}, ErrBadParam, "NoiseBand = NaN"},
		{"quantum negative", six, six, CompareOptions{Quantum: -2}, ErrBadParam, "Quantum = -2"},
		{"quantum infinite", six, six, CompareOptions{Quantum: math.Inf(1)}, ErrBadParam, "Quantum = +Inf"},
		{"ratio overflows", []float64{1e-300, 1e-300, 1e-300, 1e-300, 1e-300, 1e-300}, []float64{1e300, 1e300, 1e300, 1e300, 1e300, 2e300}, CompareOptions{}, ErrDegenerate, "overflows"},
		{"quantum band overflows", []float64{1e-300, 1e-300, 1e-300, 1e-300, 1e-300, 1e-300}, six, CompareOptions{Quantum: 1e300}, ErrDegenerate, "overflows"},
		{"run test", six, six, CompareOptions{RunTest: "z"}, ErrBadParam, `RunTest = "z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ComparePaired(tt.a, tt.b, tt.opt)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}

func TestCompareSlopes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	fit := func(slope float64) Fit {
		t.Helper()
		var x, y []float64
		for i := range 12 {
			n := float64(int(64) << (i % 6) * (1 + i/6))
			x = append(x, n)
			y = append(y, 200+slope*n+3*r.NormFloat64())
		}
		f, err := LinearFit(x, y)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b, a2 := fit(2), fit(2.2), fit(2)
	tests := []struct {
		name        string
		a, b        Fit
		wantVerdict string
	}{
		{"B slope larger", a, b, VerdictSlower},
		{"B slope smaller", b, a, VerdictFaster},
		{"same slope, other noise", a, a2, VerdictSame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := CompareSlopes(tt.a, tt.b, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Verdict != tt.wantVerdict || sc.Significant != (tt.wantVerdict != VerdictSame) {
				t.Errorf("got %+v, want verdict %q", sc, tt.wantVerdict)
			}
			if sc.Ratio != tt.b.Slope/tt.a.Slope || sc.Diff != tt.b.Slope-tt.a.Slope {
				t.Errorf("Ratio %v Diff %v, want %v %v", sc.Ratio, sc.Diff, tt.b.Slope/tt.a.Slope, tt.b.Slope-tt.a.Slope)
			}
		})
	}
	sc, err := CompareSlopes(a, a, CompareOptions{})
	if err != nil || sc.PValue != 1 || sc.Diff != 0 || sc.Verdict != VerdictSame {
		t.Errorf("a against itself: %+v, %v; want p 1, diff 0, %q", sc, err, VerdictSame)
	}
}

// TestCompareSlopesWelch checks against hand-computed Welch values: equal
// SEs 0.1 and 10 dof each give DiffSE = 0.1·√2 and 20 Welch dof.
func TestCompareSlopesWelch(t *testing.T) {
	a := Fit{N: 12, Slope: 1, SlopeSE: 0.1}
	b := Fit{N: 12, Slope: 1.5, SlopeSE: 0.1}
	sc, err := CompareSlopes(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const t975dof20 = 2.0859634472658644
	se := 0.1 * math.Sqrt2
	if !closeTo(sc.DiffSE, se, 1e-12) || !closeTo(sc.DoF, 20, 1e-12) || !closeTo(sc.DiffCI, t975dof20*se, 1e-9) {
		t.Errorf("DiffSE %v DoF %v DiffCI %v; want %v 20 %v", sc.DiffSE, sc.DoF, sc.DiffCI, se, t975dof20*se)
	}
	// t = 0.5/0.1414 = 3.5355 with 20 dof: two-sided p = 0.002078 (tables).
	if !closeTo(sc.PValue, 0.002078, 0.01) || sc.Verdict != VerdictSlower {
		t.Errorf("PValue %v verdict %q; want about 0.002078 and %q", sc.PValue, sc.Verdict, VerdictSlower)
	}
	// Unequal SEs: dof between min and sum of the two.
	c := Fit{N: 30, Slope: 1.2, SlopeSE: 0.02}
	sc, err = CompareSlopes(a, c, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wa, wc := 0.01/(0.01+0.0004), 0.0004/(0.01+0.0004)
	if want := 1 / (wa*wa/10 + wc*wc/28); !closeTo(sc.DoF, want, 1e-12) {
		t.Errorf("Welch DoF = %v, want %v", sc.DoF, want)
	}
	// Exact fits.
	e1, e2 := Fit{N: 5, Slope: 2}, Fit{N: 5, Slope: 3}
	if sc, _ := CompareSlopes(e1, e2, CompareOptions{}); sc.PValue != 0 || sc.DiffCI != 0 || sc.Verdict != VerdictSlower {
		t.Errorf("exact fits 2 vs 3: %+v, want p 0, CI 0, slower", sc)
	}
	if sc, _ := CompareSlopes(e1, e1, CompareOptions{}); sc.PValue != 1 || sc.Verdict != VerdictSame {
		t.Errorf("exact fits 2 vs 2: %+v, want p 1, same", sc)
	}
	// Within a fixed noise band: 0.1% apart with tiny SEs; without a band
	// (the default for slopes: nothing to derive one from) it is a verdict.
	fa, fb := Fit{N: 50, Slope: 1000, SlopeSE: 0.01}, Fit{N: 50, Slope: 1001, SlopeSE: 0.01}
	if sc, _ := CompareSlopes(fa, fb, CompareOptions{NoiseBand: 0.002}); sc.Significant || sc.PValue >= 0.05 || sc.NoiseBand != 0.002 || !strings.Contains(sc.Reason, "fixed noise band ±0.2%") {
		t.Errorf("0.1%% apart, band 0.2%%: %+v, want p < 0.05 but not significant, the fixed band named", sc)
	}
	if sc, _ := CompareSlopes(fa, fb, CompareOptions{}); !sc.Significant || sc.NoiseBand != 0 || !strings.Contains(sc.Reason, "no noise band") {
		t.Errorf("0.1%% apart, default options: %+v, want significant with no band", sc)
	}
}

func TestCompareSlopesErrors(t *testing.T) {
	good := Fit{N: 5, Slope: 2, SlopeSE: 0.1}
	tests := []struct {
		name      string
		a, b      Fit
		opt       CompareOptions
		wantErr   error
		wantInMsg string
	}{
		{"zero fit a", Fit{}, good, CompareOptions{}, ErrTooFew, "fit a has N = 0"},
		{"two-point fit b", good, Fit{N: 2, Slope: 1}, CompareOptions{}, ErrTooFew, "fit b has N = 2"},
		{"NaN slope", Fit{N: 5, Slope: math.NaN()}, good, CompareOptions{}, ErrBadValue, "fit a has Slope = NaN"},
		{"negative SE", good, Fit{N: 5, Slope: 1, SlopeSE: -1}, CompareOptions{}, ErrBadValue, "fit b has SlopeSE = -1"},
		{"zero slope a", Fit{N: 5}, good, CompareOptions{}, ErrDegenerate, "Slope = 0"},
		{"bad alpha", good, good, CompareOptions{Alpha: 2}, ErrBadParam, "Alpha = 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareSlopes(tt.a, tt.b, tt.opt)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}

func BenchmarkComparePaired(b *testing.B) {
	for _, n := range []int{40, exactMax, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(25, 26))
			a := lognormal(r, n, 1000, 0.01)
			c := scaled(r, a, 1.001, 0.01)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ComparePaired(a, c, CompareOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
