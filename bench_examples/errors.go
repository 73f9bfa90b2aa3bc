package benchexamples

import "errors"

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers can test with [errors.Is]; the message names the offending value and
// what is allowed.
var (
	// ErrUnknown: [Lookup] was given a name that is not a kernel.
	ErrUnknown = errors.New("benchexamples: unknown kernel")
	// ErrBadPattern: [Select] was given a pattern that is not a valid regexp.
	ErrBadPattern = errors.New("benchexamples: bad pattern")
	// ErrNoMatch: [Select] was given a pattern that matches no kernel name.
	ErrNoMatch = errors.New("benchexamples: no kernel matches")
	// ErrBadSize: a Kernel's New was given a size outside [Kernel.MinN, Kernel.MaxN].
	ErrBadSize = errors.New("benchexamples: size out of range")
	// ErrBadOffset: a Kernel's NewAt was given a data offset it cannot
	// place data at.
	ErrBadOffset = errors.New("benchexamples: bad data offset")
	// ErrWrongResult: a kernel's Check found that the most recent Run did
	// not produce the right output.
	ErrWrongResult = errors.New("benchexamples: wrong result")
)
