package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdicts of [Comparison], [RunComparison] and [SlopeComparison]. They assume smaller is
// better (times, ticks, cycles): "faster" means B takes less than A.
const (
	VerdictFaster = "faster"
	VerdictSlower = "slower"
	VerdictSame   = "no significant difference"
	// VerdictNoTest is [RunComparison.Verdict] when a side has a single
	// run: nothing can be said about a difference, not even that there is
	// none.
	VerdictNoTest = "no test"
	// VerdictInconclusive is the verdict of a comparison whose figures
	// cannot be trusted together: a side's own figure did not settle (it
	// did not converge), or two estimates of the same ratio disagree beyond
	// their intervals. No test in this package returns it; callers that
	// hold such checks (harness.Compare, cyclebench compare) put it in
	// place of the test's verdict, with the reason.
	VerdictInconclusive = "inconclusive"
)

// Values of [CompareOptions.NoiseBand] with a special meaning.
const (
	// DerivedNoiseBand, the default, derives the noise band from the
	// measurement itself: see [Comparison.NoiseBand].
	DerivedNoiseBand = 0.0
	// NoNoiseBand disables the noise band: only the test and the interval
	// decide. Any negative NoiseBand means the same.
	NoNoiseBand = -1.0
)

// Where a noise band came from: the values of [Comparison.BandSource] and
// [RunComparison.BandSource].
const (
	// BandFixed: CompareOptions.NoiseBand was positive and used as given.
	BandFixed = "fixed"
	// BandNone: no band was asked for (NoNoiseBand).
	BandNone = "none"
	// BandQuantum: derived; half a counter quantum relative to a sample is
	// the larger part (also when both derived parts are 0).
	BandQuantum = "quantum"
	// BandDrift: derived; the drift of the ratio within the run is the larger
	// part.
	BandDrift = "drift"
	// BandSystematic: derived ([CompareRuns]); CompareOptions.Systematic,
	// the values' own systematic error, is the larger part.
	BandSystematic = "systematic"
	// BandSpread: CompareOptions.MinBand, the spread of the sides' own
	// figures ([ComparePaired]), was wider than the band otherwise used.
	BandSpread = "spread"
)

// DetectablePower is the probability with which a true difference of
// [Comparison.Detectable] (or [RunComparison.Detectable]) would be called
// significant by a repetition of the same measurement.
const DetectablePower = 0.8

// ErrCoarse is the warning put in [Comparison.Warnings] when many pairs are
// exactly equal, a sign that the counter's resolution is coarse compared
// with the difference being measured.
var ErrCoarse = errors.New("stats: samples too coarse")

// exactMax is the largest number of pairs for which the Wilcoxon signed-rank
// null distribution is computed exactly (an O(n³) convolution, a few
// milliseconds at n = 200); beyond it the normal approximation is accurate to
// well under 1% of the p-value and interval rank.
const exactMax = 200

