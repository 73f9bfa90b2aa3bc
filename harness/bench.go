package harness

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// ReportSweep measures a function over sizes from inside a benchmark
// function, one sub-benchmark per size named n=SIZE (the Go convention),
// each reporting its figures as [Report] does:
//
//	func BenchmarkSum(b *testing.B) {
//		harness.ReportSweep(b, harness.DefaultConfig(), []int{400, 800, 1200}, func(n int) (harness.Target, error) {
//			data := make([]int64, n)
//			return harness.Target{Run: func() { sink = sum(data) }}, nil
//		})
//	}
//
// prints, for go test -bench Sum,
//
//	BenchmarkSum/n=400-2  5552  113.7 ns/op  1.050 cycles/elem  420.0 cycles/op  0.2842 ns/elem  0.7379 ticks/elem  295.2 ticks/op
//	BenchmarkSum/n=800-2   736  222.0 ns/op  1.025 cycles/elem  820.0 cycles/op  0.2774 ns/elem  0.7203 ticks/elem  576.2 ticks/op
//	...
//
// with cycles/op, ticks/op and ns/op per call and cycles/elem, ticks/elem
// and ns/elem per element, B/op and allocs/op with -benchmem, and the calls
// timed as the iteration count. In latency mode the sizes are named
// mode=latency/n=SIZE (see "Latency mode in the name" at [Report]). go test -bench Sum -count 6 > out.txt then
// holds six figures per size for benchstat, and cost per call against n
// for a CPE fit (cyclebench cpe out.txt fits cycles/op = intercept +
// CPE·n over every run of every size).
//
// sizes are as a [Sweep]'s (3 to 1000, increasing). build is called in
// each size's sub-benchmark, once per measurement (so once per -count
// repetition), with the timer stopped; its Target gives the function (Run,
// untimed Setup and Check) and the elements one call processes (Elements;
// 0 means n), which the per-element figures divide by; its Name, when
// set, labels the results as Name/n=SIZE (else the sub-benchmark's name
// does). cfg is used for every size as by Report.
//
// # Each size is its own measurement
//
// The testing package runs sub-benchmarks one after another, each to the
// end (all -count repetitions of n=1000 before n=2000), and a -bench
// pattern may select some sizes only. So each size is measured on its own,
// with its own empty-loop overhead and its own core-clock ruler, and -count
// repetitions are independent measurements. The cycle figures follow the
// core clock through each size's ruler, so a slow change of clock rate
// between sizes stays out of cycles/op; a change of the machine's load or
// state between them does not, and the spread of -count repetitions shows
// it. [CPE] instead measures all sizes interleaved in one loop with one
// ruler (a sweep whose sizes share every stretch of time); use it, or
// cyclebench cpe on a package, when that matters more than the go test
// workflow.
//
// A nil build, bad sizes or a bad Config fail the benchmark with b.Fatal
// and one line naming the problem; a build error, a build that returns no
// Run function or a failing Check fails that size's sub-benchmark.
// ReportSweep never panics (a panic inside build is build's own). A nil b
// does nothing.
func ReportSweep(b *testing.B, cfg Config, sizes []int, build func(n int) (Target, error)) {
	if b == nil {
		return
	}
	b.Helper()
	reportSweep(wrapB(b), cfg, sizes, build)
}

func reportSweep(b bench, cfg Config, sizes []int, build func(n int) (Target, error)) {
	b.Helper()
	const who = "harness.ReportSweep"
	cfg, ok := envConfig(b, who, cfg)
	if !ok {
		return
	}
	switch {
	case b.iters() == 0:
		b.Fatal(who + ": called inside a for b.Loop() loop; call it once in the benchmark function, with no loop around it")
		return
	case build == nil:
		b.Fatal(who + ": nil build function: pass a function that returns the Target for size n")
		return
	}
	if err := checkSizes(sizes); err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return
	}
	if _, err := cfg.WithDefaults(); err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return
	}
	inMode(b, who, cfg.Mode, func(b bench) {
		b.Helper()
		for _, n := range sizes {
			b.runSub("n="+strconv.Itoa(n), func(sb bench) {
				sb.Helper()
				reportCall(sb, who, func(sb bench, bt benchtime) (outcome, bool) {
					sb.Helper()
					return measureSize(sb, who, bt, cfg, n, build)
				})
			})
		}
	})
}

