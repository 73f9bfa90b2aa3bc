package revision

// The default verdict: how far B's layouts lie from A's as a whole. The
// ratio is the Hodges–Lehmann shift of the logarithms (the median of the
// log ratios of every pair of an A layout and a B layout), the test the
// Mann–Whitney rank test of the layouts, and the interval the pairs'
// ratios between the test's critical ranks (Moses). Under no change the
// layouts of both sides are draws from one population, so the test calls
// a difference in alpha of comparisons whatever the population's modes;
// the best mode's test (mode.go) did not: on the Intel Cascade Lake guest
// it called 1 of 6 recorded A/A comparisons of an insertion sort
// different and missed 1 of 4 comparisons of a fifth more work, where this
// one calls none and finds all four (TestCompareLayoutsRecorded).

import (
	"fmt"
	"math"
	"slices"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// EstimatorShift names the default verdict in the output.
const EstimatorShift = "the shift between the sides' layouts (each layout: the best of its processes): the median ratio over every pair of an A and a B layout, tested by the rank (Mann–Whitney) test over layouts"

// compareShift fills c's figures, ratio, interval, p, detectable and
// verdict from the logarithms of the sides' layout figures.
func compareShift(c *LayoutComparison, la, lb []float64, alpha float64) {
	m, n := len(la), len(lb)
	d := make([]float64, 0, m*n)
	for _, x := range la {
		for _, y := range lb {
			d = append(d, y-x)
		}
	}
	slices.Sort(d)
	shift := quantile(0.5, d)
	c.Estimator = EstimatorShift
	c.A = math.Exp(quantile(0.5, slices.Sorted(slices.Values(la))))
	c.B = c.A * math.Exp(shift)
	c.Ratio = math.Exp(shift)

	// The rank statistic: pairs with B above A, ties counting half; its
	// spread under no change, corrected for ties.
	u := 0.0
	for _, v := range d {
		switch {
		case v > 0:
			u++
		case v == 0:
			u += 0.5
		}
	}
	mn := float64(m * n)
	mu := mn / 2
	sd := math.Sqrt(mn / 12 * (float64(m+n+1) - tieTerm(la, lb)))
	z := distuv.UnitNormal
	switch {
	case sd == 0:
		c.PValue = 1
	default:
		c.PValue = math.Min(1, 2*z.CDF(-(math.Abs(u-mu)-0.5)/sd))
	}
	// The interval: the pairs' log ratios at the critical ranks.
	zc := z.Quantile(1 - alpha/2)
	k := int(math.Floor(mu - zc*sd))
	if k < 0 || k >= len(d) {
		c.Lo, c.Hi = 0, math.Inf(1)
	} else {
		c.Lo, c.Hi = math.Exp(d[k]), math.Exp(d[len(d)-1-k])
	}
	c.Lo, c.Hi = math.Min(c.Lo, c.Ratio), math.Max(c.Hi, c.Ratio)
	minP := minRankP(m, n)
	c.Detectable = math.Inf(1)
	if minP < alpha && c.Lo > 0 && !math.IsInf(c.Hi, 1) {
		// The interval's half-width is about z(1−α/2) standard errors
		// of the log shift; a change is found 80% of the time when it
		// lies z(1−α/2) + z(0.8) of them from none.
		se := (math.Log(c.Hi) - math.Log(c.Lo)) / 2 / zc
		c.Detectable = math.Exp((zc+z.Quantile(0.8))*se) - 1
	}
	c.Significant = c.PValue < alpha && minP < alpha
	switch {
	case !c.Significant:
		c.Verdict = stats.VerdictSame
		c.Reason = fmt.Sprintf("p = %s ≥ %v by the rank test over %d and %d layouts", sigfig.PValue(c.PValue), alpha, m, n)
		if minP >= alpha {
			c.Reason = fmt.Sprintf("%d and %d layouts cannot give p < %v: take more layouts (-layouts)", m, n, alpha)
		}
	case c.Ratio > 1:
		c.Verdict = stats.VerdictSlower
	default:
		c.Verdict = stats.VerdictFaster
	}
	if c.Significant {
		c.Reason = fmt.Sprintf("p = %s < %v: B's layouts lie apart from A's, by the rank test over %d and %d layouts", sigfig.PValue(c.PValue), alpha, m, n)
	}
}

// tieTerm is the rank test's correction for ties in the pooled values:
// Σ(t³ − t) / ((m+n)(m+n−1)) over the groups of t equal values.
func tieTerm(a, b []float64) float64 {
	pool := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
	n := float64(len(pool))
	if n < 2 {
		return 0
	}
	s := 0.0
	for i := 0; i < len(pool); {
		j := i + 1
		for j < len(pool) && pool[j] == pool[i] {
			j++
		}
		t := float64(j - i)
		s += t*t*t - t
		i = j
	}
	return s / (n * (n - 1))
}

// minRankP is the smallest two-sided p the rank test can give with m and
// n layouts: every A below every B, or above, of the C(m+n, m) orders.
func minRankP(m, n int) float64 {
	orders := 1.0
	for i := 0; i < m; i++ {
		orders *= float64(m+n-i) / float64(i+1)
	}
	return math.Min(1, 2/orders)
}
