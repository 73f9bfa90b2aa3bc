package plot

import (
	"fmt"
	"math"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
	var ax axis
	ax.lo, ax.hi, ax.withZero = f.xRange(xticks)
	ax.ticks = SITicks{Count: xticks}
	if f.xlog {
		ax.ticks = SILogTicks{Count: xticks}
	}
	lowers := f.lowers()
	if len(lowers) == 0 {
		top, err := f.upper(ax, max(3, int(H/vg.Length(40))), false).build()
		if err != nil {
			return err
		}
		top.Draw(body)
		return nil
	}
	// The cost per call keeps the larger share: it is what the fit is of.
	// Panels are panelGap apart.
	const panelGap = 8
	avail := H - panelGap*vg.Length(len(lowers))
	topH := 0.6 * avail
	if len(lowers) == 2 {
		topH = 0.5 * avail
	}
	lowH := (avail - topH) / vg.Length(len(lowers))
	if len(lowers) == 2 && lowH < minLowerHeight {
		return fmt.Errorf("%w: the title and legend leave %.0f points of height for three panels: make the image taller, or choose one lower panel (Options.Lower)", ErrBadSize, float64(H))
	}
	top, err := f.upper(ax, max(3, int(topH/vg.Length(40))), true).build()
	if err != nil {
		return err
	}
	plots := []*gplot.Plot{top}
	cs := []draw.Canvas{draw.Crop(body, 0, 0, H-topH, 0)}
	y := topH + panelGap
	for k, kind := range lowers {
		last := k == len(lowers)-1
		p, err := f.lower(kind, ax, lowH, !last).build()
		if err != nil {
			return err
		}
		plots = append(plots, p)
		cs = append(cs, draw.Crop(body, 0, 0, H-(y+lowH), -y))
		y += lowH + panelGap
	}
	alignX(plots, cs)
	for k, p := range plots {
		p.Draw(cs[k])
	}
	return nil
}

// minLowerHeight is the least height, in points, of each of two lower
// panels: below it their tick labels overlap and the residuals are a line.
const minLowerHeight = 36

// lowers lists the panels drawn under the cost per call, top to bottom.
func (f *cpeFigure) lowers() []Panel {
	switch f.opt.Lower {
	case PanelBoth:
		return []Panel{PanelPerElement, PanelResiduals}
	case PanelNone:
		return nil
	}
	return []Panel{f.opt.Lower}
}
