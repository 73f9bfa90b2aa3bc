package plot

import (
	"fmt"
	"io"
	"math"
)

// CPEPoint is one measured size of a CPE sweep.
type CPEPoint struct {
	// N is the size the kernel was built with; it names the point (in
	// the legend's list of sizes that did not converge).
	N float64
	// Elements is the fit's x: elements per call. 0 means N.
	Elements float64
	// Y is the cost per call, in the series' Unit.
	Y float64
	// YLo and YHi bound Y (for example the best and the K-th best sample,
	// converted to the same unit), drawn as an error bar; both 0 means no
	// bar. When set, YLo ≤ Y ≤ YHi.
	YLo, YHi float64
	// NotConverged marks a point whose measurement did not converge: it is
	// drawn hollow with an × in it and its size listed in the legend. (The
	// zero value is an ordinary point.)
	NotConverged bool
	// Outlier marks a point whose residual the fit flagged: it gets a ring.
	Outlier bool
	// LeftOut marks a point the fit left out (a run disturbed by other
	// work, far from the other runs of its size): it is drawn hollow
	// (without the × of NotConverged) and its size listed in the legend. Line.XMean should then be the mean of the x
	// the fit used.
	LeftOut bool
}

// x returns the point's abscissa: Elements, or N when Elements is 0.
func (p CPEPoint) x() float64 {
	if p.Elements != 0 {
		return p.Elements
	}
	return p.N
}

// Line is a least-squares fit y = Intercept + Slope·x over a series'
// points, as stats.LinearFit reports it.
type Line struct {
	// Intercept is the cost per call at x = 0, Slope the cost per element
	// (the CPE), in the series' Unit.
	Intercept, Slope float64
	// SlopeCI and InterceptCI are the half-widths of their confidence
	// intervals (95% in stats.Fit). The legend shows Slope ± SlopeCI.
	SlopeCI, InterceptCI float64
	// SlopeSE and InterceptSE are the standard errors of Slope and
	// Intercept, and XMean is the mean of the x values the fit used (0
	// means the mean of the series' points' x, right when the fit used
	// every point). With them the plot draws the confidence band of the
	// fitted mean,
	//
	//	Intercept + Slope·x ± t·sqrt(InterceptSE² + SlopeSE²·(x² − 2·x·XMean)),
	//
	// which is t·s·sqrt(1/N + (x − x̄)²/Sxx) for an ordinary least-squares
	// fit with residual standard deviation s, at the confidence level of
	// SlopeCI: t = SlopeCI/SlopeSE. It assumes what the fit's intervals
	// assume (independent errors of equal variance, a straight line). No
	// band is drawn when SlopeSE or SlopeCI is 0, or NotLinear is set.
	SlopeSE, InterceptSE, XMean float64
	// R2 is the coefficient of determination (not drawn; kept for callers
	// that build labels).
	R2 float64
	// NotLinear, when not "", says the cost is not linear in n, and why
	// ("O(n²) kernel", "curved residuals"): the slope is then an average,
	// the series is marked "not linear in n" in the legend and title, and
	// no band is drawn.
	NotLinear string
}

// band returns the half-width of the confidence band at x, and whether
// there is one.
func (l *Line) band(x, xMean float64) (float64, bool) {
	if l == nil || l.SlopeSE <= 0 || l.SlopeCI <= 0 || l.NotLinear != "" {
		return 0, false
	}
	t := l.SlopeCI / l.SlopeSE
	v := l.InterceptSE*l.InterceptSE + l.SlopeSE*l.SlopeSE*(x*x-2*x*xMean)
	return t * math.Sqrt(math.Max(v, 0)), true
}

// at returns the fitted cost at x.
func (l *Line) at(x float64) float64 { return l.Intercept + l.Slope*x }

// CPESeries is one kernel of a CPE plot: its measured points and the fit.
type CPESeries struct {
	// Name labels the series ("Psum1").
	Name string
	// Unit is the unit of Y: "cycles", "ticks", "ns". Every series of a
	// plot must have the same Unit; "" means "cost".
	Unit string
	// ElementUnit is what n counts, singular: "element" (the default for
	// ""), "byte". Axis labels add an "s" ("elements per call").
	ElementUnit string
	// Points are the measured sizes, in any order.
	Points []CPEPoint
	// Fit is the fitted line; nil draws the points alone ("no fit").
	Fit *Line
	// Style, when > 0, draws the series in StyleOf(Style−1), so a kernel
	// keeps its colour, marker and dashes across plots; 0 means its
	// position in the slice.
	Style int
}

// style returns the series' Style, or the one of position i.
func (s CPESeries) style(i int) Style {
	if s.Style > 0 {
		return StyleOf(s.Style - 1)
	}
	return StyleOf(i)
}

