package lab

import (
	"errors"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/pinned"
)

// Errors returned by this package. ErrBadConfig is the lab's own and also
// matches its harness namesake: errors.Is(err, harness.ErrBadConfig) holds
// for a bad lab Config as for a bad harness.Config, so a caller that runs
// both tests once. A kernel's panic or runtime.Goexit is reported as in
// package harness, with ErrPanic.
var (
	// ErrBadConfig: a Config field out of range, no kernel, or a kernel
	// without a name or a Run function.
	ErrBadConfig error = &sentinel{"lab: bad config", harness.ErrBadConfig}
	// ErrPanic: a kernel panicked or called runtime.Goexit; the error
	// wraps it with the value. It is harness.ErrPanic.
	ErrPanic = harness.ErrPanic
)

// sentinel is an error of this package that errors.Is also takes for its
// harness namesake.
type sentinel struct {
	msg string
	is  error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.is }

// goexitError is a runtime.Goexit in a kernel, reported as ErrPanic, as
// package harness reports it.
type goexitError struct{}

func (goexitError) Error() string   { return "lab: a kernel called runtime.Goexit" }
func (goexitError) Unwrap() []error { return []error{ErrPanic, pinned.ErrGoexit} }

// panicOrGoexit reports a Goexit from the pinned thread as goexitError.
func panicOrGoexit(err error) error {
	if errors.Is(err, pinned.ErrGoexit) {
		return goexitError{}
	}
	return err
}
