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
	if r.Linearity, err = stats.LackOfFit(xs, cyc, stats.LinearityOptions{}); err != nil {
		t.Fatal(err)
	}
	return &sweptKernel{kernel: benchexamples.Kernel{Name: name, Unit: "elements", CPE: cpe}, res: r}
}

func TestCPEPlotFor(t *testing.T) {
	swept := []*sweptKernel{fakeSweep(t, "Linear", true), fakeSweep(t, "Curved", false)}
	series, opt := cpePlot(header{CPU: "Test CPU"}, swept, false)
	if len(series) != 2 || !strings.Contains(opt.Title, "Test CPU") {
		t.Fatalf("plot %+v, %+v: want 2 kernels and the CPU in the title", series, opt)
	}
	k := series[0]
	if k.Unit != "cycles" || k.ElementUnit != "element" || k.Fit == nil || k.Fit.SlopeSE <= 0 || k.Fit.SlopeCI <= 0 || k.Fit.XMean != 300 {
		t.Errorf("series %+v, fit %+v: want cycles per element with a band (SE, CI, XMean 300)", k, k.Fit)
	}
	if k.Fit.NotLinear != "" || series[1].Fit.NotLinear == "" {
		t.Errorf("NotLinear %q and %q: want only the non-CPE kernel marked", k.Fit.NotLinear, series[1].Fit.NotLinear)
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
	for _, format := range plot.Formats {
		var img bytes.Buffer
		if err := plot.CPE(&img, format, series, opt); err != nil || img.Len() == 0 {
			t.Errorf("render %s: %d bytes, %v", format, img.Len(), err)
		}
	}
	// Without a cycle estimate the plot is in ticks; a kernel found not
	// linear in n is marked with the criteria it failed.
	swept[1].res.HasCycles = false
	swept[0].res.Linearity = stats.Linearity{Verdict: stats.LinearityNotLinear, R2: 0.9, MinR2: 0.999, Curvature: stats.Curvature{Significant: true, Fails: true}}
	series, _ = cpePlot(header{}, swept, true)
	if series[0].Unit != "ticks" || series[0].Fit.NotLinear != "curvature, R² 0.9" {
		t.Errorf("unit %q, NotLinear %q: want ticks, curvature, R² 0.9", series[0].Unit, series[0].Fit.NotLinear)
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
			pf := addPlotFlags(fs, "it", plot.DefaultCPESize)
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
			var img bytes.Buffer
			series := []plot.CPESeries{{Name: "k", Points: []plot.CPEPoint{{N: 1, Y: 2}, {N: 2, Y: 3}}}}
			if err := plot.CPE(&img, "png", series, plot.Options{Size: pf.size}); err != nil {
				t.Fatal(err)
			}
			m, err := png.Decode(&img)
			if err != nil {
				t.Fatal(err)
			}
			if b := m.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
				t.Errorf("PNG %v×%v, want %v×%v", b.Dx(), b.Dy(), tt.w, tt.h)
			}
		})
	}
}

// TestNotLinearInEveryFormat: a sweep whose cost is not linear in n says
// so in every output format, ahead of its points in the table.
func TestNotLinearInEveryFormat(t *testing.T) {
	s := fakeSweep(t, "Quadratic", true)
	var xs, ys []float64
	for i, n := range s.res.Sizes {
		y := 50 + 0.01*float64(n*n)
		s.res.Points[i].Cycles, s.res.Points[i].Converged = y, true
		xs, ys = append(xs, float64(n)), append(ys, y)
	}
	var err error
	if s.res.Cycles, err = stats.LinearFit(xs, ys); err != nil {
		t.Fatal(err)
	}
	if s.res.Linearity, err = stats.LackOfFit(xs, ys, stats.LinearityOptions{}); err != nil || s.res.Linearity.Linear {
		t.Fatalf("LackOfFit of n² = %+v, %v: want not linear", s.res.Linearity, err)
	}
	s.check = "ok"
	for _, format := range resultFormats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeCPE(&b, format, header{}, []*sweptKernel{s}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, stats.LinearityNotLinear) {
				t.Errorf("no %q in:\n%s", stats.LinearityNotLinear, out)
			}
			if format == formatTable && strings.Index(out, stats.LinearityNotLinear) > strings.Index(out, "\n  n ") {
				t.Errorf("the verdict comes after the points:\n%s", out)
			}
		})
	}
}
