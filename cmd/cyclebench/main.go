// Command cyclebench measures how many TSC ticks, nanoseconds and estimated
// core cycles code takes, and describes the machine it measures on.
//
// Usage:
//
//	cyclebench <subcommand> [flags]
//
// Run cyclebench -h for the subcommands this build has, and
// cyclebench <subcommand> -h for the flags of one, each with its default.
//
// # Subcommands
//
// info describes the processor, the counter and its calibration: vendor,
// hypervisor, invariant TSC, the counter frequency with its method, source,
// uncertainty and cross-checks, the counter step, the cost of an empty
// start/stop pair, core cycles per tick, the CPUs the process may run on and
// the priority it could obtain.
//
// calibrate measures the counter frequency by bracketing the monotonic clock
// between counter reads (the default), by counting ticks across a sleep
// (the textbook method), or both, and compares each figure with every other
// source the machine offers.
//
// run measures the example kernels (package bench_examples) selected by
// -bench with the K-best method and prints per-call core cycles, ticks and
// nanoseconds and per-element cycles; -format bench writes the Go benchmark
// format that benchstat reads, -count repeats each kernel, -o writes the
// file atomically.
//
// cpe sweeps a kernel over sizes (-sizes, -range, -log) and fits cost =
// intercept + CPE·n with an intercept; -plot draws it to SVG or PNG.
//
// compare measures two kernels interleaved (ABBA) and reports B/A with a
// confidence interval and a p-value, or their CPEs; given two saved result
// files, it compares them side by side in cycles.
//
// validate checks the harness on this machine against chains of known
// latency and against testing.Benchmark, and exits 1 naming a failed check.
//
// clocks is the source articles' lab: every timing method around the same
// runs of a kernel, with a verdict computed from the figures; -demo
// utilisation reproduces the CPU-utilisation demos.
//
// version prints the module version, Go version and VCS revision.
//
// The measuring subcommands pin the measuring thread to one CPU (-cpu,
// default: the highest-numbered allowed CPU), raise its priority where
// permitted (-priority), and put everything back afterwards. SIGINT or
// SIGTERM stops them; run writes what it measured and exits 130 or 143.
//
// # Exit status
//
// 0 on success, 2 for a usage error (unknown subcommand or flag, a bad flag
// value), 1 for a failed measurement (not converged, a kernel whose output
// check failed, a failed validation check: results are printed first) or
// any other failure, 130/143 after SIGINT/SIGTERM. Errors are one line on
// stderr, prefixed "cyclebench: ".
package main

import (
	"io"
	"os"
)

// commands is every subcommand, in the order cyclebench -h lists them.
// To add one, write cmd_<name>.go with a
//
//	func run<Name>(args []string, stdout, stderr io.Writer) error
//
// that parses its flags with [newFlagSet] and [flagSet.parse], and add one
// line here.
var commands = []command{
	{"info", "describe the processor, the counter and its calibration", runInfo},
	{"calibrate", "measure the counter frequency (bracket, sleep or both) and cross-check it", runCalibrate},
	{"run", "measure the example kernels: cycles, ticks and ns per call, cycles per element", runRun},
	{"cpe", "cycles per element: sweep a kernel over sizes, fit cost = intercept + CPE·n, plot", runCPE},
	{"compare", "compare two kernels interleaved (ratio, CI, p-value), their CPEs, or two saved result files", runCompare},
	{"validate", "self-check on known-latency chains, and against testing.Benchmark", runValidate},
	{"clocks", "the seeds' lab: every timing method on the same runs; -demo utilisation", runClocks},
	{"version", "print the module version, Go version and VCS revision of this binary", runVersion},
}

// command is one subcommand: its name, a one-line summary for cyclebench -h,
// and the function that runs it with the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func main() {
	os.Exit(exitStatus(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}
