package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdicts of [Comparison] and [SlopeComparison]. They assume smaller is
// better (times, ticks, cycles): "faster" means B takes less than A.
const (
	VerdictFaster = "faster"
	VerdictSlower = "slower"
	VerdictSame   = "no significant difference"
)

// NoNoiseBand, given as [CompareOptions.NoiseBand], disables the noise band
// (a zero NoiseBand selects the default band instead).
const NoNoiseBand = -1.0

// ErrCoarse is the warning put in [Comparison.Warnings] when many pairs are
// exactly equal, a sign that the counter's resolution is coarse compared
// with the difference being measured.
var ErrCoarse = errors.New("stats: samples too coarse")

// exactMax is the largest number of pairs for which the Wilcoxon signed-rank
// null distribution is computed exactly (an O(n³) convolution, a few
// milliseconds at n = 200); beyond it the normal approximation is accurate to
// well under 1% of the p-value and interval rank.
const exactMax = 200

// CompareOptions controls [ComparePaired] and [CompareSlopes]. The zero
// value selects the defaults.
type CompareOptions struct {
	// Alpha is the significance level of the test; 0 means 0.05.
	Alpha float64
	// NoiseBand is the relative half-width of the band around "no change"
	// within which a difference is called negligible even when it is
	// statistically significant: a ratio CI inside [1−NoiseBand, 1+NoiseBand]
	// is no difference. 0 means 0.002 (0.2%, about the repeatability of a
	// converged K-best measurement of cycle counts); [NoNoiseBand] (any
	// negative value) means no band. At most 1.
	NoiseBand float64
	// Confidence is the confidence level of the intervals; 0 means 0.95.
	Confidence float64
}

// DefaultCompareOptions holds the defaults that zero fields select.
var DefaultCompareOptions = CompareOptions{Alpha: 0.05, NoiseBand: 0.002, Confidence: 0.95}

// resolve fills in defaults and validates.
func (o CompareOptions) resolve() (CompareOptions, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultCompareOptions.Alpha
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultCompareOptions.Confidence
	}
	switch {
	case o.NoiseBand == 0:
		o.NoiseBand = DefaultCompareOptions.NoiseBand
	case o.NoiseBand < 0:
		o.NoiseBand = 0
	}
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return o, fmt.Errorf("%w: Alpha = %v, want 0 < Alpha < 1 (0 means %v)", ErrBadParam, o.Alpha, DefaultCompareOptions.Alpha)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return o, fmt.Errorf("%w: Confidence = %v, want 0 < Confidence < 1 (0 means %v)", ErrBadParam, o.Confidence, DefaultCompareOptions.Confidence)
	case !(o.NoiseBand <= 1): // also catches NaN
		return o, fmt.Errorf("%w: NoiseBand = %v, want at most 1 (0 means %v, negative means none)", ErrBadParam, o.NoiseBand, DefaultCompareOptions.NoiseBand)
	}
	return o, nil
}

// Comparison is the result of [ComparePaired]: B relative to A.
type Comparison struct {
	// N is the number of pairs.
	N int
	// Ratio is the point estimate of B/A: exp of the Hodges–Lehmann estimate
	// of the log ratios d_i = log(b_i/a_i), that is exp of the median of the
	// N(N+1)/2 Walsh averages (d_i+d_j)/2, i ≤ j.
	Ratio float64
	// Lo and Hi bound the distribution-free confidence interval for the ratio
	// at level Confidence: exp of the order statistics of the Walsh averages
	// at ranks C and N(N+1)/2+1−C, where C is the largest rank with
	// P(W ≤ C−1) ≤ (1−Confidence)/2 under the null distribution of the
	// Wilcoxon signed-rank statistic W (exact for N ≤ 200, normal beyond).
	// Coverage is at least Confidence for continuous data, assuming the log
	// ratios are symmetric about their centre.
	Lo, Hi float64
	// PValue is the two-sided p-value of the Wilcoxon signed-rank test of
	// "the log ratios are symmetric about 0". Zero log ratios (b_i == a_i)
	// are dropped (Wilcoxon's method) and tied |d_i| get mid-ranks; the null
	// distribution is exact (conditional on the ties, by convolution) for up
	// to 200 non-zero pairs and the normal approximation with tie and
	// continuity correction beyond. 1 when every pair is equal.
	PValue float64
	// Test names the test: always "wilcoxon".
	Test string
	// Exact reports whether PValue comes from the exact distribution.
	Exact bool
	// Zeros counts pairs with b_i == a_i (dropped from the test).
	Zeros int
	// Alpha, NoiseBand and Confidence are the options used, defaults filled
	// in (NoiseBand 0 means no band).
	Alpha, NoiseBand, Confidence float64
	// Significant is PValue < Alpha and the whole interval [Lo, Hi] lies
	// outside the noise band: Lo > 1+NoiseBand or Hi < 1−NoiseBand. So there
	// is no significant difference when the interval contains 1, touches the
	// band, or the test does not reject.
	Significant bool
	// Verdict is VerdictFaster (Hi < 1−NoiseBand: B takes less), VerdictSlower
	// (Lo > 1+NoiseBand) or VerdictSame, following Significant.
	Verdict string
	// Warnings holds soft problems, such as [ErrCoarse] when more than a
	// quarter of the pairs are exactly equal.
	Warnings []error
}

