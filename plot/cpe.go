package plot

import (
	"fmt"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
// (hollow where they did not converge, ringed where the fit calls them
// outliers, with error bars from YLo and YHi), its fitted line, the
// line's 95% confidence band for the mean (see [Line]) and, when the
// axis starts at 0, the line extended to n = 0 (thin) to show the
// intercept. The lower panel ([Options.Lower]) shows the cost per element
// Y/x with the fit as Slope + Intercept/x, where curvature, cache steps and
// the per-call overhead show, or the residuals. Both share the n axis:
// logarithmic when [Options.XScale] says so or, with ScaleAuto, when the
// sizes are log-spaced over at least a decade; the cost axis of the upper
// panel is then logarithmic too when every value on it is positive.
// Each series has its own colour, marker and dash pattern ([StyleOf]). The
// legend lists the series with their CPE ± CI, the band, the sizes that
// did not converge and the outliers.
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

// cpeFigure is a checked CPE plot, ready to draw.
type cpeFigure struct {
	series []CPESeries
	opt    Options
	xlog   bool
	unit   string // cost unit
	elem   string // element unit, singular
	xMeans []float64
}

func newCPEFigure(series []CPESeries, opt Options) (*cpeFigure, error) {
	if err := checkCPE(series); err != nil {
		return nil, err
	}
	if _, _, err := opt.resolve(DefaultCPESize, "svg"); err != nil {
		return nil, err
	}
	f := &cpeFigure{series: series, opt: opt, unit: series[0].Unit}
	if f.unit == "" {
		f.unit = "cost"
	}
	var elems []string
	var xs []float64
	for _, s := range series {
		e := s.ElementUnit
		if e == "" {
			e = "element"
		}
		if !contains(elems, e) {
			elems = append(elems, e)
		}
		sum := 0.0
		for _, p := range s.Points {
			xs = append(xs, p.x())
			sum += p.x()
		}
		m := sum / float64(len(s.Points))
		if s.Fit != nil && s.Fit.XMean != 0 {
			m = s.Fit.XMean
		}
		f.xMeans = append(f.xMeans, m)
	}
	f.elem = strings.Join(elems, "/")
	switch opt.XScale {
	case ScaleLog:
		for _, x := range xs {
			if x < minLog {
				return nil, fmt.Errorf("%w: n = %v on a logarithmic axis: want every size ≥ %g, or ScaleLinear", ErrBadValue, x, minLog)
			}
		}
		f.xlog = true
	case ScaleAuto:
		f.xlog = logSpaced(xs)
	}
	return f, nil
}

func contains(ss []string, s string) bool {
	for _, v := range ss {
		if v == s {
			return true
		}
	}
	return false
}

// plural returns a unit in the plural: "element" → "elements"; a unit
// ending in s stays ("ms").
func plural(u string) string {
	if strings.HasSuffix(u, "s") {
		return u
	}
	return u + "s"
}

// logSpaced reports whether the sizes are better shown on a log axis: all
// positive, spanning at least a decade, and either their gaps more even
// on a log scale than on a linear one, or a third of them crowded into
// the first tenth of a linear axis.
func logSpaced(xs []float64) bool {
	u := uniqueSorted(xs)
	if len(u) < 3 || u[0] < minLog || u[len(u)-1]/u[0] < 10 {
		return false
	}
	lin, lg := make([]float64, len(u)-1), make([]float64, len(u)-1)
	crowded := 0
	for i := 1; i < len(u); i++ {
		lin[i-1] = u[i] - u[i-1]
		lg[i-1] = math.Log(u[i] / u[i-1])
	}
	for _, x := range u {
		if x <= u[0]+0.1*(u[len(u)-1]-u[0]) {
			crowded++
		}
	}
	return cv(lg) < cv(lin) || 3*crowded >= len(u)
}

func uniqueSorted(xs []float64) []float64 {
	u := append([]float64(nil), xs...)
	sort.Float64s(u)
	out := u[:0]
	for i, v := range u {
		if i == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// cv is the coefficient of variation of xs (all > 0).
func cv(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		s2 += (x - m) * (x - m)
	}
	return math.Sqrt(s2/float64(len(xs))) / m
}

// xRange returns the n axis range: the sizes, widened to labelled ticks,
// from 0 when 0 costs at most a fifth of the width (the intercept shows).
func (f *cpeFigure) xRange(ticks int) (lo, hi float64, withZero bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range f.series {
		for _, p := range s.Points {
			lo, hi = math.Min(lo, p.x()), math.Max(hi, p.x())
		}
	}
	if f.xlog {
		lo, hi = logRange(lo, hi)
		return lo, hi, false
	}
	if lo > 0 && lo <= 0.25*hi {
		lo, withZero = 0, true
	}
	lo, hi = SITicks{Count: ticks}.niceRange(lo, hi)
	return lo, hi, withZero || lo <= 0 && hi > 0
}

// sample returns n+1 points from lo to hi, evenly spaced on the n axis's
// scale.
func (f *cpeFigure) sample(lo, hi float64, n int) []float64 {
	xs := make([]float64, n+1)
	for k := range xs {
		t := float64(k) / float64(n)
		if f.xlog && lo > 0 {
			xs[k] = lo * math.Pow(hi/lo, t)
		} else {
			xs[k] = lo + (hi-lo)*t
		}
	}
	return xs
}

// seriesRange returns the smallest and largest x of s.
func seriesRange(s CPESeries) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		lo, hi = math.Min(lo, p.x()), math.Max(hi, p.x())
	}
	return lo, hi
}

