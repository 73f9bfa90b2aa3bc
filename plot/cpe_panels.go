package plot

import (
	"math"

	gplot "gonum.org/v1/plot"
)

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