// CompareOptions controls [ComparePaired], [CompareRuns] and
// [CompareSlopes]. The zero value selects the defaults, which are those of
// [DefaultCompareOptions].
type CompareOptions struct {
	// Alpha is the significance level of the test; 0 means 0.05.
	Alpha float64
	// NoiseBand is the relative half-width of the band around "no change"
	// within which a difference is called negligible even when it is
	// statistically significant: a verdict needs the whole confidence
	// interval of the ratio outside [1−band, 1+band].
	//
	// DerivedNoiseBand (0, the default) derives the band from the
	// measurement (see [Comparison.NoiseBand] and
	// [RunComparison.NoiseBand]); a positive value up to 1 fixes it (0.002
	// for 0.2%); NoNoiseBand (any negative value) means no band.
	NoiseBand float64
	// Confidence is the confidence level of the intervals; 0 means 0.95.
	Confidence float64
	// Quantum is the resolution of the values compared, in their own unit:
	// for TSC ticks per call, the counter's step (see the tsc package)
	// divided by the calls timed per sample. It feeds the derived noise
	// band only. 0 means unknown: [ComparePaired] then estimates it from
	// visibly quantized samples, [CompareRuns] assumes none. Must be finite
	// and ≥ 0.
	Quantum float64
	// RunTest is the test of [CompareRuns]: RunTestWelch (Welch's t test on the
	// logarithms of the per-run values; "" means this) or RunTestMannWhitney
	// (the Mann–Whitney U test of golang.org/x/perf/benchmath, as benchstat
	// does it). [ComparePaired] and [CompareSlopes] ignore it.
	RunTest string
	// Systematic is a relative systematic error of the values that differs
	// from run to run but not within one, such as the tolerance of the
	// core-clock ruler behind a cycle figure: a difference between runs
	// smaller than it is not a property of the code. [CompareRuns]' derived
	// band is at least Systematic; the others ignore it. 0 means none; must
	// be finite, 0 ≤ Systematic < 1.
	Systematic float64
	// MinBand is the narrowest noise band [ComparePaired] may use, derived
	// or fixed (not NoNoiseBand): the relative uncertainty of the figures
	// each side is reported with, such as the spread of a K-best side's
	// best samples. A ratio judged finer than the sides' own figures are
	// known would contradict them. The others ignore it. 0 means no floor;
	// must be finite, 0 ≤ MinBand < 1.
	MinBand float64
}

// DefaultCompareOptions holds the defaults that zero fields select: α 0.05,
// a derived noise band, 95% intervals, the counter quantum estimated from the
// data, Welch's test for [CompareRuns].
var DefaultCompareOptions = CompareOptions{Alpha: 0.05, NoiseBand: DerivedNoiseBand, Confidence: 0.95, RunTest: RunTestWelch}

// resolve fills in defaults and validates. The band's mode is returned by
// bandMode, from the resolved NoiseBand (which keeps its sign convention).
func (o CompareOptions) resolve() (CompareOptions, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultCompareOptions.Alpha
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultCompareOptions.Confidence
	}
	if o.RunTest == "" {
		o.RunTest = DefaultCompareOptions.RunTest
	}
	if o.NoiseBand < 0 {
		o.NoiseBand = NoNoiseBand
	}
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return o, fmt.Errorf("%w: Alpha = %v, want 0 < Alpha < 1 (0 means %v)", ErrBadParam, o.Alpha, DefaultCompareOptions.Alpha)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return o, fmt.Errorf("%w: Confidence = %v, want 0 < Confidence < 1 (0 means %v)", ErrBadParam, o.Confidence, DefaultCompareOptions.Confidence)
	case !(o.NoiseBand <= 1): // also catches NaN
		return o, fmt.Errorf("%w: NoiseBand = %v, want at most 1 (0 means derived from the data, negative means none)", ErrBadParam, o.NoiseBand)
	case !(o.Quantum >= 0) || math.IsInf(o.Quantum, 0):
		return o, fmt.Errorf("%w: Quantum = %v, want a finite value >= 0 (0 means unknown)", ErrBadParam, o.Quantum)
	case !(o.Systematic >= 0 && o.Systematic < 1):
		return o, fmt.Errorf("%w: Systematic = %v, want 0 <= Systematic < 1", ErrBadParam, o.Systematic)
	case !(o.MinBand >= 0 && o.MinBand < 1):
		return o, fmt.Errorf("%w: MinBand = %v, want 0 <= MinBand < 1", ErrBadParam, o.MinBand)
	case o.RunTest != RunTestWelch && o.RunTest != RunTestMannWhitney:
		return o, fmt.Errorf("%w: RunTest = %q, want %q or %q (\"\" means %q)", ErrBadParam, o.RunTest, RunTestWelch, RunTestMannWhitney, DefaultCompareOptions.RunTest)
	}
	return o, nil
}

// fixedBand returns the band of resolved options when it does not depend on
// the data: the fixed band or 0 for none, with its source; ok is false for a
// derived band.
func (o CompareOptions) fixedBand() (band float64, source string, ok bool) {
	switch {
	case o.NoiseBand > 0:
		return o.NoiseBand, BandFixed, true
	case o.NoiseBand < 0:
		return 0, BandNone, true
	}
	return 0, "", false
}