// label is the series' legend entry: its name and CPE ± CI, the unit
// only when the series count different elements (the legend's heading
// names it otherwise).
func (f *cpeFigure) label(s CPESeries, i int) string {
	name := seriesName(s, i)
	if s.Fit == nil {
		return name + ": no fit"
	}
	unit := ""
	if strings.Contains(f.elem, "/") {
		e := s.ElementUnit
		if e == "" {
			e = "element"
		}
		unit = " " + f.unit + "/" + e
	}
	if s.Fit.NotLinear != "" {
		return name + ": NOT LINEAR in n (average " + sigfig.Sig(s.Fit.Slope, 4) + unit + ")"
	}
	if s.Fit.SlopeCI > 0 {
		return name + ": " + sigfig.Sig(s.Fit.Slope, 4) + " ± " + sigfig.Sig(s.Fit.SlopeCI, 2) + unit
	}
	return name + ": " + sigfig.Sig(s.Fit.Slope, 4) + unit
}

// heading is the legend's first line.
func (f *cpeFigure) heading() string {
	h := "CPE"
	if !strings.Contains(f.elem, "/") {
		h += " in " + f.unit + "/" + f.elem
	}
	for _, s := range f.series {
		if s.Fit != nil && s.Fit.SlopeCI > 0 && s.Fit.NotLinear == "" {
			return h + " ± 95% CI"
		}
	}
	return h
}

// title is Options.Title, or one made from the data, with a line naming
// the series that are not linear in n.
func (f *cpeFigure) title() string {
	t := f.opt.Title
	if t == "" {
		if len(f.series) == 1 && f.series[0].Fit != nil && f.series[0].Fit.NotLinear == "" {
			s := f.series[0]
			t = fmt.Sprintf("%s: CPE %s %s/%s", seriesName(s, 0), sigfig.Sig(s.Fit.Slope, 4), f.unit, f.elem)
			if s.Fit.SlopeCI > 0 {
				t = fmt.Sprintf("%s: CPE %s ± %s %s/%s (95%% CI)", seriesName(s, 0), sigfig.Sig(s.Fit.Slope, 4), sigfig.Sig(s.Fit.SlopeCI, 2), f.unit, f.elem)
			}
		} else {
			switch f.opt.Lower {
			case PanelResiduals:
				t = fmt.Sprintf("Cost per call and residuals of the fits (%s, 95%% CI)", f.unit)
			case PanelNone:
				t = fmt.Sprintf("Cost per call (%s, 95%% CI)", f.unit)
			default:
				t = fmt.Sprintf("Cost per call and per %s (%s, 95%% CI)", f.elem, f.unit)
			}
		}
	}
	var nl []string
	for i, s := range f.series {
		if s.Fit != nil && s.Fit.NotLinear != "" {
			nl = append(nl, seriesName(s, i)+" ("+s.Fit.NotLinear+")")
		}
	}
	if len(nl) > 0 {
		t += "\nnot linear in n: " + strings.Join(nl, ", ") + " — the slope is an average"
	}
	return t
}

