package plot_test

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
)

// line returns a series of n points on y = 40 + 2x at x = 100, 200, ….
func line(name string, n int) plot.CPESeries {
	s := plot.CPESeries{Name: name, Unit: "cycles", Fit: &plot.Line{Intercept: 40, Slope: 2, SlopeCI: 0.1, SlopeSE: 0.04, InterceptSE: 5}}
	for i := 1; i <= n; i++ {
		x := 100 * float64(i)
		s.Points = append(s.Points, plot.CPEPoint{N: x, Y: 40 + 2*x})
	}
	return s
}

func TestCPEInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	with := func(f func(s *plot.CPESeries)) []plot.CPESeries {
		s := line("k", 5)
		s.Fit = &plot.Line{Intercept: 40, Slope: 2, SlopeCI: 0.1, SlopeSE: 0.04, InterceptSE: 5}
		f(&s)
		return []plot.CPESeries{s}
	}
	tests := []struct {
		name   string
		series []plot.CPESeries
		opt    plot.Options
		err    error
		says   string
	}{
		{"ok", with(func(*plot.CPESeries) {}), plot.Options{}, nil, ""},
		{"one point", with(func(s *plot.CPESeries) { s.Points = s.Points[:1] }), plot.Options{}, nil, ""},
		{"one size twice", with(func(s *plot.CPESeries) { s.Points = []plot.CPEPoint{{N: 5, Y: 1}, {N: 5, Y: 2}} }), plot.Options{}, nil, ""},
		{"no fit", with(func(s *plot.CPESeries) { s.Fit = nil }), plot.Options{}, nil, ""},
		{"n = 0", with(func(s *plot.CPESeries) { s.Points[0].N = 0 }), plot.Options{}, nil, ""},
		{"negative costs", with(func(s *plot.CPESeries) { s.Points[0].Y = -5 }), plot.Options{XScale: plot.ScaleLog}, nil, ""},
		{"residuals", with(func(*plot.CPESeries) {}), plot.Options{Lower: plot.PanelResiduals}, nil, ""},
		{"no lower panel", with(func(*plot.CPESeries) {}), plot.Options{Lower: plot.PanelNone}, nil, ""},
		{"not linear", with(func(s *plot.CPESeries) { s.Fit.NotLinear = "O(n²)" }), plot.Options{}, nil, ""},
		{"not converged", with(func(s *plot.CPESeries) { s.Points[2].NotConverged = true }), plot.Options{}, nil, ""},
		{"left out", with(func(s *plot.CPESeries) { s.Points[2].LeftOut, s.Points[3].LeftOut = true, true }), plot.Options{}, nil, ""},
		{"nil", nil, plot.Options{}, plot.ErrNoData, "no series"},
		{"no points", with(func(s *plot.CPESeries) { s.Points = nil }), plot.Options{}, plot.ErrNoData, "k has no points"},
		{"NaN y", with(func(s *plot.CPESeries) { s.Points[1].Y = nan }), plot.Options{}, plot.ErrBadValue, "Y = NaN"},
		{"huge y", with(func(s *plot.CPESeries) { s.Points[1].Y = 1e200 }), plot.Options{}, plot.ErrBadValue, "within ±1e+150"},
		{"Inf n", with(func(s *plot.CPESeries) { s.Points[1].N = inf }), plot.Options{}, plot.ErrBadValue, "N = +Inf"},
		{"NaN elements", with(func(s *plot.CPESeries) { s.Points[1].Elements = nan }), plot.Options{}, plot.ErrBadValue, "Elements"},
		{"negative n", with(func(s *plot.CPESeries) { s.Points[1].N = -1 }), plot.Options{}, plot.ErrBadValue, "n -1"},
		{"y above YHi", with(func(s *plot.CPESeries) { s.Points[1].YLo, s.Points[1].YHi = 1, 2 }), plot.Options{}, plot.ErrBadValue, "outside [YLo, YHi]"},
		{"NaN slope", with(func(s *plot.CPESeries) { s.Fit.Slope = nan }), plot.Options{}, plot.ErrBadValue, "Slope = NaN"},
		{"Inf SE", with(func(s *plot.CPESeries) { s.Fit.InterceptSE = inf }), plot.Options{}, plot.ErrBadValue, "InterceptSE"},
		{"negative CI", with(func(s *plot.CPESeries) { s.Fit.SlopeCI = -1 }), plot.Options{}, plot.ErrBadValue, "negative"},
		{"log with n = 0", with(func(s *plot.CPESeries) { s.Points[0].N = 0 }), plot.Options{XScale: plot.ScaleLog}, plot.ErrBadValue, "logarithmic"},
		{"units differ", []plot.CPESeries{line("a", 3), {Name: "b", Unit: "ns", Points: []plot.CPEPoint{{N: 1, Y: 1}}}}, plot.Options{}, plot.ErrBadInput, `b is in "ns"`},
		{"bad scale", with(func(*plot.CPESeries) {}), plot.Options{XScale: 7}, plot.ErrBadInput, "XScale 7"},
		{"bad panel", with(func(*plot.CPESeries) {}), plot.Options{Lower: -1}, plot.ErrBadInput, "Lower -1"},
		{"bad DPI", with(func(*plot.CPESeries) {}), plot.Options{DPI: 5}, plot.ErrBadSize, "DPI 5"},
		{"too small", with(func(*plot.CPESeries) {}), plot.Options{Size: plot.Size{Width: 10, Height: 10}}, plot.ErrBadSize, "width"},
		{"no room", with(func(*plot.CPESeries) {}), plot.Options{Title: "a title", Size: plot.Size{Width: 90, Height: 90}}, plot.ErrBadSize, "make the image larger"},
		{"too many pixels", with(func(*plot.CPESeries) {}), plot.Options{Size: plot.Size{Width: 5000, Height: 5000}, DPI: 600}, plot.ErrBadSize, "Mpixel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := plot.CPE(&b, "png", tt.series, tt.opt)
			if !errors.Is(err, tt.err) {
				t.Fatalf("CPE error %v, want %v", err, tt.err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.says) || !strings.HasPrefix(err.Error(), "plot: ") {
					t.Errorf("error %q: want it to start with \"plot: \" and say %q", err, tt.says)
				}
				if b.Len() != 0 {
					t.Errorf("%d bytes written with an error", b.Len())
				}
				return
			}
			if _, err := png.Decode(&b); err != nil {
				t.Errorf("not a PNG: %v", err)
			}
		})
	}
}

