// Package harness measures how long a Go function takes, in counter ticks,
// nanoseconds and estimated core cycles, with the K-best method of CS:APP
// (Bryant and O'Hallaron, "Computer Systems: A Programmer's Perspective",
// 3rd ed., §5 and the web aside on measuring time).
//
// # The measuring loop
//
// [Measure] runs on a fresh goroutine locked to its OS thread, pinned to one
// CPU (package affinity) with its priority raised where permitted and the
// garbage collector off. It warms the function up, then takes samples in
// rounds. Each round times, close together:
//
//   - the target: R calls of f between tsc.StartCPU and tsc.StopCPU;
//   - the same loop around an empty function: the overhead to subtract;
//   - a dependent ADD chain at two lengths: the core-clock ruler.
//
// Each stream keeps its K smallest samples (package stats); the target is
// converged when (1+ε)·v1 ≥ vK, or when vK − v1 is within an absolute
// tolerance of a few counter steps. A sample whose start and stop ran on
// different CPUs, or on a CPU other than the pinned one, is discarded and
// counted. After MaxSamples samples or MaxTime, Measure gives up and says
// so in Result.Converged.
//
// The result per call is (v1(target) − v1(empty)) / R ticks, converted to
// nanoseconds with the calibrated counter frequency (package calibrate) and
// to core cycles with the ADD chain's slope measured in the same rounds:
// one ADD is one core cycle, whatever the counter's rate.
//
// # Short kernels
//
// When one call is too short to resolve against the counter's step, each
// sample times R calls (R chosen so a sample spans at least
// Config.MinRegionSteps counter steps) and the result is divided by R; R
// is in Result.Repeat.
//
// # Safety
//
// Everything Measure changes is restored when it returns: the thread's CPU
// mask, priority and scheduler, the GC percentage. A function that panics
// or calls runtime.Goexit ends the measurement with an error naming it;
// the measuring goroutine's state is restored first.
//
// # Beyond one measurement
//
// [CPE] sweeps a kernel over sizes and fits cost = intercept + CPE·n by
// least squares with an intercept, in cycles, ticks and nanoseconds; sizes
// come from [ParseSizes]. [Compare] measures two functions interleaved
// (ABBA), pairs their samples and reports B/A with a confidence interval
// and a p-value; [CompareCPE] compares two slopes. [Report] puts cycles/op
// into `go test -bench` from inside a benchmark function. [Validate] checks
// all of this against chains of known latency. [ClocksLab] and
// [UtilisationLab] are the source articles' lab of timing methods.
//
// A realtime measurement (Config.Realtime) is watched from another thread:
// RLIMIT_RTTIME alone cannot stop a spinning Go thread, so when the
// measuring thread has used most of Config.RTTimeLimit it is put back to
// normal priority and the call returns [ErrRealtimeLimit].
package harness
