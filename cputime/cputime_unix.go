//go:build linux || darwin || freebsd || openbsd || dragonfly

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// The operating-system calls behind the fallback chains, as package-level
// variables so tests can make any level fail and check that the next one
// answers and says so.
var (
	clockGettime = func(id int32) (time.Duration, error) {
		var ts unix.Timespec
		if err := unix.ClockGettime(id, &ts); err != nil {
			return 0, err
		}
		return time.Duration(ts.Nano()), nil
	}
	getrusage = func(who int) (user, sys time.Duration, err error) {
		var ru unix.Rusage
		if err := unix.Getrusage(who, &ru); err != nil {
			return 0, 0, err
		}
		return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
	}
)

func processChain() []reader {
	ru := reader{
		src:   SourceRusageSelf,
		split: func() (time.Duration, time.Duration, error) { return getrusage(unix.RUSAGE_SELF) },
	}
	chain := []reader{{
		src:       SourceClockProcess,
		total:     func() (time.Duration, error) { return clockGettime(unix.CLOCK_PROCESS_CPUTIME_ID) },
		splitFrom: &ru,
		getres:    clockGetresFunc(unix.CLOCK_PROCESS_CPUTIME_ID),
	}, ru}
	return append(chain, timesChain()...)
}

func threadChain() []reader {
	rt := rusageThreadChain()
	c := reader{
		src:    SourceClockThread,
		total:  func() (time.Duration, error) { return clockGettime(unix.CLOCK_THREAD_CPUTIME_ID) },
		getres: clockGetresFunc(unix.CLOCK_THREAD_CPUTIME_ID),
	}
	if len(rt) > 0 {
		c.splitFrom = &rt[0]
	}
	return append([]reader{c}, rt...)
}

func monotonicReader() reader {
	return reader{
		src:    SourceClockMonotonic,
		total:  func() (time.Duration, error) { return clockGettime(unix.CLOCK_MONOTONIC) },
		getres: clockGetresFunc(unix.CLOCK_MONOTONIC),
	}
}

func wallUsReader() reader {
	return reader{
		src: SourceGettimeofday,
		total: func() (time.Duration, error) {
			var tv unix.Timeval
			if err := unix.Gettimeofday(&tv); err != nil {
				return 0, err
			}
			return time.Duration(tv.Nano()), nil
		},
	}
}

func wallMsReader() reader {
	return reader{
		src:   SourceTimeNowMs,
		total: func() (time.Duration, error) { return time.Duration(time.Now().UnixMilli()) * time.Millisecond, nil },
	}
}