// ComparePaired compares paired positive samples b against a (b_i measured
// next to a_i, for example in ABBA order), estimating the ratio B/A with a
// confidence interval and a p-value as documented on [Comparison]. Smaller
// values are taken as better. a and b are not modified.
//
// It returns an error wrapping [ErrLengthMismatch] when the lengths differ,
// [ErrTooFew] with fewer pairs than the confidence level needs (6 for 95%,
// the smallest N with 2^−N ≤ (1−Confidence)/2), [ErrBadValue] for a value
// that is NaN, infinite or not positive, and [ErrBadParam] for bad options.
func ComparePaired(a, b []float64, opt CompareOptions) (Comparison, error) {
	opt, err := opt.resolve()
	if err != nil {
		return Comparison{}, err
	}
	if len(a) != len(b) {
		return Comparison{}, fmt.Errorf("%w: len(a) = %d, len(b) = %d, want equal lengths (pairs)", ErrLengthMismatch, len(a), len(b))
	}
	n := len(a)
	if need := minPairs(opt.Confidence); n < need {
		return Comparison{}, fmt.Errorf("%w: ComparePaired needs at least %d pairs for a %v confidence interval, got %d", ErrTooFew, need, opt.Confidence, n)
	}
	for _, s := range []struct {
		name string
		xs   []float64
	}{{"a", a}, {"b", b}} {
		for i, v := range s.xs {
			if !(v > 0) || math.IsInf(v, 0) {
				return Comparison{}, fmt.Errorf("%w: %s[%d] = %v, want a finite value > 0", ErrBadValue, s.name, i, v)
			}
		}
	}

	d := make([]float64, n)
	for i := range d {
		d[i] = logRatio(b[i], a[i])
	}
	slices.Sort(d)

	c := Comparison{
		N: n, Test: "wilcoxon",
		Alpha: opt.Alpha, NoiseBand: opt.NoiseBand, Confidence: opt.Confidence,
	}
	m := int64(n) * int64(n+1) / 2 // int64: overflows a 32-bit int beyond n = 65535
	hl := walshKth(d, (m+1)/2) / 2
	if m%2 == 0 {
		hl = (hl + walshKth(d, m/2+1)/2) / 2
	}
	c.Ratio = math.Exp(hl)
	k := ciRank(n, opt.Confidence)
	c.Lo = math.Exp(walshKth(d, k) / 2)
	c.Hi = math.Exp(walshKth(d, m+1-k) / 2)

	c.PValue, c.Exact, c.Zeros = signedRank(d)
	if 4*c.Zeros > n {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: %d of %d pairs are exactly equal; the counter resolution may hide the difference", ErrCoarse, c.Zeros, n))
	}

	c.Verdict = VerdictSame
	if c.PValue < opt.Alpha {
		switch {
		case c.Lo > 1+opt.NoiseBand:
			c.Significant, c.Verdict = true, VerdictSlower
		case c.Hi < 1-opt.NoiseBand:
			c.Significant, c.Verdict = true, VerdictFaster
		}
	}
	return c, nil
}

// logRatio returns log(b/a) for positive finite a and b, accurately when they
// are close and without overflow when they are far apart.
func logRatio(b, a float64) float64 {
	r := b / a
	if r == 0 || math.IsInf(r, 0) {
		return math.Log(b) - math.Log(a)
	}
	return math.Log(r)
}

// minPairs returns the smallest n for which the Walsh-average interval at
// level conf exists: 2^−n ≤ (1−conf)/2.
func minPairs(conf float64) int {
	return max(1, int(math.Ceil(math.Log2(2/(1-conf))-1e-9)))
}