// draw draws the figure on dc.
func (f *cpeFigure) draw(dc draw.Canvas) error {
	leg := &legend{heading: f.heading()}
	f.legend(leg)
	body := frame(dc, f.title(), leg)
	W, H := body.Max.X-body.Min.X, body.Max.Y-body.Min.Y
	if W < 60 || H < 60 {
		return fmt.Errorf("%w: the title and legend leave %.0f×%.0f points for the data: make the image larger", ErrBadSize, float64(W), float64(H))
	}
	xticks := max(3, int(W/vg.Length(70)))
	xlo, xhi, withZero := f.xRange(xticks)
	var xt gplot.Ticker = SITicks{Count: xticks}
	if f.xlog {
		xt = SILogTicks{Count: xticks}
	}
	lower := f.opt.Lower != PanelNone
	topH := H
	if lower {
		topH = 0.6 * (H - 8)
	}
	top, err := f.upper(xlo, xhi, withZero, xt, max(3, int(topH/vg.Length(40))), lower)
	if err != nil {
		return err
	}
	if !lower {
		top.Draw(body)
		return nil
	}
	bot, err := f.lowerPanel(xlo, xhi, xt, max(3, int((H-topH)/vg.Length(32))))
	if err != nil {
		return err
	}
	cs := []draw.Canvas{
		draw.Crop(body, 0, 0, H-topH, 0),
		draw.Crop(body, 0, 0, 0, -(topH + 8)),
	}
	alignX([]*gplot.Plot{top, bot}, cs)
	top.Draw(cs[0])
	bot.Draw(cs[1])
	return nil
}

// legend fills leg: one entry per series, the band, the sizes that did
// not converge and the outliers.
func (f *cpeFigure) legend(leg *legend) {
	var band, outl bool
	var notConv []int
	for i, s := range f.series {
		st := s.style(i)
		ln := &plotter.Line{LineStyle: lineStyle(st, 1.4)}
		sc := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Color, Radius: 3, Shape: glyph{shape: st.Shape}}}
		leg.add(f.label(s, i), ln, sc)
		if _, ok := s.Fit.band(0, 0); ok {
			band = true
		}
		for _, p := range s.Points {
			outl = outl || p.Outlier
			if p.NotConverged && (len(notConv) == 0 || notConv[len(notConv)-1] != i) {
				notConv = append(notConv, i)
			}
		}
	}
	if band {
		what := "each fit"
		if len(f.series) == 1 {
			what = "the fit"
		}
		leg.add("95% confidence band of "+what, &plotter.Polygon{Color: color.Gray{Y: 0xc8}})
	}
	for _, i := range notConv {
		s := f.series[i]
		st := s.style(i)
		sc := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Color, Radius: 3.6, Shape: glyph{shape: st.Shape, crossed: true}}}
		leg.add(seriesName(s, i)+" did not converge at "+sizeList(s.Points, func(p CPEPoint) bool { return p.NotConverged }), sc)
	}
	for i, s := range f.series {
		if !slices.ContainsFunc(s.Points, func(p CPEPoint) bool { return p.LeftOut }) {
			continue
		}
		st := s.style(i)
		sc := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Color, Radius: 3.3, Shape: glyph{shape: st.Shape, hollow: true}}}
		leg.add(seriesName(s, i)+" runs left out of the fit at "+sizeList(s.Points, func(p CPEPoint) bool { return p.LeftOut }), sc)
	}
	if outl {
		leg.add("residual outlier of the fit", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Gray{Y: 0x40}, Radius: 5, Shape: draw.RingGlyph{}}})
	}
}

