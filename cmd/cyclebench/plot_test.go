package main

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
)

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
	s := &results.Sweep{CPEResult: harness.CPEResult{Name: "Quadratic", HasCycles: true, CyclesPerTick: 1.5}, Kernel: "Quadratic", Unit: "elements", Check: "ok"}
	var xs []float64
	for _, n := range []int{100, 200, 300, 400, 500} {
		y := 50 + 0.01*float64(n*n)
		s.Sizes = append(s.Sizes, n)
		s.Points = append(s.Points, harness.Result{Name: "Quadratic", Elements: float64(n), Cycles: y, Ticks: y / 1.5, Nanoseconds: y / 3, Converged: true})
		xs = append(xs, float64(n))
	}
	if err := s.Fit(xs, harness.FitOptions{Epsilon: 0.01}); err != nil || s.Linearity.Linear {
		t.Fatalf("the fit of n² = %+v, %v: want not linear", s.Linearity, err)
	}
	const notLinear = "not linear"
	for _, format := range resultFormats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeCPE(&b, format, results.Header{}, []*results.Sweep{s}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, notLinear) {
				t.Errorf("no %q in:\n%s", notLinear, out)
			}
			if format == formatTable && strings.Index(out, notLinear) > strings.Index(out, "\n  n ") {
				t.Errorf("the verdict comes after the points:\n%s", out)
			}
		})
	}
}
