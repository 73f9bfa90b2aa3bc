package stats_test

import (
	"fmt"
	"math"

	"github.com/cyclebench/cyclebench/stats"
)

func ExampleNewKBest() {
	// K=3 samples within 1% of the fastest, or within 2 ticks; give up after 100.
	kb, err := stats.NewKBest(3, 0.01, 2, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ticks := range []float64{1310, 1204, 1650, 1199, 1206} {
		if kb.Add(ticks) {
			break
		}
	}
	fmt.Println("converged:", kb.Converged(), "after", kb.Count(), "samples")
	fmt.Println("best:", kb.Best(), "min:", kb.Min())
	fmt.Printf("spread: %.4f\n", kb.Spread())
	// Output:
	// converged: true after 5 samples
	// best: [1199 1204 1206] min: 1199
	// spread: 0.0058
}

func ExampleSummarize() {
	ticks := []float64{1204, 1199, 1310, 1206, 1650, 1201, 1203}
	s, err := stats.Summarize(ticks, 0.1, 0.9)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("N=%d min=%g median=%g MAD=%g mean=%.1f sd=%.1f\n", s.N, s.Min, s.Median, s.MAD, s.Mean, s.StdDev)
	for _, q := range s.Quantiles {
		fmt.Printf("p%02.0f=%g\n", 100*q.P, q.Value)
	}
	// Output:
	// N=7 min=1199 median=1204 MAD=3 mean=1281.9 sd=167.2
	// p10=1199
	// p90=1650
}

func ExampleLinearFit() {
	// Ticks per call against elements: 3 ticks per element plus a fixed
	// 150-tick overhead, with a little noise.
	n := []float64{64, 128, 256, 512, 1024, 2048}
	ticks := []float64{344, 531, 919, 1684, 3225, 6293}
	f, err := stats.LinearFit(n, ticks)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slope %.3f ± %.3f ticks/element\n", f.Slope, f.SlopeCI)
	fmt.Printf("intercept %.1f ± %.1f ticks\n", f.Intercept, f.InterceptCI)
	fmt.Printf("R² %.6f, outliers %v\n", f.R2, f.Outliers)
	fmt.Printf("predicted at 4096: %.0f\n", f.Predict(4096))
	// Output:
	// slope 3.000 ± 0.004 ticks/element
	// intercept 150.0 ± 4.2 ticks
	// R² 0.999999, outliers []
	// predicted at 4096: 12438
}

func ExampleComparePaired() {
	// Interleaved samples of kernel A and kernel B (ticks), paired by round.
	a := []float64{1000, 1012, 998, 1005, 1001, 1003, 999, 1010, 1002, 1004}
	b := []float64{1021, 1030, 1019, 1024, 1022, 1025, 1018, 1031, 1020, 1026}
	c, err := stats.ComparePaired(a, b, stats.DefaultCompareOptions)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("B/A = %.4f, 95%% CI [%.4f, %.4f], p = %.4f (%s)\n", c.Ratio, c.Lo, c.Hi, c.PValue, c.Test)
	fmt.Println("B is", c.Verdict)
	// Output:
	// B/A = 1.0200, 95% CI [1.0190, 1.0214], p = 0.0020 (wilcoxon)
	// B is slower
}

func ExampleCompareSlopes() {
	n := []float64{64, 128, 256, 512, 1024, 2048}
	fa, err := stats.LinearFit(n, []float64{344, 531, 919, 1684, 3225, 6293})
	if err != nil {
		fmt.Println(err)
		return
	}
	fb, err := stats.LinearFit(n, []float64{302, 480, 829, 1532, 2940, 5742})
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := stats.CompareSlopes(fa, fb, stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("CPE B/A = %.3f, B−A = %.3f ± %.3f ticks/element, p = %.2g\n", sc.Ratio, sc.Diff, sc.DiffCI, sc.PValue)
	fmt.Println("B is", sc.Verdict)
	// Output:
	// CPE B/A = 0.914, B−A = -0.258 ± 0.005 ticks/element, p = 2.8e-14
	// B is faster
}

func ExampleFit_OutliersAbove() {
	// Near-perfect data quantized to 2-tick steps: the robust rule alone
	// flags the one point that is off by a single step.
	n := []float64{100, 200, 300, 400, 500, 600, 700, 800}
	ticks := []float64{400, 700, 1000, 1302, 1600, 1900, 2200, 2500}
	f, err := stats.LinearFit(n, ticks)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("outliers:", f.Outliers)
	fmt.Println("beyond 2 steps:", f.OutliersAbove(4))
	// Output:
	// outliers: [3]
	// beyond 2 steps: []
}

func ExampleFit_Predict() {
	f, err := stats.LinearFit([]float64{1, 2, 3}, []float64{12, 14, 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Predict(10))
	// Output: 30
}

func ExampleKBest_Add() {
	// A migrated sample was replaced by NaN upstream; the K-best ignores it
	// and gives up after maxSamples samples without converging.
	kb, err := stats.NewKBest(2, 0.001, 0, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range []float64{500, math.NaN(), 520, 510} {
		if done := kb.Add(v); done {
			fmt.Println("done after", kb.Count(), "samples")
		}
	}
	fmt.Println("converged:", kb.Converged(), "rejected:", kb.Rejected(), "best:", kb.Best())
	kb.Reset()
	fmt.Println("after Reset:", kb.Count(), kb.Best(), kb.Min())
	// Output:
	// done after 4 samples
	// converged: false rejected: 1 best: [500 510]
	// after Reset: 0 [] NaN
}
