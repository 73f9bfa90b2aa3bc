package plot

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

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
			case PanelBoth:
				t = fmt.Sprintf("Cost per call, per %s and residuals of the fits (%s, 95%% CI)", f.elem, f.unit)
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
		if slices.Contains(f.lowers(), PanelResiduals) {
			what += ", around 0 in the residuals"
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