// maxListed is the most sizes a legend entry names; more are counted.
const maxListed = 5

// sizeList names the sizes of the points that match, each once, in
// increasing order: "n = 256, 512", or "n = 256, 512, … (26 sizes)".
func sizeList(pts []CPEPoint, match func(CPEPoint) bool) string {
	var ns []float64
	for _, p := range pts {
		if match(p) && !slices.Contains(ns, p.N) {
			ns = append(ns, p.N)
		}
	}
	slices.Sort(ns)
	var parts []string
	for _, n := range ns[:min(len(ns), maxListed)] {
		parts = append(parts, FormatSI(n))
	}
	if len(ns) > maxListed {
		parts = append(parts, fmt.Sprintf("… (%d sizes)", len(ns)))
	}
	return "n = " + strings.Join(parts, ", ")
}

// lineStyle is a series' line: its colour and dash pattern.
func lineStyle(st Style, width vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: st.Color, Width: width, Dashes: st.Dash}
}

// curve is a fitted line sampled along n, with its band (lo, hi: nil
// when there is none).
type curve struct{ x, y, lo, hi []float64 }

// panelSeries is what a panel draws of one series.
type panelSeries struct {
	style   Style
	pts     []xyPoint
	fit     *curve // nil: no fit drawn
	faint   bool   // the fit is an average (not linear): drawn thin and pale
	connect bool   // join the points (not linear: the data's own shape)
	ext     *curve // the fit extended to n = 0, thin; nil for none
	// bandOnly draws fit's band but not its line (residuals: the line is
	// the zero line).
	bandOnly bool
}

// panel describes one panel of the figure.
type panel struct {
	xlabel, ylabel string
	xlo, xhi       float64
	xlog           bool
	xt             gplot.Ticker
	hideX          bool // the panel below shows the n labels
	yticks         int
	// ylog says whether the y axis may be logarithmic given the points'
	// values (all positive); range is the ratio of the largest to the
	// smallest.
	ylog func(lo, hi float64) bool
	// zeroFrom: the y axis starts at 0 when the smallest value is at most
	// zeroFrom times the largest (0 costs little room then).
	zeroFrom float64
	zeroLine bool // draw y = 0 (residuals)
	series   []panelSeries
}