func TestCompareInput(t *testing.T) {
	nan := math.NaN()
	ok := func() plot.Comparison {
		return plot.Comparison{Groups: []string{"a", "b"}, Unit: "cycles", Series: []plot.BarSeries{
			{Name: "m1", Bars: []plot.Bar{{Value: 10, Lo: 9, Hi: 11}, {Value: 20}}},
			{Name: "m2", Bars: []plot.Bar{{Value: 12}, {Missing: true}}},
		}}
	}
	with := func(f func(c *plot.Comparison)) plot.Comparison { c := ok(); f(&c); return c }
	tests := []struct {
		name string
		c    plot.Comparison
		opt  plot.Options
		err  error
		says string
	}{
		{"ok", ok(), plot.Options{}, nil, ""},
		{"horizontal", ok(), plot.Options{Bars: plot.BarsHorizontal}, nil, ""},
		{"one group one bar", plot.Comparison{Groups: []string{"a"}, Series: []plot.BarSeries{{Bars: []plot.Bar{{Value: 1}}}}}, plot.Options{}, nil, ""},
		{"ratio", with(func(c *plot.Comparison) { c.Ratio, c.NoiseBand = true, 0.02 }), plot.Options{}, nil, ""},
		{"negative values", with(func(c *plot.Comparison) { c.Series[0].Bars[1].Value = -3 }), plot.Options{}, nil, ""},
		{"wide range", with(func(c *plot.Comparison) { c.Series[0].Bars[1].Value = 1e6 }), plot.Options{}, nil, ""},
		{"no groups", plot.Comparison{}, plot.Options{}, plot.ErrNoData, "without groups"},
		{"no series", plot.Comparison{Groups: []string{"a"}}, plot.Options{}, plot.ErrNoData, "without series"},
		{"all missing", with(func(c *plot.Comparison) {
			c.Series = []plot.BarSeries{{Bars: []plot.Bar{{Missing: true}, {Missing: true}}}}
		}), plot.Options{}, plot.ErrNoData, "missing"},
		{"mismatched lengths", with(func(c *plot.Comparison) { c.Series[1].Bars = c.Series[1].Bars[:1] }), plot.Options{}, plot.ErrBadInput, "m2 has 1 bars for 2 groups"},
		{"NaN", with(func(c *plot.Comparison) { c.Series[0].Bars[1].Value = nan }), plot.Options{}, plot.ErrBadValue, `m1, group "b": Value = NaN`},
		{"interval", with(func(c *plot.Comparison) { c.Series[0].Bars[0].Hi = 9.5 }), plot.Options{}, plot.ErrBadValue, "outside [Lo, Hi]"},
		{"ratio zero", with(func(c *plot.Comparison) { c.Ratio = true; c.Series[1].Bars[0].Value = 0 }), plot.Options{}, plot.ErrBadValue, "positive ratio"},
		{"band without ratio", with(func(c *plot.Comparison) { c.NoiseBand = 0.1 }), plot.Options{}, plot.ErrBadInput, "without Ratio"},
		{"band too wide", with(func(c *plot.Comparison) { c.Ratio, c.NoiseBand = true, 1 }), plot.Options{}, plot.ErrBadValue, "NoiseBand 1"},
		{"bad orientation", ok(), plot.Options{Bars: 3}, plot.ErrBadInput, "Bars 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := plot.Compare(&b, "svg", tt.c, tt.opt)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Compare error %v, want %v", err, tt.err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.says) {
					t.Errorf("error %q does not say %q", err, tt.says)
				}
				if b.Len() != 0 {
					t.Errorf("%d bytes written with an error", b.Len())
				}
				return
			}
			if !bytes.Contains(b.Bytes(), []byte("<svg")) {
				t.Errorf("not an SVG")
			}
		})
	}
}

