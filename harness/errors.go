package harness

import "errors"

// Errors returned by this package, or put in Result.Warnings.
var (
	// ErrBadConfig: a Config field outside its allowed range.
	ErrBadConfig = errors.New("harness: bad config")
	// ErrNilFunc: Measure was given a nil function.
	ErrNilFunc = errors.New("harness: nil function")
	// ErrPanic: the measured function panicked.
	ErrPanic = errors.New("harness: measured function panicked")
	// ErrGoexit: the measured function called runtime.Goexit.
	ErrGoexit = errors.New("harness: measured function called runtime.Goexit")
	// ErrNotConverged (a warning): MaxSamples or MaxTime was reached first.
	ErrNotConverged = errors.New("harness: did not converge")
	// ErrDiscards (a warning): many samples were discarded (migrations).
	ErrDiscards = errors.New("harness: many samples discarded")
	// ErrUnpinned (a warning): the thread could not be pinned on this platform.
	ErrUnpinned = errors.New("harness: thread not pinned")
	// ErrTooShort (a warning): a sample spans few counter steps and R could not be raised.
	ErrTooShort = errors.New("harness: region too short")
	// ErrNoCycles (a warning): core cycles could not be estimated.
	ErrNoCycles = errors.New("harness: no core-cycle estimate")
)
