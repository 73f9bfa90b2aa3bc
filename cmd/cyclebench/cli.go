package main

// This file holds what every subcommand shares: dispatch, errors and exit
// statuses, the opening of a subcommand (session), flag parsing and help,
// the flags several subcommands take, the output (results on stdout or
// -o, diagnostics on stderr), pinning, and formatting helpers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/perfevent"
	"github.com/cyclebench/cyclebench/results"
)

// run runs the subcommand named by args[0] with the rest of args. It is main
// without the process: tests call it with their own writers.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printCommands(stderr)
		return usageErrorf("no subcommand given (see cyclebench -h)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		printCommands(stdout)
		return nil
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	c, ok := lookup(args[0])
	if !ok {
		return usageErrorf("unknown subcommand %q (want one of: %s; see cyclebench -h)", args[0], strings.Join(commandNames(), ", "))
	}
	err := c.run(args[1:], stdout, stderr)
	if err == nil || errors.Is(err, errHelp) {
		return nil
	}
	return &cmdError{cmd: c.name, err: err}
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
	t := &table{cols: []col{{left: true}, {left: true}}, noHead: true}
	for _, c := range commands {
		t.add("  "+c.name, c.summary)
	}
	var b strings.Builder
	b.WriteString("cyclebench measures code in TSC ticks, nanoseconds and estimated core cycles.\n\n")
	b.WriteString("usage: cyclebench <subcommand> [flags] [arguments]\n\nsubcommands:\n")
	t.writeText(&b)
	b.WriteString("\nRun cyclebench <subcommand> -h for its flags and examples; cyclebench --version\n" +
		"prints the version. Results go to stdout (or -o FILE), warnings and progress to stderr.\n")
	io.WriteString(w, b.String())
}

// Exit statuses.
const (
	exitFailure = 1 // a result is unusable, a check failed, or an I/O error
	exitUsage   = 2 // the command line was wrong
)

// usageError is a mistake on the command line; main exits with status 2.
// Its message leaves out the names of the packages the error came through.
type usageError struct{ err error }

func (e *usageError) Error() string { return withoutPackages.Replace(e.err.Error()) }

// withoutPackages drops the package prefixes of library errors, which mean
// nothing to a user of the command.
var withoutPackages = strings.NewReplacer("benchexamples: ", "", "harness: ", "", "cputime: ", "", "calibrate: ", "", "affinity: ", "", "stats: ", "", "plot: ", "", "perfevent: ", "", "results: ", "")

func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a *usageError formatted like fmt.Errorf (%w works).
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exitError asks main to exit with code after the subcommand has written
// its results; msg, when not "", is the one-line summary main prints
// ("2 of 20 sizes did not converge; results in out.json").
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// cmdError is an error of subcommand cmd; main prints it as
// "cyclebench cmd: message".
type cmdError struct {
	cmd string
	err error
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() }
func (e *cmdError) Unwrap() error { return e.err }

// errHelp is returned by flagSet.parse after printing the usage for -h;
// run turns it into success.
var errHelp = errors.New("help requested")

// session is a subcommand from its command line to its last word. Every
// subcommand opens one the same way (open: parse, arguments, checks,
// -o and -plot writable, the measuring flags, interrupts; calibrate: the
// calibration and the header of the results), then measures or reads,
// and ends with its results, warnings and exit status (out.status).
type session struct {
	fs  *flagSet
	o   *out
	pf  *plotFlags    // -plot, for the subcommands that draw
	mf  *measureFlags // the measuring flags, for the subcommands that measure
	in  *interrupt
	cfg harness.Config
	cal *calibrate.Calibration
	// calWarnings are the pinning's warnings when it calibrated.
	calWarnings []error
	h           results.Header
	// hint rewords a parse error (package mode: the flags it lacks).
	hint func(error) error
}

// newSession is the session of subcommand name; its -h prints synopsis
// and description (see newFlagSet).
func newSession(name, synopsis, description string, stdout io.Writer) *session {
	return &session{fs: newFlagSet(name, synopsis, description, stdout)}
}

