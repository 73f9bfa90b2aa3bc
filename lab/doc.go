// Package lab times the same runs of a piece of code with every clock a
// program can read, side by side, to show which clock can be trusted at
// which scale, and measures how much of a CPU a piece of code keeps busy.
//
// # The clocks lab
//
// Programs time code with whatever clock is at hand: a millisecond wall
// clock (GetTickCount, Delphi's Now), gettimeofday's microseconds, the
// monotonic clock (QueryPerformanceCounter on Windows, clock_gettime on
// Unix), the processor's time-stamp counter (RDTSC), or the CPU time the
// process or the thread has used. They differ in resolution by six orders
// of magnitude, in what they count (wall time or CPU time) and in what a
// read costs. [Clocks] runs each kernel (a harness.Target: Setup, Run and
// Check) [Config.Reps] times (5 by
// default: the spread of fewer says little) on a pinned thread with the
// garbage collector off, and every selected clock times the same runs:
// the clocks are started from the outermost to the innermost ([Nesting]:
// process, thread, wall-ms, wall-us, monotonic, tsc), the kernel runs
// once, and they are stopped in the reverse order, so each clock sees the
// kernel plus the reads of the clocks nested inside it, and the TSC sees
// the kernel alone. What each clock reads around nothing is measured too
// ([ClockInfo.Empty]).
//
// The [Result] holds every reading, each clock's minimum, median, spread
// and resolution, and [KernelResult.Verdict] derives a few sentences from
// those figures: which clocks cannot resolve the interval (a reading of 0,
// or a resolution above the tolerance), which agree with the reference
// clock (the TSC, else the monotonic clock) within the tolerance, the
// repetitions in which the thread ran for less than the interval
// (preempted, or the kernel sleeps), and how much the repetitions spread.
//
// # Beside the harness's figure
//
// After a kernel's repetitions, Clocks measures it once more with
// harness.Measure, the K-best method of package harness: many runs, the K
// smallest agreeing within ε, the timing loop's overhead subtracted, core
// cycles estimated ([KernelResult.KBest]). The clocks show what one
// reading of each clock gets; KBest what the harness gets from many runs
// of the same code, and the verdict says how far each clock's median lies
// from it ([Method.DiffFromKBest]). It also serves as the scale a clock's
// resolution is judged against when no reference clock was read.
// [Config.NoKBest] skips it.
//
// # Utilisation
//
// [Utilisation] runs each kernel once between two snapshots of the
// system's and the process's CPU time (package cputime) and reports the
// wall time, process and thread CPU time, and the share of one CPU and of
// all CPUs: a compute-bound kernel keeps one CPU about 100% busy, a kernel
// that sleeps about 0%.
//
// # Pinning and errors
//
// Both run their kernels on a new goroutine locked to its OS thread,
// through the same pinning path as package harness (pinned to
// [Config.CPU], priority raised unless [Config.KeepPriority], GC off
// unless [Config.KeepGC]), and restore everything afterwards, also when a
// kernel panics; the K-best measurement runs on harness.Measure's own such
// thread, on the same CPU, while the lab's thread waits. Bad input is an
// error wrapping [ErrBadConfig], which also matches harness.ErrBadConfig
// under errors.Is; soft problems are in the results' Warnings.
package lab
