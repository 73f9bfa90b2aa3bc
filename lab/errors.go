package lab

import "github.com/cyclebench/cyclebench/harness"

// Errors returned by this package. ErrBadConfig and ErrNilFunc are the
// lab's own, and each also matches its harness namesake: errors.Is(err,
// harness.ErrBadConfig) holds for a bad lab Config as for a bad
// harness.Config, so a caller that runs both tests once. A kernel's panic
// or runtime.Goexit is reported as in package harness.
var (
	// ErrBadConfig: a Config field out of range, no kernel, or a kernel
	// without a name.
	ErrBadConfig error = &sentinel{"lab: bad config", harness.ErrBadConfig}
	// ErrNilFunc: a Kernel without Run.
	ErrNilFunc error = &sentinel{"lab: nil function", harness.ErrNilFunc}
	// ErrPanic: a kernel panicked; the error wraps it with the value. It
	// is harness.ErrPanic.
	ErrPanic = harness.ErrPanic
	// ErrGoexit: a kernel called runtime.Goexit. It is harness.ErrGoexit.
	ErrGoexit = harness.ErrGoexit
)

// sentinel is an error of this package that errors.Is also takes for its
// harness namesake.
type sentinel struct {
	msg string
	is  error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.is }
