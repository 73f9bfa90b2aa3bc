package revision

// The verdict over layouts. Each layout's figure is the best of its
// processes (a process caught in a host's slow stretch is slower, never
// faster: the K-best rule's reasoning, applied to processes). By default
// the sides' layouts are compared as a whole (shift.go); on request, each
// side's figure is the lower quartile of its layouts' figures, with a
// test that permutes layouts between the sides, or its best mode
// (mode.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// EstimatorQuantile is the quantile of the per-layout figures a side's
// figure is, and Estimator says so in the output. A layout's cost is not
// one number: in issue 33's 16 layouts per side before and after a
// change that added a fifth more work, the best layouts moved +21% (the
// work added), the mean +7% and the median −1%, because the layouts
// fall into modes (187k ×5, 272k ×6, 290k ×2, 430k ×3) that a change
// moves between. The best layouts carry the work; the minimum alone rests
// on one layout, so the lower quartile is taken: the best layouts' level,
// resting on a quarter of them. How often it finds a real change, and
// keeps quiet without one, is measured by the targets in docs/compare.md.
const EstimatorQuantile = 0.25

// Estimator names the estimator in the output.
const Estimator = "lower quartile of the layouts' figures (each layout: the best of its processes)"

// Options are the settings of [CompareLayouts].
type Options struct {
	// Alpha is the significance level; 0 means 0.05.
	Alpha float64
	// Permutations is the number of random splits of the layouts the test
	// draws; 0 means 4000 (p to about ±0.007 at 0.05).
	Permutations int
	// Seed seeds the random splits, so that a comparison is reproducible.
	Seed uint64
	// Quartile takes the verdict from the lower quartile of the layouts'
	// figures with the permutation test, and BestMode from each side's
	// best mode (mode.go), which finds a change that moves the modes where
	// the other tests cannot but calls A/A comparisons different more
	// often than alpha, falling back to the quartile's when the best modes
	// hold one layout each. The default is the shift between the sides'
	// layouts with the rank test (shift.go).
	Quartile, BestMode bool
}

// Mode is a group of layouts whose figures lie within 3% of the next
// one's: the distribution's modes, as the output shows them.
type Mode struct {
	Value float64 `json:"value"` // the median of the group
	Count int     `json:"count"`
}

// modeGap is the relative gap between two sorted layout figures that
// starts a new mode: wider than the within-layout spread of a converged
// kernel (well under 1%), narrower than the modes seen (+20% and more).
const modeGap = 0.03

// LayoutComparison is the verdict of one benchmark over layouts.
type LayoutComparison struct {
	// Unit is the figure's unit: cycles/op, or ns/op without cycles.
	Unit string `json:"unit"`
	// Estimator says how a side's figure was taken.
	Estimator string `json:"estimator"`
	// A and B are each side's figure; LayoutsA and LayoutsB each
	// layout's figure, in seed order.
	A        float64   `json:"a"`
	B        float64   `json:"b"`
	LayoutsA []float64 `json:"layouts_a"`
	LayoutsB []float64 `json:"layouts_b"`
	// ModesA and ModesB are the distributions' modes (see [Mode]).
	ModesA []Mode `json:"modes_a"`
	ModesB []Mode `json:"modes_b"`
	// Ratio is B/A, Lo and Hi its 95% interval (1−Alpha), taken by
	// inverting the permutation test: the ratios by which B's layouts
	// could be scaled and still look like A's.
	Ratio  float64 `json:"ratio"`
	Lo     float64 `json:"ratio_lo"`
	Hi     float64 `json:"ratio_hi"`
	PValue float64 `json:"p_value"`
	// Significant is PValue < Alpha.
	Significant bool `json:"significant"`
	// Between is the spread of the layouts' figures (the standard
	// deviation of their logarithms, pooled over the sides), Within the
	// spread between processes of one layout (NaN with one process per
	// layout), and Sensitivity Between/Within: far above 1, the layout
	// moves the figure more than the processes do.
	Between     float64 `json:"layout_spread"`
	Within      float64 `json:"process_spread"`
	Sensitivity float64 `json:"layout_sensitivity"`
	// Detectable is the smallest relative change this comparison would
	// find 80% of the time (Inf when too few layouts allow no verdict).
	Detectable float64 `json:"detectable"`
	Verdict    string  `json:"verdict"`
	Reason     string  `json:"reason"`
}