// measureSize builds the target of size n and measures it for b.
func measureSize(b bench, who string, bt benchtime, cfg Config, n int, build func(int) (Target, error)) (outcome, bool) {
	b.Helper()
	in, err := build(n)
	switch {
	case err != nil:
		b.Fatal(fmt.Sprintf("%s: n=%d: %v", who, n, err))
		return outcome{}, false
	case in.Run == nil:
		b.Fatal(fmt.Sprintf("%s: n=%d: build returned a Target with no Run function", who, n))
		return outcome{}, false
	case math.IsNaN(in.Elements) || math.IsInf(in.Elements, 0) || in.Elements < 0:
		b.Fatal(fmt.Sprintf("%s: n=%d: Elements %v (allowed: ≥ 0, finite; 0 means n)", who, n, in.Elements))
		return outcome{}, false
	}
	if in.Elements == 0 {
		in.Elements = float64(n)
	}
	if in.Name != "" {
		in.Name += "/n=" + strconv.Itoa(n)
	}
	return measureFunc(b, who, bt, cfg, in)
}

// ReportCompare measures two functions interleaved with [Compare] from
// inside a benchmark function and reports B relative to A as the
// benchmark's figures:
//
//	func BenchmarkSum4vsSum1(b *testing.B) {
//		data := make([]int64, 3200)
//		harness.ReportCompare(b, harness.DefaultConfig(),
//			harness.Target{Name: "sum1", Run: func() { sink = sum1(data) }},
//			harness.Target{Name: "sum4", Run: func() { sink = sum4(data) }},
//			harness.CompareOptions{})
//	}
//
// prints a line such as
//
//	BenchmarkSum4vsSum1-2  14160  0.7770 ratio  2262 A-ticks/op  1744 B-ticks/op  3220 A-cycles/op  2482 B-cycles/op
//
// with the units
//
//	ratio                      B/A of the paired per-call costs
//	A-cycles/op, B-cycles/op   each side's K-best cost per call in core
//	                           cycles, from its best samples, not the
//	                           typical pairs behind ratio (left out
//	                           without a cycle estimate)
//	A-ticks/op, B-ticks/op     the same in counter ticks
//
// and, with -benchmem, B/op and allocs/op averaged over one call of each
// side (counted after the measurement as [Report] does). The line has no
// ns/op: the figures are ratios and per-side costs. The iteration count is
// the calls of both functions timed.
//
// The statistics of the verdict are not metrics (benchstat would take
// them for figures and print geometric means of p-values): the first line
// logged under the result has them in full,
//
//	harness.ReportCompare: sum4/sum1 = 0.77698 [0.77524, 0.77937], p = 1.4e-13, noise band 0.0012, 60 pairs: faster (...)
//
// B/A with its confidence interval (95% by default), the test's p-value
// (Comparison.Stats.PValue), the relative noise band of the verdict (see
// [stats.Comparison.NoiseBand]; derived from the measurement unless
// opt.Stats fixes it), the pairs, and the verdict ("faster", "slower",
// "no significant difference" or "inconclusive") with its reason; the
// cyclebench command reads it back (cyclebench compare ./PKG). The
// difference is significant when p < α (opt.Stats.Alpha, 0.05 by
// default), the interval lies outside [1 − noise band, 1 + noise band] (a
// band never narrower than either side's best samples' spread), and the
// verdict is not inconclusive: a side did not converge, or its best
// samples' ratio and the paired ratio disagree (see [Comparison.Verdict]).
//
// Each sample of a side is taken moments from one of the other side, on
// the same core, in ABBA order (see Compare), so the ratio does not depend
// on the core clock's rate, and two sizes of one function compare as well
// as two functions (pass two Targets built for the two sizes). The
// function names are fa.Name and fb.Name ("A" and "B" when empty). With
// the same function on both sides (an A/A test) the verdict should be "no
// significant difference" in about 19 runs of 20.
//
// cfg and opt are as for Compare; -benchtime=D sets cfg.MaxTime and
// -benchtime=Nx sets opt.Pairs to N (within 6 to 100000) and
// cfg.MaxSamples as Report does; in latency mode it reports under
// mode=latency as Report does. It measures once per run of the benchmark
// function, as Report does, and fails the benchmark with b.Fatal and one
// line for a nil Run, bad options or a failed comparison; it never panics.
// A nil b does nothing.
func ReportCompare(b *testing.B, cfg Config, fa, fb Target, opt CompareOptions) {
	if b == nil {
		return
	}
	b.Helper()
	reportCompare(wrapB(b), cfg, fa, fb, opt)
}

