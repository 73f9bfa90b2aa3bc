// Package pinned is the one path by which cyclebench runs code on a pinned,
// prioritised thread with the garbage collector off, and restores
// everything afterwards: harness.Measure, CPE, Compare, the clocks lab and
// the cyclebench command all go through [Run].
//
// Run starts a new goroutine, locks it to its OS thread, pins that thread
// to a CPU (package affinity), raises its priority as asked, turns the GC
// off unless asked not to, and runs the body there. Whatever the body does
// — return, panic, call runtime.Goexit — the thread's mask, priority and
// scheduling policy and the GC percentage are put back before Run returns,
// and the caller's own thread is never touched. A realtime run is watched
// by a guard (Linux) that demotes the thread and returns
// [ErrRealtimeLimit] when the body overstays its RLIMIT_RTTIME budget.
package pinned

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
)

// Errors of Run. Their messages say "harness:" because package harness
// returns them to its users unchanged (harness.ErrPanic is ErrPanic).
var (
	// ErrPanic: the body panicked; Run's error wraps it with the value.
	ErrPanic = errors.New("harness: measured function panicked")
	// ErrGoexit: the body called runtime.Goexit.
	ErrGoexit = errors.New("harness: measured function called runtime.Goexit")
	// ErrUnpinned (a warning in Thread.Warnings): the OS cannot pin threads;
	// the body ran on a locked but unpinned thread.
	ErrUnpinned = errors.New("harness: thread not pinned")
)

// Options says how Run prepares the thread.
type Options struct {
	// CPU is the CPU to pin to; -1 lets affinity choose (the
	// highest-numbered allowed CPU).
	CPU int
	// Priority is the priority asked for. A refusal is a warning, not an
	// error; PriorityRealtime is bounded by RTTimeLimit and the guard.
	Priority affinity.Priority
	// RTTimeLimit bounds a realtime body's CPU time; 0 means
	// affinity.DefaultRTTimeLimit.
	RTTimeLimit time.Duration
	// KeepGC leaves the garbage collector on.
	KeepGC bool
}

// Thread describes the thread the body runs on.
type Thread struct {
	// CPU is the CPU the thread is pinned to, -1 when the OS cannot pin.
	CPU int
	// Priority is the priority obtained.
	Priority affinity.Priority
	// Warnings holds soft problems: not pinned, priority not obtained.
	Warnings []error
}

// Run runs body on a new goroutine locked to its OS thread, prepared as o
// says, and waits for it. It returns body's error, an error wrapping
// ErrPanic or ErrGoexit when body panicked or exited, or an error from
// pinning (an invalid CPU wraps affinity.ErrInvalidCPU).
//
// A realtime body is watched by the guard; when it trips, Run returns its
// error (wrapping [ErrRealtimeLimit]) and abandoned true: the body is
// still running, demoted to normal priority, and nothing it writes may be
// read by the caller.
func Run(o Options, body func(*Thread) error) (abandoned bool, err error) {
	guard := newGuard(o)
	done := make(chan error, 1)
	go func() {
		var err error
		finished := false
		defer func() {
			if !finished {
				if r := recover(); r != nil {
					err = fmt.Errorf("%w: %v", ErrPanic, r)
				} else {
					err = ErrGoexit
				}
			}
			done <- err
		}()
		err = prepare(o, guard, body)
		finished = true
	}()
	select {
	case err := <-done:
		return false, err
	case err := <-guard.tripped():
		return true, err
	}
}

// gcCycles returns how many garbage collections the process has completed.
func gcCycles() uint64 {
	m := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 1 // unknown: collect, to be safe
	}
	return m[0].Value.Uint64()
}

// prepare pins the calling goroutine's thread, runs body and restores; the
// deferred calls run also when body panics or exits.
func prepare(o Options, guard *guard, body func(*Thread) error) error {
	th := &Thread{CPU: -1, Priority: affinity.PriorityNormal}
	p, err := affinity.Pin(affinity.Options{CPU: o.CPU, Priority: o.Priority, RTTimeLimit: o.RTTimeLimit})
	switch {
	case err == nil:
		// The guard restores the thread and the GC itself if it trips, so it
		// starts before the GC is turned off.
		defer guard.watch(p)()
		th.CPU, th.Priority = p.CPU, p.Priority
		th.Warnings = append(th.Warnings, p.Warnings...)
		if p.Priority < o.Priority {
			th.Warnings = append(th.Warnings, fmt.Errorf("harness: priority %s asked, %s obtained", o.Priority, p.Priority))
		}
	case errors.Is(err, errors.ErrUnsupported):
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		th.Warnings = append(th.Warnings, fmt.Errorf("%w: %v", ErrUnpinned, err))
	default:
		return err
	}
	if !o.KeepGC {
		// A collection first, so that the body starts on a swept heap (the
		// last cycle's spans would otherwise be swept by allocations in
		// the timed regions); a process that has never collected has
		// nothing to sweep, and a collection costs about a millisecond, the
		// largest part of a first result's start-up.
		if gcCycles() > 0 {
			runtime.GC()
		}
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	return body(th)
}