// MarshalJSON writes c with the figures that are not numbers (the
// within-layout spread and the sensitivity with one process per layout,
// an infinite detectable change) as null.
func (c LayoutComparison) MarshalJSON() ([]byte, error) {
	type plain LayoutComparison
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		Within      *float64 `json:"process_spread"`
		Sensitivity *float64 `json:"layout_sensitivity"`
		Detectable  *float64 `json:"detectable"`
	}{plain(c), num(c.Within), num(c.Sensitivity), num(c.Detectable)})
}

// ErrFigures: the figures given cannot be compared.
var ErrFigures = errors.New("revision: figures cannot be compared")

// layoutFigure is the best (smallest) of a layout's process figures.
func layoutFigure(procs []float64) float64 { return slices.Min(procs) }

// quantile is the q quantile of sorted xs, linearly interpolated (type 7).
func quantile(q float64, xs []float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	h := q * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}

// estimate is the side's figure of logarithms xs (not sorted).
func estimate(xs []float64, buf []float64) float64 {
	buf = append(buf[:0], xs...)
	slices.Sort(buf)
	return quantile(EstimatorQuantile, buf)
}

// CompareLayouts compares side A's and side B's figures, each given per
// layout (a layout's slice holds its processes' figures, at least one),
// in unit. Figures must be positive.
func CompareLayouts(unit string, a, b [][]float64, opt Options) (LayoutComparison, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if opt.Permutations == 0 {
		opt.Permutations = 4000
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) || opt.Permutations < 100 {
		return LayoutComparison{}, fmt.Errorf("%w: alpha %v, %d permutations (allowed: 0 < alpha < 1, at least 100)", ErrFigures, opt.Alpha, opt.Permutations)
	}
	la, err := logFigures("A", a)
	if err != nil {
		return LayoutComparison{}, err
	}
	lb, err := logFigures("B", b)
	if err != nil {
		return LayoutComparison{}, err
	}
	c := LayoutComparison{Unit: unit, Estimator: Estimator}
	for _, l := range a {
		c.LayoutsA = append(c.LayoutsA, layoutFigure(l))
	}
	for _, l := range b {
		c.LayoutsB = append(c.LayoutsB, layoutFigure(l))
	}
	c.ModesA, c.ModesB = modes(c.LayoutsA), modes(c.LayoutsB)
	c.Between, c.Within = spreads(a, b, la, lb)
	c.Sensitivity = c.Between / c.Within
	switch {
	case opt.BestMode && !opt.Quartile && compareBestModes(&c, opt.Alpha):
		return c, nil
	case !opt.BestMode && !opt.Quartile:
		compareShift(&c, la, lb, opt.Alpha)
		return c, nil
	}
	buf := make([]float64, 0, len(la)+len(lb))
	ea, eb := estimate(la, buf), estimate(lb, buf)
	c.A, c.B = math.Exp(ea), math.Exp(eb)
	c.Ratio = math.Exp(eb - ea)
	t := newPermTest(la, lb, opt)
	c.PValue = t.p(0)
	c.Significant = c.PValue < opt.Alpha
	lo, hi := t.interval(eb-ea, opt.Alpha)
	c.Lo, c.Hi = math.Exp(lo), math.Exp(hi)
	c.Detectable = t.detectable(opt.Alpha)
	switch {
	case !c.Significant:
		c.Verdict = stats.VerdictSame
		c.Reason = fmt.Sprintf("p = %s ≥ %v over %d and %d layouts", sigfig.PValue(c.PValue), opt.Alpha, len(a), len(b))
		if t.minP() >= opt.Alpha {
			c.Reason = fmt.Sprintf("%d and %d layouts cannot give p < %v: take more layouts (-layouts)", len(a), len(b), opt.Alpha)
		}
	case c.Ratio > 1:
		c.Verdict = stats.VerdictSlower
	default:
		c.Verdict = stats.VerdictFaster
	}
	if c.Significant {
		c.Reason = fmt.Sprintf("p = %s < %v: B's layouts are not A's, by the permutation test over %d and %d layouts", sigfig.PValue(c.PValue), opt.Alpha, len(a), len(b))
	}
	return c, nil
}