// reportCompare is ReportCompare on the bench interface.
func reportCompare(b bench, cfg Config, fa, fb Target, opt CompareOptions) {
	b.Helper()
	own := cfg.MinTime
	cfg, ok := envConfig(b, "harness.ReportCompare", cfg)
	if !ok {
		return
	}
	// A comparison's length is its pairs, its MaxTime shared out among
	// its blocks: a least time from outside would outlast a block's
	// share, so EnvMinTime is for Report and ReportSweep only.
	cfg.MinTime = own
	inMode(b, "harness.ReportCompare", cfg.Mode, func(b bench) {
		b.Helper()
		reportCall(b, "harness.ReportCompare", func(b bench, bt benchtime) (outcome, bool) {
			b.Helper()
			return measureCompare(b, bt, cfg, fa, fb, opt)
		})
	})
}

func measureCompare(b bench, bt benchtime, cfg Config, fa, fb Target, opt CompareOptions) (outcome, bool) {
	b.Helper()
	const who = "harness.ReportCompare"
	if fa.Run == nil || fb.Run == nil {
		b.Fatal(who + ": nil Run function: both Targets need the function to measure")
		return outcome{}, false
	}
	cfg = bt.apply(cfg)
	opt = bt.applyPairs(opt)
	cfg, ok := fillConfig(b, who, cfg)
	if !ok {
		return outcome{}, false
	}

	cfg, err := withGCFor(cfg, fa, fb)
	var cmp Comparison
	if err == nil {
		cmp, err = compare(b.Context(), cfg, fa, fb, opt)
	}
	var aa, ab allocs
	if err == nil {
		aa, err = countAllocs(fa.Run, fa.Setup, allocRuns(cmp.A.Nanoseconds, fa.Setup != nil))
	}
	if err == nil {
		ab, err = countAllocs(fb.Run, fb.Setup, allocRuns(cmp.B.Nanoseconds, fb.Setup != nil))
	}
	if err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return outcome{}, false
	}
	// The verdict first: go test keeps only the first lines a benchmark
	// logs (testing's trimOutput), and a comparison on a shared core has
	// several warnings.
	b.Log(compareLine(who, fa.Name, fb.Name, cmp))
	warnings := append(append(append([]error(nil), cmp.Warnings...), cmp.A.Warnings...), cmp.B.Warnings...)
	logWarnings(b, cfg.Calibration, warnings)
	return outcome{metrics: compareMetrics(cmp, aa, ab), calls: cmp.A.Calls + cmp.B.Calls}, true
}

// compareMetrics returns the figures ReportCompare reports for c, with the
// allocations of one call of each side. The statistics of the verdict
// (interval, p-value, noise band, verdict) are not among them: benchstat
// takes every unit of a line for a figure to summarise and compare, and
// printed geometric means of p-values; they are in the log line, which
// cyclebench reads (results.PairedOf).
func compareMetrics(c Comparison, aa, ab allocs) []metric {
	m := []metric{{c.Stats.Ratio, "ratio"}, {c.A.Ticks, "A-ticks/op"}, {c.B.Ticks, "B-ticks/op"}}
	if c.A.CyclesPerTick > 0 && c.B.CyclesPerTick > 0 {
		m = append(m, metric{c.A.Cycles, "A-cycles/op"}, metric{c.B.Cycles, "B-cycles/op"})
	}
	return append(m,
		metric{0, "ns/op"}, // 0 suppresses the testing package's ns/op
		metric{(aa.bytes + ab.bytes) / 2, "B/op"}, metric{(aa.count + ab.count) / 2, "allocs/op"})
}

// compareLine is ReportCompare's log line for c: the ratio with its
// interval to 5 digits, the p-value, the noise band, the pairs, the
// verdict and its reason, as results.PairedOf reads it back.
func compareLine(who, nameA, nameB string, c Comparison) string {
	s := c.Stats
	return fmt.Sprintf("%s: %s/%s = %.5g [%.5g, %.5g], p = %.2g, noise band %.3g, %d pairs: %s (%s)",
		who, nameOr2(nameB, "B"), nameOr2(nameA, "A"), s.Ratio, s.Lo, s.Hi, s.PValue, s.NoiseBand, s.N, c.Verdict, c.Reason)
}

func nameOr2(name, def string) string {
	if name == "" {
		return def
	}
	return name
}
