package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Verdicts of [Linearity].
const (
	// LinearityLinear: no test finds a departure from the line.
	LinearityLinear = "linear"
	// LinearityNotLinear: the cost is not a straight line in the size, so
	// a single cost per element (the fitted slope) misdescribes it.
	LinearityNotLinear = "not linear in n"
	// LinearityUnchecked: too few points to test (fewer than 4) and R² not
	// low enough to tell.
	LinearityUnchecked = "not checked"
)

// LinearityOptions controls [LackOfFit]. Zero fields select the defaults of
// [DefaultLinearityOptions].
type LinearityOptions struct {
	// Alpha is the significance level of each of the three tests
	// (curvature, break, runs); 0 means 0.01. In simulations of straight
	// lines with independent noise of the kind assumed (see Absolute) the
	// three together called 2.2% of sweeps "not linear". 0 < Alpha < 1.
	Alpha float64
	// MinR2 is the smallest R² of a linear fit: below it the fit is not
	// linear whatever the tests say; 0 means 0.999. 0 < MinR2 ≤ 1.
	MinR2 float64
	// Floor is an absolute tolerance in y's unit, for example two counter
	// steps in ticks: residuals within Floor of 0 count as 0 in the runs
	// test, and a curvature or a break that moves the fit by at most Floor
	// at every size measured is not significant. The floor used is never below the
	// rounding floor OutlierRelFloor·max|y|. 0 means that floor only; must
	// be finite and ≥ 0.
	Floor float64
	// Absolute makes the tests assume noise of the same size at every x
	// (ordinary least squares). By default they assume noise proportional
	// to y, as timing noise is (a K-best value agrees to a relative ε):
	// the tests fit their lines and quadratic with weights 1/y², so the
	// small sizes of a log-spaced sweep count as much as the large ones.
	// Either way R² is the unweighted fit's, as [LinearFit] reports it.
	// Testing with the wrong noise model misleads: in simulations of
	// straight lines over sizes 64…65536, unweighted tests on noise
	// proportional to y called 82% of them "not linear", and weighted tests
	// on noise of constant size 68%; when the counter's resolution rather
	// than a relative spread limits the values, set Floor.
	Absolute bool
	// MinChange is the practical threshold: a departure from the line
	// makes the verdict "not linear" only when, besides being significant,
	// it moves the cost by more than MinChange (relative) at some size
	// measured, which is how far it moves the cost per element there
	// (0.01: 1%). A curvature that bends 42.61 cycles per element into
	// 42.73 is real and of no use to anyone. 0 means significance alone;
	// must be finite, 0 ≤ MinChange < 1. harness.CPE sets it to ε.
	MinChange float64
}

// DefaultLinearityOptions holds the defaults that zero fields select.
var DefaultLinearityOptions = LinearityOptions{Alpha: 0.01, MinR2: 0.999}

// Linearity is the result of [LackOfFit]: whether cost grows linearly with
// size over the sizes measured.
type Linearity struct {
	// Verdict is LinearityLinear, LinearityNotLinear or LinearityUnchecked.
	// It is LinearityNotLinear when the curvature, break or runs test is
	// significant, or R2 < MinR2; LinearityUnchecked when none of that
	// holds but the curvature test could not be made (fewer than 4 points
	// or 3 distinct sizes).
	Verdict string
	// Linear is Verdict == LinearityLinear.
	Linear bool
	// Reason says why in one line, naming each failed criterion with its
	// statistic, for example "not linear in n: curvature (t = 41, p =
	// 2.1e-12, up to 1.1e+04 off the line); R² 0.942 < 0.999".
	Reason string
	// N is the number of points.
	N int
	// R2 is the straight line's R² (as [Fit.R2]) and MinR2 the threshold
	// used.
	R2, MinR2 float64
	// Curvature is the test of a quadratic term.
	Curvature Curvature
	// Runs is the runs test on the signs of the residuals in order of x.
	Runs SignRuns
	// Break is the test of two lines against one.
	Break Break
	// Alpha and Floor are the options used, defaults filled in; Floor is
	// at least the rounding floor OutlierRelFloor·max|y|. MinChange is
	// the practical threshold used.
	Alpha, Floor, MinChange float64
	// MaxRel is the largest residual of the line relative to the line,
	// max |r|/|ŷ| over the points: how far a departure the runs test sees
	// moves the cost.
	MaxRel float64
	// Complexity, when the verdict is not linear, holds the fits of
	// y = a + b·f(n) for f = n, n log n and n², best first (see
	// [ComplexityFits]): which growth the cost follows.
	Complexity []ComplexityFit
	// Relative reports whether the tests weighted the points by 1/y²
	// (noise proportional to y): true unless Absolute was asked or a y is
	// not positive (then a warning says so).
	Relative bool
	// Warnings holds soft problems: [ErrTooFew] when there are too few
	// points or too few distinct sizes for the curvature test.
	Warnings []error
}

