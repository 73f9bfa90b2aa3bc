// Command cyclebench measures how many TSC ticks, nanoseconds and estimated
// core cycles code takes, and describes the machine it measures on.
//
// Usage:
//
//	cyclebench <subcommand> [flags] [arguments]
//
// cyclebench -h lists the subcommands (info, calibrate, run, cpe, compare,
// validate, clocks, version); cyclebench <subcommand> -h prints what one
// does, its flags with their defaults, examples and its exit statuses.
// cyclebench --version is cyclebench version.
//
// # Conventions
//
// Results go to stdout, or with -o FILE to a file written atomically (a
// reader never sees half of it; "wrote FILE" on stderr). Warnings, the
// progress line (redrawn when stderr is a terminal; for run, a line per
// kernel measured when it is not) and errors go to stderr;
// -q keeps warnings, progress and notes off it. Every subcommand that
// prints results takes -format table|json|csv (run, cpe and compare also
// bench, the Go benchmark format that benchstat reads), -json being the
// same as -format json. Flags may follow the arguments. An error is one
// line: "cyclebench CMD: what was wrong (what is allowed)".
//
// The measuring subcommands pin the measuring thread to one CPU (-cpu,
// default: the highest-numbered allowed CPU), raise its priority where
// permitted (-priority), and put everything back afterwards.
//
// # Exit status
//
// 0 when every result has a figure and every check passed, converged or
// not: whether a measurement converges changes from run to run on a busy
// machine, so the status does not follow it (the converged column and a
// warning say it; -strict makes it count). 1 when a result has no figure,
// a kernel's output check or a validation check failed, or anything else
// failed (with -strict: also when any result did not converge or was
// measured on a shared core), after the results are written and with a
// one-line summary on stderr; 2 for a usage error; 130 or 143 after SIGINT
// or SIGTERM, once everything measured so far is written.
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
	{"compare", "compare two kernels interleaved (ratio, CI, p-value), their CPEs, or saved result files (kernels × machines)", runCompare},
	{"validate", "self-check on known-latency chains, and against testing.Benchmark", runValidate},
	{"clocks", "every clock around the same runs of a kernel, side by side; -demo utilisation", runClocks},
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