// logFigures checks side's figures and returns the logarithm of each
// layout's figure.
func logFigures(side string, layouts [][]float64) ([]float64, error) {
	if len(layouts) < 1 {
		return nil, fmt.Errorf("%w: side %s has no layout", ErrFigures, side)
	}
	out := make([]float64, len(layouts))
	for i, l := range layouts {
		if len(l) == 0 {
			return nil, fmt.Errorf("%w: layout %d of side %s has no figure", ErrFigures, i+1, side)
		}
		for _, v := range l {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: layout %d of side %s has figure %v (want a positive number)", ErrFigures, i+1, side, v)
			}
		}
		out[i] = math.Log(layoutFigure(l))
	}
	return out, nil
}

// modes groups sorted figures into modes (see modeGap).
func modes(figs []float64) []Mode {
	s := slices.Sorted(slices.Values(figs))
	var out []Mode
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || s[i] > s[i-1]*(1+modeGap) {
			g := s[start:i]
			out = append(out, Mode{Value: quantile(0.5, g), Count: len(g)})
			start = i
		}
	}
	return out
}

// ModesText writes modes as "187k ×5, 272k ×6".
func ModesText(ms []Mode) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s ×%d", sigfig.Sig(m.Value, 4), m.Count))
	}
	return strings.Join(parts, ", ")
}

// spreads are the between-layout spread (the standard deviation of the
// log layout figures about each side's mean, pooled) and the
// within-layout one (of the log process figures about each layout's
// mean, pooled; NaN without a layout of two processes).
func spreads(a, b [][]float64, la, lb []float64) (between, within float64) {
	var ss float64
	dof := 0
	for _, side := range [][]float64{la, lb} {
		m := mean(side)
		for _, v := range side {
			ss += (v - m) * (v - m)
		}
		dof += len(side) - 1
	}
	between = math.NaN()
	if dof > 0 {
		between = math.Sqrt(ss / float64(dof))
	}
	ss, dof = 0, 0
	for _, side := range [][][]float64{a, b} {
		for _, l := range side {
			if len(l) < 2 {
				continue
			}
			logs := make([]float64, len(l))
			for i, v := range l {
				logs[i] = math.Log(v)
			}
			m := mean(logs)
			for _, v := range logs {
				ss += (v - m) * (v - m)
			}
			dof += len(l) - 1
		}
	}
	within = math.NaN()
	if dof > 0 {
		within = math.Sqrt(ss / float64(dof))
	}
	return between, within
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, v := range xs {
		s += v
	}
	return s / float64(len(xs))
}

// permTest is the permutation test of the estimate's log ratio: under
// the null hypothesis the layouts of both sides are exchangeable, so the
// observed difference is compared with those of random splits of the
// pooled layouts into two groups of the sides' sizes. The splits are
// drawn once, so that p is a smooth function of a shift of B.
type permTest struct {
	a, b   []float64
	splits [][]bool // true: the pooled layout goes to group A
	buf    []float64
}

func newPermTest(a, b []float64, opt Options) *permTest {
	t := &permTest{a: a, b: b}
	r := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	n := len(a) + len(b)
	idx := make([]int, n)
	for i := 0; i < opt.Permutations; i++ {
		for j := range idx {
			idx[j] = j
		}
		r.Shuffle(n, func(x, y int) { idx[x], idx[y] = idx[y], idx[x] })
		s := make([]bool, n)
		for _, j := range idx[:len(a)] {
			s[j] = true
		}
		t.splits = append(t.splits, s)
	}
	return t
}

