package revision

// The best-mode verdict. Layouts fall into modes (issue 33's insertion
// sort: 187k ×5, 272k ×6, 290k ×2, 430k ×3 of 16), the processes of one
// mode agree to a fraction of a percent, and a change moves the modes:
// the best one by the work added (+21% there), while the share of
// layouts in each mode changes too (so the median moved −1%). The verdict
// compares each side's best (lowest) mode, whose layouts agree closely,
// by a t test on their logarithms; and it stands only when the slower
// side is unlikely to have missed the faster side's fast layouts by
// chance: with k of the faster side's L layouts below the slower side's
// best mode, the slower side's L' layouts all miss them with probability
// about (1 − k/L)^L'. Simulated on the 16 layouts per side (L drawn per
// side, 20,000 times; the figures in cmd/cyclebench's DefaultLayouts), the
// +21% is found in about half the comparisons with 8 layouts a side and 9
// of 10 with 16, where the lower quartile's permutation test finds it in
// 4 to 11%; an A/A comparison calls a difference in 7 to 9%.

import (
	"fmt"
	"math"
	"slices"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// EstimatorBestMode names the best-mode verdict in the output.
const EstimatorBestMode = "the best mode of the layouts' figures (each layout: the best of its processes): its median, tested between the sides on its layouts"

// bestMode is the logarithms of the layouts of the lowest mode of figs
// (see modeGap), sorted.
func bestMode(figs []float64) []float64 {
	s := slices.Sorted(slices.Values(figs))
	i := 1
	for i < len(s) && s[i] <= s[i-1]*(1+modeGap) {
		i++
	}
	out := make([]float64, i)
	for j, v := range s[:i] {
		out[j] = math.Log(v)
	}
	return out
}

// below counts the figures lower than the best mode mode (logarithms,
// sorted) by more than the mode gap.
func below(figs, mode []float64) int {
	edge := math.Exp(mode[0]) / (1 + modeGap)
	n := 0
	for _, v := range figs {
		if v < edge {
			n++
		}
	}
	return n
}

// missProbability is how likely n layouts all miss a mode that holds k of
// the m layouts of the other side: (1 − k/m)^n.
func missProbability(k, m, n int) float64 {
	return math.Pow(1-float64(k)/float64(m), float64(n))
}

// compareBestModes fills c's figure, ratio, interval, p, detectable and
// verdict from the sides' layout figures (c.LayoutsA, c.LayoutsB). It
// returns false, leaving c as it was, when the two best modes hold too
// few layouts for a test (one each: layouts that do not cluster, as on a
// busy machine); the caller then takes the quartile's test.
func compareBestModes(c *LayoutComparison, alpha float64) bool {
	ma, mb := bestMode(c.LayoutsA), bestMode(c.LayoutsB)
	la, lb := len(c.LayoutsA), len(c.LayoutsB)
	ea, eb := quantile(0.5, ma), quantile(0.5, mb)
	// Pooled spread within the two best modes.
	ss, dof := 0.0, len(ma)+len(mb)-2
	if dof < 1 {
		return false
	}
	c.Estimator = EstimatorBestMode
	c.A, c.B = math.Exp(ea), math.Exp(eb)
	c.Ratio = math.Exp(eb - ea)
	for _, m := range [][]float64{ma, mb} {
		mu := mean(m)
		for _, v := range m {
			ss += (v - mu) * (v - mu)
		}
	}
	c.PValue, c.Lo, c.Hi, c.Detectable = 1, 0, math.Inf(1), math.Inf(1)
	// The faster side's layouts that lie below the slower side's best mode
	// (beyond the mode gap): had the slower side the faster one's
	// distribution, all its layouts would have missed those with this
	// probability.
	miss := missProbability(below(c.LayoutsA, mb), la, lb)
	if eb < ea {
		miss = missProbability(below(c.LayoutsB, ma), lb, la)
	}
	if miss == 1 {
		// No fast layout lies beyond the gap: the best modes are one
		// mode, moved within it, and nothing was missed.
		miss = 0
	}
	rarest := math.Max(missProbability(len(ma), la, lb), missProbability(len(mb), lb, la))
	s := math.Sqrt(ss / float64(dof))
	// A spread of zero (figures written to few digits) would make any
	// difference significant: floor it at a tenth of the mode gap's
	// resolution of the figures, 0.01%.
	s = math.Max(s, 1e-4)
	se := s * math.Sqrt(1/float64(len(ma))+1/float64(len(mb)))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}
	t := (eb - ea) / se
	c.PValue = 2 * st.CDF(-math.Abs(t))
	h := st.Quantile(1-alpha/2) * se
	c.Lo, c.Hi = math.Exp(eb-ea-h), math.Exp(eb-ea+h)
	if rarest < alpha {
		n := distuv.UnitNormal
		c.Detectable = math.Exp((st.Quantile(1-alpha/2)+n.Quantile(0.8))*se) - 1
	}
	c.Significant = c.PValue < alpha && miss < alpha
	switch {
	case c.Significant && c.Ratio > 1:
		c.Verdict = stats.VerdictSlower
	case c.Significant:
		c.Verdict = stats.VerdictFaster
	default:
		c.Verdict = stats.VerdictSame
	}
	switch {
	case c.PValue >= alpha:
		c.Reason = fmt.Sprintf("p = %s ≥ %v between the best modes (%d and %d of %d and %d layouts)", sigfig.PValue(c.PValue), alpha, len(ma), len(mb), la, lb)
	case miss >= alpha:
		c.Reason = fmt.Sprintf("the best modes differ (p = %s), but the faster one holds so few layouts that the other side would miss it by chance in %.0f%% of comparisons (take more layouts)", sigfig.PValue(c.PValue), miss*100)
	default:
		c.Reason = fmt.Sprintf("p = %s < %v between the best modes (%d and %d of %d and %d layouts), which the slower side misses by chance in %.1g%% of comparisons", sigfig.PValue(c.PValue), alpha, len(ma), len(mb), la, lb, miss*100)
	}
	return true
}
