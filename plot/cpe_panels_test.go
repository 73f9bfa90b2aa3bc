package plot

import (
	"math"
	"slices"
	"testing"
)

// sweepRuns is a sweep of three runs at each of five sizes on
// y = 100 + 2n (±0.1%), with the middle run 20% slower at n = 300 and 500, which the fit
// left out.
func sweepRuns(notLinear string) CPESeries {
	s := CPESeries{Name: "k", Unit: "cycles", Fit: &Line{Intercept: 100, Slope: 2, SlopeCI: 0.02, SlopeSE: 0.008, InterceptSE: 3, XMean: 300, NotLinear: notLinear}}
	for _, n := range []float64{100, 200, 300, 400, 500} {
		for r := range 3 {
			y := (100 + 2*n) * (1 + 0.001*float64(r-1))
			left := r == 1 && (n == 300 || n == 500)
			if left {
				y *= 1.2
			}
			s.Points = append(s.Points, CPEPoint{N: n, Y: y, LeftOut: left})
		}
	}
	return s
}

func testAxis(f *cpeFigure) axis {
	var ax axis
	ax.lo, ax.hi, ax.withZero = f.xRange(5)
	ax.ticks = SITicks{Count: 5}
	return ax
}

// TestDefaultPanels: the default figure has the per-element panel and,
// under it, the residual panel.
func TestDefaultPanels(t *testing.T) {
	for _, tt := range []struct {
		lower Panel
		want  []Panel
	}{
		{PanelBoth, []Panel{PanelPerElement, PanelResiduals}},
		{PanelPerElement, []Panel{PanelPerElement}},
		{PanelResiduals, []Panel{PanelResiduals}},
		{PanelNone, nil},
	} {
		f, err := newCPEFigure([]CPESeries{sweepRuns("")}, Options{Lower: tt.lower})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.lowers(); !slices.Equal(got, tt.want) {
			t.Errorf("Lower %d: panels %v, want %v", tt.lower, got, tt.want)
		}
	}
	var zero Options
	if zero.Lower != PanelBoth {
		t.Errorf("the zero Options draw panel %d, want PanelBoth", zero.Lower)
	}
}

// TestResidualsOfKeptPoints: the residual panel shows each kept point's
// distance from the fit, in the cost unit, and no left-out run; for a fit
// that is not linear too (its curvature is the reason for the verdict).
func TestResidualsOfKeptPoints(t *testing.T) {
	for _, nl := range []string{"", "curved residuals"} {
		s := sweepRuns(nl)
		f, err := newCPEFigure([]CPESeries{s}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pn := f.lower(PanelResiduals, testAxis(f), 150, false)
		var want []xyPoint
		for _, p := range s.Points {
			if !p.LeftOut {
				want = append(want, xyPoint{x: p.x(), y: p.Y - s.Fit.at(p.x())})
			}
		}
		got := pn.series[0].pts
		if len(got) != len(want) {
			t.Fatalf("not linear %q: %d residuals, want one per kept point (%d)", nl, len(got), len(want))
		}
		for i := range got {
			if got[i].x != want[i].x || math.Abs(got[i].y-want[i].y) > 1e-9 || got[i].hollow {
				t.Errorf("not linear %q: residual %d = %+v, want (%v, %v) filled", nl, i, got[i], want[i].x, want[i].y)
			}
		}
		if !pn.zeroLine {
			t.Errorf("not linear %q: the residual panel has no zero line", nl)
		}
		if band := pn.series[0].fit; nl == "" && (band == nil || len(band.lo) == 0 || !pn.series[0].bandOnly) {
			t.Errorf("the residual panel of a linear fit draws no band around 0: %+v", band)
		}
	}
}

// TestLinesMissLeftOutRuns: the cost-per-call panel draws the fit, never
// a line through the points, so a left-out run is off every line; the
// per-element panel of a fit that is not linear traces the median of the
// kept runs.
func TestLinesMissLeftOutRuns(t *testing.T) {
	for _, nl := range []string{"", "curved residuals"} {
		s := sweepRuns(nl)
		f, err := newCPEFigure([]CPESeries{s}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ax := testAxis(f)
		up := f.upper(ax, 5, true).series[0]
		if up.trace != nil {
			t.Errorf("not linear %q: the cost per call joins the points", nl)
		}
		if up.fit == nil {
			t.Fatalf("not linear %q: no fit line", nl)
		}
		for k, x := range up.fit.x {
			if math.Abs(up.fit.y[k]-s.Fit.at(x)) > 1e-9 {
				t.Fatalf("not linear %q: the line reads %v at n = %v, the fit %v", nl, up.fit.y[k], x, s.Fit.at(x))
			}
		}
		if up.faint != (nl != "") {
			t.Errorf("not linear %q: faint %v", nl, up.faint)
		}
		for _, p := range s.Points {
			if p.LeftOut && math.Abs(p.Y-s.Fit.at(p.x())) < 0.1*p.Y {
				t.Fatalf("test data: left-out run at n = %v is on the fit", p.N)
			}
		}
		per := f.lower(PanelPerElement, ax, 150, true).series[0]
		if nl == "" {
			if per.trace != nil {
				t.Errorf("a linear fit's per-element panel traces the points")
			}
			continue
		}
		if per.trace == nil {
			t.Fatalf("not linear: no trace of the data in the per-element panel")
		}
		if !slices.Equal(per.trace.x, []float64{100, 200, 300, 400, 500}) {
			t.Errorf("trace at n = %v, want each size once, in order", per.trace.x)
		}
		for k, x := range per.trace.x {
			if want := (100 + 2*x) / x; math.Abs(per.trace.y[k]-want) > 1e-9 {
				t.Errorf("trace at n = %v reads %v per element, want the kept runs' median %v", x, per.trace.y[k], want)
			}
		}
	}
}