// Comparison is the result of [ComparePaired]: B relative to A. After
// [CombineBlocks], Ratio, Lo, Hi and PValue are the blocks' (Test is
// TestBlocks), and the pairs' own are in PairsRatio, PairsLo, PairsHi and
// PairsPValue.
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
	// Test names the test: "wilcoxon", or TestBlocks when [CombineBlocks]
	// judged the pairs by their blocks (a t test of the blocks' weighted
	// mean log ratio).
	Test string
	// Exact reports whether PValue comes from the exact distribution of
	// the signed-rank statistic.
	Exact bool
	// Zeros counts pairs with b_i == a_i (dropped from the test).
	Zeros int
	// Alpha and Confidence are the options used, defaults filled in.
	Alpha, Confidence float64
	// NoiseBand is the relative half-width of the noise band used; 0 means
	// none. A fixed band is CompareOptions.NoiseBand as given. A derived
	// band (the default) is max(QuantumBand, DriftBand): the systematic
	// errors of the measurement that the interval does not include. Either
	// is raised to CompareOptions.MinBand when that is wider.
	NoiseBand float64
	// BandSource says where NoiseBand came from: BandFixed, BandNone,
	// BandQuantum, BandDrift or BandSpread (MinBand).
	BandSource string
	// Quantum is the resolution of the samples used for QuantumBand:
	// CompareOptions.Quantum when given; otherwise, when a value repeats
	// within a side (the samples are visibly quantized), the smallest
	// positive gap between two values of such a side; otherwise 0.
	Quantum float64
	// QuantumBand is half a quantum relative to a sample,
	// Quantum / (2·min(median a, median b)). The Hodges–Lehmann estimate of
	// quantized samples can sit a fraction of a quantum (relative) away
	// from the true ratio however many pairs are taken, and the interval
	// does not know it: in a simulation of a 26-tick counter the true ratio
	// fell outside the interval by up to a third of a quantum. Computed
	// whatever the band option.
	QuantumBand float64
	// DriftBand is an A/A check of the run against itself: the pairs are
	// split into an earlier and a later half in measuring order (a and b
	// must be given in the order they were taken; the split keeps ABBA
	// rounds whole), each half gets its own Hodges–Lehmann estimate m and
	// interval half-width h of the log ratio, and
	//
	//	DriftBand = expm1(max(0, |m1 − m2| − sqrt(h1² + h2²)))
	//
	// is how far the halves disagree beyond what their intervals explain.
	// It is 0 for a steady ratio (in about 95% of steady runs) and grows
	// when the ratio B/A itself moves during the run, for example when the
	// core clock changes and only one side is bound by memory: a
	// difference smaller than that is not a property of the code. 0 with
	// fewer pairs than two halves need (12 at 95%). Computed whatever the
	// band option.
	DriftBand float64
	// Detectable is the smallest relative difference |B/A − 1| that a
	// repetition of this measurement would call significant with
	// probability DetectablePower:
	//
	//	Detectable = expm1(log1p(NoiseBand) + (z_c + z_p)·SE)
	//
	// where SE = (log Hi − log Lo)/(2·z_c) is the standard error of the log
	// ratio implied by the interval, z_c the standard normal quantile at
	// (1+Confidence)/2 and z_p at DetectablePower. "No significant
	// difference" means no difference larger than about Detectable.
	Detectable float64
	// Significant is PValue < Alpha and the whole interval [Lo, Hi] lies
	// outside the noise band: Lo > 1+NoiseBand or Hi < 1−NoiseBand. So
	// there is no significant difference when the test does not reject,
	// the interval contains 1, or it reaches into the band.
	Significant bool
	// Verdict is VerdictFaster (Hi < 1−NoiseBand: B takes less),
	// VerdictSlower (Lo > 1+NoiseBand) or VerdictSame, following
	// Significant.
	Verdict string
	// Reason says in one line why: the test did not reject, the interval
	// contains 1, the interval excludes 1 but reaches into the noise band
	// (and which band), or the interval lies beyond the band.
	Reason string
	// Warnings holds soft problems, such as [ErrCoarse] when more than a
	// quarter of the pairs are exactly equal.
	Warnings []error
	// Blocks are the ratios B/A of the separate measurements (blocks) the
	// pairs were taken in, BlockLo and BlockHi the interval of their
	// weighted mean and BlockTau the spread of the ratio between blocks
	// beyond their own intervals, relative (τ; see [CombineBlocks]); nil
	// and 0 for pairs of one block.
	Blocks                     []float64
	BlockLo, BlockHi, BlockTau float64
	// BlockFloor is the relative half-width the blocks' interval would
	// have if their ratios agreed exactly: the t quantile (one degree of
	// freedom fewer than blocks) times the standard error their own
	// intervals allow, √(1/Σ 1/se²). The interval is never narrower. It
	// depends on how precise the blocks are, not on where their ratios
	// lie, so a measurement may take more blocks while it is wider than
	// the noise band without biasing the test (harness.Compare does). 0
	// for pairs of one block.
	BlockFloor float64
	// PairsRatio, PairsLo, PairsHi and PairsPValue are Ratio, Lo, Hi and
	// PValue of all the pairs taken as one sample, kept when
	// [CombineBlocks] put the blocks' in their place (Test is then
	// TestBlocks); 0 otherwise.
	PairsRatio, PairsLo, PairsHi, PairsPValue float64
}

