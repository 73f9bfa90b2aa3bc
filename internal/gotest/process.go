package gotest

// Runs in separate processes. A process's memory layout (where the heap,
// the stacks and the code land, and so their alignments) can move a
// throughput-bound kernel by 1-10% between processes, while runs inside
// one process agree to 0.01%. Repeats taken in one process cannot show
// that spread, so an interval built from them is too narrow for the next
// process. Processes runs a command once per repeat, each a process of its
// own that hands its measurements back as a ProcessRun, and
// MergeProcessRuns makes one report of them.

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

// ErrProcess: a process of [Processes] failed (it exited non-zero, or
// could not be started, or what it handed back could not be read).
var ErrProcess = errors.New("gotest: process failed")

// ProcessRun is what one process measured, as it hands it to the process
// that started it ([WriteProcessRun], [ReadProcessRun]).
type ProcessRun struct {
	// PID is the id of the process that measured.
	PID int
	// Header is its header: its own calibration and warnings.
	Header results.Header
	// Measurements are its results, in the order measured.
	Measurements []results.Measurement
}

// TextError is an error as [WriteProcessRun] carries it: its text, which
// is all the reports use (gob cannot carry an error's own type).
type TextError struct{ Text string }

func (e *TextError) Error() string { return e.Text }

func init() { gob.Register(&TextError{}) } // a type, no work

var errorType = reflect.TypeFor[error]()

// maxDepth bounds textErrors' walk: a Measurement is a few levels deep.
const maxDepth = 32

// textErrors makes v, settable, hold no error but *TextError: every
// error in it, in struct fields, slices, arrays and pointers, replaced by
// its text; slices and pointed-to values are copied first, so that what
// v shared with the caller's values stays as it was. It goes no deeper
// than maxDepth levels, so that a cycle of pointers ends it (gob then
// reports what it cannot carry).
func textErrors(v reflect.Value, depth int) {
	if depth > maxDepth {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.Type() == errorType && !v.IsNil() {
			if _, ok := v.Interface().(*TextError); !ok {
				v.Set(reflect.ValueOf(&TextError{v.Interface().(error).Error()}))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			textErrors(c.Elem(), depth+1)
			v.Set(c)
		}
	case reflect.Slice:
		if !v.IsNil() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			for i := range c.Len() {
				textErrors(c.Index(i), depth+1)
			}
			v.Set(c)
		}
	case reflect.Array:
		for i := range v.Len() {
			textErrors(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				textErrors(v.Field(i), depth+1)
			}
		}
	}
}

// WriteProcessRun writes pr to w in the form [ReadProcessRun] reads: gob,
// which keeps every figure (NaN included), with each error replaced by a
// *[TextError] of its text.
func WriteProcessRun(w io.Writer, pr ProcessRun) error {
	v := reflect.New(reflect.TypeFor[ProcessRun]()).Elem()
	v.Set(reflect.ValueOf(pr))
	textErrors(v, 0)
	if err := gob.NewEncoder(w).Encode(v.Interface()); err != nil {
		return fmt.Errorf("%w: writing the results of process %d: %w", ErrProcess, pr.PID, err)
	}
	return nil
}

// ReadProcessRun reads what [WriteProcessRun] wrote; an error wrapping
// ErrProcess when it cannot.
func ReadProcessRun(r io.Reader) (ProcessRun, error) {
	var pr ProcessRun
	if err := gob.NewDecoder(r).Decode(&pr); err != nil {
		return ProcessRun{}, fmt.Errorf("%w: reading a process's results: %w", ErrProcess, err)
	}
	return pr, nil
}

// MergeProcessRuns makes one report of runs, in order: the first run's
// header, carrying the warnings of every run's header once each (in the
// order first seen) and the first Partial; the measurements one run after
// the other. With no runs it returns a zero Header.
func MergeProcessRuns(runs []ProcessRun) (results.Header, []results.Measurement) {
	if len(runs) == 0 {
		return results.Header{}, nil
	}
	h := runs[0].Header
	h.Warnings = nil
	var ms []results.Measurement
	for _, r := range runs {
		for _, w := range r.Header.Warnings {
			if !slices.Contains(h.Warnings, w) {
				h.Warnings = append(h.Warnings, w)
			}
		}
		if h.Partial == "" {
			h.Partial = r.Header.Partial
		}
		ms = append(ms, r.Measurements...)
	}
	return h, ms
}

