package stats

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestBlocks is [Comparison.Test] after [CombineBlocks] has taken the
// ratio, interval and p-value from the blocks.
const TestBlocks = "blocks"

// CombineBlocks judges a paired comparison by the separate measurements
// (blocks) its pairs were taken in: pairs compares every pair
// ([ComparePaired] of all of them, in measuring order), blocks compares
// each block's own pairs, in order.
//
// Pairs taken milliseconds apart share the machine's state (a busy
// sibling, the core clock, the empty loop's best, the R chosen), so the
// block, not the pair, is what repeats independently: comparisons of the
// same two functions one after the other move by more than the intervals
// their pairs give (docs/how-it-measures.md). A block taken in a noisy moment is
// also less precise than the others, and says so by its own interval. With two blocks or more, Ratio, Lo, Hi and PValue are
// therefore the blocks': a random-effects mean of their log ratios, each
// weighted by 1/(se² + τ²), where se is the block's standard error (from
// its interval, never below a quarter of a counter quantum relative) and
// τ² the spread between blocks beyond their own intervals (DerSimonian and
// Laird); the interval and the t test (B−1 degrees of freedom) take the
// Hartung–Knapp variance, never below the one the weights give. A noisy
// block then counts for what it is worth instead of widening the whole
// interval, as an unweighted t-interval of the blocks' ratios would: on
// recorded blocks the weighted test finds small differences more often and
// calls no A/A comparison different (harness.TestCompareRecordedBlocks
// replays them; TestCombineBlocksCoverage checks the interval's coverage).
//
// Test becomes TestBlocks, and the pairs' own figures move to PairsRatio,
// PairsLo, PairsHi and PairsPValue; the noise band, the drift band and the
// quantum are the pairs'. The verdict, reason and smallest detectable
// difference are decided again from the blocks' interval. When the pairs
// alone call a difference that the blocks do not bear out, the verdict is
// VerdictInconclusive and the reason says how far the ratio moved. With
// fewer than two blocks, pairs is returned unchanged. It returns an error
// wrapping ErrBadValue for a block whose ratio or interval is not
// positive and finite, and ErrBadParam for bad options.
func CombineBlocks(pairs Comparison, blocks []Comparison, opt CompareOptions) (Comparison, error) {
	opt, err := opt.resolve()
	if err != nil {
		return pairs, err
	}
	if len(blocks) < 2 {
		return pairs, nil
	}
	k := len(blocks)
	ys, ses := make([]float64, k), make([]float64, k)
	ratios := make([]float64, k)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, b := range blocks {
		if !finite(b.Ratio, b.Lo, b.Hi, b.QuantumBand) || !(b.Lo > 0) || !(b.Lo <= b.Ratio && b.Ratio <= b.Hi) || b.QuantumBand < 0 {
			return pairs, fmt.Errorf("%w: block %d's ratio %v, interval [%v, %v], quantum band %v (want 0 < lo ≤ ratio ≤ hi, finite, and a band ≥ 0)",
				ErrBadValue, i+1, b.Ratio, b.Lo, b.Hi, b.QuantumBand)
		}
		conf := b.Confidence
		if !(conf > 0 && conf < 1) {
			conf = opt.Confidence
		}
		z := distuv.UnitNormal.Quantile(0.5 + conf/2)
		ratios[i], ys[i] = b.Ratio, math.Log(b.Ratio)
		ses[i] = max((math.Log(b.Hi)-math.Log(b.Lo))/(2*z), b.QuantumBand/2, minBlockSE)
		lo, hi = math.Min(lo, b.Ratio), math.Max(hi, b.Ratio)
	}
	mu, se, tau := randomEffects(ys, ses)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}
	tq := t.Quantile((1 + opt.Confidence) / 2)
	half := tq * se
	var own float64
	for _, s := range ses {
		own += 1 / (s * s)
	}
	p := 1.0
	switch {
	case se > 0:
		p = min(1, 2*t.Survival(math.Abs(mu)/se))
	case mu != 0:
		p = 0
	}

	c := pairs
	c.PairsRatio, c.PairsLo, c.PairsHi, c.PairsPValue = pairs.Ratio, pairs.Lo, pairs.Hi, pairs.PValue
	c.Blocks, c.BlockTau, c.BlockFloor = ratios, math.Expm1(tau), math.Expm1(tq/math.Sqrt(own))
	c.Ratio, c.Lo, c.Hi, c.PValue = math.Exp(mu), math.Exp(mu-half), math.Exp(mu+half), p
	c.BlockLo, c.BlockHi = c.Lo, c.Hi
	c.Test, c.Exact = TestBlocks, false
	if !finite(c.Ratio, c.Lo, c.Hi) {
		return pairs, fmt.Errorf("%w: the blocks' ratio %v [%v, %v] overflows float64", ErrDegenerate, c.Ratio, c.Lo, c.Hi)
	}
	span := fmtInterval(lo, hi)
	span = strings.Replace(span[1:len(span)-1], ", ", " to ", 1)
	interval := fmt.Sprintf("interval of the %d blocks' ratios (%s, each weighted by its own interval)", k, span)
	c.Significant, c.Verdict, c.Reason = decide(c.PValue, c.Lo, c.Hi, opt, c.NoiseBand, c.BandSource, interval)
	c.Detectable = detectable(c.NoiseBand, mu-half, mu+half, opt.Confidence)
	if pairs.Significant && !c.Significant {
		c.Verdict = VerdictInconclusive
		why := fmt.Sprintf("the ratio moved from %s between the %d blocks, more than their intervals allow", span, k)
		if tau == 0 {
			why = fmt.Sprintf("the %d blocks (ratios from %s) do not bear it out on their own", k, span)
		}
		c.Reason = fmt.Sprintf("the pairs say %s (%s), but %s: %s", pairs.Verdict, fmtInterval(pairs.Lo, pairs.Hi), why, c.Reason)
	}
	return c, nil
}

// minBlockSE is the smallest standard error a block's log ratio is given,
// so that a block of identical pairs (an interval of zero width) has a
// finite weight.
const minBlockSE = 1e-9

// randomEffects combines estimates ys with standard errors ses (all > 0,
// at least two): the DerSimonian–Laird between-estimate variance τ², the
// weighted mean mu with weights 1/(se² + τ²), and its standard error by
// Hartung and Knapp, Σw(y−mu)²/((k−1)Σw) over Σw, never below 1/Σw.
// tau is √τ².
func randomEffects(ys, ses []float64) (mu, se, tau float64) {
	k := float64(len(ys))
	var sw, sw2, swy float64
	for i, y := range ys {
		w := 1 / (ses[i] * ses[i])
		sw, sw2, swy = sw+w, sw2+w*w, swy+w*y
	}
	fixed := swy / sw
	var q float64
	for i, y := range ys {
		q += (y - fixed) * (y - fixed) / (ses[i] * ses[i])
	}
	tau2 := 0.0
	if den := sw - sw2/sw; den > 0 {
		tau2 = max(0, (q-(k-1))/den)
	}
	var sws, swsy float64
	ws := make([]float64, len(ys))
	for i, y := range ys {
		ws[i] = 1 / (ses[i]*ses[i] + tau2)
		sws, swsy = sws+ws[i], swsy+ws[i]*y
	}
	mu = swsy / sws
	var hk float64
	for i, y := range ys {
		hk += ws[i] * (y - mu) * (y - mu)
	}
	hk /= k - 1
	return mu, math.Sqrt(max(1, hk) / sws), math.Sqrt(tau2)
}
