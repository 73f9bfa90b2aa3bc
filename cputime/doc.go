// Package cputime reads the clocks the seed articles teach, each with the
// source that answered and its resolution: process and thread CPU time, a
// cumulative stopwatch over a chosen clock, and the CPU utilisation of a
// block of code.
//
// # Process and thread CPU time
//
// [Process] walks a fallback chain and returns the first source that works:
// clock_gettime(CLOCK_PROCESS_CPUTIME_ID), then getrusage(RUSAGE_SELF), then
// (Linux) times(); GetProcessTimes on Windows. Every level gives user and
// system time (clock_gettime gives only their sum, so the split is taken
// from getrusage and [Times.SplitSource] says so). Failures of the
// preferred levels are kept as warnings. [Thread] does the same for the
// calling OS thread: clock_gettime(CLOCK_THREAD_CPUTIME_ID), then
// getrusage(RUSAGE_THREAD) on Linux; GetThreadTimes on Windows.
//
// Compared with the seed's getCPUTime: system time is not dropped at the
// getrusage and times levels; Windows times are not pushed through
// FileTimeToSystemTime (which wraps after a day); every reading names its
// source; and the resolution is clock_getres where x/sys has it (Linux),
// one tick for times(), and otherwise measured: the smallest non-zero
// step seen while spinning on the source, once per source, cached. The
// seed's last level, clock(), is the same figure as times() through libc
// and is not reachable without cgo.
//
// # Stopwatch
//
// [Stopwatch] is the seed's Chrono: Start and Stop accumulate laps, Reset
// zeroes, [Stopwatch.Elapsed] is a time.Duration (no timespec carry
// arithmetic to get wrong: the seed's timespec_add missed the carry when
// the nanoseconds summed to exactly one second). It runs over any [Clock]:
// thread CPU, process CPU, monotonic wall time, the TSC (ticks, converted
// with a calibrated frequency given to [Stopwatch.SetTSCHz]), and the
// seeds' coarse wall clocks (milliseconds, GetTickCount style; microseconds,
// gettimeofday style). Misuse is an error, never a panic, and a lap whose
// two readings are not comparable (the goroutine changed OS thread, the
// wall clock stepped back, the fallback chain switched source) is
// discarded with an error saying why.
//
// # CPU utilisation
//
// [Measure] and [StartUtilisation] report what share of the machine a
// block of code used, and its wall time (seed 002). On Linux the system
// figures come from /proc/stat deltas, with guest and guest_nice left out
// of the total because the kernel already counts them in user and nice,
// and ticks converted with the real USER_HZ (AT_CLKTCK from the auxiliary
// vector; see [ClockTicks]). The process's CPU time comes from [Process]
// in nanoseconds rather than from /proc/self/stat ticks, so a short block
// is not rounded to 10 ms; the tick-only figure of the seed is kept as
// [Utilisation.TickShare]. Both the share of all CPUs and the share of one
// CPU are reported: the seed printed "8%" for a loop that kept one of
// twelve CPUs busy. Windows uses GetSystemTimes and GetProcessTimes; other
// systems get errors.ErrUnsupported.
//
// The parsers [ParseProcStat] and [ParseProcSelfStat] are pure functions
// over the file text, safe on any input. The command name in
// /proc/self/stat runs from the first '(' to the last ')', so names with
// spaces and parentheses parse correctly.
package cputime