func TestFormats(t *testing.T) {
	for _, f := range []string{"gif", "", "svgz"} {
		if err := plot.CPE(io.Discard, f, []plot.CPESeries{line("k", 3)}, plot.Options{}); !errors.Is(err, plot.ErrFormat) {
			t.Errorf("format %q: %v, want ErrFormat", f, err)
		}
	}
}

// TestRender draws each plot in each format into files and checks them:
// the format's signature, and for PNG an image of the size asked.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	size, err := plot.ParseSize("900x700")
	if err != nil {
		t.Fatal(err)
	}
	log := line("log", 3)
	log.Points = nil
	for _, n := range []float64{64, 256, 1024, 4096, 16384, 65536} {
		log.Points = append(log.Points, plot.CPEPoint{N: n, Y: 40 + 2*n, YLo: 40 + 2*n, YHi: 41 + 2.02*n, NotConverged: n == 1024, Outlier: n == 64})
	}
	cpe := []plot.CPESeries{line("a", 8), line("b", 8), log}
	cmp := plot.Comparison{Groups: []string{"a", "b", "c"}, Unit: "ratio", Ratio: true, NoiseBand: 0.01,
		Series: []plot.BarSeries{{Name: "x", Bars: []plot.Bar{{Value: 0.9, Lo: 0.85, Hi: 0.95}, {Value: 1.2}, {Missing: true}}}}}
	signature := map[string]string{"svg": "<?xml", "png": "\x89PNG\r\n\x1a\n", "pdf": "%PDF-"}
	for _, format := range plot.Formats {
		for _, tt := range []struct {
			name  string
			opt   plot.Options
			w, h  int
			write func(w io.Writer, opt plot.Options) error
		}{
			{"cpe", plot.Options{}, 800, 640, func(w io.Writer, o plot.Options) error { return plot.CPE(w, format, cpe, o) }},
			{"cpe-sized", plot.Options{Size: size}, 900, 700, func(w io.Writer, o plot.Options) error { return plot.CPE(w, format, cpe, o) }},
			{"cpe-hidpi", plot.Options{Size: size, DPI: 2 * plot.DefaultDPI}, 1800, 1400, func(w io.Writer, o plot.Options) error { return plot.CPE(w, format, cpe, o) }},
			{"compare", plot.Options{}, 800, 500, func(w io.Writer, o plot.Options) error { return plot.Compare(w, format, cmp, o) }},
		} {
			t.Run(format+"/"+tt.name, func(t *testing.T) {
				path := filepath.Join(dir, tt.name+"."+format)
				var b bytes.Buffer
				if err := tt.write(&b, tt.opt); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(data, []byte(signature[format])) {
					t.Fatalf("%s starts with %q, want %q", path, data[:min(len(data), 8)], signature[format])
				}
				if format != "png" {
					return
				}
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if r := img.Bounds(); r.Dx() != tt.w || r.Dy() != tt.h {
					t.Errorf("PNG %d×%d, want %d×%d", r.Dx(), r.Dy(), tt.w, tt.h)
				}
			})
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	if err := plot.CPE(errWriter{}, "svg", []plot.CPESeries{line("k", 3)}, plot.Options{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("CPE to a failing writer: %v, want the writer's error", err)
	}
}

func TestStyleOf(t *testing.T) {
	seen := map[string]int{}
	for i := range 64 {
		s := plot.StyleOf(i)
		key := fmt.Sprint(s)
		if j, ok := seen[key]; ok {
			t.Errorf("series %d and %d look alike: %+v", j, i, s)
		}
		seen[key] = i
	}
	if len(plot.Palette) < 8 {
		t.Errorf("%d colours, want at least 8", len(plot.Palette))
	}
}

// TestExtremeSizes draws at the smallest and most lopsided sizes allowed:
// a picture or ErrBadSize, never ErrDraw (a gonum panic).
func TestExtremeSizes(t *testing.T) {
	cmp := plot.Comparison{Groups: []string{"a", "b"}, Series: []plot.BarSeries{{Name: "x", Bars: []plot.Bar{{Value: 1}, {Value: 2}}}, {Name: "y", Bars: []plot.Bar{{Value: 3}, {Value: 4}}}}}
	for _, sz := range []string{"120x120", "8000x120", "120x8000", "200x150"} {
		size, err := plot.ParseSize(sz)
		if err != nil {
			t.Fatal(err)
		}
		for _, lower := range []plot.Panel{plot.PanelBoth, plot.PanelPerElement, plot.PanelResiduals, plot.PanelNone} {
			err := plot.CPE(io.Discard, "png", []plot.CPESeries{line("a", 4), line("b", 5)}, plot.Options{Size: size, Lower: lower})
			if err != nil && !errors.Is(err, plot.ErrBadSize) {
				t.Errorf("CPE at %s, panel %d: %v", sz, lower, err)
			}
		}
		if err := plot.Compare(io.Discard, "png", cmp, plot.Options{Size: size}); err != nil && !errors.Is(err, plot.ErrBadSize) {
			t.Errorf("Compare at %s: %v", sz, err)
		}
	}
}

// TestExtremeValues draws finite but extreme values: a picture or
// ErrBadValue, never ErrDraw.
func TestExtremeValues(t *testing.T) {
	for _, v := range []float64{1e300, -1e300, 1e-300, 5e-324, math.MaxFloat64, 0} {
		s := line("k", 4)
		s.Points[1].Y = v
		s.Points[2].N = math.Abs(v)
		err := plot.CPE(io.Discard, "svg", []plot.CPESeries{s}, plot.Options{})
		if err != nil && !errors.Is(err, plot.ErrBadValue) {
			t.Errorf("CPE with %v: %v", v, err)
		}
		c := plot.Comparison{Groups: []string{"a", "b"}, Series: []plot.BarSeries{{Bars: []plot.Bar{{Value: v}, {Value: 1}}}}}
		if err := plot.Compare(io.Discard, "svg", c, plot.Options{}); err != nil && !errors.Is(err, plot.ErrBadValue) {
			t.Errorf("Compare with %v: %v", v, err)
		}
	}
}
