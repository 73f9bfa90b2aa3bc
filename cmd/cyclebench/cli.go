package main

// This file holds what every subcommand shares: dispatch, exit statuses,
// flag parsing and the flags several subcommands take, pinning, and output
// helpers.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
)

// run runs the subcommand named by args[0] with the rest of args. It is main
// without the process: tests call it with their own writers.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printCommands(stderr)
		return usageErrorf("no subcommand given")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		printCommands(stderr)
		return nil
	}
	c, ok := lookup(args[0])
	if !ok {
		return usageErrorf("unknown subcommand %q (want one of: %s; see cyclebench -h)", args[0], strings.Join(commandNames(), ", "))
	}
	err := c.run(args[1:], stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

func printCommands(w io.Writer) {
	fmt.Fprintf(w, "cyclebench measures code in TSC ticks, nanoseconds and estimated core cycles.\n\n")
	fmt.Fprintf(w, "usage: cyclebench <subcommand> [flags]\n\nsubcommands:\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nRun cyclebench <subcommand> -h for its flags.\n")
}

// Exit statuses.
const (
	exitFailure = 1 // a measurement or I/O failed
	exitUsage   = 2 // the command line was wrong
)

// usageError is a mistake on the command line; main exits with status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a *usageError formatted like fmt.Errorf (%w works).
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError asks main to exit with code without printing anything: the
// subcommand has already printed its results and said what went wrong
// (a run that did not converge, a validation that failed).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// silentExit returns an error that makes main exit with code and print
// nothing more.
func silentExit(code int) error { return &exitError{code} }

// errHelp is returned by flagSet.parse after printing the usage for -h;
// run turns it into success.
var errHelp = errors.New("help requested")

// exitStatus prints err (unless it is an *exitError) as one line on stderr
// and returns the process exit status for it: 0 for nil, the code of an
// *exitError, 2 for a *usageError, 1 otherwise.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(stderr, "cyclebench: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// flagSet is a subcommand's flag set with the usage -h prints.
type flagSet struct {
	*flag.FlagSet
	usage func() // prints the usage to the subcommand's stderr
}

// newFlagSet returns a flag set for subcommand name whose -h output goes to
// stderr: a synopsis line ("cyclebench name " + synopsis), the description,
// and every flag with its default. Parse it with [flagSet.parse].
func newFlagSet(name, synopsis, description string, stderr io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	// The flag package prints the error and calls Usage on every parse
	// error; parse reports errors itself, in one line, and prints the usage
	// only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.usage = func() {
		fmt.Fprintf(stderr, "usage: cyclebench %s %s\n\n", name, synopsis)
		if description != "" {
			fmt.Fprintf(stderr, "%s\n\n", strings.TrimSpace(description))
		}
		fmt.Fprintf(stderr, "flags:\n")
		printFlags(stderr, fs.FlagSet)
	}
	return fs
}

// printFlags lists every flag of fs with its type, usage and default; unlike
// flag.PrintDefaults it shows zero defaults too.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  -%s", f.Name)
		if typ != "" {
			fmt.Fprintf(w, " %s", typ)
		}
		def := f.DefValue
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(w, "\n    \t%s (default %s)\n", strings.ReplaceAll(usage, "\n", "\n    \t"), def)
	})
}

// parse parses args. -h prints the usage and returns errHelp (which run
// turns into success); any other parse error becomes a one-line
// *usageError naming the subcommand.
func (fs *flagSet) parse(args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.usage()
		return errHelp
	default:
		return usageErrorf("%s: %v (see cyclebench %s -h)", fs.Name(), err, fs.Name())
	}
}

// noArgs returns a *usageError if fs was given positional arguments.
func (fs *flagSet) noArgs() error {
	if fs.NArg() > 0 {
		return usageErrorf("%s: unexpected argument %q (this subcommand takes only flags; see cyclebench %s -h)", fs.Name(), fs.Arg(0), fs.Name())
	}
	return nil
}

// choiceValue is a string flag restricted to a fixed set of words; a value
// outside the set fails at parse time with a message naming the allowed
// ones.
type choiceValue struct {
	value   *string
	allowed []string
}

// choiceFlag defines a flag on fs whose value must be one of allowed.
func choiceFlag(fs *flagSet, name, def, usage string, allowed ...string) *string {
	v := &choiceValue{value: new(string), allowed: allowed}
	*v.value = def
	fs.Var(v, name, fmt.Sprintf("%s: %s", usage, strings.Join(allowed, ", ")))
	return v.value
}

func (c *choiceValue) String() string {
	if c == nil || c.value == nil {
		return ""
	}
	return *c.value
}

