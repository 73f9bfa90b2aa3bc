package reports

// The renderings of cpe's sweeps as text and CSV.

import (
	"fmt"
	"slices"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
)

// CPEDoc is cpe's text (markdown when md): the header's line, then per
// kernel its verdict, points and fit.
func CPEDoc(h results.Header, swept []*results.Sweep, md bool) *tab.Doc {
	d := tab.NewDoc(md)
	d.Line(h.Line())
	for _, s := range swept {
		cpeKernel(d, s)
	}
	return d
}

// cpeKernel writes one kernel's verdict, points and fit.
func cpeKernel(d *tab.Doc, s *results.Sweep) {
	r := s
	elem := results.ElementWord(s.Unit)
	d.Blank()
	d.Heading(s.Heading())
	pf, _ := s.Primary()
	if s.Fitted() {
		d.Line("fit        " + s.LinearityText())
		if g := s.GrowthText(); g != "" {
			d.Line("growth     " + g)
		}
	}
	t := &tab.Table{Cols: []tab.Col{{Name: "n"}, {Name: "cycles"}, {Name: "cycles/" + elem, Digits: 4}, {Name: "ticks"}, {Name: "ns"},
		{Name: "residual", Digits: 3}, {Name: "R"}, {Name: "samples"}, {Name: "converged", Left: true}}}
	outl := map[int]bool{}
	for _, i := range pf.Outliers {
		outl[i] = true
	}
	for i, p := range r.Points {
		var res any
		if i < len(pf.Residuals) {
			text := sigfig.Signed(pf.Residuals[i], 3)
			if outl[i] {
				text += " *"
			}
			if s.IsLeftOut(i) {
				text += " left out"
			}
			res = tab.Shown{V: pf.Residuals[i], Text: text}
		}
		var cyc, cpe, ticks, repeat, samples any
		if r.HasCycles {
			cyc, cpe = CyclesCell(p, p.Cycles, 6), CyclesCell(p, p.CyclesPerElement, 4)
		}
		if !s.NoTicks {
			ticks = p.Ticks
		}
		if p.Samples > 0 { // a go test line does not say
			repeat, samples = p.Repeat, p.Samples
		}
		t.Add(r.Sizes[i], cyc, cpe, ticks, p.Nanoseconds, res, repeat, samples, ConvergedText(p))
	}
	if s.LeftOutRule != "" { // read from a file: no column of figures it does not hold
		for j := range t.Cols {
			t.Cols[j].CSV = !slices.ContainsFunc(t.Rows, func(row []any) bool { return row[j] != nil })
		}
	}
	d.Table(t)
	if !s.Fitted() {
		d.Line(fmt.Sprintf("fit        none: %d sizes, a fit needs %d", s.SizeCount(), 3))
		return
	}
	d.Table(tab.KVLines(s.FitLines()))
}

// CPETable is cpe's CSV: one tidy table: a "point" row per size and unit, and a "fit"
// row per unit with the linearity verdict.
func CPETable(swept []*results.Sweep) *tab.Table {
	t := &tab.Table{Cols: []tab.Col{{Name: "kernel"}, {Name: "kind"}, {Name: "unit"}, {Name: "n"}, {Name: "elements"}, {Name: "value"}, {Name: "per_element"},
		{Name: "residual"}, {Name: "outlier"}, {Name: "repeat"}, {Name: "samples"}, {Name: "discarded"}, {Name: "converged"}, {Name: "usable"},
		{Name: "slope"}, {Name: "slope_ci95"}, {Name: "intercept"}, {Name: "intercept_ci95"}, {Name: "r2"}, {Name: "linearity"}, {Name: "linearity_reason"}}}
	for _, s := range swept {
		r := s
		fitted := s.Fitted()
		for _, uf := range s.Fits() {
			outl := map[int]bool{}
			for _, i := range uf.Fit.Outliers {
				outl[i] = true
			}
			for i, p := range r.Points {
				v := map[string][2]float64{"cycles": {p.Cycles, p.CyclesPerElement}, "ticks": {p.Ticks, p.TicksPerElement}, "ns": {p.Nanoseconds, p.NsPerElement}}[uf.Unit]
				var res any
				if fitted && i < len(uf.Fit.Residuals) {
					res = uf.Fit.Residuals[i]
				}
				kind := "point"
				if s.IsLeftOut(i) {
					kind = "left out"
				}
				t.Add(r.Name, kind, uf.Unit, r.Sizes[i], p.Elements, v[0], v[1], res, outl[i], p.Repeat, p.Samples, p.Discarded, p.Converged, results.Usable(p))
			}
		}
		if fitted {
			for _, uf := range s.Fits() {
				t.Add(r.Name, "fit", uf.Unit, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
					uf.Fit.Slope, uf.Fit.SlopeCI, uf.Fit.Intercept, uf.Fit.InterceptCI, uf.Fit.R2, r.Linearity.Verdict, s.LinearityText())
			}
		}
	}
	return t
}
