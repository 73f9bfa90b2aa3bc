package affinity

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. Errors returned by this package wrap one of these (or
// [errors.ErrUnsupported]) so callers can test them with [errors.Is].
var (
	// ErrInvalidCPU: the requested CPU is negative (other than -1), unknown,
	// or outside the set the calling thread is allowed to run on.
	ErrInvalidCPU = errors.New("affinity: invalid cpu")
	// ErrInvalidOption: an Options field or a priority name is out of range.
	ErrInvalidOption = errors.New("affinity: invalid option")
	// ErrPriority is wrapped by the warnings [Pin] records when it could not
	// obtain the priority that was asked for.
	ErrPriority = errors.New("affinity: could not raise priority")
	// ErrWrongThread: [Pinned.Restore] was called on a goroutine other than the
	// one that called [Pin].
	ErrWrongThread = errors.New("affinity: restore called on the wrong thread")
)

// Priority is the scheduling priority [Pin] gives the calling thread.
type Priority int

const (
	// PriorityNormal leaves the thread's priority alone.
	PriorityNormal Priority = iota
	// PriorityHigh is nice -20 for the calling thread on Linux, and
	// HIGH_PRIORITY_CLASS for the process plus THREAD_PRIORITY_HIGHEST for the
	// thread on Windows.
	PriorityHigh
	// PriorityRealtime is SCHED_FIFO at [RealtimePriority] on Linux, bounded by
	// RLIMIT_RTTIME (set before the policy changes), and REALTIME_PRIORITY_CLASS
	// plus THREAD_PRIORITY_TIME_CRITICAL on Windows. It is used only when asked.
	PriorityRealtime
)

const (
	// DefaultRTTimeLimit is the RLIMIT_RTTIME used when Options.RTTimeLimit is 0.
	DefaultRTTimeLimit = 2 * time.Second
	// MaxRTTimeLimit is the largest Options.RTTimeLimit accepted.
	MaxRTTimeLimit = time.Hour
	// RealtimePriority is the SCHED_FIFO priority (1..99) used for
	// [PriorityRealtime] on Linux: in the middle of the range, level with
	// threaded interrupt handlers (which it therefore does not preempt) and
	// below the kernel's migration and watchdog threads (99).
	RealtimePriority = 50
)

var priorityNames = [...]string{
	PriorityNormal:   "normal",
	PriorityHigh:     "high",
	PriorityRealtime: "realtime",
}

// String returns "normal", "high" or "realtime" ("Priority(n)" for other values).
func (p Priority) String() string {
	if p.valid() {
		return priorityNames[p]
	}
	return "Priority(" + strconv.Itoa(int(p)) + ")"
}

func (p Priority) valid() bool { return p >= 0 && int(p) < len(priorityNames) }

// ParsePriority parses "normal", "high" or "realtime" (case-insensitive), the
// values printed by [Priority.String], for command-line flags.
func ParsePriority(s string) (Priority, error) {
	for i, n := range priorityNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Priority(i), nil
		}
	}
	return PriorityNormal, fmt.Errorf("%w: priority %q: want one of %s", ErrInvalidOption, s, strings.Join(priorityNames[:], ", "))
}

// Options says where [Pin] pins the calling thread and how far it raises its
// priority. The zero value pins to CPU 0 at normal priority; set CPU to -1 to
// let Pin choose.
type Options struct {
	// CPU is the CPU to pin to. -1 picks the highest-numbered CPU the thread
	// is allowed to run on (CPU 0 usually handles most interrupts). The zero
	// value means CPU 0.
	CPU int
	// Priority is the priority to ask for; default PriorityNormal (unchanged).
	Priority Priority
	// RTTimeLimit is the RLIMIT_RTTIME set (soft and hard) for
	// PriorityRealtime on Linux: the CPU time the thread may use under
	// SCHED_FIFO without blocking before the kernel kills the process. 0 means
	// DefaultRTTimeLimit (2s); otherwise it must be > 0 and <= MaxRTTimeLimit
	// (1h). It is rounded up to whole microseconds, and held to the current
	// hard limit if that is lower. The hard limit is the real bound: the Go
	// runtime ignores the SIGXCPU sent at the soft limit. Without
	// CAP_SYS_RESOURCE (root in many containers lacks it) a lowered hard
	// limit cannot be raised again and stays for the life of the process;
	// Pin says so in Warnings. Ignored outside Linux.
	RTTimeLimit time.Duration
}

// normalize checks the parts of o that do not depend on the machine and
// returns o with defaults filled in.
func (o Options) normalize() (Options, error) {
	if o.CPU < -1 {
		return o, fmt.Errorf("%w: cpu %d: want -1 (pick from the allowed set) or a CPU number >= 0", ErrInvalidCPU, o.CPU)
	}
	if !o.Priority.valid() {
		return o, fmt.Errorf("%w: priority %d: want %d (normal), %d (high) or %d (realtime)",
			ErrInvalidOption, int(o.Priority), PriorityNormal, PriorityHigh, PriorityRealtime)
	}
	switch {
	case o.RTTimeLimit == 0:
		o.RTTimeLimit = DefaultRTTimeLimit
	case o.RTTimeLimit < 0 || o.RTTimeLimit > MaxRTTimeLimit:
		return o, fmt.Errorf("%w: rt time limit %v: want > 0 and <= %v (0 means %v)",
			ErrInvalidOption, o.RTTimeLimit, MaxRTTimeLimit, DefaultRTTimeLimit)
	}
	return o, nil
}

