package cputime

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Source names the operating-system interface that produced a reading.
// The strings are the C names of the calls, so they can be looked up in the
// manual pages and compared with the seed articles.
type Source string

// Sources of CPU-time readings, in the order the fallback chains try them.
const (
	SourceClockProcess    Source = "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"
	SourceRusageSelf      Source = "getrusage(RUSAGE_SELF)"
	SourceTimes           Source = "times()"
	SourceGetProcessTimes Source = "GetProcessTimes"
	SourceClockThread     Source = "clock_gettime(CLOCK_THREAD_CPUTIME_ID)"
	SourceRusageThread    Source = "getrusage(RUSAGE_THREAD)"
	SourceGetThreadTimes  Source = "GetThreadTimes"
)

// Sources of the wall and counter clocks behind [Clock].
const (
	SourceClockMonotonic Source = "clock_gettime(CLOCK_MONOTONIC)"
	SourceQPC            Source = "QueryPerformanceCounter"
	SourceGoMonotonic    Source = "time.Since (Go runtime monotonic clock)"
	SourceGettimeofday   Source = "gettimeofday"
	SourceTimeNowUs      Source = "time.Now truncated to µs"
	SourceGetTickCount64 Source = "GetTickCount64"
	SourceTimeNowMs      Source = "time.Now truncated to ms"
	SourceTSC            Source = "tsc"
)

// Sentinel errors. Errors returned by this package wrap one of these, or
// errors.ErrUnsupported, or the operating system's error.
var (
	// ErrNotRunning: Stop was called on a stopwatch that was not started.
	ErrNotRunning = errors.New("cputime: stopwatch not running")
	// ErrAlreadyRunning: Start was called on a stopwatch already started.
	ErrAlreadyRunning = errors.New("cputime: stopwatch already running")
	// ErrNoProcfs: /proc is not mounted or lacks the files needed.
	ErrNoProcfs = errors.New("cputime: procfs not available")
	// ErrNoFrequency: TSC ticks cannot become a duration without a
	// calibrated counter frequency.
	ErrNoFrequency = errors.New("cputime: no tsc frequency")
	// ErrBackwards: a clock read at Stop was earlier than at Start (a wall
	// clock stepped back); the lap was discarded.
	ErrBackwards = errors.New("cputime: clock went backwards")
	// ErrThreadChanged: a thread-CPU stopwatch was stopped on a different OS
	// thread than it was started on (the goroutine was not locked with
	// runtime.LockOSThread); the lap was discarded.
	ErrThreadChanged = errors.New("cputime: os thread changed between start and stop")
	// ErrSourceChanged: the fallback chain switched sources between Start
	// and Stop, so the two readings are not comparable; the lap was discarded.
	ErrSourceChanged = errors.New("cputime: clock source changed between start and stop")
)

// Times is one CPU-time reading: the CPU time consumed so far by the
// process or thread, and where it came from.
type Times struct {
	// User and System are the time spent in user and kernel mode. They are
	// meaningful only when Split is true.
	User, System time.Duration
	// Total is the CPU time consumed, user plus system. When Source is a
	// clock_gettime CPU clock, Total comes from that clock (nanoseconds) and
	// User+System (from SplitSource, microseconds) may differ from it by a
	// few microseconds.
	Total time.Duration
	// Source is the interface that produced Total.
	Source Source
	// Resolution is the smallest step Source can show: from clock_getres
	// where the OS has it, the tick length for times(), otherwise the
	// smallest non-zero step seen while spinning (measured once per source
	// and cached; see ResolutionMeasured). 0 when it could not be found (a
	// warning says why).
	Resolution time.Duration
	// ResolutionMeasured reports that Resolution was measured, not queried.
	ResolutionMeasured bool
	// Split reports whether User and System are meaningful.
	Split bool
	// SplitSource is the interface that gave User and System: Source
	// itself, or getrusage when Source gives only the sum.
	SplitSource Source
	// Warnings lists soft problems: why each preferred source of the
	// fallback chain failed, why the split or the resolution is missing.
	Warnings []error
}

const (
	goos   = runtime.GOOS
	goarch = runtime.GOARCH
)

// reader is one level of a fallback chain.
type reader struct {
	src Source
	// total reads the CPU time consumed (the cheap path used by Clock.Now).
	total func() (time.Duration, error)
	// split reads user and system time; nil when the source has none, in
	// which case splitFrom (if not nil) supplies them.
	split     func() (user, sys time.Duration, err error)
	splitFrom *reader
	// getres returns the resolution; nil means measure it.
	getres func() (time.Duration, error)
}

// readTimes reads one level of a chain.
func (r *reader) readTimes() (Times, error) {
	var t Times
	if r.split != nil {
		u, s, err := r.split()
		if err != nil {
			return Times{}, err
		}
		t = Times{User: u, System: s, Total: u + s, Split: true, SplitSource: r.src}
	} else {
		tot, err := r.total()
		if err != nil {
			return Times{}, err
		}
		t.Total = tot
		if f := r.splitFrom; f != nil {
			u, s, err := f.split()
			if err == nil {
				t.User, t.System, t.Split, t.SplitSource = u, s, true, f.src
			} else {
				t.Warnings = append(t.Warnings, fmt.Errorf("cputime: no user/system split from %s: %w", f.src, err))
			}
		}
	}
	t.Source = r.src
	res, measured, err := resolution(r)
	t.Resolution, t.ResolutionMeasured = res, measured
	if err != nil {
		t.Warnings = append(t.Warnings, err)
	}
	return t, nil
}