// Curvature tests whether a quadratic y = c0 + c1·x + c2·x² fits
// significantly better than the line: Student's t test of c2 with N−3
// degrees of freedom (the partial F test of the quadratic term, F = T²).
// It is computed on x centred and scaled, so it is accurate for sizes from
// 1 to 10⁹; Coef and SE are given back in y's unit per x².
type Curvature struct {
	// Tested reports whether the test was made: it needs N ≥ 4 and at least
	// 3 distinct x. When false every other field is 0 and PValue is 1.
	// When every residual of the line is within the floor there is nothing
	// to test: Tested and DoF are set, PValue is 1 and the rest 0.
	Tested bool
	// Coef is c2, in y's unit per x² (per element² for a cost against n),
	// and SE its standard error.
	Coef, SE float64
	// T is Coef/SE; 0 when SE is 0 (the quadratic fits exactly), in which
	// case PValue is 0 if Coef ≠ 0 and 1 if not.
	T float64
	// DoF is N − 3.
	DoF int
	// PValue is the two-sided p-value of T.
	PValue float64
	// MaxDev is the largest |quadratic − line| over the x measured, in y's
	// unit: how far the curvature moves the fit; MaxRel the largest
	// |quadratic − line| / |line|, relative.
	MaxDev, MaxRel float64
	// Significant is PValue < Alpha and MaxDev > Floor.
	Significant bool
	// Fails is Significant and MaxRel > MinChange: the curvature makes the
	// verdict not linear.
	Fails bool
}

// Break tests whether two lines, one for the sizes below some point and one
// for the sizes from it, fit significantly better than a single line: a
// change of slope (a knee) or a jump of level (a step), such as a working
// set outgrowing a cache. At every split of the points in order of x that
// leaves at least 2 distinct x on each side it computes Chow's statistic
//
//	F = ((SSE_line − SSE_two)/2) / (SSE_two/(N−4))
//
// (weighted sums of squares, see [LinearityOptions.Absolute]) with 2 and N−4
// degrees of freedom, and reports the most significant split, its p-value
// multiplied by the number of splits tried (Bonferroni), so that trying
// every split does not make a break easier to find.
type Break struct {
	// Tested reports whether the test was made: it needs N ≥ 5 and a split
	// with 2 distinct x on each side. When false every other field is 0 and
	// PValue is 1. When every residual of the line is within the floor
	// there is nothing to test: Tested, DoF and Splits are set, PValue is 1
	// and the rest 0.
	Tested bool
	// At is the first x of the upper segment at the most significant split.
	At float64
	// F is Chow's statistic at that split (0 when both segments fit
	// exactly); DoF is N − 4.
	F   float64
	DoF int
	// Splits is the number of splits tried.
	Splits int
	// PValue is min(1, Splits × the split's p-value).
	PValue float64
	// MaxDev is the largest |two lines − one line| over the x measured at
	// that split, in y's unit; MaxRel the same relative to the line.
	MaxDev, MaxRel float64
	// Significant is PValue < Alpha and MaxDev > Floor.
	Significant bool
	// Fails is Significant and MaxRel > MinChange: the break makes the
	// verdict not linear.
	Fails bool
}

// SignRuns is the Wald–Wolfowitz runs test on the signs of the residuals
// of the straight line, taken in increasing order of x (ties in x keep their
// input order). A curved or stepped cost leaves long stretches of residuals
// of one sign, so fewer runs than chance; the test is one-sided and exact
// (the p-value sums the null distribution of the number of runs given the
// counts of each sign).
type SignRuns struct {
	// Tested reports whether the test was made: at least one residual of
	// each sign beyond the floor. When false PValue is 1.
	Tested bool
	// Plus and Minus count residuals above +Floor and below −Floor.
	Plus, Minus int
	// Zeros counts residuals within ±Floor, left out of the test.
	Zeros int
	// Runs is the number of runs of equal signs among the Plus+Minus signs.
	Runs int
	// Expected is the mean number of runs by chance,
	// 1 + 2·Plus·Minus/(Plus+Minus); 0 when not Tested.
	Expected float64
	// PValue is P(R ≤ Runs) under the null hypothesis that every order of
	// the signs is equally likely. With few points it cannot be small: 10
	// points of 5 signs each give at least 0.008.
	PValue float64
	// Significant is PValue < Alpha.
	Significant bool
	// Fails is Significant and Linearity.MaxRel > MinChange: the pattern
	// makes the verdict not linear.
	Fails bool
}

