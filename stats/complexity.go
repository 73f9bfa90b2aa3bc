package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Growth laws of [ComplexityFit].
const (
	GrowthN     = "n"
	GrowthNLogN = "n log n"
	GrowthN2    = "n²"
)

// ComplexityFit is a least-squares fit of a cost y against a growth law of
// the size x: y = Intercept + Coef·f(x), with f(x) = x, x·log₂x or x²,
// as Google Benchmark's complexity fits (which have no intercept).
type ComplexityFit struct {
	// Growth names f: GrowthN, GrowthNLogN or GrowthN2.
	Growth string
	// Intercept and Coef are the fit's coefficients, in y's unit and y's
	// unit per f's unit.
	Intercept, Coef float64
	// R2 is the fit's coefficient of determination (unweighted, as
	// [LinearFit] reports it).
	R2 float64
	// RMSRel is the root mean square of the residuals relative to the
	// fitted values, sqrt(mean(((y − ŷ)/ŷ)²)): the fits are ranked by it,
	// as timing noise is relative.
	RMSRel float64
}

// ComplexityFits fits y = a + b·f(x) for f = x, x·log₂x and x² by least
// squares weighted for relative noise (weights 1/y², as timing noise is
// proportional to the time, so that the small sizes of a log-spaced sweep
// count as much as the large ones) and returns the fits, best first
// (smallest RMSRel; R² breaks ties): which growth the cost follows when a
// straight line does not fit. x and y must be positive (log₂x is taken,
// y weighs). It returns an error wrapping [ErrBadValue] for a value that
// is not, and otherwise those of [LinearFit] (checked on the line); a law
// whose fit is degenerate (too few distinct f(x)) is left out.
func ComplexityFits(x, y []float64) ([]ComplexityFit, error) {
	if i := slices.IndexFunc(x, func(v float64) bool { return !(v > 0) }); i >= 0 {
		return nil, fmt.Errorf("%w: x[%d] = %v: the growth laws need positive sizes", ErrBadValue, i, x[i])
	}
	if i := slices.IndexFunc(y, func(v float64) bool { return !(v > 0) }); i >= 0 {
		return nil, fmt.Errorf("%w: y[%d] = %v: relative residuals need positive costs", ErrBadValue, i, y[i])
	}
	if _, err := LinearFit(x, y); err != nil {
		return nil, err
	}
	w := make([]float64, len(y))
	for i, v := range y {
		w[i] = 1 / (v * v)
	}
	laws := []struct {
		name string
		f    func(float64) float64
	}{
		{GrowthN, func(n float64) float64 { return n }},
		{GrowthNLogN, func(n float64) float64 { return n * math.Log2(n) }},
		{GrowthN2, func(n float64) float64 { return n * n }},
	}
	var fits []ComplexityFit
	for _, law := range laws {
		fx := make([]float64, len(x))
		for i, v := range x {
			fx[i] = law.f(v)
		}
		if distinct(fx) < 2 || !finite(fx...) {
			continue
		}
		a, b := stat.LinearRegression(fx, y, w, false)
		ss := 0.0
		for i := range y {
			p := a + b*fx[i]
			if p == 0 {
				ss = math.Inf(1)
				break
			}
			e := (y[i] - p) / p
			ss += e * e
		}
		r2 := stat.RSquared(fx, y, nil, a, b)
		if !finite(a, b, r2) || math.IsInf(ss, 0) {
			continue
		}
		fits = append(fits, ComplexityFit{Growth: law.name, Intercept: a, Coef: b, R2: r2, RMSRel: math.Sqrt(ss / float64(len(y)))})
	}
	slices.SortStableFunc(fits, func(a, b ComplexityFit) int {
		switch {
		case a.RMSRel < b.RMSRel:
			return -1
		case a.RMSRel > b.RMSRel:
			return 1
		case a.R2 > b.R2:
			return -1
		case a.R2 < b.R2:
			return 1
		}
		return 0
	})
	return fits, nil
}
