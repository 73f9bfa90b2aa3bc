package main

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"strings"
	"testing"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// fakeSweep returns a swept kernel as harness.CPE would leave it: sizes
// 100…500 at 2 cycles per element plus 50, size 300 not converged, each
// point's K best samples spread by 1%.
func fakeSweep(t *testing.T, name string, cpe bool) *sweptKernel {
	t.Helper()
	const cyclesPerTick, repeat, overhead = 1.5, 4, 100.0
	r := harness.CPEResult{Name: name, HasCycles: true, CyclesPerTick: cyclesPerTick}
	var xs, cyc, tk []float64
	for i, n := range []int{100, 200, 300, 400, 500} {
		c := 50 + 2*float64(n) + float64(i%2)
		ticks := c / cyclesPerTick
		best := overhead + ticks*repeat
		r.Sizes = append(r.Sizes, n)
		r.Points = append(r.Points, harness.Result{Name: name, Elements: float64(n), Cycles: c, Ticks: ticks, Converged: n != 300,
			Repeat: repeat, OverheadTicks: overhead, Best: []float64{best, best * 1.005, best * 1.01}})
		xs, cyc, tk = append(xs, float64(n)), append(cyc, c), append(tk, ticks)
	}
	var err error
	if r.Cycles, err = stats.LinearFit(xs, cyc); err != nil {
		t.Fatal(err)
	}
	if r.Ticks, err = stats.LinearFit(xs, tk); err != nil {
		t.Fatal(err)
	}
	return &sweptKernel{kernel: benchexamples.Kernel{Name: name, Unit: "elements", CPE: cpe}, res: r}
}

func TestCPEPlotFor(t *testing.T) {
	swept := []*sweptKernel{fakeSweep(t, "Linear", true), fakeSweep(t, "Curved", false)}
	p := cpePlotFor(header{CPU: "Test CPU"}, swept, false)
	if len(p.Kernels) != 2 || !strings.Contains(p.Title, "Test CPU") {
		t.Fatalf("plot %+v: want 2 kernels and the CPU in the title", p)
	}
	k := p.Kernels[0]
	if k.Unit != "cycles" || k.ElementUnit != "element" || k.Fit == nil || k.Fit.SlopeSE <= 0 || k.Fit.SlopeCI <= 0 || k.Fit.XMean != 300 {
		t.Errorf("series %+v, fit %+v: want cycles per element with a band (SE, CI, XMean 300)", k, k.Fit)
	}
	if k.Fit.NotLinear != "" || p.Kernels[1].Fit.NotLinear == "" {
		t.Errorf("NotLinear %q and %q: want only the non-CPE kernel marked", k.Fit.NotLinear, p.Kernels[1].Fit.NotLinear)
	}
	for i, pt := range k.Points {
		if pt.NotConverged != (pt.N == 300) {
			t.Errorf("point %d (n %v): NotConverged %v", i, pt.N, pt.NotConverged)
		}
		// YHi is the K-th best sample: 1% above the best, per call.
		if want := pt.Y + 0.01*(pt.Y+100*1.5/4); pt.YLo != pt.Y || pt.YHi < pt.Y || pt.YHi > want*1.0001 {
			t.Errorf("point %d: Y %v, YLo %v, YHi %v: want YLo = Y ≤ YHi ≤ %v", i, pt.Y, pt.YLo, pt.YHi, want)
		}
	}
	for _, format := range []string{"svg", "png"} {
		img, err := p.render(format)
		if err != nil || len(img) == 0 {
			t.Errorf("render %s: %d bytes, %v", format, len(img), err)
		}
	}
	// Without a cycle estimate the plot is in ticks.
	swept[1].res.HasCycles = false
	if u := cpePlotFor(header{}, swept, true).Kernels[0].Unit; u != "ticks" {
		t.Errorf("unit %q without cycles, want ticks", u)
	}
}

// TestCPEPlotLegacy checks the conversion of cpePlot.Series (what
// cpePlotOf fills) into plot series.
func TestCPEPlotLegacy(t *testing.T) {
	p := cpePlot{Title: "t", XLabel: "n (bytes per call)", YLabel: "core cycles per call", Log: true, Series: []plotSeries{
		{Label: "a: 1 ± 0 cycles/byte", X: []float64{1, 10, 100}, Y: []float64{5, 14, 104}, Slope: 1, Intercept: 4, Outliers: []int{1}},
	}}
	s := p.series()
	if len(s) != 1 || s[0].Name != "a" || s[0].Unit != "core cycles" || s[0].ElementUnit != "byte" || len(s[0].Points) != 3 || !s[0].Points[1].Outlier {
		t.Errorf("series %+v", s)
	}
	if o := p.options(); o.XScale != plot.ScaleLog || o.Title != "t" {
		t.Errorf("options %+v: want a log n axis and the title", o)
	}
	p.Series[0].X[0] = 0
	if o := p.options(); o.XScale != plot.ScaleLinear {
		t.Errorf("options %+v with n = 0: want a linear n axis", o)
	}
}

func TestPlotSizeFlag(t *testing.T) {
	tests := []struct {
		arg    string
		w, h   int // PNG pixels at the default DPI
		errSub string
	}{
		{"640x480", 640, 480, ""},
		{"1200X800", 1200, 800, ""},
		{"", 800, 640, ""}, // the listed default
		{"10x5", 0, 0, "120"},
		{"big", 0, 0, "-plot-size"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			fs := newFlagSet("cpe", "", "", io.Discard)
			size := new(plot.Size)
			fs.Var(size, "plot-size", plotSizeUsage)
			err := fs.parse([]string{"-plot-size", tt.arg})
			if tt.errSub != "" {
				var ue *usageError
				// The flag package formats Set's error with %v: the sentinel
				// does not survive, the message does.
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.errSub) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v: want a one-line usage error that says %q", err, tt.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := cpePlot{Size: *size, Kernels: []plot.CPESeries{{Name: "k", Points: []plot.CPEPoint{{N: 1, Y: 2}, {N: 2, Y: 3}}}}}
			img, err := p.render("png")
			if err != nil {
				t.Fatal(err)
			}
			m, err := png.Decode(bytes.NewReader(img))
			if err != nil {
				t.Fatal(err)
			}
			if b := m.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
				t.Errorf("PNG %v×%v, want %v×%v", b.Dx(), b.Dy(), tt.w, tt.h)
			}
		})
	}
}