// ComparePaired compares paired positive samples b against a (b_i measured
// next to a_i, for example in ABBA order), estimating the ratio B/A with a
// confidence interval, a p-value, a noise band and the smallest detectable
// difference as documented on [Comparison]. Smaller values are taken as
// better. Give the pairs in the order they were measured: the derived noise
// band compares the earlier half of the run with the later. a and b are not
// modified.
//
// It returns an error wrapping [ErrLengthMismatch] when the lengths differ,
// [ErrTooFew] with fewer pairs than the confidence level needs (6 for 95%,
// the smallest N with 2^−N ≤ (1−Confidence)/2), [ErrBadValue] for a value
// that is NaN, infinite or not positive, [ErrDegenerate] when the ratio or
// the band overflows float64 (b and a some 300 orders of magnitude apart),
// and [ErrBadParam] for bad options. Every field of the result is finite.
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
	if err := checkPositive("a", a); err != nil {
		return Comparison{}, err
	}
	if err := checkPositive("b", b); err != nil {
		return Comparison{}, err
	}

	d := make([]float64, n) // in measuring order until the drift check is done
	for i := range d {
		d[i] = logRatio(b[i], a[i])
	}
	c := Comparison{
		N: n, Test: "wilcoxon",
		Alpha: opt.Alpha, Confidence: opt.Confidence,
	}
	c.DriftBand = driftBand(d, opt.Confidence)
	slices.Sort(d)

	hl, lo, hi := hodgesLehmann(d, opt.Confidence)
	c.Ratio, c.Lo, c.Hi = math.Exp(hl), math.Exp(lo), math.Exp(hi)
	c.PValue, c.Exact, c.Zeros = signedRank(d)
	if 4*c.Zeros > n {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: %d of %d pairs are exactly equal; the counter resolution may hide the difference", ErrCoarse, c.Zeros, n))
	}

	c.Quantum = opt.Quantum
	if c.Quantum == 0 {
		c.Quantum = visibleQuantum(a, b)
	}
	c.QuantumBand = c.Quantum / (2 * min(Median(a), Median(b)))
	var ok bool
	if c.NoiseBand, c.BandSource, ok = opt.fixedBand(); !ok {
		c.NoiseBand, c.BandSource = c.QuantumBand, BandQuantum
		if c.DriftBand > c.QuantumBand {
			c.NoiseBand, c.BandSource = c.DriftBand, BandDrift
		}
	}
	if c.BandSource != BandNone && opt.MinBand > c.NoiseBand {
		c.NoiseBand, c.BandSource = opt.MinBand, BandSpread
	}
	c.Detectable = detectable(c.NoiseBand, lo, hi, opt.Confidence)
	if !finite(c.Ratio, c.Lo, c.Hi, c.QuantumBand, c.DriftBand, c.Detectable) {
		return Comparison{}, fmt.Errorf("%w: the ratio B/A %v (interval [%v, %v], quantum band %v) overflows float64: b and a too far apart or Quantum too large", ErrDegenerate, c.Ratio, c.Lo, c.Hi, c.QuantumBand)
	}
	c.Significant, c.Verdict, c.Reason = decide(c.PValue, c.Lo, c.Hi, opt, c.NoiseBand, c.BandSource, "interval")
	return c, nil
}