// LackOfFit tests whether y grows linearly with x, as a cost per element
// (CPE) assumes, so that the slope of [LinearFit] means something. Four
// criteria, any of which makes the verdict LinearityNotLinear:
//
//   - curvature: a quadratic term is significant (see [Curvature]), as for
//     an O(n²) kernel;
//   - break: two lines, below and above some size, fit significantly better
//     than one (see [Break]), as when a working set outgrows a cache;
//   - runs: the residuals' signs, in order of x, form fewer runs than chance
//     allows (see [SignRuns]), a systematic pattern of any shape;
//   - R² below MinR2.
//
// The tests weight the points for noise proportional to y unless
// opt.Absolute (see [LinearityOptions]). With fewer than 4 points, or fewer
// than 3 distinct sizes, there is no curvature test (and the others cannot
// reject): the verdict is then LinearityNotLinear if R² is below MinR2 and
// LinearityUnchecked otherwise, with an [ErrTooFew] warning. Exact data
// (every residual within the rounding floor) are linear. x and y are not
// modified.
//
// It returns an error wrapping [ErrLengthMismatch], [ErrTooFew] (fewer than
// 3 points), [ErrBadValue] or [ErrDegenerate] as [LinearFit] does (and
// ErrDegenerate when a test statistic overflows), and [ErrBadParam] for bad
// options. Every field of the result is finite.
func LackOfFit(x, y []float64, opt LinearityOptions) (Linearity, error) {
	if opt.Alpha == 0 {
		opt.Alpha = DefaultLinearityOptions.Alpha
	}
	if opt.MinR2 == 0 {
		opt.MinR2 = DefaultLinearityOptions.MinR2
	}
	switch {
	case !(opt.Alpha > 0 && opt.Alpha < 1):
		return Linearity{}, fmt.Errorf("%w: Alpha = %v, want 0 < Alpha < 1 (0 means %v)", ErrBadParam, opt.Alpha, DefaultLinearityOptions.Alpha)
	case !(opt.MinR2 > 0 && opt.MinR2 <= 1):
		return Linearity{}, fmt.Errorf("%w: MinR2 = %v, want 0 < MinR2 <= 1 (0 means %v)", ErrBadParam, opt.MinR2, DefaultLinearityOptions.MinR2)
	case !(opt.Floor >= 0) || math.IsInf(opt.Floor, 0):
		return Linearity{}, fmt.Errorf("%w: Floor = %v, want a finite value >= 0", ErrBadParam, opt.Floor)
	case !(opt.MinChange >= 0 && opt.MinChange < 1):
		return Linearity{}, fmt.Errorf("%w: MinChange = %v, want 0 <= MinChange < 1", ErrBadParam, opt.MinChange)
	}
	f, err := LinearFit(x, y)
	if err != nil {
		return Linearity{}, err
	}
	var yMax float64
	for _, v := range y {
		yMax = max(yMax, math.Abs(v))
	}
	l := Linearity{
		N: f.N, R2: f.R2, MinR2: opt.MinR2,
		Alpha: opt.Alpha, Floor: max(opt.Floor, OutlierRelFloor*yMax), MinChange: opt.MinChange,
	}
	l.Relative = !opt.Absolute
	if l.Relative {
		if i := slices.IndexFunc(y, func(v float64) bool { return !(v > 0) }); i >= 0 {
			l.Relative = false
			l.Warnings = append(l.Warnings, fmt.Errorf("%w: y[%d] = %v is not positive, so the tests assume noise of the same size at every x", ErrBadValue, i, y[i]))
		}
	}
	v := make([]float64, len(y))
	for i, yi := range y {
		v[i] = 1
		if l.Relative {
			v[i] = 1 / (yi * yi)
		}
	}
	var r []float64
	l.Curvature, r = lineTests(x, y, v, l.Alpha, l.Floor)
	order := make([]int, len(x)) // indices in increasing x, ties in input order
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(x[i], x[j]) })
	l.Runs = signRuns(order, r, l.Alpha, l.Floor)
	l.Break = breakTest(order, x, y, v, r, l.Alpha, l.Floor)
	for i := range y {
		if fit := y[i] - r[i]; fit != 0 {
			l.MaxRel = max(l.MaxRel, math.Abs(r[i]/fit))
		}
	}
	l.Curvature.Fails = l.Curvature.Significant && l.Curvature.MaxRel > l.MinChange
	l.Break.Fails = l.Break.Significant && l.Break.MaxRel > l.MinChange
	l.Runs.Fails = l.Runs.Significant && l.MaxRel > l.MinChange

	c, b := l.Curvature, l.Break
	if !finite(c.Coef, c.SE, c.T, c.PValue, c.MaxDev, b.F, b.PValue, b.MaxDev, l.Runs.PValue) {
		return Linearity{}, fmt.Errorf("%w: the tests overflowed (curvature t %v, break F %v): y too large or too far apart", ErrDegenerate, c.T, b.F)
	}
	var failed []string
	if l.Curvature.Fails {
		c := l.Curvature
		failed = append(failed, fmt.Sprintf("curvature (t = %s, p = %s, up to %s = %s off the line)", fmtG(c.T, 3), fmtG(c.PValue, 2), fmtG(c.MaxDev, 3), fmtPct(c.MaxRel)))
	}
	if l.Break.Fails {
		b := l.Break
		failed = append(failed, fmt.Sprintf("a break at %s (F = %s, p = %s over %d splits, up to %s = %s off the line)", fmtG(b.At, 6), fmtG(b.F, 3), fmtG(b.PValue, 2), b.Splits, fmtG(b.MaxDev, 3), fmtPct(b.MaxRel)))
	}
	if l.Runs.Fails {
		r := l.Runs
		failed = append(failed, fmt.Sprintf("residual signs in %d runs where %s are expected (p = %s, residuals up to %s)", r.Runs, fmtG(r.Expected, 3), fmtG(r.PValue, 2), fmtPct(l.MaxRel)))
	}
	if l.R2 < l.MinR2 {
		failed = append(failed, fmt.Sprintf("R² %s < %s", fmtG(l.R2, 6), fmtG(l.MinR2, 6)))
	}
	switch {
	case len(failed) > 0:
		l.Verdict = LinearityNotLinear
		l.Reason = LinearityNotLinear + ": " + strings.Join(failed, "; ")
	case !l.Curvature.Tested:
		l.Verdict = LinearityUnchecked
		l.Reason = fmt.Sprintf("%s: %d points at %d sizes; the tests need at least 4 points at 3 sizes (R² %s)", LinearityUnchecked, l.N, distinct(x), fmtG(l.R2, 6))
	default:
		l.Verdict = LinearityLinear
		l.Reason = LinearityLinear + ": " + l.passed()
	}
	l.Linear = l.Verdict == LinearityLinear
	if l.Verdict == LinearityNotLinear {
		l.Complexity, _ = ComplexityFits(x, y) // nil when a size is not positive: no growth law then
	}
	if !l.Curvature.Tested {
		l.Warnings = append(l.Warnings, fmt.Errorf("%w: no curvature test: %d points at %d distinct sizes, want at least 4 points at 3 sizes", ErrTooFew, l.N, distinct(x)))
	}
	return l, nil
}

