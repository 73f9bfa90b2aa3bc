package main

// Runs in separate processes: run with -count 2 or more (or -o, whose
// default is results.FileRuns) starts itself once per run
// (gotest.Processes), each child measuring one run with the same flags,
// and merges what they hand back (gotest.MergeProcessRuns).

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/results"
)

// childEnv makes cyclebench run a child of a run in separate processes.
// Its value "I/N" says that this process takes run I (from 0) of N: it
// measures one run, numbers its progress lines among all N runs'
// measurements, prints no warnings, and writes a gotest.ProcessRun on
// stdout instead of its output. Only cyclebench sets it; -h does not say.
const childEnv = "CYCLEBENCH_CHILD_RUN"

// child is this process's place in a run in separate processes.
type child struct{ index, count int }

// childRun reads childEnv's value: nil when it is not set.
func childRun(v string) (*child, error) {
	var c child
	if v == "" {
		return nil, nil
	}
	if _, err := fmt.Sscanf(v, "%d/%d", &c.index, &c.count); err != nil || c.index < 0 || c.index >= c.count || fmt.Sprintf("%d/%d", c.index, c.count) != v {
		return nil, usageErrorf("%s=%q: want I/N with 0 ≤ I < N (set by cyclebench for its own child processes)", childEnv, v)
	}
	return &c, nil
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
	if args = append(args, "-count=1"); fs.NArg() > 0 {
		args = append(append(args, "--"), fs.Args()...)
	}
	return args
}

// runProcesses measures count runs, each in a child process (with the
// flags of s), and merges them in order into s.h and the results. A
// child that failed said why on stderr: its exit status is returned
// silently, as is the signal's when one came before any child handed
// back a result; one of starting a child (gotest.CannotStart) as it is.
func (s *session) runProcesses(count int) ([]results.Measurement, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to take each of the %d runs in a process of its own (-in-process takes them in this one): %w", count, err)
	}
	p := gotest.Processes{Path: exe, Args: childArgs(s.fs.Name(), s.fs.FlagSet), Count: count, Stderr: s.o.stderr,
		Env: func(i int) []string { return []string{fmt.Sprintf("%s=%d/%d", childEnv, i, count)} }}
	runs, err := p.Run(s.in.ctx)
	var pe *gotest.ProcessError
	if errors.As(err, &pe) && (pe.ExitCode == 128+2 || pe.ExitCode == 128+15 || pe.ExitCode < 0) {
		// A signal to the process group (^C) reached (or killed: -1) the
		// child first; this process's comes with it: what the child had counts.
		select {
		case <-s.in.ctx.Done():
			err = nil
		case <-time.After(time.Second):
		}
	}
	switch {
	case errors.As(err, &pe):
		return nil, &exitError{code: max(pe.ExitCode, 1)}
	case err != nil:
		return nil, err
	case len(runs) == 0:
		return nil, &exitError{code: s.in.exitCode()}
	}
	var rs []results.Measurement
	s.h, rs = gotest.MergeProcessRuns(runs)
	s.h.Partial = "" // said again by the caller, counting every run's measurements
	s.h.Warnings = slices.DeleteFunc(s.h.Warnings, func(w string) bool { return strings.HasPrefix(w, "interrupted by a signal") })
	return rs, nil
}