// p is the two-sided p-value of the hypothesis that B's layouts, their
// logarithms shifted by −shift, are exchangeable with A's.
func (t *permTest) p(shift float64) float64 {
	pool := make([]float64, 0, len(t.a)+len(t.b))
	pool = append(pool, t.a...)
	for _, v := range t.b {
		pool = append(pool, v-shift)
	}
	obs := math.Abs(t.stat(pool, nil))
	hits := 0
	for _, s := range t.splits {
		if math.Abs(t.stat(pool, s)) >= obs-1e-12 {
			hits++
		}
	}
	return float64(hits+1) / float64(len(t.splits)+1)
}

// stat is the estimate of group B minus that of group A, the groups
// given by split (nil: the sides as measured).
func (t *permTest) stat(pool []float64, split []bool) float64 {
	var ga, gb []float64
	for i, v := range pool {
		inA := i < len(t.a)
		if split != nil {
			inA = split[i]
		}
		if inA {
			ga = append(ga, v)
		} else {
			gb = append(gb, v)
		}
	}
	return estimate(gb, t.buf) - estimate(ga, t.buf)
}

// minP is the smallest p-value the test can give: with few layouts, few
// splits differ (two and two: 6), and none may be extreme enough.
func (t *permTest) minP() float64 {
	n, k := len(t.a)+len(t.b), len(t.a)
	splits := 1.0
	for i := 0; i < k; i++ {
		splits *= float64(n-i) / float64(i+1)
	}
	// The observed split and its mirror (equal sizes) are always as
	// extreme as themselves.
	return math.Max(1/float64(len(t.splits)+1), 2/splits)
}

// intervalSteps is the resolution of the interval's search: the shifts
// between the extreme differences of the sides' logarithms are tried in
// this many steps (a 40% range resolved to 0.1%).
const intervalSteps = 400

// interval is the set of log shifts the test does not reject at alpha,
// searched outward from est (the observed log ratio).
func (t *permTest) interval(est, alpha float64) (lo, hi float64) {
	span := (slices.Max(t.b) - slices.Min(t.b)) + (slices.Max(t.a) - slices.Min(t.a))
	if span == 0 {
		return est, est
	}
	step := 2 * span / intervalSteps
	lo, hi = est, est
	for d := est - step; d >= est-2*span; d -= step {
		if t.p(d) < alpha {
			break
		}
		lo = d
	}
	for d := est + step; d <= est+2*span; d += step {
		if t.p(d) < alpha {
			break
		}
		hi = d
	}
	return lo - step/2, hi + step/2
}

// detectable is the smallest relative change found 80% of the time at
// alpha, from the spread of the estimate over resampled layouts (the
// bootstrap's standard error of the log ratio, times z(1−α/2) + z(0.8)).
func (t *permTest) detectable(alpha float64) float64 {
	if t.minP() >= alpha {
		return math.Inf(1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const boots = 1000
	diffs := make([]float64, boots)
	ra, rb := make([]float64, len(t.a)), make([]float64, len(t.b))
	for i := range diffs {
		for j := range ra {
			ra[j] = t.a[r.IntN(len(t.a))]
		}
		for j := range rb {
			rb[j] = t.b[r.IntN(len(t.b))]
		}
		diffs[i] = estimate(rb, t.buf) - estimate(ra, t.buf)
	}
	m := mean(diffs)
	ss := 0.0
	for _, d := range diffs {
		ss += (d - m) * (d - m)
	}
	se := math.Sqrt(ss / float64(boots-1))
	n := distuv.UnitNormal
	return math.Exp((n.Quantile(1-alpha/2)+n.Quantile(0.8))*se) - 1
}
