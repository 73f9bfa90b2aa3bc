//go:build linux

package cputime

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// atClkTck is the auxiliary-vector key of the clock-tick rate (AT_CLKTCK).
const atClkTck = 17

// defaultClkTck is USER_HZ on every Linux architecture; used only when the
// auxiliary vector is unreadable.
const defaultClkTck = 100

var (
	clockGetres = func(id int32) (time.Duration, error) {
		var ts unix.Timespec
		if err := unix.ClockGetres(id, &ts); err != nil {
			return 0, err
		}
		return time.Duration(ts.Nano()), nil
	}
	// times reads times(2) in clock ticks.
	times = func() (utime, stime int64, err error) {
		var tms unix.Tms
		if _, err := unix.Times(&tms); err != nil {
			return 0, 0, err
		}
		return int64(tms.Utime), int64(tms.Stime), nil
	}
	// auxv reads the process's ELF auxiliary vector.
	auxv = unix.Auxv
)

// ClockTicks returns USER_HZ, the unit of times(2), /proc/stat and
// /proc/<pid>/stat, read from AT_CLKTCK in the auxiliary vector (what glibc's
// sysconf(_SC_CLK_TCK) returns). If the vector cannot be read it returns 100,
// the value on every Linux architecture, and an error saying so.
func ClockTicks() (int64, error) {
	v, err := auxv()
	if err != nil {
		return defaultClkTck, fmt.Errorf("cputime: auxiliary vector unreadable, assuming USER_HZ=%d: %w", defaultClkTck, err)
	}
	for _, kv := range v {
		if kv[0] == atClkTck && kv[1] > 0 {
			return int64(kv[1]), nil
		}
	}
	return defaultClkTck, fmt.Errorf("cputime: no AT_CLKTCK in auxiliary vector, assuming USER_HZ=%d", defaultClkTck)
}

func clockGetresFunc(id int32) func() (time.Duration, error) {
	return func() (time.Duration, error) { return clockGetres(id) }
}

func tickDuration() time.Duration {
	hz, _ := ClockTicks()
	return time.Second / time.Duration(hz)
}

func timesChain() []reader {
	return []reader{{
		src: SourceTimes,
		split: func() (time.Duration, time.Duration, error) {
			u, s, err := times()
			if err != nil {
				return 0, 0, err
			}
			tick := tickDuration()
			return time.Duration(u) * tick, time.Duration(s) * tick, nil
		},
		getres: func() (time.Duration, error) { return tickDuration(), nil },
	}}
}

func rusageThreadChain() []reader {
	return []reader{{
		src:   SourceRusageThread,
		split: func() (time.Duration, time.Duration, error) { return getrusage(unix.RUSAGE_THREAD) },
	}}
}

// threadID identifies the calling OS thread.
func threadID() (uint64, bool) { return uint64(unix.Gettid()), true }