// checkPositive returns an ErrBadValue error naming the first value of xs
// that is not a finite number > 0.
func checkPositive(name string, xs []float64) error {
	for i, v := range xs {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] = %v, want a finite value > 0", ErrBadValue, name, i, v)
		}
	}
	return nil
}

// hodgesLehmann returns the Hodges–Lehmann estimate of the centre of sorted
// d (len(d) ≥ minPairs(conf)) and the bounds of its confidence interval at
// level conf, on d's scale: see [Comparison.Ratio] and [Comparison.Lo].
func hodgesLehmann(d []float64, conf float64) (hl, lo, hi float64) {
	n := len(d)
	m := int64(n) * int64(n+1) / 2 // int64: overflows a 32-bit int beyond n = 65535
	hl = walshKth(d, (m+1)/2) / 2
	if m%2 == 0 {
		hl = (hl + walshKth(d, m/2+1)/2) / 2
	}
	k := ciRank(n, conf)
	return hl, walshKth(d, k) / 2, walshKth(d, m+1-k) / 2
}

// driftBand returns [Comparison.DriftBand] for the log ratios d in measuring
// order (d is not modified).
func driftBand(d []float64, conf float64) float64 {
	h := len(d) / 2 &^ 1 // an even split keeps AB and BA rounds together
	need := minPairs(conf)
	if h < need || len(d)-h < need {
		return 0
	}
	first, second := slices.Clone(d[:h]), slices.Clone(d[h:])
	slices.Sort(first)
	slices.Sort(second)
	m1, lo1, hi1 := hodgesLehmann(first, conf)
	m2, lo2, hi2 := hodgesLehmann(second, conf)
	excess := math.Abs(m1-m2) - math.Hypot((hi1-lo1)/2, (hi2-lo2)/2)
	return math.Expm1(max(0, excess))
}

// visibleQuantum returns the smallest positive gap between two values of a
// side in which some value repeats (the side is visibly quantized), or 0
// when no side shows a repeat and a gap.
func visibleQuantum(sides ...[]float64) float64 {
	q := math.Inf(1)
	for _, xs := range sides {
		s := slices.Clone(xs)
		slices.Sort(s)
		repeats, gap := false, math.Inf(1)
		for i := 1; i < len(s); i++ {
			if g := s[i] - s[i-1]; g == 0 {
				repeats = true
			} else {
				gap = min(gap, g)
			}
		}
		if repeats {
			q = min(q, gap)
		}
	}
	if math.IsInf(q, 0) {
		return 0
	}
	return q
}

// detectable returns expm1(log1p(band) + (z_c + z_p)·SE) with SE implied by
// the interval [lo, hi] of a log ratio at level conf: see
// [Comparison.Detectable].
func detectable(band, lo, hi, conf float64) float64 {
	zc := distuv.UnitNormal.Quantile(0.5 + conf/2)
	zp := distuv.UnitNormal.Quantile(DetectablePower)
	se := (hi - lo) / (2 * zc)
	return math.Expm1(math.Log1p(band) + (zc+zp)*se)
}

