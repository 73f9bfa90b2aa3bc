package plot

import (
	"maps"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// axis is the n axis the panels of a figure share.
type axis struct {
	lo, hi   float64
	withZero bool // 0 is on the axis: the fit is extended to it
	ticks    gplot.Ticker
}

// upper returns the cost-per-call panel: the points, the fits and their
// bands. A fit is drawn as its line, never through the points, so runs the
// fit left out stand apart from it as hollow marks; a fit that is not
// linear in n is drawn faint, as the average it is. hideX leaves the n
// labels to a panel below.
func (f *cpeFigure) upper(ax axis, yticks int, hideX bool) panel {
	pn := panel{ylabel: f.unit + " per call", xlo: ax.lo, xhi: ax.hi, xlog: f.xlog, xt: ax.ticks, hideX: hideX, yticks: yticks, zeroFrom: 0.25,
		ylog: func(lo, hi float64) bool { return f.xlog }}
	if !hideX {
		pn.xlabel = f.xlabel()
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
			if ax.withZero && !f.xlog && lo > 0 && s.Fit.NotLinear == "" {
				ps.ext = &curve{x: []float64{0, lo}, y: []float64{s.Fit.Intercept, s.Fit.at(lo)}}
			}
		}
		ps.faint = s.Fit != nil && s.Fit.NotLinear != ""
		pn.series = append(pn.series, ps)
	}
	return pn
}

// lower returns a panel under the cost per call: kind is PanelPerElement
// or PanelResiduals. hideX leaves the n labels to a panel below.
func (f *cpeFigure) lower(kind Panel, ax axis, height vg.Length, hideX bool) panel {
	yticks := max(3, int(height/vg.Length(32)))
	along := height // the length of the y axis, about
	if !hideX {
		along -= xAxisHeight
	}
	perElem := kind == PanelPerElement
	pn := panel{xlo: ax.lo, xhi: ax.hi, xlog: f.xlog, xt: ax.ticks, hideX: hideX, yticks: yticks}
	if !hideX {
		pn.xlabel = f.xlabel()
	}
	if perElem {
		pn.ylabel = fitLabel(along, f.unit+" per "+f.elem, f.unit+"\nper "+f.elem)
		pn.zeroFrom = 0.2
		// Kernels of very different CPE (1 and 12 cycles) each keep their
		// relative detail on a log axis.
		pn.ylog = func(lo, hi float64) bool { return hi/lo >= 8 }
	} else {
		pn.ylabel = fitLabel(along, "residual ("+f.unit+" per call)", "residual\n("+f.unit+" per call)", "residual\n("+f.unit+")")
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
			if s.Fit == nil {
				return 0, false
			}
			return y - s.Fit.at(x), true // curved when not linear: the reason
		}
		for _, pt := range s.Points {
			if pt.LeftOut && !perElem {
				continue // a residual is of a point the fit kept
			}
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
			// The fit of a curved cost is no model of it: show the data's
			// own shape, through the median of the kept runs of each size.
			if perElem {
				ps.trace = medianTrace(s.Points, func(p CPEPoint) (float64, bool) { return value(p.x(), p.Y) })
			}
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
	return pn
}

// xAxisHeight is about the height of an n axis with its tick labels and
// its label, in points.
const xAxisHeight = 36

// fitLabel returns the first of labels that fits along a y axis height
// points long (the last when none does): gonum lays out
// a panel whose axis label is longer than the panel wrongly.
func fitLabel(height vg.Length, labels ...string) string {
	sty := textStyle(labelFont)
	for _, l := range labels {
		if sty.Width(l) <= height {
			return l
		}
	}
	return labels[len(labels)-1]
}

// xlabel is the n axis' label.
func (f *cpeFigure) xlabel() string { return "n (" + plural(f.elem) + " per call)" }

// medianTrace returns the line through the median value of the kept
// points of each x, in increasing x, or nil when fewer than two x have
// one: with several runs per size, a line through every run would
// zig-zag between them.
func medianTrace(pts []CPEPoint, value func(CPEPoint) (float64, bool)) *curve {
	byX := map[float64][]float64{}
	for _, p := range pts {
		if p.LeftOut {
			continue
		}
		if v, ok := value(p); ok {
			byX[p.x()] = append(byX[p.x()], v)
		}
	}
	if len(byX) < 2 {
		return nil
	}
	c := &curve{}
	for _, x := range slices.Sorted(maps.Keys(byX)) {
		vs := byX[x]
		slices.Sort(vs)
		m := vs[len(vs)/2]
		if len(vs)%2 == 0 {
			m = (vs[len(vs)/2-1] + m) / 2
		}
		c.x, c.y = append(c.x, x), append(c.y, m)
	}
	return c
}
