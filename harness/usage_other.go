//go:build !linux

package harness

import (
	"errors"
	"runtime"
)

// threadUsage: only Linux counts a single thread's context switches and
// page faults for it (getrusage RUSAGE_THREAD).
func threadUsage(*usage) error {
	return errors.New("a thread's context switches and page faults are read on Linux only, not on " + runtime.GOOS)
}
