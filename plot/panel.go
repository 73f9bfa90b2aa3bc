package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// lineStyle is a series' line: its colour and dash pattern.
func lineStyle(st Style, width vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: st.Color, Width: width, Dashes: st.Dash}
}

// curve is a fitted line sampled along n, with its band (lo, hi: nil
// when there is none).
type curve struct{ x, y, lo, hi []float64 }

// panelSeries is what a panel draws of one series.
type panelSeries struct {
	style Style
	pts   []xyPoint
	fit   *curve // nil: no fit drawn
	faint bool   // the fit is an average (not linear): drawn thin and pale
	trace *curve // the data's own shape where no fit models it; nil for none
	ext   *curve // the fit extended to n = 0, thin; nil for none
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
		pg.Color = withAlpha(s.style.Color, 0x50)
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
		if s.trace != nil {
			if err := addLine(p, s.trace.x, s.trace.y, lineStyle(st, 1.2), ylog); err != nil {
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
		for _, c := range []*curve{s.fit, s.ext, s.trace} {
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
