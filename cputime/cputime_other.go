//go:build !(linux || darwin || freebsd || openbsd || dragonfly || windows)

package cputime

import (
	"errors"
	"fmt"
	"time"
)

// ClockTicks returns 0 and an error wrapping errors.ErrUnsupported.
func ClockTicks() (int64, error) {
	return 0, fmt.Errorf("cputime: clock ticks unknown on %s/%s: %w", goos, goarch, errors.ErrUnsupported)
}

// No CPU clock is known on this OS: Process and Thread return errors
// wrapping errors.ErrUnsupported.
func processChain() []reader { return nil }
func threadChain() []reader  { return nil }

// base anchors the monotonic fallback.
var base = time.Now()

func monotonicReader() reader {
	return reader{
		src:   SourceGoMonotonic,
		total: func() (time.Duration, error) { return time.Since(base), nil },
	}
}

func wallUsReader() reader {
	return reader{
		src:   SourceTimeNowUs,
		total: func() (time.Duration, error) { return time.Duration(time.Now().UnixMicro()) * time.Microsecond, nil },
	}
}

func wallMsReader() reader {
	return reader{
		src:   SourceTimeNowMs,
		total: func() (time.Duration, error) { return time.Duration(time.Now().UnixMilli()) * time.Millisecond, nil },
	}
}

func threadID() (uint64, bool) { return 0, false }
