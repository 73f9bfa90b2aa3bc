// Package affinity pins the calling goroutine's OS thread to one CPU, raises
// that thread's priority where the OS allows, and puts everything back.
//
// A measurement is only meaningful if the code under test stays on one CPU
// (the TSC and caches are per CPU, and a migration costs thousands of ticks)
// and is not preempted more than it must be. [Pin] does both for the calling
// goroutine:
//
//	p, err := affinity.Pin(affinity.Options{CPU: -1, Priority: affinity.PriorityHigh})
//	if err != nil {
//		return err
//	}
//	defer p.Restore()
//	for _, w := range p.Warnings {
//		// e.g. "affinity: could not raise priority to high: operation not permitted"
//	}
//
// # Choosing the CPU
//
// Options.CPU -1 picks the highest-numbered CPU in the allowed set, because
// CPU 0 usually takes most interrupts and housekeeping. The zero value 0 is
// CPU 0. The allowed set is the thread's affinity mask as the OS reports it
// ([Allowed]); on Linux sched_getaffinity already reflects cgroup cpuset
// limits (v1 and v2) and taskset. A negative CPU other than -1, or a CPU
// outside that set, is an error wrapping [ErrInvalidCPU] that names the value
// and the allowed set.
//
// # Priority
//
// On Linux, [PriorityHigh] sets nice -20 with setpriority(PRIO_PROCESS, tid),
// which on Linux affects only the calling thread. [PriorityRealtime] first
// lowers RLIMIT_RTTIME (soft and hard) to Options.RTTimeLimit (default 2s),
// then switches the thread to SCHED_FIFO at [RealtimePriority]; a thread that
// then runs that long without blocking gets the process killed by the kernel
// instead of freezing a CPU (both limits are lowered: the Go runtime ignores
// the SIGXCPU sent at the soft limit, so only the hard limit bounds the
// thread; without CAP_SYS_RESOURCE the hard limit cannot be raised back
// afterwards, and Pin warns). If SCHED_FIFO is refused Pin falls back to
// PriorityHigh. On Windows the priority class (process-wide) and the thread
// priority are raised instead.
//
// Failing to raise the priority (no permission) is not an error: the
// priority obtained is in Pinned.Priority and the reason in Pinned.Warnings
// (wrapping [ErrPriority]). [Probe] tells ahead of time what would succeed.
//
// # Restoring
//
// [Pinned.Restore] puts back the scheduling policy and parameters,
// RLIMIT_RTTIME, the nice value, the CPU mask and finally the thread lock.
// It is idempotent and meant to be deferred on the goroutine that called Pin;
// it works during a panic. [ThreadState] reads the state back from the OS so
// tests can check that it really was restored.
//
// # Threads and the Go runtime
//
// Pin calls runtime.LockOSThread before anything else, so the goroutine and
// the thread it changes stay together until Restore calls
// runtime.UnlockOSThread. Lock calls nest, so nested Pin/Restore pairs on one
// goroutine work. RLIMIT_RTTIME and, on Windows, the priority class belong to
// the whole process: do not hold raised pins on several goroutines at once.
//
// # Platforms
//
// Linux and Windows are supported. Elsewhere (darwin, the BSDs, ...) the OS
// offers no thread affinity through this package: Pin with CPU -1 only locks
// the OS thread and returns CPU -1 with a warning wrapping
// errors.ErrUnsupported, so a harness can still measure; Pin with an explicit
// CPU returns an error wrapping errors.ErrUnsupported, since what was asked
// cannot be done. There [Allowed] returns 0..runtime.NumCPU()-1 without
// error, and [CurrentCPU], [SetThreadCPU] and [ThreadState] return errors
// wrapping errors.ErrUnsupported.
package affinity
