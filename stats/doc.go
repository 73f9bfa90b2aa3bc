// Package stats holds the statistics behind cyclebench: the CS:APP K-best
// convergence rule, robust summaries, least-squares fits with confidence
// intervals, and paired comparisons of two measurements.
//
// The package is a leaf: it imports only the standard library and
// gonum.org/v1/gonum (stat for quantiles, means and regression, stat/distuv
// for the Student t, normal and binomial distributions). Every function
// validates its input first and returns an error wrapping one of the sentinel
// errors below instead of letting gonum panic. Nothing here prints, logs or
// panics.
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
// # Paired comparison
//
// [ComparePaired] compares B against A from paired samples (for example
// interleaved in ABBA order, so that drifts of the clock or the machine hit
// both equally). It works on the log ratios d_i = log(b_i/a_i), so the
// result is a ratio B/A, and uses one coherent rank-based procedure:
// the Hodges–Lehmann estimate (median of the Walsh averages), the
// distribution-free confidence interval from order statistics of the Walsh
// averages, and the Wilcoxon signed-rank test for the p-value. A difference
// is called significant only when it is both statistically significant and
// larger than a relative noise band; see [Comparison].
package stats