// passed describes the criteria a linear fit met: a test that found a
// departure too small to matter says how small.
func (l Linearity) passed() string {
	var parts []string
	under := "under the practical threshold " + fmtPct(l.MinChange)
	switch c := l.Curvature; {
	case c.Significant:
		parts = append(parts, fmt.Sprintf("a curvature of at most %s (t = %s, p = %s), %s", fmtPct(c.MaxRel), fmtG(c.T, 3), fmtG(c.PValue, 2), under))
	case c.Tested:
		parts = append(parts, fmt.Sprintf("no curvature (p = %s)", fmtG(c.PValue, 2)))
	}
	switch b := l.Break; {
	case b.Significant:
		parts = append(parts, fmt.Sprintf("a break at %s of at most %s (p = %s), %s", fmtG(b.At, 6), fmtPct(b.MaxRel), fmtG(b.PValue, 2), under))
	case b.Tested:
		parts = append(parts, fmt.Sprintf("no break (p = %s)", fmtG(b.PValue, 2)))
	}
	switch r := l.Runs; {
	case r.Significant:
		parts = append(parts, fmt.Sprintf("residual signs in %d runs (p = %s) but within %s, %s", r.Runs, fmtG(r.PValue, 2), fmtPct(l.MaxRel), under))
	case r.Tested:
		parts = append(parts, fmt.Sprintf("residual signs random (%d runs, p = %s)", r.Runs, fmtG(r.PValue, 2)))
	default:
		parts = append(parts, fmt.Sprintf("%d of %d residuals within ±%s", l.Runs.Zeros, l.N, fmtG(l.Floor, 3)))
	}
	parts = append(parts, fmt.Sprintf("R² %s ≥ %s", fmtG(l.R2, 6), fmtG(l.MinR2, 6)))
	return strings.Join(parts, ", ")
}

