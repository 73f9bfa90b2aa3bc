package main

// Runs in separate processes: cyclebench run with -count 2 or more (or
// -o, whose default is results.FileRuns) starts itself once per run
// (results.Processes), each child measuring one run with the same flags,
// and merges what they hand back (results.MergeProcessRuns).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/results"
)

// childEnv is the environment variable that makes cyclebench run a child
// of a run in separate processes. Its value "I/N" says that this process
// takes run I (from 0) of N: it measures one run, numbers its progress
// lines among all N runs' measurements, prints no warnings, and writes
// its results as a results.ProcessRun on stdout instead of its output.
// Only cyclebench sets it; -h does not mention it.
const childEnv = "CYCLEBENCH_CHILD_RUN"

// child is this process's place in a run in separate processes.
type child struct{ index, count int }

// childRun reads childEnv's value: nil when it is not set.
func childRun(v string) (*child, error) {
	if v == "" {
		return nil, nil
	}
	i, n, _ := strings.Cut(v, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || index < 0 || count < 1 || index >= count {
		return nil, usageErrorf("%s=%q: want I/N with 0 ≤ I < N (set by cyclebench for its own child processes)", childEnv, v)
	}
	return &child{index, count}, nil
}

// hand writes the child's results for its parent on stdout; the exit
// status is the signal's after one.
func (c *child) hand(s *session, stdout io.Writer, rs []results.Measurement) error {
	if err := results.WriteProcessRun(stdout, results.ProcessRun{PID: os.Getpid(), Header: s.h, Measurements: rs}); err != nil {
		return err
	}
	return orExit(nil, s.in.exitCode())
}

// orExit is err, or the exit status code (nothing printed) when err is
// nil and code is not 0.
func orExit(err error, code int) error {
	if err == nil && code != 0 {
		return &exitError{code: code}
	}
	return err
}

// inProcessFlag defines -in-process.
func inProcessFlag(fs *flagSet) *bool {
	return fs.Bool("in-process", false, "take every run of -count in this process, as go test -count does: faster, and for where a\n"+
		"program cannot start itself. By default each run is a process of its own, because a process's\n"+
		"memory layout (heap and stack addresses, alignments) moves a kernel by 1-10% between processes\n"+
		"while runs in one process agree to 0.01%: comparing files by the spread between their runs\n"+
		"must see what moves between processes")
}

// notForChildren are the flags a child does not get: the output's (the
// parent writes it, judges the exit status and prints the warnings), the
// number of runs, and -in-process.
var notForChildren = []string{"o", "format", "json", "strict", "count", "in-process"}

// childArgs is the command line of each child of subcommand cmd: the
// flags set on fs, each as -name=value, but those of notForChildren,
// then -count=1 and the positional arguments after "--".
func childArgs(cmd string, fs *flag.FlagSet) []string {
	args := []string{cmd}
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(notForChildren, f.Name) {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	args = append(args, "-count=1")
	if fs.NArg() > 0 {
		args = append(append(args, "--"), fs.Args()...)
	}
	return args
}

// runProcesses measures count runs, each in a child process of its own
// (the flags of s, one run each), and merges them in order. code is the
// exit status to leave with, without output: a child failed (it said why
// on stderr), or a signal came before any child handed back a result.
func (s *session) runProcesses(count int) (h results.Header, rs []results.Measurement, code int, err error) {
	exe, err := os.Executable()
	if err != nil {
		return h, nil, 0, fmt.Errorf("cannot find this program to take each of the %d runs in a process of its own (-in-process takes them in this one): %w", count, err)
	}
	p := results.Processes{Path: exe, Args: childArgs(s.fs.Name(), s.fs.FlagSet), Count: count, Stderr: s.o.stderr,
		Env: func(i int) []string { return []string{fmt.Sprintf("%s=%d/%d", childEnv, i, count)} }}
	runs, err := p.Run(s.in.ctx)
	var pe *results.ProcessError
	switch {
	case errors.As(err, &pe):
		return h, nil, pe.ExitCode, nil
	case err != nil:
		return h, nil, 0, err
	case len(runs) == 0:
		return h, nil, s.in.exitCode(), nil
	}
	h, rs = results.MergeProcessRuns(runs)
	h.Partial = "" // said again by the caller, counting every run's measurements
	h.Warnings = slices.DeleteFunc(h.Warnings, func(w string) bool { return strings.HasPrefix(w, "interrupted by a signal") })
	return h, rs, 0, nil
}
