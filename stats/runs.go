package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tests of [CompareRuns], the values of [CompareOptions.RunTest] and
// [RunComparison.Test].
const (
	// RunTestWelch is Welch's t test on the logarithms of the per-run
	// values: it compares geometric means, allows different run-to-run
	// spreads on the two sides, and gives a test from 2 runs per side.
	RunTestWelch = "welch"
	// RunTestMannWhitney is the Mann–Whitney U test of
	// golang.org/x/perf/benchmath (benchstat's test): it compares medians
	// and assumes no distribution, but at α = 0.05 it can reject only from
	// 4 runs per side.
	RunTestMannWhitney = "mann-whitney"
	// RunTestNone: a side has a single run, so no test was made.
	RunTestNone = "none"
)

// RunComparison is the result of [CompareRuns]: side B's per-run values
// against side A's.
type RunComparison struct {
	// NA and NB are the numbers of runs on each side.
	NA, NB int
	// Test is the test made: RunTestWelch, RunTestMannWhitney, or
	// RunTestNone when a side has a single run.
	Test string
	// Tested reports whether a test was made (Test != RunTestNone).
	Tested bool
	// CenterA and CenterB are each side's typical per-run value: the
	// geometric mean for Welch's test (which works on logarithms), the
	// median for Mann–Whitney's (as benchstat reports it). For a single run
	// it is the value itself.
	CenterA, CenterB float64
	// SpreadA and SpreadB are each side's run-to-run spread: the sample
	// standard deviation of the logarithms of its values, about the
	// relative standard deviation (0.01 ≈ 1%). 0 for a single run.
	SpreadA, SpreadB float64
	// Ratio is CenterB / CenterA.
	Ratio float64
	// Lo and Hi bound the confidence interval, at level Confidence, for the
	// ratio of the geometric means, from Welch's t on the logarithms:
	//
	//	exp(mean(log b) − mean(log a) ± t(DoF)·SE),  SE² = s²_a/NA + s²_b/NB
	//
	// whichever Test decides (with Mann–Whitney the verdict needs both the
	// test and this interval). When both sides are constant, SE = 0 and the
	// interval is the single ratio. 0 when Tested is false.
	Lo, Hi float64
	// DoF is the Welch–Satterthwaite degrees of freedom of the interval;
	// 0 when Tested is false.
	DoF float64
	// PValue is the two-sided p-value of Test: Welch's t on the logarithms
	// (0 when both sides are constant and differ, 1 when they are equal),
	// or benchmath's Mann–Whitney U. 1 when Tested is false.
	PValue float64
	// Alpha and Confidence are the options used, defaults filled in.
	Alpha, Confidence float64
	// NoiseBand is the relative half-width of the noise band used, 0 for
	// none. A fixed band is CompareOptions.NoiseBand. The derived band (the
	// default) is the larger of QuantumBand and CompareOptions.Systematic:
	// the between-run test already includes the run-to-run variation, so
	// only the values' resolution and their systematic error are left.
	NoiseBand float64
	// BandSource says where NoiseBand came from: BandFixed, BandNone,
	// BandQuantum or BandSystematic.
	BandSource string
	// Quantum is CompareOptions.Quantum: per-run values are too few to
	// estimate it from.
	Quantum float64
	// QuantumBand is Quantum / (2·min(CenterA, CenterB)), as
	// [Comparison.QuantumBand]; 0 when Quantum is 0.
	QuantumBand float64
	// Detectable is the smallest relative difference |B/A − 1| that another
	// set of runs like these would call significant with probability
	// DetectablePower: expm1(log1p(NoiseBand) + (t_c + t_p)·SE), with t_c
	// and t_p the Student t quantiles at (1+Confidence)/2 and
	// DetectablePower for DoF degrees of freedom. 0 when Tested is false
	// (unknown).
	Detectable float64
	// Significant is PValue < Alpha and the whole interval [Lo, Hi] lies
	// outside the noise band, as in [Comparison.Significant]; never when
	// Tested is false.
	Significant bool
	// Verdict is VerdictFaster, VerdictSlower or VerdictSame as in
	// [Comparison.Verdict], or VerdictNoTest when Tested is false.
	Verdict string
	// Reason says in one line why, for example "no test: 1 run per side".
	Reason string
	// Warnings holds soft problems: [ErrNoTest] when a side has a single
	// run, [ErrTooFew] when Mann–Whitney has too few runs to ever reject.
	Warnings []error
}

