package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Summary describes a sample. All fields are finite, so a Summary encodes as
// JSON.
type Summary struct {
	N        int
	Min, Max float64
	Mean     float64
	// Median is the usual sample median: the middle value, or the mean of the
	// two middle values when N is even. (A Quantile with P = 0.5 uses the
	// empirical rule instead and may differ for even N.)
	Median float64
	// StdDev is the sample standard deviation (divisor N−1); 0 when N = 1.
	StdDev float64
	// MAD is the median absolute deviation from the median, unscaled
	// (multiply by 1.4826 to estimate σ of normal data).
	MAD float64
	// CV is the coefficient of variation StdDev/Mean; 0 when Mean is 0.
	CV float64
	// Quantiles holds the quantiles asked for, in the order asked.
	Quantiles []Quantile
}

// Quantile is the value at probability P of the empirical distribution.
type Quantile struct{ P, Value float64 }

// Summarize describes xs and computes the quantiles at ps with gonum's
// [stat.Quantile] and [stat.Empirical] (the inverse of the empirical CDF: the
// smallest x_(i) with i/N ≥ p, no interpolation, so every quantile is one of
// the samples). Mean and StdDev come from [stat.MeanStdDev]. xs is not
// modified.
//
// It returns an error wrapping [ErrTooFew] when xs is empty, [ErrBadValue]
// when xs holds a NaN or ±Inf or values so large that the mean or the
// spread overflows, and [ErrBadParam] when a p is outside [0, 1].
func Summarize(xs []float64, ps ...float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, fmt.Errorf("%w: Summarize needs at least 1 value, got 0", ErrTooFew)
	}
	if err := checkFinite("xs", xs); err != nil {
		return Summary{}, err
	}
	for i, p := range ps {
		if !(p >= 0 && p <= 1) {
			return Summary{}, fmt.Errorf("%w: ps[%d] = %v, want 0 <= p <= 1", ErrBadParam, i, p)
		}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	s := Summary{
		N:    len(sorted),
		Min:  sorted[0],
		Max:  sorted[len(sorted)-1],
		Mean: stat.Mean(sorted, nil),
	}
	if s.N > 1 {
		s.Mean, s.StdDev = stat.MeanStdDev(sorted, nil)
	}
	if s.Mean != 0 {
		s.CV = s.StdDev / s.Mean
	}
	s.Median = medianSorted(sorted)
	s.MAD = madAbout(sorted, s.Median)
	if !finite(s.Mean, s.StdDev, s.CV, s.Median, s.MAD) {
		return Summary{}, fmt.Errorf("%w: the values from %v to %v overflow float64 arithmetic (mean %v, standard deviation %v)", ErrBadValue, s.Min, s.Max, s.Mean, s.StdDev)
	}
	if len(ps) > 0 {
		s.Quantiles = make([]Quantile, len(ps))
		for i, p := range ps {
			s.Quantiles[i] = Quantile{P: p, Value: stat.Quantile(p, stat.Empirical, sorted, nil)}
		}
	}
	return s, nil
}

// finite reports whether no value is NaN or ±Inf.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// checkFinite returns an ErrBadValue error naming the first NaN or ±Inf in xs.
func checkFinite(name string, xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s[%d] = %v, want a finite number", ErrBadValue, name, i, x)
		}
	}
	return nil
}

// medianSorted returns the median of sorted, non-empty data.
func medianSorted(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	lo, hi := sorted[n/2-1], sorted[n/2]
	return lo + (hi-lo)/2
}

// Median returns the median of xs without modifying it (NaN when xs is
// empty).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return medianSorted(s)
}

// madAbout returns the unscaled median absolute deviation of xs about m.
func madAbout(xs []float64, m float64) float64 {
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - m)
	}
	slices.Sort(dev)
	return medianSorted(dev)
}