// readTotal returns a reader's cheap total.
func (r *reader) readTotal() (time.Duration, error) {
	if r.split != nil {
		u, s, err := r.split()
		return u + s, err
	}
	return r.total()
}

// readChain walks a fallback chain and returns the first reading that
// works, with the failures before it as warnings.
func readChain(what string, chain []reader) (Times, error) {
	var errs []error
	for i := range chain {
		t, err := chain[i].readTimes()
		if err == nil {
			t.Warnings = append(errs, t.Warnings...)
			return t, nil
		}
		errs = append(errs, fmt.Errorf("cputime: %s cpu time from %s: %w", what, chain[i].src, err))
	}
	if len(errs) == 0 {
		return Times{}, fmt.Errorf("cputime: no %s cpu clock on %s/%s: %w", what, goos, goarch, errors.ErrUnsupported)
	}
	return Times{}, fmt.Errorf("cputime: every %s cpu clock failed: %w", what, errors.Join(errs...))
}

// chainTotal is readChain's cheap twin: the first total that works and
// the source that produced it.
func chainTotal(what string, chain []reader) (time.Duration, *reader, error) {
	var errs []error
	for i := range chain {
		d, err := chain[i].readTotal()
		if err == nil {
			return d, &chain[i], nil
		}
		errs = append(errs, fmt.Errorf("cputime: %s cpu time from %s: %w", what, chain[i].src, err))
	}
	if len(errs) == 0 {
		return 0, nil, fmt.Errorf("cputime: no %s cpu clock on %s/%s: %w", what, goos, goarch, errors.ErrUnsupported)
	}
	return 0, nil, fmt.Errorf("cputime: every %s cpu clock failed: %w", what, errors.Join(errs...))
}

// Process returns the CPU time consumed by the whole process (all threads)
// so far, from the first source of the platform's fallback chain that works:
//
//   - Linux, macOS, FreeBSD, OpenBSD, DragonFly:
//     clock_gettime(CLOCK_PROCESS_CPUTIME_ID) (nanoseconds; User/System
//     from getrusage), then getrusage(RUSAGE_SELF) (microseconds), then, on
//     Linux, times() (clock ticks of 1/USER_HZ s).
//   - Windows: GetProcessTimes (100 ns units, updated at the scheduler tick).
//   - elsewhere: an error wrapping errors.ErrUnsupported.
//
// Unlike the seed's getCPUTime, every level reports user and system time
// (the seed's getrusage and times levels dropped system time) and the
// reading says which source produced it and that source's resolution. A
// single reading means little: subtract two.
func Process() (Times, error) { return readChain("process", processChain()) }

// Thread returns the CPU time consumed so far by the calling OS thread:
// clock_gettime(CLOCK_THREAD_CPUTIME_ID) (User/System from
// getrusage(RUSAGE_THREAD) on Linux), then getrusage(RUSAGE_THREAD) on
// Linux; GetThreadTimes on Windows. A goroutine can move between OS threads
// at any time: the caller should hold runtime.LockOSThread across the two
// readings it subtracts.
func Thread() (Times, error) { return readChain("thread", threadChain()) }

// resolution cache: one entry per source, measured or queried once.
var resCache struct {
	sync.Mutex
	m map[Source]resEntry
}

type resEntry struct {
	d        time.Duration
	measured bool
	err      error
}

// resolution returns r's resolution, queried with getres or measured with
// measureStep on first use and cached.
func resolution(r *reader) (time.Duration, bool, error) {
	resCache.Lock()
	defer resCache.Unlock()
	if e, ok := resCache.m[r.src]; ok {
		return e.d, e.measured, e.err
	}
	var e resEntry
	if r.getres != nil {
		e.d, e.err = r.getres()
		if e.err != nil {
			e.err = fmt.Errorf("cputime: resolution of %s: %w", r.src, e.err)
		}
	}
	if r.getres == nil || e.err != nil || e.d <= 0 {
		d, err := measureStep(r.src, r.readTotal, stepSpin)
		if err == nil {
			e = resEntry{d: d, measured: true}
		} else {
			e.err = errors.Join(e.err, err)
		}
	}
	if resCache.m == nil {
		resCache.m = make(map[Source]resEntry)
	}
	resCache.m[r.src] = e
	return e.d, e.measured, e.err
}

// stepSpin bounds how long measureStep spins (wall time). Long enough to see
// a few 15.6 ms Windows scheduler ticks even on a busy machine.
var stepSpin = 250 * time.Millisecond

// stepsWanted is how many changes measureStep waits for: the smallest of a
// few steps is a full step even if the thread was descheduled during one.
const stepsWanted = 4

// measureStep spins reading read until it has changed stepsWanted times or
// limit has passed, and returns the smallest non-zero step seen. Any change
// of a quantised clock is a whole number of quanta, so the smallest is the
// quantum (or a multiple when the spin was too short to see a single one).
func measureStep(src Source, read func() (time.Duration, error), limit time.Duration) (time.Duration, error) {
	prev, err := read()
	if err != nil {
		return 0, fmt.Errorf("cputime: measuring resolution of %s: %w", src, err)
	}
	var best time.Duration
	seen := 0
	deadline := time.Now().Add(limit)
	for i := 0; seen < stepsWanted; i++ {
		v, err := read()
		if err != nil {
			return 0, fmt.Errorf("cputime: measuring resolution of %s: %w", src, err)
		}
		if v != prev {
			if d := v - prev; d > 0 && (best == 0 || d < best) {
				best = d
			}
			seen++
			prev = v
		}
		if i%64 == 0 && time.Now().After(deadline) {
			break
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("cputime: resolution of %s: no step seen in %v of spinning", src, limit)
	}
	return best, nil
}
