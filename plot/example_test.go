package plot_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cyclebench/cyclebench/plot"
)

// A CPE plot of one kernel: fill the series from the sweep's points and
// its stats.Fit (here by hand), then draw it. Use a file or a buffer
// instead of io.Discard.
func ExampleCPE() {
	s := plot.CPESeries{Name: "Psum1", Unit: "cycles", ElementUnit: "element",
		Fit: &plot.Line{Intercept: -347, Slope: 12.46, SlopeCI: 0.18, InterceptCI: 109, SlopeSE: 0.077, InterceptSE: 47.5, R2: 0.9997}}
	for _, p := range [][2]float64{{100, 837}, {200, 2111}, {300, 3399}, {400, 4596}, {500, 5966}} {
		s.Points = append(s.Points, plot.CPEPoint{N: p[0], Y: p[1]})
	}
	s.Points[4].NotConverged = true // drawn hollow, listed in the legend
	err := plot.CPE(io.Discard, "png", []plot.CPESeries{s}, plot.Options{Title: "Psum1 on a Zen 5"})
	fmt.Println(err)

	// Bad input is an error, never a panic.
	s.Points[1].Y = -1 / zero()
	err = plot.CPE(io.Discard, "svg", []plot.CPESeries{s}, plot.Options{})
	fmt.Println(errors.Is(err, plot.ErrBadValue), err)
	// Output:
	// <nil>
	// true plot: bad value: Psum1 point 1: Y = -Inf, want a finite number within ±1e+150
}

func zero() float64 { return 0 }

// An A/B comparison of kernels as ratios B/A with their confidence
// intervals, and the noise band of the test.
func ExampleCompare() {
	c := plot.Comparison{
		Groups:    []string{"Combine4 vs Combine1", "Psum2 vs Psum1"},
		Unit:      "ratio B/A",
		Ratio:     true,
		NoiseBand: 0.02,
		Series: []plot.BarSeries{{Name: "B/A", Bars: []plot.Bar{
			{Value: 0.168, Lo: 0.166, Hi: 0.170},
			{Value: 0.582, Lo: 0.575, Hi: 0.590},
		}}},
	}
	fmt.Println(plot.Compare(io.Discard, "svg", c, plot.Options{}))

	c.Series[0].Bars = c.Series[0].Bars[:1]
	fmt.Println(plot.Compare(io.Discard, "svg", c, plot.Options{}))
	// Output:
	// <nil>
	// plot: bad input: B/A has 1 bars for 2 groups: want one bar per group (Missing for a gap)
}

func ExampleParseSize() {
	for _, s := range []string{"1200x800", "16x10cm", "12x8"} {
		sz, err := plot.ParseSize(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %.0f×%.0f points\n", sz, sz.Width.Points(), sz.Height.Points())
	}
	// Output:
	// 1200x800: 900×600 points
	// 453.543x283.465pt: 454×283 points
	// plot: bad size: width 9pt (12 px): want 120 to 8000 px at 96 dpi (from "12x8")
}

// *Size is a flag.Value: bind it to a flag.
func ExampleSize_Set() {
	var opt plot.Options
	fs := flag.NewFlagSet("cpe", flag.ContinueOnError)
	fs.Var(&opt.Size, "plot-size", "image size, WxH in pixels")
	fs.SetOutput(io.Discard)
	fmt.Println(fs.Parse([]string{"-plot-size", "1600x1000"}), opt.Size)
	err := fs.Parse([]string{"-plot-size", "huge"})
	fmt.Println(strings.Contains(err.Error(), "want WIDTHxHEIGHT"))
	// Output:
	// <nil> 1600x1000
	// true
}

func ExampleFormatOf() {
	for _, p := range []string{"cpe.svg", "out/CPE.PNG", "cpe.gif"} {
		fmt.Println(plot.FormatOf(p))
	}
	// Output:
	// svg <nil>
	// png <nil>
	//  plot: unknown image format: "cpe.gif": want a name ending in .svg, .png or .pdf
}

func ExampleFormatSI() {
	for _, v := range []float64{500, 1000, 1500, 20e6, 1.5e9, 0.25} {
		fmt.Print(plot.FormatSI(v), " ")
	}
	fmt.Println()
	// Output: 500 1k 1.5k 20M 1.5G 0.25
}

// The tickers work on any gonum plot: p.Y.Tick.Marker = plot.SITicks{}.
func ExampleSITicks() {
	for _, t := range (plot.SITicks{Count: 5}).Ticks(0, 20e6) {
		if t.Label != "" {
			fmt.Print(t.Label, " ")
		}
	}
	fmt.Println()
	// Output: 0 5M 10M 15M 20M
}

func ExampleSILogTicks() {
	for _, t := range (plot.SILogTicks{}).Ticks(64, 65536) {
		if t.Label != "" {
			fmt.Print(t.Label, " ")
		}
	}
	fmt.Println()
	// Output: 100 300 1k 3k 10k 30k
}

func ExampleStyleOf() {
	for i := range 3 {
		s := plot.StyleOf(i)
		fmt.Printf("series %d: #%02X%02X%02X shape %d dashes %v\n", i, s.Color.R, s.Color.G, s.Color.B, s.Shape, s.Dash)
	}
	// Output:
	// series 0: #0072B2 shape 0 dashes []
	// series 1: #D55E00 shape 1 dashes [6 3]
	// series 2: #009E73 shape 2 dashes [1.5 2.5]
}

// A heat map of kernels × machines: colours are cycles relative to the
// first machine, the text each cell's own figure; a cell without a value
// is grey with its note.
func ExampleHeat() {
	h := plot.HeatMap{
		Rows:    []string{"Combine4/n=1000", "Combine6/n=1000"},
		Columns: []string{"zen5", "zen4", "arm64"},
		Cells: [][]plot.HeatCell{
			{{Value: 1, Text: "1.94"}, {Value: 1.71, Text: "3.31 (1.71×)"}, {Missing: true, Text: "(0.600 ns)"}},
			{{Value: 1, Text: "0.951"}, {Value: 1.53, Text: "1.46 (1.53×)"}, {Missing: true, Text: "(0.355 ns)"}},
		},
		Unit:  "cycles relative to zen5",
		Ratio: true,
	}
	fmt.Println(plot.Heat(io.Discard, "png", h, plot.Options{Title: "Combine on three machines"}))

	h.Cells[0] = h.Cells[0][:2]
	fmt.Println(plot.Heat(io.Discard, "png", h, plot.Options{}))
	// Output:
	// <nil>
	// plot: bad input: row "Combine4/n=1000" has 2 cells for 3 columns: want one per column (Missing for a gap)
}
