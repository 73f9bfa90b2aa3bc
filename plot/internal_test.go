package plot

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TestBand checks the band of Line against the textbook formula
// t·s·sqrt(1/N + (x − x̄)²/Sxx) computed from the data.
func TestBand(t *testing.T) {
	xs := []float64{100, 200, 300, 400, 500, 700, 1000}
	ys := []float64{260, 445, 651, 838, 1049, 1432, 2045}
	f, err := stats.LinearFit(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	var xm, sxx, sse float64
	for _, x := range xs {
		xm += x / float64(len(xs))
	}
	for i, x := range xs {
		sxx += (x - xm) * (x - xm)
		sse += f.Residuals[i] * f.Residuals[i]
	}
	n := float64(len(xs))
	s := math.Sqrt(sse / (n - 2))
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Quantile(0.975)
	l := &Line{Intercept: f.Intercept, Slope: f.Slope, SlopeCI: f.SlopeCI, SlopeSE: f.SlopeSE, InterceptSE: f.InterceptSE}
	for _, x := range []float64{0, 100, xm, 650, 1000, 2000} {
		want := tq * s * math.Sqrt(1/n+(x-xm)*(x-xm)/sxx)
		got, ok := l.band(x, xm)
		if !ok || math.Abs(got-want) > 1e-9*want {
			t.Errorf("band(%v) = %v, %v; want %v", x, got, ok, want)
		}
	}
	for _, nb := range []*Line{nil, {SlopeSE: 0, SlopeCI: 1}, {SlopeSE: 1, SlopeCI: 2, NotLinear: "curved"}} {
		if _, ok := nb.band(1, 1); ok {
			t.Errorf("%+v has a band, want none", nb)
		}
	}
}

func TestLogSpaced(t *testing.T) {
	tests := []struct {
		xs   []float64
		want bool
	}{
		{[]float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, false},
		{[]float64{64, 128, 256, 512, 1024, 2048, 4096}, true},
		{[]float64{1000, 10, 100, 100000, 10000}, true}, // any order
		{[]float64{64, 128, 256}, false},                // less than a decade
		{[]float64{0, 10, 100, 1000}, false},            // 0 has no place on a log axis
		{[]float64{10, 1000}, false},                    // two sizes tell nothing
		{[]float64{1, 2, 3, 1000, 2000, 3000}, true},
	}
	for _, tt := range tests {
		if got := logSpaced(tt.xs); got != tt.want {
			t.Errorf("logSpaced(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func TestFormatSIStep(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{1250, 250, "1.25k"},
		{1000, 250, "1k"},
		{500, 250, "500"},
		{1000200, 100, "1.0002M"},
		{0.3, 0.1, "0.3"},
		{-2500, 2500, "-2.5k"},
		{999999.6, 1, "1M"},
	}
	for _, tt := range tests {
		if got := formatSI(tt.v, tt.step); got != tt.want {
			t.Errorf("formatSI(%v, %v) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

// TestLegendSizes: the legend names each size once, in order, at most
// maxListed of them, and marks "did not converge" and "left out of the
// fit" with different glyphs: a sweep of several runs per size has each
// size several times among its points.
func TestLegendSizes(t *testing.T) {
	var pts []CPEPoint
	for rep := 0; rep < 6; rep++ {
		for _, n := range []float64{256, 512, 768, 1024, 1280, 1536, 1792} {
			pts = append(pts, CPEPoint{N: n, Y: 10 + n, NotConverged: n != 512, LeftOut: n == 512 && rep == 2})
		}
	}
	got := sizeList(pts, func(p CPEPoint) bool { return p.NotConverged })
	if want := "n = 256, 768, 1.024k, 1.28k, 1.536k, … (6 sizes)"; got != want {
		t.Errorf("sizeList = %q, want %q", got, want)
	}
	fig, err := newCPEFigure([]CPESeries{{Name: "SweepSum4", Unit: "cycles", Points: pts}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	leg := &legend{}
	fig.legend(leg)
	var notConv, leftOut *legendEntry
	for i, e := range leg.entries {
		switch {
		case strings.Contains(e.text, "did not converge at n = 256, 768"):
			notConv = &leg.entries[i]
		case strings.Contains(e.text, "left out of the fit at n = 512"):
			leftOut = &leg.entries[i]
		}
	}
	if notConv == nil || leftOut == nil {
		t.Fatalf("legend %+v: want one entry for the sizes that did not converge and one for those left out", leg.entries)
	}
	a := notConv.thumbs[0].(*plotter.Scatter).GlyphStyle.Shape.(glyph)
	b := leftOut.thumbs[0].(*plotter.Scatter).GlyphStyle.Shape.(glyph)
	if a == b || !a.crossed || b.crossed || !b.hollow {
		t.Errorf("glyphs %+v (not converged) and %+v (left out): want a crossed one and a hollow one", a, b)
	}
}

// TestHorizontalRows: a horizontal group's name sits above its bars,
// inside the group's row, for rows from roomy to cramped.
func TestHorizontalRows(t *testing.T) {
	for _, row := range []float64{8, 20, 40, 56, 200} {
		r := horizontalRows(12, vg.Length(row))
		nameBottom := 0.5 - r.gap - (12+2)/row
		if row < 12/0.45 {
			continue // too cramped for the name: clamped, checked below
		}
		if r.barsTop > nameBottom+1e-9 || r.barsTop-r.bars < -0.4-1e-9 || r.bars <= 0 || r.bars > 0.8 {
			t.Errorf("row %v points: %+v: want bars from below the name (%.3f) down to no lower than -0.4, sharing at most 0.8", row, r, nameBottom)
		}
	}
	if r := horizontalRows(12, 8); r.bars <= 0 || r.barsTop-r.bars < -0.4-1e-9 {
		t.Errorf("cramped row: %+v: want bars inside the row", r)
	}
}

// TestHorizontalNamesLeftAligned: with horizontal bars each group's name
// starts at the same x, where the bars start, so a viewer that draws it in
// a wider font only lengthens it to the right, over empty space above the
// bars (right-aligned before the bars, a wider font would run it into
// them).
func TestHorizontalNamesLeftAligned(t *testing.T) {
	c := Comparison{Groups: []string{"AddChain (1000 dependent ADDs)", "Psum1 (prefix sum, 1000 elements)", "short"}, Unit: "cycles",
		Series: []BarSeries{{Name: "a", Bars: []Bar{{Value: 1}, {Value: 2}, {Value: 3}}}, {Name: "b", Bars: []Bar{{Value: 2}, {Value: 1}, {Missing: true}}}}}
	var b bytes.Buffer
	if err := Compare(&b, "svg", c, Options{Bars: BarsHorizontal}); err != nil {
		t.Fatal(err)
	}
	xs := map[string]bool{}
	for _, g := range c.Groups {
		m := regexp.MustCompile(`<text x="([-0-9.]+)"[^>]*\n?[^>]*>` + regexp.QuoteMeta(g) + `</text>`).FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("no text element for %q in the SVG", g)
		}
		xs[m[1]] = true
	}
	if len(xs) != 1 {
		t.Errorf("group names start at x = %v: want one left edge for all", xs)
	}
}
