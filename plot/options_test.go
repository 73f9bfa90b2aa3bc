package plot_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
	"gonum.org/v1/plot/vg"
)

func TestParseSize(t *testing.T) {
	px := vg.Inch / plot.DefaultDPI
	tests := []struct {
		in   string
		w, h vg.Length
		err  error
	}{
		{"1200x800", 1200 * px, 800 * px, nil},
		{" 640 X 480 ", 640 * px, 480 * px, nil},
		{"800×600", 800 * px, 600 * px, nil},
		{"1200pxx800px", 1200 * px, 800 * px, nil},
		{"6x4in", 6 * vg.Inch, 4 * vg.Inch, nil},
		{"16cmx10cm", 16 * vg.Centimeter, 10 * vg.Centimeter, nil},
		{"450ptx300", 450, 300 * px, nil},
		{"450x300pt", 450, 300, nil},
		{"1.5x2in", 1.5 * vg.Inch, 2 * vg.Inch, nil},
		{"1.5x1in", 0, 0, plot.ErrBadSize}, // 96 px high
		{"", 0, 0, plot.ErrBadSize},
		{"1200", 0, 0, plot.ErrBadSize},
		{"1200x", 0, 0, plot.ErrBadSize},
		{"x800", 0, 0, plot.ErrBadSize},
		{"-1200x800", 0, 0, plot.ErrBadSize},
		{"1200x800x3", 0, 0, plot.ErrBadSize},
		{"1200x800furlong", 0, 0, plot.ErrBadSize},
		{"0x800", 0, 0, plot.ErrBadSize},
		{"100x800", 0, 0, plot.ErrBadSize},   // below 120 px
		{"9000x800", 0, 0, plot.ErrBadSize},  // above 8000 px
		{"NaNx800", 0, 0, plot.ErrBadSize},   // not a number
		{"1e3x800", 0, 0, plot.ErrBadSize},   // no exponents
		{"100inx1in", 0, 0, plot.ErrBadSize}, // 9600 px
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := plot.ParseSize(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseSize(%q) error %v, want %v", tt.in, err, tt.err)
			}
			if err != nil {
				return
			}
			if d := got.Width - tt.w; d < -1e-9 || d > 1e-9 || got.Height-tt.h < -1e-9 || got.Height-tt.h > 1e-9 {
				t.Errorf("ParseSize(%q) = %v×%v pt, want %v×%v", tt.in, got.Width, got.Height, tt.w, tt.h)
			}
			// String gives back a size that parses to the same.
			again, err := plot.ParseSize(got.String())
			if err != nil || math.Abs(float64(again.Width-got.Width)) > 1e-3 || math.Abs(float64(again.Height-got.Height)) > 1e-3 {
				t.Errorf("ParseSize(%q) = %v; ParseSize(String() = %q) = %v, %v", tt.in, got, got.String(), again, err)
			}
		})
	}
}

func TestSizeFlagValue(t *testing.T) {
	var s plot.Size
	if s.String() != "" {
		t.Errorf("zero Size prints %q, want \"\"", s.String())
	}
	if err := s.Set("1200x800"); err != nil || s.String() != "1200x800" {
		t.Errorf("Set(1200x800): %v, String %q", err, s.String())
	}
	if err := s.Set("nope"); !errors.Is(err, plot.ErrBadSize) || s.String() != "1200x800" {
		t.Errorf("Set(nope): %v, size %q: want ErrBadSize and the size unchanged", err, s.String())
	}
	if err := s.Set(""); err != nil || s != (plot.Size{}) {
		t.Errorf("Set(\"\"): %v, size %v: want the zero Size", err, s)
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		path, want string
		err        error
	}{
		{"a.svg", "svg", nil},
		{"dir.x/A.PNG", "png", nil},
		{"/tmp/a.pdf", "pdf", nil},
		{"a.gif", "", plot.ErrFormat},
		{"a", "", plot.ErrFormat},
		{"a.svg/", "", plot.ErrFormat},
	}
	for _, tt := range tests {
		got, err := plot.FormatOf(tt.path)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("FormatOf(%q) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.err)
		}
	}
}