// build returns the gonum plot of the panel: ranges, ticks and plotters
// in the order bands, lines, points, so nothing hides a point.
func (pn panel) build() (*gplot.Plot, error) {
	pn.dropUndrawable()
	p := newPlot()
	p.X.Label.Text, p.Y.Label.Text = pn.xlabel, pn.ylabel
	// The y range: the points, then the lines (only their positive part on
	// a log axis). Bands are clipped to it: at the smallest sizes the band
	// of Intercept/n can be far wider than the data.
	lo, hi := math.Inf(1), math.Inf(-1)
	grow := func(v float64) { lo, hi = math.Min(lo, v), math.Max(hi, v) }
	for _, s := range pn.series {
		for _, q := range s.pts {
			grow(q.y)
			if q.lo != q.hi {
				grow(q.lo)
				grow(q.hi)
			}
		}
	}
	if math.IsInf(lo, 0) { // no point can be drawn (a residual panel without fits)
		lo, hi = -1, 1
	}
	ylog := lo >= minLog && pn.ylog != nil && pn.ylog(lo, hi)
	// Lines widen the range by at most half the points' span (a factor 3
	// on a log axis): a fit far from the data at the smallest sizes shows
	// as a line leaving the panel, without squashing the points.
	capLo, capHi := lo-0.5*(hi-lo), hi+0.5*(hi-lo)
	if hi == lo {
		capLo, capHi = lo-0.1*math.Abs(lo)-1, hi+0.1*math.Abs(hi)+1
	}
	if ylog {
		capLo, capHi = lo/3, hi*3
	}
	for _, s := range pn.series {
		for _, c := range []*curve{s.fit, s.ext} {
			if c == nil || c == s.fit && s.bandOnly {
				continue
			}
			for _, y := range c.y {
				if !ylog || y > 0 {
					grow(math.Min(math.Max(y, capLo), capHi))
				}
			}
		}
	}
	if pn.zeroLine {
		grow(0)
	}
	if ylog {
		lo, hi = logRange(lo, hi)
		p.Y.Scale, p.Y.Tick.Marker = gplot.LogScale{}, SILogTicks{Count: pn.yticks}
	} else {
		if lo > 0 && lo <= pn.zeroFrom*hi {
			lo = 0
		}
		lo, hi = SITicks{Count: pn.yticks}.niceRange(lo, hi)
		p.Y.Tick.Marker = SITicks{Count: pn.yticks}
	}
	if pn.xlog {
		p.X.Scale = gplot.LogScale{}
	}
	p.X.Tick.Marker = pn.xt
	if pn.hideX {
		p.X.Tick.Marker = hideLabels{pn.xt}
	}
	p.Add(gridLines{X: pn.xt, Y: p.Y.Tick.Marker})
	// Lines and polygons are clipped to the data area by gonum; a band is
	// clamped to the range only so a log axis never sees a value ≤ 0.
	clamp := func(v float64) float64 { return math.Min(math.Max(v, lo), hi) }
	if pn.zeroLine {
		if err := addLine(p, []float64{pn.xlo, pn.xhi}, []float64{0, 0}, draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: 0.8}, false); err != nil {
			return nil, err
		}
	}
	for i, s := range pn.series {
		c := s.fit
		if c == nil || len(c.lo) == 0 {
			continue
		}
		poly := make(plotter.XYs, 0, 2*len(c.x))
		for k := range c.x {
			poly = append(poly, plotter.XY{X: c.x[k], Y: clamp(c.hi[k])})
		}
		for k := len(c.x) - 1; k >= 0; k-- {
			poly = append(poly, plotter.XY{X: c.x[k], Y: clamp(c.lo[k])})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, fmt.Errorf("%w: band of series %d: %v", ErrDraw, i+1, err)
		}
		pg.Color = withAlpha(s.style.Color, 0x38)
		pg.LineStyle.Width = 0
		p.Add(pg)
	}
	for _, s := range pn.series {
		st := s.style
		if s.ext != nil {
			ext := lineStyle(st, 0.8)
			ext.Color = withAlpha(st.Color, 0x90)
			if err := addLine(p, s.ext.x, s.ext.y, ext, ylog); err != nil {
				return nil, err
			}
		}
		if s.fit != nil && !s.bandOnly {
			sty := lineStyle(st, 1.4)
			if s.faint {
				sty.Width, sty.Color, sty.Dashes = 0.9, withAlpha(st.Color, 0x80), []vg.Length{2, 2}
			}
			if err := addLine(p, s.fit.x, s.fit.y, sty, ylog); err != nil {
				return nil, err
			}
		}
		if s.connect {
			pts := append([]xyPoint(nil), s.pts...)
			sort.Slice(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
			xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
			for k, q := range pts {
				xs[k], ys[k] = q.x, q.y
			}
			if err := addLine(p, xs, ys, lineStyle(st, 1.2), ylog); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range pn.series {
		if err := addPoints(p, s.pts, s.style); err != nil {
			return nil, err
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = pn.xlo, pn.xhi, lo, hi
	return p, nil
}

// dropUndrawable removes the points and line samples whose value
// overflowed: Y/x at a tiny x, a band at an extreme x. The inputs are
// checked; what they derive may still not be finite.
func (pn *panel) dropUndrawable() {
	for i := range pn.series {
		s := &pn.series[i]
		var pts []xyPoint
		for _, q := range s.pts {
			if drawable(q.x) && drawable(q.y) && drawable(q.lo) && drawable(q.hi) {
				pts = append(pts, q)
			}
		}
		s.pts = pts
		for _, c := range []*curve{s.fit, s.ext} {
			if c == nil {
				continue
			}
			var k int
			for j := range c.x {
				ok := drawable(c.x[j]) && drawable(c.y[j]) && (len(c.lo) == 0 || drawable(c.lo[j]) && drawable(c.hi[j]))
				if !ok {
					continue
				}
				c.x[k], c.y[k] = c.x[j], c.y[j]
				if len(c.lo) > 0 {
					c.lo[k], c.hi[k] = c.lo[j], c.hi[j]
				}
				k++
			}
			c.x, c.y = c.x[:k], c.y[:k]
			if len(c.lo) > 0 {
				c.lo, c.hi = c.lo[:k], c.hi[:k]
			}
		}
	}
}

// upper returns the cost-per-call panel.
func (f *cpeFigure) upper(xlo, xhi float64, withZero bool, xt gplot.Ticker, yticks int, shared bool) (*gplot.Plot, error) {
	pn := panel{ylabel: f.unit + " per call", xlo: xlo, xhi: xhi, xlog: f.xlog, xt: xt, hideX: shared, yticks: yticks, zeroFrom: 0.25,
		ylog: func(lo, hi float64) bool { return f.xlog }}
	if !shared {
		pn.xlabel = "n (" + plural(f.elem) + " per call)"
	}
	for i, s := range f.series {
		ps := panelSeries{style: s.style(i)}
		for _, pt := range s.Points {
			ps.pts = append(ps.pts, xyPoint{x: pt.x(), y: pt.Y, lo: pt.YLo, hi: pt.YHi, hollow: pt.LeftOut, crossed: pt.NotConverged, ring: pt.Outlier})
		}
		lo, hi := seriesRange(s)
		if s.Fit != nil && hi > lo {
			ps.fit = &curve{}
			for _, x := range f.sample(lo, hi, 96) {
				y := s.Fit.at(x)
				ps.fit.x, ps.fit.y = append(ps.fit.x, x), append(ps.fit.y, y)
				if h, ok := s.Fit.band(x, f.xMeans[i]); ok {
					ps.fit.lo, ps.fit.hi = append(ps.fit.lo, y-h), append(ps.fit.hi, y+h)
				}
			}
			if withZero && !f.xlog && lo > 0 && s.Fit.NotLinear == "" {
				ps.ext = &curve{x: []float64{0, lo}, y: []float64{s.Fit.Intercept, s.Fit.at(lo)}}
			}
		}
		if s.Fit != nil && s.Fit.NotLinear != "" {
			ps.faint, ps.connect = true, true
		}
		pn.series = append(pn.series, ps)
	}
	return pn.build()
}

// lowerPanel returns the per-element or residual panel.
func (f *cpeFigure) lowerPanel(xlo, xhi float64, xt gplot.Ticker, yticks int) (*gplot.Plot, error) {
	perElem := f.opt.Lower == PanelPerElement
	pn := panel{xlabel: "n (" + plural(f.elem) + " per call)", xlo: xlo, xhi: xhi, xlog: f.xlog, xt: xt, yticks: yticks}
	if perElem {
		pn.ylabel = f.unit + " per " + f.elem
		pn.zeroFrom = 0.2
		// Kernels of very different CPE (1 and 12 cycles) each keep their
		// relative detail on a log axis.
		pn.ylog = func(lo, hi float64) bool { return hi/lo >= 8 }
	} else {
		pn.ylabel = "residual (" + f.unit + " per call)"
		pn.zeroLine = true
	}
	for i, s := range f.series {
		ps := panelSeries{style: s.style(i)}
		notLinear := s.Fit != nil && s.Fit.NotLinear != ""
		// value maps a cost per call at x to the panel's y.
		value := func(x, y float64) (float64, bool) {
			if perElem {
				return y / x, x > 0
			}
			if s.Fit == nil || notLinear {
				return 0, false
			}
			return y - s.Fit.at(x), true
		}
		for _, pt := range s.Points {
			y, ok := value(pt.x(), pt.Y)
			if !ok {
				continue
			}
			q := xyPoint{x: pt.x(), y: y, hollow: pt.LeftOut, crossed: pt.NotConverged, ring: pt.Outlier}
			if pt.YLo != 0 || pt.YHi != 0 {
				q.lo, _ = value(pt.x(), pt.YLo)
				q.hi, _ = value(pt.x(), pt.YHi)
			}
			ps.pts = append(ps.pts, q)
		}
		if notLinear {
			// The fit of a curved cost is no model of it: show the data.
			ps.connect = perElem
			pn.series = append(pn.series, ps)
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range s.Points {
			if x := pt.x(); x > 0 || !perElem {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		if s.Fit != nil && hi > lo {
			ps.fit = &curve{}
			for _, x := range f.sample(lo, hi, 96) {
				y := s.Fit.at(x)
				h, ok := s.Fit.band(x, f.xMeans[i])
				if perElem {
					y, h = y/x, h/x
				} else {
					y = 0
				}
				ps.fit.x, ps.fit.y = append(ps.fit.x, x), append(ps.fit.y, y)
				if ok {
					ps.fit.lo, ps.fit.hi = append(ps.fit.lo, y-h), append(ps.fit.hi, y+h)
				}
			}
			ps.bandOnly = !perElem // the zero line is drawn once for all
		}
		pn.series = append(pn.series, ps)
	}
	return pn.build()
}

// xyPoint is a point to draw: hollow when it did not converge, ringed
// when an outlier, with an error bar from lo to hi when they differ.
type xyPoint struct {
	x, y, lo, hi          float64
	hollow, crossed, ring bool
}

// addLine adds a polyline; on a log y axis, the points at or below 0 are
// left out.
func addLine(p *gplot.Plot, xs, ys []float64, sty draw.LineStyle, ylog bool) error {
	var xy plotter.XYs
	for k := range xs {
		if ylog && ys[k] <= 0 {
			continue
		}
		xy = append(xy, plotter.XY{X: xs[k], Y: ys[k]})
	}
	if len(xy) < 2 {
		return nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrDraw, err)
	}
	l.LineStyle = sty
	p.Add(l)
	return nil
}

// yErr is what plotter.NewYErrorBars takes.
type yErr struct {
	plotter.XYs
	plotter.YErrors
}

// xErr is what plotter.NewXErrorBars takes.
type xErr struct {
	plotter.XYs
	plotter.XErrors
}

// addPoints adds a series' points: error bars, then filled and hollow
// markers, then outlier rings.
func addPoints(p *gplot.Plot, pts []xyPoint, st Style) error {
	var filled, hollow, crossed, rings, bars plotter.XYs
	var errs plotter.YErrors
	for _, q := range pts {
		xy := plotter.XY{X: q.x, Y: q.y}
		if q.lo != q.hi {
			bars = append(bars, xy)
			errs = append(errs, struct{ Low, High float64 }{q.y - q.lo, q.hi - q.y})
		}
		switch {
		case q.crossed:
			crossed = append(crossed, xy)
		case q.hollow:
			hollow = append(hollow, xy)
		default:
			filled = append(filled, xy)
		}
		if q.ring {
			rings = append(rings, xy)
		}
	}
	if len(bars) > 0 {
		eb, err := plotter.NewYErrorBars(yErr{bars, errs})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDraw, err)
		}
		eb.LineStyle = draw.LineStyle{Color: st.Color, Width: 0.8}
		eb.CapWidth = 4
		p.Add(eb)
	}
	for _, set := range []struct {
		xy  plotter.XYs
		sty draw.GlyphStyle
	}{
		{filled, draw.GlyphStyle{Color: st.Color, Radius: 3, Shape: glyph{shape: st.Shape}}},
		{hollow, draw.GlyphStyle{Color: st.Color, Radius: 3.3, Shape: glyph{shape: st.Shape, hollow: true}}},
		{crossed, draw.GlyphStyle{Color: st.Color, Radius: 3.6, Shape: glyph{shape: st.Shape, crossed: true}}},
		{rings, draw.GlyphStyle{Color: st.Color, Radius: 6.5, Shape: draw.RingGlyph{}}},
	} {
		if len(set.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(set.xy)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDraw, err)
		}
		sc.GlyphStyle = set.sty
		p.Add(sc)
	}
	return nil
}
