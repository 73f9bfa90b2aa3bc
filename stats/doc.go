// Package stats holds the statistics behind cyclebench: the CS:APP K-best
// convergence rule, robust summaries, least-squares fits with confidence
// intervals and a check that cost is linear in size, paired comparisons of
// two measurements, and comparisons of results from separate runs.
//
// The package is a leaf: it imports only the standard library,
// gonum.org/v1/gonum (stat for quantiles, means and regression, stat/distuv
// for the Student t, normal and F distributions) and
// golang.org/x/perf/benchmath (the Mann–Whitney U test, as benchstat runs
// it). Every function validates its input first and returns an error
// wrapping one of the sentinel errors below instead of letting gonum panic.
// Nothing here prints, logs or panics.
//
// # NaN and infinities
//
// Results are finite, so they encode as JSON, with two documented
// exceptions on the K-best tracker: [KBest.Min] is NaN before a valid
// sample, and [KBest.Spread] is NaN before K values are kept (±Inf when
// v1 = 0). Data whose arithmetic overflows float64 (values near 1e308, or
// ratios of some 300 orders of magnitude) are an error, never a NaN in a
// result.
//
// # K-best
//
// [KBest] implements the "K-best" measuring scheme of Bryant and
// O'Hallaron, Computer Systems: A Programmer's Perspective (CS:APP),
// chapter "Measuring program execution time". Timing noise (interrupts,
// cache misses, migrations, frequency changes) only ever makes a measurement
// longer, so the smallest samples are the best estimates of the true cost.
// The scheme keeps the K smallest samples in ascending order v1 ≤ … ≤ vK and
// declares convergence once they agree within a relative tolerance ε:
//
//	(1+ε)·v1 ≥ vK
//
// or, when M samples have been taken without convergence, gives up and says
// so. Because a TSC advances in steps (2 ticks on some machines) a tiny
// kernel can never satisfy a small relative ε, so [KBest] also accepts an
// absolute floor: vK − v1 ≤ AbsTol counts as converged too.
// [KBest.Add] does not allocate, so it can sit inside a measuring loop.
//
// # Summaries
//
// [Summarize] reports N, min, max, mean, median, sample standard deviation,
// the median absolute deviation and the coefficient of variation, plus any
// empirical quantiles asked for.
//
// # Fitting cost against size
//
// Cycles per element (CPE) is the slope of a least-squares line of cost
// against problem size. [LinearFit] always fits with an intercept,
// y = Intercept + Slope·x: a real measurement includes a fixed per-call cost
// (call overhead, loop set-up, the counter reads themselves). Forcing the
// line through the origin, as some tools do, folds that fixed cost into the
// slope and biases CPE upward at small sizes. The fit reports standard
// errors and 95% confidence half-widths from the Student t distribution with
// N−2 degrees of freedom, R², residuals and a robust list of outlying
// points. [CompareSlopes] compares the slopes of two fits with a
// Welch-style t test.
//
// A slope is a cost per element only if the cost is a straight line in the
// size. [LackOfFit] checks that: a quadratic term, a break between two
// lines (a cache-size knee or step), the runs of the residuals' signs and
// R² ≥ 0.999; any failure makes the verdict "not linear in n", with the
// statistic and p-value of each test and a one-line reason.
//
// # Paired comparison
//
// [ComparePaired] compares B against A from paired samples (for example
// interleaved in ABBA order, so that drifts of the clock or the machine hit
// both equally). It works on the log ratios d_i = log(b_i/a_i), so the
// result is a ratio B/A, and uses one coherent rank-based procedure:
// the Hodges–Lehmann estimate (median of the Walsh averages), the
// distribution-free confidence interval from order statistics of the Walsh
// averages, and the Wilcoxon signed-rank test for the p-value. A difference
// is called significant only when the interval excludes 1 and lies beyond a
// relative noise band. By default the band is derived from the measurement
// itself: half a counter quantum relative to a sample (the interval of
// quantized samples cannot see it) or the drift of the ratio between the
// run's halves, whichever is larger; a fixed band can be asked for. The
// result also gives the smallest difference the run could have detected;
// see [Comparison].
//
// # Comparing separate runs
//
// The intervals of [ComparePaired] and [CompareSlopes] describe the noise
// within one run. Measured again later, the same code moves by more than
// that (the machine's state, code placement, the core clock), so two result
// files of identical code would often differ "significantly". [CompareRuns]
// compares per-run values (one figure per run: the ticks per call of each
// repetition, the slope of each sweep) by the spread between runs, with
// Welch's t test on their logarithms or benchmath's Mann–Whitney U test. With
// a single run on a side it gives no verdict: "no test: 1 run per side". Its
// derived noise band covers the values' resolution and a systematic error
// that differs from run to run, such as the core-clock ruler's tolerance in a
// cycle figure (CompareOptions.Systematic).
package stats