// open parses args (flags anywhere on the line), refuses positional
// arguments unless takesArgs, runs checks in order (the subcommand's own
// ranges), fails on an -o or -plot that cannot be written (before
// anything is measured), reads the measuring flags into s.cfg, and starts
// catching SIGINT and SIGTERM: the caller defers s.close.
func (s *session) open(args []string, takesArgs bool, checks ...func() error) error {
	if err := s.parse(args); err != nil {
		return err
	}
	return s.start(takesArgs, checks...)
}

// parse is the first step of open, for a subcommand that looks at its
// arguments before it knows which checks apply.
func (s *session) parse(args []string) error {
	err := s.fs.parse(args)
	if err != nil && s.hint != nil {
		return s.hint(err)
	}
	return err
}

// start is open after parse.
func (s *session) start(takesArgs bool, checks ...func() error) error {
	if !takesArgs {
		checks = append([]func() error{s.fs.noArgs}, checks...)
	}
	if s.pf != nil {
		checks = append(checks, s.pf.check)
	}
	if s.o != nil {
		checks = append(checks, s.o.check)
	}
	if s.mf != nil {
		checks = append(checks, func() (err error) { s.cfg, err = s.mf.config(); return err })
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	s.in = catchInterrupts()
	return nil
}

// close stops catching signals.
func (s *session) close() {
	if s.in != nil {
		s.in.stop()
	}
}

// calibrate calibrates on the CPU the measurements will pin to, gives
// s.cfg the calibration, and makes the header of command's results.
func (s *session) calibrate(command string) error {
	cal, warns, err := calibrateOn(s.cfg.CPU)
	if err != nil {
		return err
	}
	s.cal, s.calWarnings, s.cfg.Calibration = cal, warns, cal
	s.h = newHeader(command, cal, s.cfg, warns)
	return nil
}

// newHeader is the header of command's results measured here, on the
// platform sys says.
func newHeader(command string, cal *calibrate.Calibration, cfg harness.Config, warnings []error) results.Header {
	h := results.NewHeader(command, cal, cfg, warnings)
	h.GOOS, h.GOARCH, h.GoVersion = sys.goos, sys.goarch, sys.goVersion
	return h
}

// calibrateOn calibrates (once per process) on a thread pinned to cpu, so
// the figures are those of the CPU the measurements will use.
func calibrateOn(cpu int) (*calibrate.Calibration, []error, error) {
	var cal *calibrate.Calibration
	var warns []error
	err := onThread(cpu, func(th *pinned.Thread) error {
		warns = th.Warnings
		var err error
		cal, err = calibrate.Get()
		return err
	})
	return cal, warns, err
}

// partial marks the header of results a signal cut short: Partial says
// "interrupted by SIGINT" + what + more, a warning "interrupted by a
// signal" + what. Nothing when no signal came.
func (s *session) partial(what, more string) {
	if s.in.exitCode() != 0 {
		s.h.Partial = "interrupted by " + s.in.signal() + what + more
		s.h.Warnings = append(s.h.Warnings, "interrupted by a signal"+what)
	}
}

// exitStatus prints err as one line on stderr ("cyclebench run: what was
// wrong (what is allowed)"; nothing for an *exitError without a summary)
// and returns the process exit status for it: 0 for nil, the code of an
// *exitError, 2 for a *usageError, 1 otherwise.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	var ee *exitError
	silent := errors.As(err, &ee) && ee.msg == ""
	if !silent {
		sep := " "
		var ce *cmdError
		if !errors.As(err, &ce) {
			sep = ": "
		}
		fmt.Fprintf(stderr, "cyclebench%s%v\n", sep, err)
	}
	var ue *usageError
	switch {
	case ee != nil:
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitFailure
}

// flagSet is a subcommand's flag set with the help -h prints on stdout.
type flagSet struct {
	*flag.FlagSet
	synopsis, description string
	examples              [][2]string // command line, what it does
	exits                 string      // the exit statuses, for -h
	args                  []string    // positional arguments, wherever they stood
	stdout                io.Writer
	packages              bool           // the flag set of a subcommand's package mode (gotest.go)
	more                  func() string  // another section of -h, after the flags (nil: none)
	after                 []func() error // run by parse once the flags are in, in order
}

// newFlagSet returns a flag set for subcommand name whose -h prints to
// stdout a synopsis ("cyclebench name " + synopsis), the description,
// every flag with a placeholder for its value and its default, the
// examples and the exit statuses. Parse it with [flagSet.parse].
func newFlagSet(name, synopsis, description string, stdout io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, description: description, stdout: stdout, exits: exitsPlain}
	// The flag package prints the error and calls Usage on every parse
	// error; parse reports errors itself, in one line, and prints the usage
	// only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// example adds an example command line and what it does to the help.
func (fs *flagSet) example(cmdline, what string) {
	fs.examples = append(fs.examples, [2]string{cmdline, what})
}

// The exit statuses as -h states them.
const (
	exitsPlain = `0 success; 1 a measurement or an output check failed; 2 a usage error;
130 or 143 after SIGINT or SIGTERM (what was measured is written first).`
	exitsMeasure = `0 when every result is usable: converged, or its K best agree within 2ε
(missed ε by less than ε; the table marks it "nearly");
1 when a result is unusable or a kernel's output check failed (with -strict:
when any result did not converge); 2 a usage error; 130 or 143 after SIGINT or
SIGTERM (what was measured so far is written first, marked not converged).`
)

func (fs *flagSet) usage() {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: cyclebench %s %s\n\n", fs.Name(), fs.synopsis)
	if fs.description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(fs.description))
	}
	b.WriteString("flags:\n")
	fs.writeFlags(&b, nil, "default %s")
	if fs.more != nil {
		b.WriteString("\n" + fs.more())
	}
	if len(fs.examples) > 0 {
		b.WriteString("\nexamples:\n")
		for _, e := range fs.examples {
			fmt.Fprintf(&b, "  %s\n    \t%s\n", e[0], e[1])
		}
	}
	fmt.Fprintf(&b, "\nexit status: %s\n", fs.exits)
	io.WriteString(fs.stdout, b.String())
}