func (c *choiceValue) Set(s string) error {
	for _, a := range c.allowed {
		if s == a {
			*c.value = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(c.allowed, ", "))
}

// checkDuration returns a *usageError unless min <= d <= max.
func checkDuration(flagName string, d, min, max time.Duration) error {
	if d < min || d > max {
		return usageErrorf("-%s %v: want a duration from %v to %v", flagName, d, min, max)
	}
	return nil
}

// checkCalibrationDuration checks a -duration value against the limits of
// package calibrate.
func checkCalibrationDuration(d time.Duration) error {
	return checkDuration("duration", d, calibrate.MinDuration, calibrate.MaxDuration)
}

// cpuFlag defines -cpu: the CPU to pin the measuring thread to.
func cpuFlag(fs *flagSet) *int {
	return fs.Int("cpu", -1, "CPU to pin the measuring thread to; -1 picks the highest-numbered allowed CPU")
}

// onThread runs body on a thread pinned to cpu (-1: let affinity choose)
// at normal priority, with the GC left on: the one pinning path
// (internal/pinned) that every measurement takes. A CPU the thread may
// not use is a *usageError; pinning unsupported by the OS is only a
// warning in the Thread, which then runs locked but unpinned. body's own
// errors are returned unchanged.
func onThread(cpu int, body func(th *pinned.Thread) error) error {
	err := sys.onPinned(pinned.Options{CPU: cpu, Priority: affinity.PriorityNormal, KeepGC: true}, body)
	if errors.Is(err, affinity.ErrInvalidCPU) || errors.Is(err, affinity.ErrInvalidOption) {
		return usageErrorf("-cpu %d: %w", cpu, err)
	}
	return err
}

// system is what the subcommands read from the machine. Tests replace sys
// with recorded figures so that golden files do not depend on the machine.
type system struct {
	onPinned    func(pinned.Options, func(*pinned.Thread) error) error
	allowed     func() ([]int, error)
	probe       func() affinity.Capabilities
	detectCPU   func() calibrate.CPU
	measure     func(calibrate.Options) (*calibrate.Calibration, error)
	bracket     func(time.Duration) (calibrate.Frequency, error)
	sleep       func(time.Duration) (calibrate.Frequency, error)
	crossChecks func(*calibrate.Frequency, calibrate.CPU)
	goVersion   string
	goos        string
	goarch      string
}

var sys = realSystem()

func realSystem() system {
	return system{
		onPinned: func(o pinned.Options, body func(*pinned.Thread) error) error {
			_, err := pinned.Run(o, body) // never abandoned: not realtime
			return err
		},
		allowed:     affinity.Allowed,
		probe:       affinity.Probe,
		detectCPU:   calibrate.DetectCPU,
		measure:     calibrate.Measure,
		bracket:     calibrate.Bracket,
		sleep:       calibrate.Sleep,
		crossChecks: calibrate.AddCrossChecks,
		goVersion:   runtime.Version(),
		goos:        runtime.GOOS,
		goarch:      runtime.GOARCH,
	}
}

// writeJSON writes v as one indented JSON object followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table is a key/value table whose values line up: every key is padded to
// the widest one, across blank lines too (which text/tabwriter would treat
// as the end of a column block, and pad with trailing spaces).
type table struct {
	rows [][2]string // {key, value}; {"", ""} is a blank line
}

// row adds key with a value formatted like fmt.Sprintf.
func (t *table) row(key, format string, args ...any) {
	t.rows = append(t.rows, [2]string{key, fmt.Sprintf(format, args...)})
}

// blank adds an empty line.
func (t *table) blank() { t.rows = append(t.rows, [2]string{}) }

// write prints the table to w.
func (t *table) write(w io.Writer) error {
	width := 0
	for _, r := range t.rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	var b strings.Builder
	for _, r := range t.rows {
		if r == [2]string{} {
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(&b, "%s%s  %s\n", r[0], strings.Repeat(" ", width-utf8.RuneCountInString(r[0])), r[1])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errorStrings returns the messages of errs, never nil (so JSON shows []).
func errorStrings(errs []error) []string {
	s := make([]string, 0, len(errs))
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return s
}

// yesNo formats a boolean for the human tables.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// formatHz formats a frequency in whole Hz with the same figure in MHz.
func formatHz(hz float64) string {
	r := math.Round(hz)
	return fmt.Sprintf("%.0f Hz (%.6f MHz)", r, r/1e6)
}

// sig formats v with at most digits significant digits, without trailing
// zeros and never with an exponent (%g would print 1234 ppm as 1.23e+03):
// 0.0239, 2.98, 2, 237, 12346.
func sig(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	s := strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// signedSig is sig with an explicit sign: +0.0239, -237.
func signedSig(v float64, digits int) string {
	s := sig(v, digits)
	if v >= 0 && !strings.HasPrefix(s, "+") {
		s = "+" + s
	}
	return s
}

// ppmDiff returns (a − b) / b in parts per million.
func ppmDiff(a, b float64) float64 { return (a - b) / b * 1e6 }
