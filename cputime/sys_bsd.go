//go:build darwin || freebsd || openbsd || dragonfly

package cputime

import (
	"errors"
	"fmt"
	"time"
)

// ClockTicks returns the unit of times(2). x/sys has neither times nor
// sysconf on this OS, so it returns 0 and an error wrapping
// errors.ErrUnsupported.
func ClockTicks() (int64, error) {
	return 0, fmt.Errorf("cputime: clock ticks unknown on %s/%s: %w", goos, goarch, errors.ErrUnsupported)
}

// clockGetresFunc returns nil: x/sys has clock_getres only on Linux, so the
// resolution is measured.
func clockGetresFunc(int32) func() (time.Duration, error) { return nil }

// timesChain is empty: times() is not in x/sys on this OS.
func timesChain() []reader { return nil }

// rusageThreadChain is empty: RUSAGE_THREAD is a Linux extension.
func rusageThreadChain() []reader { return nil }

func threadID() (uint64, bool) { return 0, false }
