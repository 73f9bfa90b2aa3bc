package cputime

import (
	"fmt"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

// Clock selects what a [Stopwatch] measures.
type Clock int

// The clocks. The zero value is ClockMonotonic.
const (
	// ClockMonotonic is elapsed real time from a clock that never steps:
	// clock_gettime(CLOCK_MONOTONIC) on Unix, QueryPerformanceCounter on
	// Windows, the Go runtime's monotonic clock elsewhere.
	ClockMonotonic Clock = iota
	// ClockThread is CPU time of the calling OS thread (see [Thread]).
	ClockThread
	// ClockProcess is CPU time of the whole process (see [Process]).
	ClockProcess
	// ClockTSC is the processor's counter read through package tsc
	// (serialized reads), in ticks.
	ClockTSC
	// ClockWallMs is a millisecond clock, the seed's GetTickCount / Now:
	// GetTickCount64 (ms since boot) on Windows, time.Now truncated to the
	// millisecond elsewhere. It may step with the wall clock.
	ClockWallMs
	// ClockWallUs is a microsecond wall clock, gettimeofday on Unix,
	// time.Now truncated to the microsecond elsewhere. It may step.
	ClockWallUs
)

var clockNames = [...]string{
	ClockMonotonic: "monotonic",
	ClockThread:    "thread",
	ClockProcess:   "process",
	ClockTSC:       "tsc",
	ClockWallMs:    "wall-ms",
	ClockWallUs:    "wall-us",
}

// Clocks returns every clock, in the order of their constants.
func Clocks() []Clock {
	cs := make([]Clock, len(clockNames))
	for i := range cs {
		cs[i] = Clock(i)
	}
	return cs
}

// String returns the clock's name as [ParseClock] accepts it.
func (c Clock) String() string {
	if c < 0 || int(c) >= len(clockNames) {
		return fmt.Sprintf("Clock(%d)", int(c))
	}
	return clockNames[c]
}

func (c Clock) valid() error {
	if c < 0 || int(c) >= len(clockNames) {
		return fmt.Errorf("cputime: unknown clock %d (allowed: %s)", int(c), strings.Join(clockNames[:], ", "))
	}
	return nil
}

// ParseClock returns the clock named s (case-insensitive, surrounding space
// ignored): one of "monotonic", "thread", "process", "tsc", "wall-ms",
// "wall-us". An unknown name gives an error that lists the allowed ones.
func ParseClock(s string) (Clock, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	for i, n := range clockNames {
		if k == n {
			return Clock(i), nil
		}
	}
	return 0, fmt.Errorf("cputime: unknown clock %q (allowed: %s)", s, strings.Join(clockNames[:], ", "))
}

// reader returns the clock's source for the nanosecond clocks; for the CPU
// clocks it walks the fallback chain and returns the first level that works
// with its reading.
func (c Clock) read() (time.Duration, Source, error) {
	switch c {
	case ClockThread:
		d, r, err := chainTotal("thread", threadChain())
		if err != nil {
			return 0, "", err
		}
		return d, r.src, nil
	case ClockProcess:
		d, r, err := chainTotal("process", processChain())
		if err != nil {
			return 0, "", err
		}
		return d, r.src, nil
	case ClockTSC:
		hz, ok := tsc.NominalHz()
		if !ok {
			return 0, "", fmt.Errorf("cputime: tsc clock (%s) has no known frequency; use Stopwatch.SetTSCHz: %w", tsc.Counter(), ErrNoFrequency)
		}
		return ticksToDuration(float64(tsc.Read()), hz), tscSource(), nil
	}
	r, err := c.simpleReader()
	if err != nil {
		return 0, "", err
	}
	d, err := r.total()
	if err != nil {
		return 0, "", fmt.Errorf("cputime: %s clock from %s: %w", c, r.src, err)
	}
	return d, r.src, nil
}

// simpleReader returns the reader of a clock that has no fallback chain.
func (c Clock) simpleReader() (reader, error) {
	switch c {
	case ClockMonotonic:
		return monotonicReader(), nil
	case ClockWallMs:
		return wallMsReader(), nil
	case ClockWallUs:
		return wallUsReader(), nil
	}
	return reader{}, c.valid()
}

func tscSource() Source { return Source(string(SourceTSC) + " (" + tsc.Counter() + ")") }

func ticksToDuration(ticks, hz float64) time.Duration {
	return time.Duration(ticks / hz * 1e9)
}

// Now returns the clock's current reading as a duration from the clock's
// own origin (boot, the Unix epoch, process or thread start: only
// differences are meaningful) and the source that produced it. For
// ClockTSC it converts ticks with the counter's nominal frequency where the
// hardware states it exactly (arm64 CNTFRQ_EL0, the nanosecond fallback
// counter) and otherwise returns an error wrapping [ErrNoFrequency]; use a
// [Stopwatch] with [Stopwatch.SetTSCHz] and a calibrated frequency instead.
func (c Clock) Now() (time.Duration, error) {
	d, _, err := c.read()
	return d, err
}

// Source returns the source that currently answers for the clock (for the
// CPU clocks, the first level of the fallback chain that works).
func (c Clock) Source() (Source, error) {
	switch c {
	case ClockThread, ClockProcess:
		_, s, err := c.read()
		return s, err
	case ClockTSC:
		return tscSource(), nil
	}
	r, err := c.simpleReader()
	return r.src, err
}

// Resolution returns the smallest step the clock can show: clock_getres
// where the OS has it (Linux), 1/QueryPerformanceFrequency on Windows,
// otherwise the smallest non-zero step seen while spinning on the clock,
// measured once per source (up to a quarter of a second) and cached. For
// ClockTSC it is tsc.Step ticks at the nominal frequency, or an error
// wrapping [ErrNoFrequency] when the frequency is not known exactly (see
// [Stopwatch.Resolution]).
func (c Clock) Resolution() (time.Duration, error) {
	if err := c.valid(); err != nil {
		return 0, err
	}
	switch c {
	case ClockThread, ClockProcess:
		var t Times
		var err error
		if c == ClockThread {
			t, err = Thread()
		} else {
			t, err = Process()
		}
		if err != nil {
			return 0, err
		}
		if t.Resolution == 0 {
			return 0, fmt.Errorf("cputime: resolution of %s clock (%s) unknown: %v", c, t.Source, t.Warnings)
		}
		return t.Resolution, nil
	case ClockTSC:
		hz, ok := tsc.NominalHz()
		if !ok {
			return 0, fmt.Errorf("cputime: tsc clock (%s) has no known frequency: %w", tsc.Counter(), ErrNoFrequency)
		}
		return tscResolution(hz), nil
	}
	r, _ := c.simpleReader()
	d, _, err := resolution(&r)
	return d, err
}

// tscResolution is one counter step at hz, never below 1 ns.
func tscResolution(hz float64) time.Duration {
	d := ticksToDuration(float64(tsc.Step()), hz)
	if d < 1 {
		d = 1
	}
	return d
}