// decide applies the verdict rule of [Comparison.Significant] to a ratio's
// interval [lo, hi] and p-value, and says why in one line.
// interval names the kind of interval ("interval", "Welch interval").
func decide(p, lo, hi float64, opt CompareOptions, band float64, source, interval string) (significant bool, verdict, reason string) {
	ci := fmt.Sprintf("the %s%% %s %s", fmtG(100*opt.Confidence, 3), interval, fmtInterval(lo, hi))
	switch {
	case !(p < opt.Alpha):
		return false, VerdictSame, fmt.Sprintf("p = %s ≥ α = %s: the test does not reject (%s)", fmtG(p, 2), fmtG(opt.Alpha, 2), ci)
	case lo <= 1 && hi >= 1:
		return false, VerdictSame, ci + " contains 1"
	case lo > 1+band:
		verdict = VerdictSlower
	case hi < 1-band:
		verdict = VerdictFaster
	default:
		return false, VerdictSame, fmt.Sprintf("%s excludes 1 (p = %s) but reaches into the %s: a difference this small is not resolved", ci, fmtG(p, 2), bandPhrase(band, source))
	}
	if source == BandNone {
		return true, verdict, fmt.Sprintf("%s excludes 1 (p = %s; no noise band)", ci, fmtG(p, 2))
	}
	return true, verdict, fmt.Sprintf("%s excludes 1 (p = %s) and lies beyond the %s", ci, fmtG(p, 2), bandPhrase(band, source))
}

// bandPhrase names a noise band and its origin.
func bandPhrase(band float64, source string) string {
	w := fmtPct(band)
	switch source {
	case BandFixed:
		return "fixed noise band ±" + w
	case BandQuantum:
		return "noise band ±" + w + " derived from the counter quantum"
	case BandDrift:
		return "noise band ±" + w + " derived from the ratio's drift within the run"
	case BandSystematic:
		return "noise band ±" + w + " of the values' systematic error"
	case BandSpread:
		return "noise band ±" + w + " set by the spread of the sides' own figures"
	}
	return "noise band ±" + w
}

// fmtG formats x with at most digits significant digits.
func fmtG(x float64, digits int) string { return strconv.FormatFloat(x, 'g', digits, 64) }

// fmtInterval formats [lo, hi] with enough decimals to show its width (or
// its distance from 1 when it has none): at least 3, at most 8.
func fmtInterval(lo, hi float64) string {
	w := hi - lo
	if w == 0 {
		w = math.Abs(lo - 1)
	}
	d := 3
	if w > 0 {
		d = min(8, max(3, int(math.Ceil(-math.Log10(w)))+1))
	}
	return "[" + strconv.FormatFloat(lo, 'f', d, 64) + ", " + strconv.FormatFloat(hi, 'f', d, 64) + "]"
}

// fmtPct formats a fraction as a percentage with 2 significant digits.
func fmtPct(x float64) string { return fmtG(100*x, 2) + "%" }

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
	// NoiseBand is the relative noise band used: CompareOptions.NoiseBand
	// when positive, else 0. Two fits hold nothing from which to derive a
	// band, so the derived default means none here.
	NoiseBand float64
	// Significant is PValue < Alpha and the interval Diff ± DiffCI lies
	// entirely outside ±NoiseBand·|a.Slope|.
	Significant bool
	// Verdict is VerdictFaster when B's slope is significantly smaller,
	// VerdictSlower when it is significantly larger, else VerdictSame.
	Verdict string
	// Reason says in one line why, with the interval written relative to
	// A's slope: 1 + (Diff ± DiffCI)/|a.Slope|.
	Reason string
}

// CompareSlopes compares the slopes of two fits from [LinearFit] (for example
// the cycles per element of kernel A and kernel B) with Welch's t test,
// treating the fits as independent. Smaller slopes are taken as better.
//
// Its standard errors are within-fit: they see the scatter of the points
// about each line, not how much the slope moves from one run to the next,
// which is usually more. Use it for two sweeps measured together; for
// results of separate runs (two saved files) compare the per-run slopes with
// [CompareRuns] instead.
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
	band, source := 0.0, BandNone
	if opt.NoiseBand > 0 {
		band, source = opt.NoiseBand, BandFixed
	}
	sc.NoiseBand = band
	scale := math.Abs(a.Slope)
	lo, hi := 1+(sc.Diff-sc.DiffCI)/scale, 1+(sc.Diff+sc.DiffCI)/scale
	sc.Significant, sc.Verdict, sc.Reason = decide(sc.PValue, lo, hi, opt, band, source, "interval of B/A")
	return sc, nil
}