// Processes runs a command Count times, one process after another, each
// writing a [ProcessRun] on its stdout ([WriteProcessRun]); its stderr
// goes to Stderr. Fill it and call [Processes.Run].
type Processes struct {
	// Path is the executable; Args its arguments (without the program
	// name), the same for every process.
	Path string
	Args []string
	// Env is the environment of process i (0 to Count-1), added to this
	// process's; nil adds nothing.
	Env func(i int) []string
	// Count is the number of processes, at least 1.
	Count int
	// Stderr receives the processes' stderr; nil discards it.
	Stderr io.Writer
	// Done, when not nil, is called after each process that completed,
	// with its index and its run.
	Done func(i int, pr ProcessRun)
}

// ProcessError is the error of [Processes.Run] when a process exits
// non-zero: it wraps ErrProcess, and holds the exit status and the
// command, for a caller that relays the status (the process said why on
// its stderr).
type ProcessError struct {
	Index, Count int
	ExitCode     int
	Command      string
	Err          error
}

func (e *ProcessError) Error() string {
	return fmt.Sprintf("%v: process %d of %d (%s) exited with status %d", ErrProcess, e.Index+1, e.Count, e.Command, e.ExitCode)
}
func (e *ProcessError) Unwrap() []error { return []error{ErrProcess, e.Err} }

// Run runs the processes and returns their runs in order. When ctx is
// cancelled, the running process gets an interrupt (a kill after 10 s):
// Run returns the runs completed, with what the interrupted process
// handed back (its partial run, when it wrote one) last, and no error.
// When a process fails, Run stops and returns the runs before it (and
// its own, when it handed one back: a process that a signal to the
// whole process group stopped before ctx was cancelled may have) and a
// *[ProcessError] (or an error wrapping ErrProcess when the process
// could not be started or its output not read).
func (p *Processes) Run(ctx context.Context) ([]ProcessRun, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if p.Count < 1 {
		return nil, fmt.Errorf("%w: %d processes (want at least 1)", results.ErrBadInput, p.Count)
	}
	var runs []ProcessRun
	for i := 0; i < p.Count && ctx.Err() == nil; i++ {
		cmd := exec.CommandContext(ctx, p.Path, p.Args...)
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 10 * time.Second
		cmd.Env = os.Environ()
		if p.Env != nil {
			cmd.Env = append(cmd.Env, p.Env(i)...)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, p.Stderr
		err := cmd.Run()
		line := p.Path + " " + strings.Join(p.Args, " ")
		if ctx.Err() != nil {
			if pr, rerr := ReadProcessRun(&out); rerr == nil {
				runs = append(runs, pr)
			}
			return runs, nil
		}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			if pr, rerr := ReadProcessRun(&out); rerr == nil {
				runs = append(runs, pr) // a process a signal stopped hands back what it had
			}
			return runs, &ProcessError{Index: i, Count: p.Count, ExitCode: ee.ExitCode(), Command: line, Err: err}
		case err != nil:
			return runs, fmt.Errorf("%w: starting %s: %w", ErrProcess, line, err)
		}
		pr, err := ReadProcessRun(&out)
		if err != nil {
			return runs, fmt.Errorf("%w (process %d of %d: %s)", err, i+1, p.Count, line)
		}
		runs = append(runs, pr)
		if p.Done != nil {
			p.Done(i, pr)
		}
	}
	return runs, nil
}

// CannotStart reports whether err (from [Processes.Run]) says a process
// could not be started at all, as opposed to one that ran and failed:
// under user-mode emulation (qemu-user without binfmt_misc) exec of a
// binary of the emulated architecture fails with "exec format error", and
// a sandbox may forbid exec. A caller can then take the runs in its own
// process, saying so with [SharedProcessWarning].
func CannotStart(err error) bool {
	return errors.Is(err, syscall.ENOEXEC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, exec.ErrNotFound)
}

// SharedProcessWarning is the warning for runs taken in one process
// because a process of their own could not be started (err).
func SharedProcessWarning(err error) string {
	return fmt.Sprintf("cannot start a process of its own (%v): every run was taken in this process, so the spread between runs does not show what moves between processes", err)
}