// lineTests fits the line y = α + β·x by least squares with weights v and
// runs the curvature test ([Curvature]) on it; it returns the test and the
// line's residuals y − α − β·x (unweighted values).
func lineTests(x, y, v []float64, alpha, floor float64) (Curvature, []float64) {
	c := Curvature{PValue: 1}
	n := len(x)
	// u = (x − mean)/scale in [−1, 1] keeps u² well conditioned for sizes
	// up to 10⁹; the t statistic does not depend on the scaling.
	xm := stat.Mean(x, nil)
	var scale float64
	for _, xi := range x {
		scale = max(scale, math.Abs(xi-xm))
	}
	u, u2 := make([]float64, n), make([]float64, n)
	for i, xi := range x {
		u[i] = (xi - xm) / scale
		u2[i] = u[i] * u[i]
	}
	a0, b0 := stat.LinearRegression(u, y, v, false)
	r := make([]float64, n)
	for i := range r {
		r[i] = y[i] - a0 - b0*u[i]
	}
	if n < 4 || distinct(x) < 3 {
		return c, r
	}
	if within(r, floor) {
		c.Tested, c.DoF = true, n-3
		return c, r
	}
	// w is the part of u² (weighted-)orthogonal to 1 and u: the residual of
	// regressing u² on u. The quadratic term's coefficient on u² is then
	// Σv·w·r / Σv·w², and its fit differs from the line's by that times w.
	a, b := stat.LinearRegression(u, u2, v, false)
	w := make([]float64, n)
	var ww, wr float64
	for i := range w {
		w[i] = u2[i] - a - b*u[i]
		ww += v[i] * w[i] * w[i]
		wr += v[i] * w[i] * r[i]
	}
	var vSum float64
	for _, vi := range v {
		vSum += vi
	}
	if !(ww > 1e-12*vSum) { // 3 distinct x too close to tell a curve
		return c, r
	}
	k := wr / ww
	var sse float64
	for i := range w {
		e := r[i] - k*w[i]
		sse += v[i] * e * e
		c.MaxDev = max(c.MaxDev, math.Abs(k*w[i]))
		if line := y[i] - r[i]; line != 0 {
			c.MaxRel = max(c.MaxRel, math.Abs(k*w[i]/line))
		}
	}
	c.Tested = true
	c.DoF = n - 3
	seK := math.Sqrt(sse / float64(c.DoF) / ww)
	s2 := scale * scale
	c.Coef, c.SE = k/s2, seK/s2
	switch {
	case seK > 0:
		c.T = k / seK
		c.PValue = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(c.DoF)}.Survival(math.Abs(c.T)))
	case k != 0:
		c.PValue = 0
	}
	c.Significant = c.PValue < alpha && c.MaxDev > floor
	return c, r
}

// signRuns runs the test documented at [SignRuns] on the residuals r taken
// in the given order.
func signRuns(order []int, r []float64, alpha, floor float64) SignRuns {
	s := SignRuns{PValue: 1}
	last := 0
	for _, i := range order {
		sign := 0
		switch {
		case r[i] > floor:
			sign, s.Plus = 1, s.Plus+1
		case r[i] < -floor:
			sign, s.Minus = -1, s.Minus+1
		default:
			s.Zeros++
			continue
		}
		if sign != last {
			s.Runs++
			last = sign
		}
	}
	if s.Plus == 0 || s.Minus == 0 {
		return s
	}
	s.Tested = true
	n1, n2 := s.Plus, s.Minus
	s.Expected = 1 + 2*float64(n1)*float64(n2)/float64(n1+n2)
	s.PValue = min(1, runsCDF(n1, n2, s.Runs))
	s.Significant = s.PValue < alpha
	return s
}