// walshKth returns the k-th smallest (1-based) of the pairwise sums
// d_i + d_j, i ≤ j, of sorted d, without forming the n(n+1)/2 sums: it
// bisects on the ordered bit patterns of float64 values (at most 64 steps),
// counting the sums ≤ s in O(n) each time. The result is one of the sums,
// computed exactly as d_i + d_j.
func walshKth(d []float64, k int64) float64 {
	n := len(d)
	count := func(s float64) int64 {
		var c int64
		j := n - 1
		for i := 0; i < n; i++ {
			for j >= i && d[i]+d[j] > s {
				j--
			}
			if j < i {
				break
			}
			c += int64(j - i + 1)
		}
		return c
	}
	lo, hi := orderedBits(2*d[0]), orderedBits(2*d[n-1])
	for lo < hi {
		mid := lo + (hi-lo)/2
		if count(fromOrderedBits(mid)) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromOrderedBits(lo)
}

// orderedBits maps float64 to uint64 preserving order (for non-NaN values).
func orderedBits(f float64) uint64 {
	u := math.Float64bits(f)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}

func fromOrderedBits(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// ciRank returns C, the largest rank with P(W ≤ C−1) ≤ (1−conf)/2 for the
// Wilcoxon signed-rank statistic W of n untied values (at least 1, which
// minPairs guarantees is valid).
func ciRank(n int, conf float64) int64 {
	half := (1 - conf) / 2
	m := int64(n) * int64(n+1) / 2
	if n > exactMax {
		z := distuv.UnitNormal.Quantile(1 - half)
		sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
		k := int64(math.Floor(float64(m)/2 + 0.5 - z*sd))
		return min(max(k, 1), (m+1)/2)
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i + 1
	}
	p := signedRankNull(ranks)
	k, cdf := int64(1), p[0]
	for k < (m+1)/2 && cdf+p[k] <= half*(1+1e-12) {
		cdf += p[k]
		k++
	}
	return k
}

// signedRankNull returns the null distribution of T = Σ w_i·[sign_i > 0]
// when each sign is + or − with probability 1/2 independently: p[t] = P(T=t).
func signedRankNull(w []int) []float64 {
	total := 0
	for _, wi := range w {
		total += wi
	}
	p := make([]float64, total+1)
	p[0] = 1
	hi := 0
	for _, wi := range w {
		hi += wi
		for s := hi; s >= 0; s-- {
			v := p[s]
			if s >= wi {
				v += p[s-wi]
			}
			p[s] = v / 2
		}
	}
	return p
}

// signedRank runs the two-sided Wilcoxon signed-rank test on sorted d:
// zeros dropped, ties mid-ranked. It returns the p-value, whether it is
// exact, and the number of zeros.
func signedRank(d []float64) (p float64, exact bool, zeros int) {
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v == 0 {
			zeros++
		} else {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1, true, zeros
	}
	slices.SortFunc(nz, func(x, y float64) int {
		ax, ay := math.Abs(x), math.Abs(y)
		switch {
		case ax < ay:
			return -1
		case ax > ay:
			return 1
		}
		return 0
	})
	// Doubled mid-ranks are integers: a tie group at ranks i+1..j gets
	// (i+1+j)/2, doubled i+1+j.
	w := make([]int, n)
	var t int64        // Σ doubled ranks of the positive values
	var tieSum float64 // Σ (g³ − g) over tie groups
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		g := j - i
		tieSum += float64(g)*float64(g)*float64(g) - float64(g)
		for l := i; l < j; l++ {
			w[l] = i + 1 + j
			if nz[l] > 0 {
				t += int64(w[l])
			}
		}
		i = j
	}
	if n <= exactMax {
		dist := signedRankNull(w)
		var lower, upper float64
		for s, ps := range dist {
			if int64(s) <= t {
				lower += ps
			}
			if int64(s) >= t {
				upper += ps
			}
		}
		return min(1, 2*min(lower, upper)), true, zeros
	}
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	variance := fn*(fn+1)*(2*fn+1)/24 - tieSum/48
	z := max(0, math.Abs(float64(t)/2-mean)-0.5) / math.Sqrt(variance)
	return min(1, 2*distuv.UnitNormal.Survival(z)), false, zeros
}

// SlopeComparison is the result of [CompareSlopes]: fit B's slope relative to
// fit A's.
type SlopeComparison struct {
	// Ratio is b.Slope / a.Slope.
	Ratio float64
	// Diff is b.Slope − a.Slope.
	Diff float64
	// DiffCI is the half-width of the confidence interval for Diff at level
	// Confidence: t(DoF)·DiffSE.
	DiffCI float64
	// DiffSE is sqrt(a.SlopeSE² + b.SlopeSE²).
	DiffSE float64
	// DoF is the Welch–Satterthwaite degrees of freedom
	// DiffSE⁴ / (a.SlopeSE⁴/(a.N−2) + b.SlopeSE⁴/(b.N−2)).
	DoF float64
	// PValue is the two-sided p-value of Welch's t test of equal slopes,
	// t = Diff/DiffSE with DoF degrees of freedom. When both fits are exact
	// (DiffSE = 0) it is 1 if the slopes are equal and 0 otherwise.
	PValue float64
	// Significant is PValue < Alpha and the interval Diff ± DiffCI lies
	// entirely outside ±NoiseBand·|a.Slope|.
	Significant bool
	// Verdict is VerdictFaster when B's slope is significantly smaller,
	// VerdictSlower when it is significantly larger, else VerdictSame.
	Verdict string
}

// CompareSlopes compares the slopes of two fits from [LinearFit] (for example
// the cycles per element of kernel A and kernel B) with Welch's t test,
// treating the fits as independent. Smaller slopes are taken as better.
//
// It returns an error wrapping [ErrTooFew] when a fit has N < 3 (not a
// result of LinearFit), [ErrBadValue] when a slope or standard error is not
// finite or an SE is negative, [ErrDegenerate] when a.Slope is 0 (the ratio
// and the relative noise band are undefined), and [ErrBadParam] for bad
// options.
func CompareSlopes(a, b Fit, opt CompareOptions) (SlopeComparison, error) {
	opt, err := opt.resolve()
	if err != nil {
		return SlopeComparison{}, err
	}
	for _, f := range []struct {
		name string
		fit  Fit
	}{{"a", a}, {"b", b}} {
		switch {
		case f.fit.N < 3:
			return SlopeComparison{}, fmt.Errorf("%w: fit %s has N = %d, want N >= 3 (a result of LinearFit)", ErrTooFew, f.name, f.fit.N)
		case math.IsNaN(f.fit.Slope) || math.IsInf(f.fit.Slope, 0):
			return SlopeComparison{}, fmt.Errorf("%w: fit %s has Slope = %v, want a finite value", ErrBadValue, f.name, f.fit.Slope)
		case !(f.fit.SlopeSE >= 0) || math.IsInf(f.fit.SlopeSE, 0):
			return SlopeComparison{}, fmt.Errorf("%w: fit %s has SlopeSE = %v, want a finite value >= 0", ErrBadValue, f.name, f.fit.SlopeSE)
		}
	}
	if a.Slope == 0 {
		return SlopeComparison{}, fmt.Errorf("%w: fit a has Slope = 0, so the ratio b/a and the relative noise band are undefined", ErrDegenerate)
	}
	sc := SlopeComparison{
		Ratio:  b.Slope / a.Slope,
		Diff:   b.Slope - a.Slope,
		DiffSE: math.Hypot(a.SlopeSE, b.SlopeSE),
	}
	dfa, dfb := float64(a.N-2), float64(b.N-2)
	if sc.DiffSE == 0 {
		sc.DoF = dfa + dfb
		if sc.Diff != 0 {
			sc.PValue = 0
		} else {
			sc.PValue = 1
		}
	} else {
		wa := (a.SlopeSE / sc.DiffSE) * (a.SlopeSE / sc.DiffSE) // scaled to avoid under/overflow of SE⁴
		wb := (b.SlopeSE / sc.DiffSE) * (b.SlopeSE / sc.DiffSE)
		sc.DoF = 1 / (wa*wa/dfa + wb*wb/dfb)
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: sc.DoF}
		sc.PValue = min(1, 2*st.Survival(math.Abs(sc.Diff)/sc.DiffSE))
		sc.DiffCI = st.Quantile(0.5+opt.Confidence/2) * sc.DiffSE
	}
	band := opt.NoiseBand * math.Abs(a.Slope)
	sc.Verdict = VerdictSame
	if sc.PValue < opt.Alpha {
		switch {
		case sc.Diff-sc.DiffCI > band:
			sc.Significant, sc.Verdict = true, VerdictSlower
		case sc.Diff+sc.DiffCI < -band:
			sc.Significant, sc.Verdict = true, VerdictFaster
		}
	}
	return sc, nil
}
