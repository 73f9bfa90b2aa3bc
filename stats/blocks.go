package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// BlockSpread widens a paired comparison by what moves between blocks of
// its pairs: c compares every pair, blocks are the ratios B/A of the
// separate measurements (blocks) the pairs were taken in, in order.
//
// Pairs taken milliseconds apart share the machine's state (a busy
// sibling, the core clock, the empty loop's best, the R chosen), so an
// interval built as if they were independent is too narrow for the next
// measurement: on a Zen 4 guest ten comparisons of the same pair of sums,
// one after the other in one process, read 0.7719 to 0.7742 with intervals
// ±0.1% wide. The blocks' ratios give a second interval, the
// t-interval of their logarithms (B−1 degrees of freedom); the result's
// interval spans both, and its verdict, reason and smallest detectable
// difference are decided again from it. When the pairs alone call a
// difference that the blocks do not bear out, the verdict is
// VerdictInconclusive and the reason says how far the ratio moved. With
// fewer than two blocks, c is returned unchanged. It returns an error
// wrapping ErrBadValue for a ratio that is not positive and finite, and
// ErrBadParam for bad options.
func BlockSpread(c Comparison, blocks []float64, opt CompareOptions) (Comparison, error) {
	opt, err := opt.resolve()
	if err != nil {
		return c, err
	}
	if len(blocks) < 2 {
		return c, nil
	}
	logs := make([]float64, len(blocks))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range blocks {
		if !(r > 0) || math.IsInf(r, 0) {
			return c, fmt.Errorf("%w: block %d's ratio %v (want positive and finite)", ErrBadValue, i+1, r)
		}
		logs[i] = math.Log(r)
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	mean, sd := stat.MeanStdDev(logs, nil)
	n := float64(len(blocks))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile((1 + opt.Confidence) / 2)
	half := t * sd / math.Sqrt(n)
	c.Blocks = append([]float64(nil), blocks...)
	c.BlockLo, c.BlockHi = math.Exp(mean-half), math.Exp(mean+half)
	if c.BlockLo >= c.Lo && c.BlockHi <= c.Hi {
		return c, nil // the blocks agree within the pairs' interval
	}
	paired := c
	c.Lo, c.Hi = math.Min(c.Lo, c.BlockLo), math.Max(c.Hi, c.BlockHi)
	interval := fmt.Sprintf("interval, widened to the spread of the ratio between %d blocks (%s to %s),", len(blocks), fmtG(lo, 4), fmtG(hi, 4))
	c.Significant, c.Verdict, c.Reason = decide(c.PValue, c.Lo, c.Hi, opt, c.NoiseBand, c.BandSource, interval)
	c.Detectable = detectable(c.NoiseBand, c.Lo, c.Hi, opt.Confidence)
	if paired.Significant && !c.Significant {
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("the pairs say %s (%s), but the ratio moved from %s to %s between the %d blocks, more than their interval allows: %s",
			paired.Verdict, fmtInterval(paired.Lo, paired.Hi), fmtG(lo, 4), fmtG(hi, 4), len(blocks), c.Reason)
	}
	return c, nil
}
