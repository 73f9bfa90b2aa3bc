//go:build linux

package pinned

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"golang.org/x/sys/unix"
)

// ErrRealtimeLimit: a realtime body used up its share of
// Options.RTTimeLimit; the thread was put back to normal priority and Run
// returned without waiting for the body, which is left running.
var ErrRealtimeLimit = errors.New("harness: realtime time limit reached")

// guardBudget is the share of Options.RTTimeLimit a realtime body
// may use before the guard stops it; the rest is the margin in which the
// guard acts before the kernel's hard limit kills the whole process.
const guardBudget = 0.75

// armed counts the runs a guard has watched, so that a test can tell
// whether a realtime run was guarded: see [GuardsArmed].
var armed atomic.Int64

// GuardsArmed returns how many realtime runs the guard has watched in this
// process.
func GuardsArmed() int64 { return armed.Load() }

// guard bounds a realtime measurement, so that a function that never
// returns cannot hold a CPU at SCHED_FIFO.
//
// RLIMIT_RTTIME alone does not do that for Go code. The kernel counts a
// thread's real-time CPU time since the thread last blocked, and the Go
// runtime preempts a goroutine that has run for 10 ms; a goroutine locked
// to its thread is then parked, the thread blocks for a moment, and the
// kernel's count starts again from zero. A locked goroutine spinning at
// SCHED_FIFO is thus sent neither SIGXCPU nor SIGKILL (measured here: still
// running after 10 s with a 200 ms limit; with GODEBUG=asyncpreemptoff=1
// the hard limit kills the process at 200 ms), as long as the runtime's
// sysmon thread, at normal priority, gets a CPU to ask for the preemption:
// on a 2-CPU machine whose other CPU was busy, the limit killed such a
// spinner after about 400 ms.
//
// The guard therefore watches from another goroutine. It lowers the soft
// RLIMIT_RTTIME to guardBudget of the limit and subscribes to SIGXCPU,
// for when the kernel's count does run out, and polls the measuring
// thread's CPU time, for when it does not. Whichever comes first, it puts
// the measuring thread back as affinity.Pin found it (policy,
// RLIMIT_RTTIME, nice and CPU mask, restored by thread id), restores the
// GC percentage, and sends an error wrapping [ErrRealtimeLimit] on the
// channel tripped returns. The measured function is abandoned, still
// running, at normal priority: nothing can stop a goroutine from outside.
//
// The guard's goroutines run at normal priority on the CPUs the measuring
// thread does not hold, and have the last quarter of the limit to act.
// When those CPUs are held longer than that (another process's SCHED_FIFO
// thread on the other CPU of a 2-CPU machine does it every time: a test
// helper with a 200 ms limit died 209-236 ms after it started), the guard
// does not get to act and the kernel's hard limit kills the process, as it
// would without the guard.
//
// A nil *guard (no realtime asked, or another OS) does nothing: watch
// returns p.Restore and tripped a nil channel.
type guard struct {
	limit time.Duration
	trip  chan error    // buffered: the guard never blocks on it
	quit  chan struct{} // closed when the measuring thread restores itself
	once  sync.Once
	// mu serializes Pinned.Restore between the guard and the measuring
	// goroutine.
	mu sync.Mutex
}

// newGuard returns a guard for a run configured by o, or nil when o does
// not ask for realtime priority.
func newGuard(o Options) *guard {
	if o.Priority != affinity.PriorityRealtime {
		return nil
	}
	limit := o.RTTimeLimit
	if limit <= 0 {
		limit = affinity.DefaultRTTimeLimit
	}
	return &guard{limit: limit, trip: make(chan error, 1), quit: make(chan struct{})}
}

// watch starts guarding the calling thread, which p pinned, if p obtained
// realtime priority. Call it on the goroutine that called affinity.Pin,
// right after Pin and before the GC is turned off (the guard restores the
// GC percentage it finds), and defer the function it returns instead of
// p.Restore: that function stops the guard and restores the thread.
func (g *guard) watch(p *affinity.Pinned) (restore func() error) {
	if g == nil || p == nil || p.Priority != affinity.PriorityRealtime {
		return p.Restore
	}
	armed.Add(1)
	tid := affinity.ThreadID()
	budget := time.Duration(float64(g.limit) * guardBudget)
	var rl unix.Rlimit
	if unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rl) == nil && rl.Max != unix.RLIM_INFINITY {
		// Pin set soft = hard, so the kernel would send SIGKILL without a
		// SIGXCPU first. Pinned.Restore puts the soft limit back.
		if us := uint64(budget / time.Microsecond); us > 0 && us < rl.Max {
			rl.Cur = us
			_ = unix.Prlimit(0, unix.RLIMIT_RTTIME, &rl, nil)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGXCPU)
	gc, gcOK := rtGCPercent()
	clock := rtThreadClock(tid)
	start, cpuOK := rtCPUTime(clock)
	wall := time.Now()
	used := func() time.Duration {
		if cpuOK {
			if now, ok := rtCPUTime(clock); ok {
				return now - start
			}
		}
		return time.Since(wall)
	}
	every := min(max(budget/8, time.Millisecond), 100*time.Millisecond)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		defer signal.Stop(sig)
		var why string
		for why == "" {
			select {
			case <-g.quit:
				return
			case <-sig:
				why = "until SIGXCPU came at the soft RLIMIT_RTTIME"
			case <-t.C:
				if u := used(); u >= budget {
					why = fmt.Sprintf("for %v of CPU time", u.Round(time.Millisecond))
				}
			}
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-g.quit:
			return // the measurement ended while the guard was deciding
		default:
		}
		err := fmt.Errorf("%w: the measuring thread ran at realtime priority %s (RTTimeLimit %v, of which the guard allows %.0f%%); it was put back to normal priority and the measured function abandoned, still running (raise RTTimeLimit or lower MaxTime)",
			ErrRealtimeLimit, why, g.limit, guardBudget*100)
		if rerr := p.Restore(); rerr != nil && !errors.Is(rerr, affinity.ErrWrongThread) {
			err = errors.Join(err, rerr)
		}
		if gcOK {
			debug.SetGCPercent(gc)
		}
		g.trip <- err
	}()
	return func() error {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.once.Do(func() { close(g.quit) })
		return p.Restore()
	}
}

// tripped returns the channel on which the guard sends its error, once; it
// is nil (never ready) for a nil guard.
func (g *guard) tripped() <-chan error {
	if g == nil {
		return nil
	}
	return g.trip
}

// rtThreadClock returns the CPU-time clock of thread tid of this process:
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) in the kernel's
// include/linux/posix-timers.h.
func rtThreadClock(tid int) int32 { return int32(^tid<<3 | 6) }

// rtCPUTime reads a CPU-time clock.
func rtCPUTime(clock int32) (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(clock, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// rtGCPercent reads the GC percentage without changing it (GOGC=off, -1,
// reads back as the largest uint64, which converts back to -1).
func rtGCPercent() (int, bool) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return int(s[0].Value.Uint64()), true
}
