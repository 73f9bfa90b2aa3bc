package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// FitConfidence is the confidence level of the intervals in [Fit].
const FitConfidence = 0.95

// Outlier rule constants, see [Fit.Outliers].
const (
	// OutlierCutoff is the number of robust standard deviations
	// (1.4826·MAD) beyond which a residual is an outlier (Iglewicz and
	// Hoaglin's 3.5).
	OutlierCutoff = 3.5
	// OutlierRelFloor is the relative floor: a residual whose distance from
	// the median residual is at most OutlierRelFloor·max|y| is never an
	// outlier, so rounding noise on an exact line is not flagged.
	OutlierRelFloor = 1e-9
)

// Fit is a least-squares line y = Intercept + Slope·x. All fields are finite.
type Fit struct {
	N int
	// Slope and Intercept of the line, from gonum's [stat.LinearRegression]
	// with an intercept (origin = false).
	Slope, Intercept float64
	// SlopeCI and InterceptCI are half-widths of the 95% confidence intervals
	// (Student t with N−2 degrees of freedom): the slope lies in
	// Slope ± SlopeCI with 95% confidence, assuming independent errors of
	// equal variance. They are 0 when the points lie exactly on the line.
	SlopeCI, InterceptCI float64
	// SlopeSE and InterceptSE are the standard errors of the estimates,
	// from the residual variance s² = Σr²/(N−2).
	SlopeSE, InterceptSE float64
	// R2 is the coefficient of determination from [stat.RSquared] with the
	// intercept; 1 when every y is equal (the line explains them exactly).
	R2 float64
	// Residuals holds y_i − (Intercept + Slope·x_i), in input order.
	Residuals []float64
	// Outliers lists, in increasing order, the indices i whose residual r_i
	// is far from the others by a robust rule:
	//
	//	|r_i − Median(r)| > OutlierCutoff · 1.4826 · MAD(r)
	//	and |r_i − Median(r)| > OutlierRelFloor · max_j |y_j|
	//
	// where MAD is the unscaled median absolute deviation. The second
	// condition keeps rounding noise on an exact line from being flagged.
	// Outliers are reported, not removed: refit without them if wanted.
	Outliers []int
}

// LinearFit fits y = Intercept + Slope·x by least squares, with an intercept
// (see the package doc for why), and reports standard errors, 95% confidence
// half-widths, R², residuals and outliers.
//
// It returns an error wrapping [ErrLengthMismatch] when len(x) != len(y),
// [ErrTooFew] with fewer than 3 points (a confidence interval needs N−2 ≥ 1),
// [ErrBadValue] for a NaN or ±Inf, and [ErrDegenerate] when all x are equal
// or the values are so large that the fit overflows.
// x and y are not modified.
func LinearFit(x, y []float64) (Fit, error) {
	if len(x) != len(y) {
		return Fit{}, fmt.Errorf("%w: len(x) = %d, len(y) = %d, want equal lengths", ErrLengthMismatch, len(x), len(y))
	}
	n := len(x)
	if n < 3 {
		return Fit{}, fmt.Errorf("%w: LinearFit needs at least 3 points, got %d", ErrTooFew, n)
	}
	if err := checkFinite("x", x); err != nil {
		return Fit{}, err
	}
	if err := checkFinite("y", y); err != nil {
		return Fit{}, err
	}
	xMean := stat.Mean(x, nil)
	var sxx float64
	for _, xi := range x {
		d := xi - xMean
		sxx += d * d
	}
	if sxx == 0 {
		return Fit{}, fmt.Errorf("%w: all %d x values equal %v, the slope is undetermined", ErrDegenerate, n, x[0])
	}

	alpha, beta := stat.LinearRegression(x, y, nil, false)
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || math.IsNaN(beta) || math.IsInf(beta, 0) {
		return Fit{}, fmt.Errorf("%w: the fit overflowed (intercept %v, slope %v): x or y too large or x too close together", ErrDegenerate, alpha, beta)
	}
	f := Fit{N: n, Slope: beta, Intercept: alpha, Residuals: make([]float64, n)}
	var sse, yMax float64
	allEqual := true
	for i := range x {
		r := y[i] - f.Predict(x[i])
		f.Residuals[i] = r
		sse += r * r
		yMax = max(yMax, math.Abs(y[i]))
		allEqual = allEqual && y[i] == y[0]
	}
	if allEqual {
		f.R2 = 1
	} else {
		f.R2 = stat.RSquared(x, y, nil, alpha, beta)
	}

	dof := float64(n - 2)
	s2 := sse / dof
	f.SlopeSE = math.Sqrt(s2 / sxx)
	f.InterceptSE = math.Sqrt(s2 * (1/float64(n) + xMean*xMean/sxx))
	t := tQuantile(0.5+FitConfidence/2, dof)
	f.SlopeCI = t * f.SlopeSE
	f.InterceptCI = t * f.InterceptSE

	if !finite(f.R2, f.SlopeSE, f.InterceptSE, f.SlopeCI, f.InterceptCI, sse) {
		return Fit{}, fmt.Errorf("%w: the fit overflowed (R² %v, slope SE %v, intercept SE %v): x or y too large", ErrDegenerate, f.R2, f.SlopeSE, f.InterceptSE)
	}
	f.Outliers = outliers(f.Residuals, OutlierRelFloor*yMax)
	return f, nil
}

// OutliersAbove applies the rule of [Fit.Outliers] to the residuals with an
// absolute floor as well: a residual within floor of the median residual is
// never an outlier. Use it when the data are quantized (for example floor =
// two TSC steps), where the plain rule can flag a one-step deviation among
// otherwise near-perfect points. A floor below OutlierRelFloor·max|y| has no
// effect.
func (f Fit) OutliersAbove(floor float64) []int {
	if len(f.Outliers) == 0 {
		return nil
	}
	m := Median(f.Residuals)
	var out []int
	for _, i := range f.Outliers {
		if math.Abs(f.Residuals[i]-m) > floor {
			out = append(out, i)
		}
	}
	return out
}

// Predict returns Intercept + Slope·x.
func (f Fit) Predict(x float64) float64 { return f.Intercept + f.Slope*x }

// tQuantile returns the p quantile of the standard Student t distribution
// with dof degrees of freedom.
func tQuantile(p, dof float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dof}.Quantile(p)
}

// outliers applies the rule documented at [Fit.Outliers]; floor is the
// absolute floor OutlierRelFloor·max|y|.
func outliers(r []float64, floor float64) []int {
	m := Median(r)
	scale := 1.4826 * madAbout(r, m)
	var out []int
	for i, ri := range r {
		d := math.Abs(ri - m)
		if d > OutlierCutoff*scale && d > floor {
			out = append(out, i)
		}
	}
	return out
}
