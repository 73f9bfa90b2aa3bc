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

func ExampleLackOfFit() {
	// An O(n²) kernel (bubble sort) over n = 200…3000: the line has a
	// slope, but no cost per element describes it.
	var n, cycles []float64
	for size := 200.0; size <= 3000; size += 400 {
		n = append(n, size)
		cycles = append(cycles, 300+50*size+1.2*size*size)
	}
	l, err := stats.LackOfFit(n, cycles, stats.LinearityOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Verdict)
	fmt.Printf("curvature: c2 = %.2f cycles/element², significant: %v\n", l.Curvature.Coef, l.Curvature.Significant)
	fmt.Printf("R² %.3f\n", l.R2)

	// 3 ticks per element plus 150, each within 0.05%.
	n = []float64{64, 128, 256, 512, 1024, 2048, 4096, 8192}
	ticks := []float64{342.2, 533.7, 918.0, 1686.8, 3220.4, 6297.1, 12438.0, 24713.6}
	l, err = stats.LackOfFit(n, ticks, stats.LinearityOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Reason)
	// Output:
	// not linear in n
	// curvature: c2 = 1.20 cycles/element², significant: true
	// R² 0.943
	// linear: no curvature (p = 0.56), no break (p = 1), residual signs random (6 runs, p = 0.89), R² 1 ≥ 0.999
}

func ExampleComparePaired_derivedBand() {
	// B does 0.19% more work than A; the pairs are tight and the counter
	// advances in steps of 2 ticks. The derived band (half a step of the
	// 6000-tick samples) is far below the difference, so it is called; the
	// old fixed band of ±0.2% hid it.
	a := []float64{6000, 6010, 5996, 6004, 6002, 6008, 5998, 6006, 6000, 6004, 6012, 5994}
	b := []float64{6012, 6022, 6006, 6016, 6014, 6020, 6012, 6018, 6012, 6016, 6024, 6006}
	for _, band := range []float64{stats.DerivedNoiseBand, 0.002} {
		c, err := stats.ComparePaired(a, b, stats.CompareOptions{Quantum: 2, NoiseBand: band})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s\n", c.Verdict, c.Reason)
		fmt.Printf("  band ±%.3f%% (%s), detectable %.3f%%\n", 100*c.NoiseBand, c.BandSource, 100*c.Detectable)
	}
	// Output:
	// slower: the 95% interval [1.0019967, 1.0020010] excludes 1 (p = 0.00049) and lies beyond the noise band ±0.017% derived from the counter quantum
	//   band ±0.017% (quantum), detectable 0.017%
	// no significant difference: the 95% interval [1.0019967, 1.0020010] excludes 1 (p = 0.00049) but reaches into the fixed noise band ±0.2%: a difference this small is not resolved
	//   band ±0.200% (fixed), detectable 0.200%
}

func ExampleCompareRuns() {
	// The CPE (cycles per element) of the same kernel in two result files,
	// one sweep per -count repetition. Run to run it moves by about 1%.
	fileA := []float64{12.08, 12.31, 11.95, 12.20, 12.12}
	fileB := []float64{12.25, 11.98, 12.17, 12.30, 12.02}
	rc, err := stats.CompareRuns(fileA, fileB, stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("B/A = %.4f [%.4f, %.4f], p = %.2f (%s, %d+%d runs): %s\n", rc.Ratio, rc.Lo, rc.Hi, rc.PValue, rc.Test, rc.NA, rc.NB, rc.Verdict)
	fmt.Printf("detectable: %.1f%%\n", 100*rc.Detectable)

	// One run per side: no estimate of the run-to-run spread, no test.
	rc, err = stats.CompareRuns(fileA[:1], fileB[:1], stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (tested: %v)\n", rc.Reason, rc.Tested)
	// Output:
	// B/A = 1.0010 [0.9846, 1.0176], p = 0.89 (welch, 5+5 runs): no significant difference
	// detectable: 2.3%
	// no test: 1 run per side (tested: false)
}

func ExampleSentence() {
	// The paired ratio of two sums measured interleaved, and an A/A test.
	fmt.Println(stats.Sentence("Sum1", "Sum4", 0.7725, 0.7713, 0.7736, stats.VerdictFaster, ""))
	fmt.Println(stats.Sentence("Sum1", "Sum1'", 1.0002, 0.9991, 1.0013, stats.VerdictSame, ""))
	fmt.Println(stats.Sentence("old", "new", 1.1, 0, 0, stats.VerdictNoTest, "no test: 1 run per side"))
	// Output:
	// Sum4 ran 1.294 ± 0.003 times faster than Sum1
	// Sum1' and Sum1 ran equally fast: no significant difference (Sum1'/Sum1 = 1.0002, interval [0.9991, 1.0013])
	// no verdict on new against old: 1 run per side
}

// CombineBlocks judges a paired comparison by its blocks (separate
// measurements), each weighted by its own interval: here the pairs say B
// is 0.2% faster, ±0.02%, and of the five blocks one was taken in a noisy
// moment (1.003, ±0.8%); it counts for what it is worth.
func ExampleCombineBlocks() {
	pairs := stats.Comparison{N: 200, Ratio: 0.998, Lo: 0.9978, Hi: 0.9982, PValue: 1e-10, NoiseBand: 0.0002, BandSource: stats.BandQuantum,
		Confidence: 0.95, Alpha: 0.05, Significant: true, Verdict: stats.VerdictFaster}
	block := func(r, w float64) stats.Comparison {
		return stats.Comparison{N: 40, Ratio: r, Lo: r * (1 - w), Hi: r * (1 + w), Confidence: 0.95}
	}
	blocks := []stats.Comparison{block(0.998, 0.0004), block(0.99805, 0.0004), block(1.003, 0.008), block(0.99795, 0.0004), block(0.998, 0.0004)}
	c, err := stats.CombineBlocks(pairs, blocks, stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.4f [%.4f, %.4f], p = %.2g (%s)\n", c.Verdict, c.Ratio, c.Lo, c.Hi, c.PValue, c.Test)
	// Output:
	// faster: 0.9980 [0.9977, 0.9983], p = 4e-05 (blocks)
}