// CPE draws a CPE plot of series to w as an svg, png or pdf image
// (format, any case).
//
// The upper panel shows the cost per call against n: each series' points
// (hollow with an × where they did not converge, hollow where the fit
// left them out, ringed where the fit calls them outliers, with error bars from YLo
// and YHi), its fitted line (drawn through the fit, never through the
// points; faint when the fit is not linear in n), the line's 95%
// confidence band for the mean (see [Line]) and, when the axis starts at
// 0, the line extended to n = 0 (thin) to show the intercept. Under it
// ([Options.Lower]; by default both): the cost per element Y/x with the
// fit as Slope + Intercept/x, where curvature, cache steps and the
// per-call overhead show, and the residuals of the points the fit kept,
// in the cost unit, with the band around 0, where a band too thin to see
// beside the cost per call shows. The panels share the n axis:
// logarithmic when [Options.XScale] says so or, with ScaleAuto, when the
// sizes are log-spaced over at least a decade; the cost axis of the upper
// panel is then logarithmic too when every value on it is positive.
// Each series has its own colour, marker and dash pattern ([StyleOf]). The
// legend lists the series with their CPE ± CI, the band, the sizes that
// did not converge, the runs left out and the outliers.
//
// Errors wrap [ErrNoData] (no series, a series without points),
// [ErrBadValue] (NaN, ±Inf, beyond ±1e150, negative n, YLo ≤ Y ≤ YHi
// violated, n ≤ 0 with ScaleLog), [ErrBadInput] (series in different units, bad option
// values), [ErrBadSize] and [ErrFormat]. Nothing is written to w on error.
func CPE(w io.Writer, format string, series []CPESeries, opt Options) error {
	fig, err := newCPEFigure(series, opt)
	if err != nil {
		return err
	}
	return render(w, format, opt, DefaultCPESize, fig.draw)
}

// checkCPE validates the series.
func checkCPE(series []CPESeries) error {
	if len(series) == 0 {
		return fmt.Errorf("%w: no series to plot", ErrNoData)
	}
	for i, s := range series {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", i+1)
		}
		if len(s.Points) == 0 {
			return fmt.Errorf("%w: %s has no points", ErrNoData, name)
		}
		if s.Unit != series[0].Unit {
			return fmt.Errorf("%w: %s is in %q, %s in %q: every series of a plot must have the same unit", ErrBadInput, name, s.Unit, seriesName(series[0], 0), series[0].Unit)
		}
		for j, p := range s.Points {
			for _, v := range []struct {
				field string
				v     float64
			}{{"N", p.N}, {"Elements", p.Elements}, {"Y", p.Y}, {"YLo", p.YLo}, {"YHi", p.YHi}} {
				if !drawable(v.v) {
					return fmt.Errorf("%w: %s point %d: %s = %v, want a finite number within ±%g", ErrBadValue, name, j, v.field, v.v, maxMagnitude)
				}
			}
			if p.N < 0 || p.Elements < 0 {
				return fmt.Errorf("%w: %s point %d: n %v, elements %v: want n ≥ 0 and elements ≥ 0", ErrBadValue, name, j, p.N, p.Elements)
			}
			if (p.YLo != 0 || p.YHi != 0) && !(p.YLo <= p.Y+tol(p.Y) && p.Y <= p.YHi+tol(p.Y)) {
				return fmt.Errorf("%w: %s point %d: Y %v outside [YLo, YHi] = [%v, %v]", ErrBadValue, name, j, p.Y, p.YLo, p.YHi)
			}
		}
		if f := s.Fit; f != nil {
			for _, v := range []struct {
				field string
				v     float64
			}{{"Intercept", f.Intercept}, {"Slope", f.Slope}, {"SlopeCI", f.SlopeCI}, {"InterceptCI", f.InterceptCI},
				{"SlopeSE", f.SlopeSE}, {"InterceptSE", f.InterceptSE}, {"XMean", f.XMean}, {"R2", f.R2}} {
				if !drawable(v.v) {
					return fmt.Errorf("%w: %s fit: %s = %v, want a finite number within ±%g", ErrBadValue, name, v.field, v.v, maxMagnitude)
				}
			}
			if f.SlopeCI < 0 || f.InterceptCI < 0 || f.SlopeSE < 0 || f.InterceptSE < 0 {
				return fmt.Errorf("%w: %s fit: negative interval or standard error (SlopeCI %v, InterceptCI %v, SlopeSE %v, InterceptSE %v)", ErrBadValue, name, f.SlopeCI, f.InterceptCI, f.SlopeSE, f.InterceptSE)
			}
		}
	}
	return nil
}

// maxMagnitude bounds the values drawn: beyond it, spans, squares and
// sums of the values overflow float64.
const maxMagnitude = 1e150

// minLog is the smallest value a logarithmic axis starts from: below it
// powers of ten underflow to 0.
const minLog = 1 / maxMagnitude

// drawable reports whether v is finite and within ±maxMagnitude.
func drawable(v float64) bool { return isFinite(v) && math.Abs(v) <= maxMagnitude }

// tol is the rounding allowance when checking YLo ≤ Y ≤ YHi.
func tol(y float64) float64 { return 1e-9 * math.Abs(y) }

func seriesName(s CPESeries, i int) string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("series %d", i+1)
}
