package main

import (
	"math"
	"slices"

	cbstats "github.com/cyclebench/cyclebench/stats"
	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
)

// median returns the median of xs (sorting it), NaN when xs is empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// cv returns the coefficient of variation of xs, the sample standard
// deviation over the mean; NaN with fewer than two values or a mean of 0.
func cv(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m, s := stat.MeanStdDev(xs, nil)
	if m == 0 {
		return math.NaN()
	}
	return s / math.Abs(m)
}

// robustSpread returns 1.4826 × the median absolute deviation of xs from
// their median, over the median: the CV's robust counterpart (equal to it
// for normal data), which one outlier in ten moves little. NaN with fewer
// than two values or a median of 0.
func robustSpread(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	s, err := cbstats.Summarize(xs)
	if err != nil || s.Median == 0 {
		return math.NaN()
	}
	return 1.4826 * s.MAD / math.Abs(s.Median)
}

// verdict is a significance test's answer on two samples.
type verdict struct {
	P        float64
	Alpha    float64
	Detected bool
}

// mannWhitney is the detection rule for the peers that give repetitions but
// no verdict of their own (testing.Benchmark, hrtime, Google Benchmark): the
// Mann–Whitney U test of golang.org/x/perf/benchmath with its default α
// (0.05), exactly as benchstat compares two files. Detected is P < α.
func mannWhitney(a, b []float64) verdict {
	th := benchmath.DefaultThresholds
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th))
	return verdict{P: c.P, Alpha: c.Alpha, Detected: c.P < c.Alpha}
}

// tally counts comparisons that found a difference.
type tally struct {
	Detected, N int
	// Seconds are the comparisons' durations.
	Seconds []float64
	// Errs are the reasons of comparisons that gave no verdict.
	Errs []string
	// More counts the comparisons that took more blocks than asked
	// (cyclebench's Compare, harness.Comparison.MoreBlocks).
	More int
}

// add records one comparison's verdict and duration.
func (t *tally) add(detected bool, seconds float64) {
	t.N++
	if detected {
		t.Detected++
	}
	t.Seconds = append(t.Seconds, seconds)
}