// breakTest runs the test documented at [Break]: order lists the indices
// of x in increasing order, v the weights and r the residuals of the
// weighted line.
func breakTest(order []int, x, y, v, r []float64, alpha, floor float64) Break {
	b := Break{PValue: 1}
	n := len(x)
	if n < 5 {
		return b
	}
	xs, ys, vs := make([]float64, n), make([]float64, n), make([]float64, n)
	var sseLine float64
	for k, i := range order {
		xs[k], ys[k], vs[k] = x[i], y[i], v[i]
		sseLine += v[i] * r[i] * r[i]
	}
	// segment fits the weighted line to xs[lo:hi] and returns its SSE.
	segment := func(lo, hi int) (a, s, sse float64) {
		a, s = stat.LinearRegression(xs[lo:hi], ys[lo:hi], vs[lo:hi], false)
		for k := lo; k < hi; k++ {
			e := ys[k] - a - s*xs[k]
			sse += vs[k] * e * e
		}
		return a, s, sse
	}
	dof := float64(n - 4)
	best, bestK := math.Inf(1), 0
	for k := 2; k <= n-2; k++ {
		if xs[k-1] == xs[k] || xs[0] == xs[k-1] || xs[k] == xs[n-1] {
			continue // a tie across the split, or one distinct x on a side
		}
		b.Splits++
		_, _, s1 := segment(0, k)
		_, _, s2 := segment(k, n)
		var f, p float64
		switch two := s1 + s2; {
		case two > 0:
			f = max(0, (sseLine-two)/2/(two/dof))
			p = distuv.F{D1: 2, D2: dof}.Survival(f)
		case sseLine > 0:
			p = 0
		default:
			p = 1
		}
		if p < best {
			best, bestK, b.F = p, k, f
		}
	}
	if b.Splits == 0 {
		return b
	}
	b.Tested, b.DoF = true, n-4
	if within(r, floor) {
		b.F = 0
		return b
	}
	b.At = xs[bestK]
	b.PValue = min(1, float64(b.Splits)*best)
	a1, s1, _ := segment(0, bestK)
	a2, s2, _ := segment(bestK, n)
	for k, i := range order {
		line := y[i] - r[i]
		two := a1 + s1*xs[k]
		if k >= bestK {
			two = a2 + s2*xs[k]
		}
		b.MaxDev = max(b.MaxDev, math.Abs(two-line))
		if line != 0 {
			b.MaxRel = max(b.MaxRel, math.Abs((two-line)/line))
		}
	}
	b.Significant = b.PValue < alpha && b.MaxDev > floor
	return b
}

// within reports whether every |r_i| ≤ floor.
func within(r []float64, floor float64) bool {
	return !slices.ContainsFunc(r, func(v float64) bool { return math.Abs(v) > floor })
}

// runsCDF returns P(R ≤ runs) for the number of runs R in a random order of
// n1 pluses and n2 minuses (n1, n2 ≥ 1):
//
//	P(R = 2k)   = 2·C(n1−1, k−1)·C(n2−1, k−1) / C(n1+n2, n1)
//	P(R = 2k+1) = (C(n1−1, k)·C(n2−1, k−1) + C(n1−1, k−1)·C(n2−1, k)) / C(n1+n2, n1)
func runsCDF(n1, n2, runs int) float64 {
	total := logChoose(n1+n2, n1)
	term := func(a, b, c, d int) float64 { // C(a,b)·C(c,d)/C(n1+n2,n1)
		if b < 0 || b > a || d < 0 || d > c {
			return 0
		}
		return math.Exp(logChoose(a, b) + logChoose(c, d) - total)
	}
	var p float64
	for r := 2; r <= runs; r++ {
		k := r / 2
		if r%2 == 0 {
			p += 2 * term(n1-1, k-1, n2-1, k-1)
		} else {
			p += term(n1-1, k, n2-1, k-1) + term(n1-1, k-1, n2-1, k)
		}
	}
	return p
}

// logChoose returns log C(n, k) for 0 ≤ k ≤ n.
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// distinct returns the number of distinct values in xs.
func distinct(xs []float64) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return len(slices.Compact(s))
}
