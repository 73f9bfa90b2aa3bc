package stats

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers can test with [errors.Is]; the message names the offending value.
var (
	// ErrBadParam: a parameter (k, ε, a probability, a confidence level, ...)
	// is out of its allowed range.
	ErrBadParam = errors.New("stats: bad parameter")
	// ErrBadValue: the data hold a NaN, an infinity, or (for ratios) a value
	// that is not positive.
	ErrBadValue = errors.New("stats: bad data value")
	// ErrTooFew: not enough data for the computation asked for.
	ErrTooFew = errors.New("stats: too few values")
	// ErrLengthMismatch: two slices that must pair up have different lengths.
	ErrLengthMismatch = errors.New("stats: length mismatch")
	// ErrDegenerate: the data cannot determine the result (all x equal in a
	// fit, a zero slope used as the denominator of a ratio).
	ErrDegenerate = errors.New("stats: degenerate data")
)

// ErrNoTest is the warning put in [RunComparison.Warnings] when a side has a
// single run, so that no test of a difference is possible.
var ErrNoTest = errors.New("stats: no test possible")
