package gotest

// Cycles for plain testing.B benchmarks. A benchmark that does not call
// the harness helpers prints ns/op alone. With GoTest.Clock set, go test
// (or each run of a test binary) runs pinned to one CPU, and the core
// clock of that CPU is read with the ruler right before and right after
// it: cycles/op = ns/op × the counter's ticks per ns × core cycles per
// tick (the mean of the two readings), and how far the clock moved
// between them is the figure's stated uncertainty.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/results"
)

// SourceNsRuler is the CyclesSource of a plain benchmark's cycles: its
// ns/op times the core clock the ruler read around its run.
const SourceNsRuler = "ns × ruler"

// CoreClock is how [GoTest.Run] gives plain benchmarks cycles: the CPU
// the test process is pinned to, the counter's frequency, and Read, which
// measures core cycles per counter tick on the calling thread (pinned to
// CPU by the caller), as calibrate.MeasureCoreClock does.
type CoreClock struct {
	CPU       int
	CounterHz float64
	Read      func() (cyclesPerTick float64, err error)
}

// bracket is the core clock read right before and right after one run,
// in cycles per tick (0: no reading), and the lines of the output the
// run wrote (from, to: 1-based, inclusive).
type bracket struct {
	before, after float64
	from, to      int
	err           error
	// share is the CPU time the run's process (and the processes it
	// waited for) took over its wall time; 0 when unknown.
	share float64
}

// minShare is the least share of its CPU a run's process may have had
// before its plain benchmarks' figures are flagged: testing.B's ns/op is
// a wall-clock mean, so time that other processes took from the pinned
// CPU counts in it as the benchmark's own. Below it, the figures read
// high by about the share missing (examples/plain: twice as high when
// other measurements held the same CPU half the time).
const minShare = 0.9

// onCPU runs f on a thread pinned to c.CPU, at the raised priority the
// harness measures with (where permitted; a refusal leaves it normal),
// with the GC left on: a process f starts inherits the pin and the
// priority. testing.B times wall-clock time, so a test process that
// other processes preempt on its CPU reads slower by the time they took
// (twice as slow on a CPU shared half and half); raised, it is rarely
// preempted, as the harness's own measuring thread is not.
func (c *CoreClock) onCPU(f func() error) error {
	_, err := pinned.Run(pinned.Options{CPU: c.CPU, Priority: affinity.PriorityHigh, KeepGC: true}, func(*pinned.Thread) error { return f() })
	return err
}

// read is one reading of the core clock on c.CPU; 0 with the error when
// there is none.
func (c *CoreClock) read() (float64, error) {
	var cpt float64
	err := c.onCPU(func() (err error) {
		cpt, err = c.Read()
		return err
	})
	if err == nil && !(cpt > 0) {
		err = fmt.Errorf("the ruler gave %v cycles per tick", cpt)
	}
	if err != nil {
		return 0, err
	}
	return cpt, nil
}

// run runs cmd pinned to c.CPU between two readings of the core clock.
// With no clock (c nil) it is cmd.Run.
func (c *CoreClock) run(cmd *exec.Cmd) (bracket, error) {
	if c == nil {
		return bracket{}, cmd.Run()
	}
	var br bracket
	keepProcs(cmd)
	before, err1 := c.read()
	started := false
	if err := c.onCPU(func() error { started = true; return cmd.Start() }); err != nil {
		if !started {
			// The thread could not be prepared (the CPU could not be
			// pinned, say): run it as it would run without a clock.
			return bracket{err: err}, cmd.Run()
		}
		return bracket{err: err}, err
	}
	start := time.Now()
	err := cmd.Wait()
	wall := time.Since(start)
	after, err2 := c.read()
	br.before, br.after, br.err = before, after, errors.Join(err1, err2)
	if ps := cmd.ProcessState; ps != nil && wall > 0 {
		br.share = (ps.UserTime() + ps.SystemTime()).Seconds() / wall.Seconds()
	}
	return br, err
}

// keepProcs sets GOMAXPROCS in cmd's environment to this process's,
// unless it is set there already. The Go runtime sizes GOMAXPROCS by the
// CPUs a process may run on, so a test binary pinned to one CPU would run
// with 1: its benchmarks would lose go test's -N suffix (and benchstat
// could no longer line them up with go test's own output), and
// b.RunParallel and the GC's background workers would have one P.
func keepProcs(cmd *exec.Cmd) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return
		}
	}
	cmd.Env = append(env, "GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
}

// applyClock gives every run of f that has no cycles nor ticks (a plain
// testing.B benchmark's line) and an ns/op figure cycles from the bracket
// of the run that wrote its line, and says once in f's warnings when a
// bracket had no reading.
func applyClock(f *results.File, c *CoreClock, brs []bracket) {
	if c == nil {
		return
	}
	warned := false
	for ei := range f.Entries {
		for ri := range f.Entries[ei].Runs {
			r := &f.Entries[ei].Runs[ri]
			if r.NoCycles != results.NotReported || r.Ticks != 0 || !(r.NS > 0) {
				continue
			}
			for _, br := range brs {
				if r.Line < br.from || r.Line > br.to {
					continue
				}
				if !(br.before > 0 && br.after > 0) || !(c.CounterHz > 0) {
					if !warned {
						warned = true
						f.Warnings = append(f.Warnings, fmt.Errorf("no cycles/op for plain testing.B benchmarks: the core clock could not be read on CPU %d: %v", c.CPU, br.err))
					}
					break
				}
				cpt := (br.before + br.after) / 2
				r.CyclesPerTick = cpt
				r.Cycles = r.NS * c.CounterHz / 1e9 * cpt
				r.NoCycles = results.HasCycles
				r.CyclesSource = SourceNsRuler
				r.CyclesUncertainty = math.Abs(br.after-br.before) / (br.after + br.before)
				if br.share > 0 && br.share < minShare {
					r.Warnings = append(r.Warnings, fmt.Sprintf("its process had CPU %d for %.0f%% of its run: other processes took the rest (or it slept), which testing.B's ns/op, a wall-clock mean, counts; the ns/op and cycles/op read high", c.CPU, 100*br.share))
				}
				break
			}
		}
	}
}