// CompareRuns compares measurements repeated in separate runs: a holds one
// value per run of side A (for example the ticks per call of each -count
// repetition, or the CPE slope of each sweep, read from one result file) and
// b the same for side B. Unlike [ComparePaired] and [CompareSlopes], whose
// intervals describe the noise within one run, it judges a difference
// against the spread between runs, which is what moves when the same code is
// measured again later: the machine's state, the code's placement in memory
// and the core clock differ from run to run. Smaller values are taken as
// better.
//
// With at least 2 runs per side it tests the difference with
// opt.RunTest (Welch's t on the logarithms by default, or benchmath's
// Mann–Whitney U) and gives the ratio's interval, the noise band and the
// smallest detectable difference, as documented on [RunComparison]. With a
// single run on a side there is no estimate of that side's run-to-run
// spread, so no test is possible: the result says so (Verdict VerdictNoTest,
// Reason "no test: 1 run per side") rather than giving a verdict. a and b are
// not modified.
//
// It returns an error wrapping [ErrTooFew] when a side is empty,
// [ErrBadValue] for a value that is NaN, infinite or not positive,
// [ErrDegenerate] when the ratio or the band overflows float64, and
// [ErrBadParam] for bad options. Every field of the result is finite.
func CompareRuns(a, b []float64, opt CompareOptions) (RunComparison, error) {
	opt, err := opt.resolve()
	if err != nil {
		return RunComparison{}, err
	}
	if len(a) == 0 || len(b) == 0 {
		return RunComparison{}, fmt.Errorf("%w: CompareRuns needs at least 1 run per side, got %d and %d", ErrTooFew, len(a), len(b))
	}
	if err := checkPositive("a", a); err != nil {
		return RunComparison{}, err
	}
	if err := checkPositive("b", b); err != nil {
		return RunComparison{}, err
	}
	la, lb := logs(a), logs(b)
	mA, sA := meanSD(la)
	mB, sB := meanSD(lb)
	rc := RunComparison{
		NA: len(a), NB: len(b),
		Test: opt.RunTest, Tested: true,
		CenterA: math.Exp(mA), CenterB: math.Exp(mB),
		SpreadA: sA, SpreadB: sB,
		PValue: 1,
		Alpha:  opt.Alpha, Confidence: opt.Confidence,
		Quantum: opt.Quantum,
	}
	if opt.RunTest == RunTestMannWhitney || len(a) == 1 || len(b) == 1 {
		rc.CenterA, rc.CenterB = Median(a), Median(b)
	}
	rc.Ratio = rc.CenterB / rc.CenterA
	rc.QuantumBand = opt.Quantum / (2 * min(rc.CenterA, rc.CenterB))
	var ok bool
	if rc.NoiseBand, rc.BandSource, ok = opt.fixedBand(); !ok {
		rc.NoiseBand, rc.BandSource = rc.QuantumBand, BandQuantum
		if opt.Systematic > rc.NoiseBand {
			rc.NoiseBand, rc.BandSource = opt.Systematic, BandSystematic
		}
	}

	if !finite(rc.Ratio, rc.QuantumBand) {
		return RunComparison{}, fmt.Errorf("%w: the ratio B/A %v (quantum band %v) overflows float64: b and a too far apart or Quantum too large", ErrDegenerate, rc.Ratio, rc.QuantumBand)
	}
	if len(a) == 1 || len(b) == 1 {
		rc.Test, rc.Tested, rc.Verdict = RunTestNone, false, VerdictNoTest
		switch {
		case len(a) == 1 && len(b) == 1:
			rc.Reason = "no test: 1 run per side"
		case len(a) == 1:
			rc.Reason = fmt.Sprintf("no test: 1 run of A (and %d of B); a test needs at least 2 runs per side", len(b))
		default:
			rc.Reason = fmt.Sprintf("no test: 1 run of B (and %d of A); a test needs at least 2 runs per side", len(a))
		}
		rc.Warnings = append(rc.Warnings, fmt.Errorf("%w: %s", ErrNoTest, strings.TrimPrefix(rc.Reason, "no test: ")))
		return rc, nil
	}

	// Welch's t on the logarithms: the interval always, the p-value unless
	// Mann–Whitney decides.
	diff := mB - mA
	va, vb := sA*sA/float64(len(a)), sB*sB/float64(len(b))
	se := math.Sqrt(va + vb)
	var tc, tp float64
	if se == 0 {
		rc.DoF = float64(len(a) + len(b) - 2)
		if diff != 0 {
			rc.PValue = 0
		}
	} else {
		wa, wb := va/(va+vb), vb/(va+vb) // scaled: no under/overflow of SE⁴
		rc.DoF = 1 / (wa*wa/float64(len(a)-1) + wb*wb/float64(len(b)-1))
		st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: rc.DoF}
		rc.PValue = min(1, 2*st.Survival(math.Abs(diff)/se))
		tc, tp = st.Quantile(0.5+opt.Confidence/2), st.Quantile(DetectablePower)
	}
	rc.Lo, rc.Hi = math.Exp(diff-tc*se), math.Exp(diff+tc*se)
	rc.Detectable = math.Expm1(math.Log1p(rc.NoiseBand) + (tc+tp)*se)

	if opt.RunTest == RunTestMannWhitney {
		rc.PValue = 1
		if !allEqual(a, b) { // the U test fails on identical samples
			th := benchmath.Thresholds{CompareAlpha: opt.Alpha}
			mw := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th))
			rc.PValue = mw.P
			for _, w := range mw.Warnings {
				rc.Warnings = append(rc.Warnings, fmt.Errorf("%w: mann-whitney: %v", ErrTooFew, w))
			}
		}
	}
	if !finite(rc.Ratio, rc.Lo, rc.Hi, rc.QuantumBand, rc.Detectable) {
		return RunComparison{}, fmt.Errorf("%w: the ratio B/A %v (interval [%v, %v], quantum band %v) overflows float64: b and a too far apart or Quantum too large", ErrDegenerate, rc.Ratio, rc.Lo, rc.Hi, rc.QuantumBand)
	}
	rc.Significant, rc.Verdict, rc.Reason = decide(rc.PValue, rc.Lo, rc.Hi, opt, rc.NoiseBand, rc.BandSource, "Welch interval")
	return rc, nil
}

// logs returns the natural logarithms of positive xs.
func logs(xs []float64) []float64 {
	l := make([]float64, len(xs))
	for i, x := range xs {
		l[i] = math.Log(x)
	}
	return l
}

// meanSD returns the mean and the sample standard deviation of non-empty xs
// (0 for a single value).
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 1 {
		return xs[0], 0
	}
	return stat.MeanStdDev(xs, nil)
}

// allEqual reports whether every value of all the slices is the same.
func allEqual(sides ...[]float64) bool {
	first := math.NaN()
	for _, xs := range sides {
		for _, x := range xs {
			if math.IsNaN(first) {
				first = x
			} else if x != first {
				return false
			}
		}
	}
	return true
}
