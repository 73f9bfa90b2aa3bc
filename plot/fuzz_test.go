package plot_test

import (
	"errors"
	"io"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
)

// FuzzCPE draws a two-series CPE plot from arbitrary numbers: it may
// refuse them with a checked error, never fail inside gonum (ErrDraw).
// go test ./plot -fuzz FuzzCPE explores beyond the seeds.
func FuzzCPE(f *testing.F) {
	f.Add(100.0, 1000.0, 3000.0, 12.0, -50.0, 0.1, 5.0, false, uint8(0))
	f.Add(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, true, uint8(1))
	f.Add(1e-300, 1e300, -5.0, 1e100, 1e-100, 1.0, 1.0, true, uint8(2))
	f.Add(16.0, 65536.0, 50.0, 3.0, -80.0, 0.001, 2.0, false, uint8(0))
	f.Fuzz(func(t *testing.T, x0, x1, y0, slope, icpt, se, ise float64, log bool, lower uint8) {
		s := plot.CPESeries{Name: "k", Fit: &plot.Line{Intercept: icpt, Slope: slope, SlopeCI: 2 * se, SlopeSE: se, InterceptSE: ise}}
		for i, x := range []float64{x0, (x0 + x1) / 2, x1} {
			s.Points = append(s.Points, plot.CPEPoint{N: x, Y: y0 + slope*x, NotConverged: i == 1, Outlier: i == 2})
		}
		opt := plot.Options{Lower: plot.Panel(lower % 4)}
		if log {
			opt.XScale = plot.ScaleLog
		}
		err := plot.CPE(io.Discard, "svg", []plot.CPESeries{s, {Name: "flat", Points: []plot.CPEPoint{{N: x1, Y: y0}}}}, opt)
		if errors.Is(err, plot.ErrDraw) {
			t.Fatalf("x %v..%v, y0 %v, slope %v, intercept %v, SE %v %v, log %v, panel %d: %v", x0, x1, y0, slope, icpt, se, ise, log, lower%4, err)
		}
	})
}

// FuzzCompare does the same for Compare.
func FuzzCompare(f *testing.F) {
	f.Add(1.0, 0.5, 2.0, 0.1, true, false)
	f.Add(1e6, 1.0, 1e-6, 0.0, false, true)
	f.Fuzz(func(t *testing.T, a, b, c, band float64, ratio, horizontal bool) {
		cmp := plot.Comparison{Groups: []string{"x", "y", "z"}, Ratio: ratio, NoiseBand: band,
			Series: []plot.BarSeries{{Bars: []plot.Bar{{Value: a}, {Value: b, Lo: b * 0.9, Hi: b * 1.1}, {Value: c}}}, {Bars: []plot.Bar{{Missing: true}, {Value: c}, {Value: a}}}}}
		opt := plot.Options{}
		if horizontal {
			opt.Bars = plot.BarsHorizontal
		}
		if err := plot.Compare(io.Discard, "svg", cmp, opt); errors.Is(err, plot.ErrDraw) {
			t.Fatalf("%v %v %v band %v ratio %v: %v", a, b, c, band, ratio, err)
		}
	})
}
