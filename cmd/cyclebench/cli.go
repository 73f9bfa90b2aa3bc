package main

// This file holds the dispatch of subcommands, their errors and exit
// statuses, and the rewording of library errors for the command line.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cyclebench/cyclebench/internal/atomicfile"

	"github.com/cyclebench/cyclebench/internal/gotest"
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
	t := &table{Cols: []col{{Left: true}, {Left: true}}, NoHead: true}
	for _, c := range commands {
		t.Add("  "+c.name, c.summary)
	}
	var b strings.Builder
	b.WriteString("cyclebench measures code in TSC ticks, nanoseconds and estimated core cycles.\n\n")
	b.WriteString("usage: cyclebench <subcommand> [flags] [arguments]\n\nsubcommands:\n")
	t.WriteText(&b)
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

// libSentinels are the sentinel errors of package results whose text
// says nothing a user needs before the message that follows.
var libSentinels = strings.NewReplacer(results.ErrBadInput.Error()+": ", "", results.ErrNoSweep.Error()+": ", "",
	results.ErrIncomparable.Error()+": ", "", gotest.ErrGoTest.Error()+": ", "",
	gotest.ErrProcess.Error()+": ", "", atomicfile.ErrWrite.Error()+": ", "", atomicfile.ErrBadPath.Error()+": ", "")

// reworded is an error with another message; it unwraps to the original.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// libError is err (nil for nil) without the text of results' sentinels:
// "go test ./x: build failed", not "gotest: go test failed: go test ./x:
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