// writeFlags lists the flags of fs for -h, each with a placeholder for
// its value, its usage and its default in parentheses, formatted by
// defaults ("default %s"); skip, when not nil, leaves some out.
func (fs *flagSet) writeFlags(b *strings.Builder, skip func(name string) bool, defaults string) {
	fs.VisitAll(func(f *flag.Flag) {
		if skip != nil && skip(f.Name) {
			return
		}
		placeholder, usage := flagPlaceholder(f)
		fmt.Fprintf(b, "  -%s", f.Name)
		if placeholder != "" {
			fmt.Fprintf(b, " %s", placeholder)
		}
		if def := flagDefault(f, usage); def != "" {
			usage += " (" + fmt.Sprintf(defaults, def) + ")"
		}
		fmt.Fprintf(b, "\n    \t%s\n", strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// flagPlaceholder returns what -h shows after a flag's name: the
// back-quoted word of its usage, the allowed values of a choice, or a word
// for its type; "" for a boolean.
func flagPlaceholder(f *flag.Flag) (string, string) {
	name, usage := flag.UnquoteUsage(f)
	if strings.Contains(f.Usage, "`") {
		return name, usage
	}
	switch v := f.Value.(type) {
	case *choiceValue:
		return strings.Join(v.allowed, "|"), usage
	case *durationValue:
		return "DURATION", usage
	}
	switch name {
	case "":
		return "", usage
	case "int":
		return "N", usage
	case "float":
		return "NUMBER", usage
	case "duration":
		return "DURATION", usage
	}
	return "VALUE", usage
}

// flagDefault returns the default -h shows, or "" when there is none worth
// showing (an empty string, false, or a usage that says it itself).
func flagDefault(f *flag.Flag, usage string) string {
	if strings.Contains(usage, "(default") || f.DefValue == "" || f.DefValue == "false" {
		return ""
	}
	return f.DefValue
}

// parse parses args, flags and positional arguments in any order ("--"
// ends the flags), then runs the after hooks (values that depend on other
// flags, such as -format on -o's extension). -h prints the usage and
// returns errHelp (which run turns into success); any other parse error
// becomes a one-line *usageError.
func (fs *flagSet) parse(args []string) error {
	if err := fs.parseArgs(args); err != nil {
		return err
	}
	for _, f := range fs.after {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// parseArgs is parse without the hooks.
func (fs *flagSet) parseArgs(args []string) error {
	fs.args = nil
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fs.usage()
			return errHelp
		case err != nil:
			// The flag package says "parse error" for a number it cannot read.
			msg := strings.Replace(err.Error(), ": parse error", ": not a number", 1)
			return usageErrorf("%s (see cyclebench %s -h)", msg, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			fs.args = append(fs.args, rest...)
			return nil
		}
		fs.args = append(fs.args, rest[0])
		args = rest[1:]
	}
}

// given names the first of the flags set on fs, "" when none is.
func given(fs *flagSet, names ...string) string {
	set := ""
	fs.Visit(func(f *flag.Flag) {
		if set == "" && slices.Contains(names, f.Name) {
			set = "-" + f.Name
		}
	})
	return set
}

// noArgs returns a *usageError if fs was given positional arguments.
func (fs *flagSet) noArgs() error {
	if len(fs.args) > 0 {
		return usageErrorf("unexpected argument %q (this subcommand takes only flags; see cyclebench %s -h)", fs.args[0], fs.Name())
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
	fs.Var(v, name, usage)
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

// durationValue is a duration flag whose parse error says what a duration
// looks like ("100" lacks a unit).
type durationValue struct{ d *time.Duration }

// durationFlag binds a duration flag to d.
func durationFlag(fs *flagSet, d *time.Duration, name, usage string) {
	fs.Var(&durationValue{d}, name, usage)
}

func (v *durationValue) String() string {
	if v == nil || v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*v.d = d
		return nil
	}
	if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		return fmt.Errorf("a duration needs a unit (ns, us, ms, s, m, h): %sms or %ss, for example", s, s)
	}
	return errors.New("want a number with a unit: 100ms, 2s, 1m30s")
}

// calibrationDuration is a -duration flag of a calibration, from
// calibrate's default, within calibrate's limits.
type calibrationDuration struct{ d time.Duration }

// calibrationFlag defines -duration on fs.
func calibrationFlag(fs *flagSet, usage string) *calibrationDuration {
	c := &calibrationDuration{calibrate.DefaultOptions.Duration}
	durationFlag(fs, &c.d, "duration", usage)
	return c
}

// check returns a *usageError when the duration is out of calibrate's
// range.
func (c *calibrationDuration) check() error {
	if c.d < calibrate.MinDuration || c.d > calibrate.MaxDuration {
		return usageErrorf("-duration %v: out of range (allowed: %v to %v)", c.d, calibrate.MinDuration, calibrate.MaxDuration)
	}
	return nil
}

// cpuFlag defines -cpu: the CPU to pin the measuring thread to.
func cpuFlag(fs *flagSet) *int {
	return fs.Int("cpu", -1, "pin the measuring thread to CPU `N`; -1 picks the highest-numbered allowed CPU")
}

// Output formats.
const (
	formatTable = "table"
	formatBench = "bench"
	formatJSON  = "json"
	formatCSV   = "csv"
	formatMD    = "md"
)

// formatOfPath is the output format -o FILE's extension asks for among
// allowed: .json, .csv, .md, and .txt or .bench for the Go benchmark format
// (go test -bench > old.txt is the convention benchstat users know); ""
// when the extension says nothing, or names a format the subcommand does
// not write (then -format's default stays).
func formatOfPath(path string, allowed []string) string {
	var f string
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		f = formatJSON
	case ".csv":
		f = formatCSV
	case ".md", ".markdown":
		f = formatMD
	case ".txt", ".bench":
		f = formatBench
	}
	if !slices.Contains(allowed, f) {
		return ""
	}
	return f
}

// out is where a subcommand's output goes: results to stdout or to -o
// FILE (atomically) in -format, warnings and notes to stderr unless -q,
// progress to stderr when it is a terminal.
type out struct {
	stdout, stderr io.Writer
	format, path   string
	quiet, strict  bool
}

// addOutputFlags defines -format (one of formats, the first the default)
// with -json as its synonym, -o and -q; withStrict adds -strict.
func addOutputFlags(fs *flagSet, stdout, stderr io.Writer, withStrict bool, formats ...string) *out {
	o := &out{stdout: stdout, stderr: stderr, format: formats[0]}
	fs.Var(&choiceValue{value: &o.format, allowed: formats}, "format", "output format")
	fs.BoolFunc("json", "the same as -format json", func(v string) error {
		on, err := strconv.ParseBool(v)
		if on {
			o.format = formatJSON
		}
		if err != nil {
			return errors.New("want true or false")
		}
		return nil
	})
	fs.StringVar(&o.path, "o", "", outUsage(formats))
	fs.BoolVar(&o.quiet, "q", false, "quiet: no warnings, progress or \"wrote FILE\" on stderr (errors and the failure summary remain)")
	if withStrict {
		fs.BoolVar(&o.strict, "strict", false, "exit 1 when any result did not converge, even one that missed ε by less than ε")
		fs.exits = exitsMeasure
	}
	fs.after = append(fs.after, func() error {
		if o.path != "" && given(fs, "format", "json") == "" {
			if f := formatOfPath(o.path, formats); f != "" {
				o.format = f
			}
		}
		return nil
	})
	return o
}

// outUsage is -o's help: what the file's extension selects among formats.
func outUsage(formats []string) string {
	var ext []string
	for _, e := range []struct{ what, format string }{{".json JSON", formatJSON}, {".csv CSV", formatCSV},
		{".txt or .bench the Go benchmark format", formatBench}, {".md markdown", formatMD}} {
		if slices.Contains(formats, e.format) {
			ext = append(ext, e.what)
		}
	}
	return "write the results to `FILE` (atomically: a reader never sees half of it) instead of stdout;\n" +
		"unless -format is given, the extension picks the format: " + strings.Join(ext, ", ")
}

// check fails on a bad -o path before anything is measured.
func (o *out) check() error { return checkWritable(o.path, "-o") }

// warn prints a warning on stderr unless -q.
func (o *out) warn(msg string) {
	if !o.quiet {
		fmt.Fprintf(o.stderr, "warning: %s\n", msg)
	}
}

// warnAll prints each warning once, in order.
func (o *out) warnAll(msgs []string) {
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			o.warn(m)
		}
	}
}

// note prints a line on stderr unless -q.
func (o *out) note(format string, args ...any) {
	if !o.quiet {
		fmt.Fprintf(o.stderr, format+"\n", args...)
	}
}

// emit renders the results and writes them to stdout, or atomically to -o
// FILE (then says "wrote FILE" on stderr).
func (o *out) emit(render func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if o.path == "" {
		_, err := o.stdout.Write(b.Bytes())
		return err
	}
	if err := writeFileAtomic(o.path, "-o", b.Bytes()); err != nil {
		return err
	}
	o.note("wrote %s", o.path)
	return nil
}

// emitReport emits v as JSON, or the table t lays it out in as text or CSV.
func (o *out) emitReport(v any, t func() *table) error {
	return o.emit(func(w io.Writer) error {
		if o.format == formatJSON {
			return writeJSON(w, v)
		}
		return t().write(w, o.format)
	})
}

// report is the ending of a subcommand that writes one report: v as JSON
// or the table t lays it out in, then its warnings, then the exit status
// (a signal's, or success).
func (s *session) report(v any, t func() *table, warnings []string) error {
	if err := s.o.emitReport(v, t); err != nil {
		return err
	}
	s.o.warnAll(warnings)
	return s.o.status(s.in, "")
}

// where says where the results went, for a summary line.
func (o *out) where() string {
	if o.path != "" {
		return "results in " + o.path
	}
	return "results on stdout"
}

// status is a subcommand's last word: the signal's exit status after an
// interrupt, status 1 with the summary line when failed is not "", nil
// otherwise.
func (o *out) status(in *interrupt, failed string) error {
	if code := in.exitCode(); code != 0 {
		return &exitError{code: code, msg: fmt.Sprintf("interrupted by %s; what was measured so far is written (%s)", in.signal(), o.where())}
	}
	if failed != "" {
		return &exitError{code: exitFailure, msg: failed + "; " + o.where()}
	}
	return nil
}

// checkWritable fails when a file cannot be written at path (given by
// flag), before anything is measured; "" is fine.
func checkWritable(path, flag string) error {
	if path == "" {
		return nil
	}
	// A SIGINT or SIGTERM while the probe file exists would leave it
	// behind: hold signals for that moment and raise them again after.
	held := make(chan os.Signal, 2)
	signal.Notify(held, os.Interrupt, syscall.SIGTERM)
	f, err := results.CreateTemp(path)
	if err == nil {
		f.Close()
		os.Remove(f.Name())
	}
	signal.Stop(held)
	select {
	case s := <-held:
		if p, perr := os.FindProcess(os.Getpid()); perr == nil {
			_ = p.Signal(s) // as if it came now (not possible on Windows: then it is lost)
		}
	default:
	}
	return fileError(flag, err)
}

// writeFileAtomic writes data to path atomically (results.WriteFile);
// flag names the option in errors.
func writeFileAtomic(path, flag string, data []byte) error {
	return fileError(flag, results.WriteFile(path, data))
}

// fileError is err of results.WriteFile or CreateTemp after flag: a
// *usageError for bad input.
func fileError(flag string, err error) error {
	if errors.Is(err, results.ErrBadInput) {
		return inputError(flag+" ", err)
	}
	if err != nil {
		return fmt.Errorf("%s %w", flag, libError(err))
	}
	return nil
}

// onThread runs body on a thread pinned to cpu (-1: let affinity choose)
// at normal priority, with the GC left on: the one pinning path
// (internal/pinned) that every measurement takes. A CPU the thread may
// not use is a *usageError; pinning unsupported by the OS is only a
// warning in the Thread, which then runs locked but unpinned. body's own
// errors are returned unchanged.
func onThread(cpu int, body func(th *pinned.Thread) error) error {
	return cpuError(cpu, sys.onPinned(pinned.Options{CPU: cpu, Priority: affinity.PriorityNormal, KeepGC: true}, body))
}

// cpuError is err, a *usageError when it says -cpu cpu is not a CPU the
// thread may use.
func cpuError(cpu int, err error) error {
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
	events      func() []perfevent.Status
	detectCPU   func() calibrate.CPU
	measure     func(calibrate.Options) (*calibrate.Calibration, error)
	bracket     func(time.Duration) (calibrate.Frequency, error)
	sleep       func(time.Duration) (calibrate.Frequency, error)
	begin       func()                                 // opens the bracket soFar closes
	soFar       func() (*calibrate.Calibration, error) // the frequency measured since begin
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
		events:      perfevent.Probe,
		detectCPU:   calibrate.DetectCPU,
		measure:     calibrate.Measure,
		bracket:     calibrate.Bracket,
		sleep:       calibrate.Sleep,
		begin:       func() { calibrate.Get() },
		soFar:       calibrate.Refine,
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

// yesNo formats a boolean for the human tables.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// plural is word, with an s unless n is 1.
func plural(n float64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// sig is results.Sig, the figures of every rendering: 0.0239, 2.98, 237.
func sig(v float64, digits int) string { return sigfig.Sig(v, digits) }

// pct formats a fraction as a percentage with digits significant digits.
func pct(v float64, digits int) string { return sig(v*100, digits) + "%" }

// libSentinels are the sentinel errors of package results whose text
// says nothing a user needs before the message that follows.
var libSentinels = strings.NewReplacer(results.ErrBadInput.Error()+": ", "", results.ErrNoSweep.Error()+": ", "",
	results.ErrIncomparable.Error()+": ", "", results.ErrGoTest.Error()+": ", "",
	results.ErrProcess.Error()+": ", "", results.ErrWrite.Error()+": ", "")

// reworded is an error with another message; it unwraps to the original.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// libError is err (nil for nil) without the text of results' sentinels:
// "go test ./x: build failed", not "results: go test failed: go test ./x:
// build failed".
func libError(err error) error {
	if err == nil {
		return nil
	}
	return &reworded{libSentinels.Replace(err.Error()), err}
}

// inputError is err, bad input to a library, as a *usageError with
// prefix before its message (nil for nil).
func inputError(prefix string, err error) error {
	if err == nil {
		return nil
	}
	return &usageError{&reworded{prefix + libSentinels.Replace(err.Error()), err}}
}

// kernelError turns an error of package benchexamples about flag's value
// into a usage error.
func kernelError(flag, value string, err error) error {
	return usageErrorf("%s %q: %w", flag, value, err)
}