// rtTimeMicros returns d in whole microseconds, rounded up.
func rtTimeMicros(d time.Duration) uint64 {
	return uint64((d + time.Microsecond - 1) / time.Microsecond)
}

// chooseCPU returns the CPU to pin to: want itself when it is in allowed,
// the highest allowed CPU when want is -1.
func chooseCPU(want int, allowed []int) (int, error) {
	if len(allowed) == 0 {
		return -1, fmt.Errorf("%w: the allowed CPU set is empty", ErrInvalidCPU)
	}
	if want == -1 {
		return allowed[len(allowed)-1], nil
	}
	if want < -1 {
		return -1, fmt.Errorf("%w: cpu %d: want -1 (pick from the allowed set) or one of %s", ErrInvalidCPU, want, FormatCPUs(allowed))
	}
	for _, c := range allowed {
		if c == want {
			return want, nil
		}
	}
	return -1, fmt.Errorf("%w: cpu %d not in allowed set %s", ErrInvalidCPU, want, FormatCPUs(allowed))
}

// FormatCPUs formats an ascending CPU list compactly, writing runs of three
// or more as ranges: [0 1], [0-7 12 14-15].
func FormatCPUs(cpus []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if j-i >= 2 {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
			i = j + 1
			continue
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		i++
	}
	b.WriteByte(']')
	return b.String()
}

// Pinned is the result of [Pin]: where the thread went, what priority it got,
// and what must be put back by [Pinned.Restore].
type Pinned struct {
	// CPU is the CPU the thread is pinned to; -1 when the OS cannot pin.
	CPU int
	// Priority is the priority actually obtained; it may be lower than asked.
	Priority Priority
	// Warnings holds soft problems: a priority that could not be raised
	// (wrapping ErrPriority), pinning unsupported by the OS (wrapping
	// errors.ErrUnsupported), a thread found on another CPU after pinning.
	Warnings []error

	tid      int      // OS thread id of the pinned thread
	unlocked bool     // runtime.UnlockOSThread has been called
	st       pinState // per-platform saved state
}

// Restore puts back everything [Pin] changed, in the reverse order: the
// scheduling policy and parameters, RLIMIT_RTTIME, the nice value (Windows:
// thread priority and process priority class), the CPU mask, and finally the
// runtime.LockOSThread taken by Pin.
//
// Restore must be called on the goroutine that called Pin, typically with
// defer right after Pin succeeded; it runs safely while that goroutine is
// panicking. It is idempotent: later calls return nil. On Linux the OS state
// is restored by thread id, so a call from another goroutine still restores
// it, but it cannot release the thread lock and returns an error wrapping
// [ErrWrongThread]; a later call on the right goroutine then releases it.
// Restore on a nil *Pinned does nothing.
func (p *Pinned) Restore() error {
	if p == nil || p.unlocked {
		return nil
	}
	err := p.undo()
	if tid := ThreadID(); tid != p.tid {
		return errors.Join(err, fmt.Errorf("%w: called on thread %d, pinned thread is %d; the OS thread lock was not released", ErrWrongThread, tid, p.tid))
	}
	p.unlocked = true
	runtime.UnlockOSThread()
	return err
}

// State is the scheduling state of one OS thread as the OS reports it; see
// [ThreadState].
type State struct {
	// Mask is the CPUs the thread may run on, ascending.
	Mask []int
	// Nice is the nice value (-20..19) on Linux, the thread priority
	// (GetThreadPriority) on Windows.
	Nice int
	// Policy is the scheduling policy (unix.SCHED_*, without the
	// SCHED_RESET_ON_FORK flag) on Linux, the process priority class on Windows.
	Policy int
	// RTPriority is the real-time priority (1..99 under SCHED_FIFO/SCHED_RR,
	// else 0) on Linux; 0 on Windows.
	RTPriority int
	// RTTimeLimit is the soft RLIMIT_RTTIME of the process in microseconds
	// (math.MaxUint64 when unlimited) on Linux; 0 on Windows.
	RTTimeLimit uint64
}

// Equal reports whether s and o are the same state.
func (s State) Equal(o State) bool {
	if len(s.Mask) != len(o.Mask) {
		return false
	}
	for i := range s.Mask {
		if s.Mask[i] != o.Mask[i] {
			return false
		}
	}
	return s.Nice == o.Nice && s.Policy == o.Policy && s.RTPriority == o.RTPriority && s.RTTimeLimit == o.RTTimeLimit
}

// Capabilities is what this process could do, as found by [Probe].
type Capabilities struct {
	Pin      bool     // the calling thread can be pinned to one CPU
	High     bool     // PriorityHigh would be obtained
	Realtime bool     // PriorityRealtime would be obtained
	Notes    []string // how each answer was found, and why not
}

// String summarises c on one line, e.g. "pin=yes high=yes realtime=no".
func (c Capabilities) String() string {
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return "pin=" + yn(c.Pin) + " high=" + yn(c.High) + " realtime=" + yn(c.Realtime)
}

func priorityWarning(p Priority, err error) error {
	return fmt.Errorf("%w to %s: %w", ErrPriority, p, err)
}
