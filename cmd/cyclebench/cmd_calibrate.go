package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/results"
)

const calibrateDescription = `
calibrate measures the counter frequency on a thread pinned to one CPU.
bracket (the default) reads the monotonic clock between two counter reads
many times at each end of the interval and keeps the tightest bracket: a
fraction of a ppm in 100ms. sleep is the textbook method: ticks across a
sleep divided by the time asked for, biased high by the sleep's overshoot.
both runs bracket, then sleep, and reports how far sleep is from bracket.
Each figure is compared with every other source this machine offers.
SIGINT or SIGTERM prints the methods that finished and the frequency measured
so far.`

// Values of calibrate -method beyond calibrate's own.
const methodBoth = "both"

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	s := newSession("calibrate", "[-duration D] [-method bracket|sleep|both] [-format table|json|csv] [-cpu N]", calibrateDescription, stdout)
	duration := calibrationFlag(s.fs, "interval of each method (a number with a unit: 100ms, 1s, 10s)")
	method := choiceFlag(s.fs, "method", calibrate.MethodBracket, "how to measure the frequency", calibrate.MethodBracket, calibrate.MethodSleep, methodBoth)
	s.o = addOutputFlags(s.fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	cpu := cpuFlag(s.fs)
	s.fs.example("cyclebench calibrate", "the frequency by the bracket method over 100 ms")
	s.fs.example("cyclebench calibrate -method both -duration 1s", "bracket and the textbook sleep method, and how far apart they are")
	if err := s.open(args, false, duration.check); err != nil {
		return err
	}
	defer s.close()
	sys.begin()
	c := &calibration{r: reports.CalibrateReport{Counter: sys.detectCPU().Counter, PinnedCPU: -1, Methods: []reports.FrequencyReport{}, Warnings: []string{}}}
	d := duration.d
	if *method == methodBoth {
		d *= 2
	}
	err := untilSignal(s.in, s.o, "calibrate: "+*method, d, func() error { return c.gather(*cpu, duration.d, *method) })
	if errors.Is(err, errInterrupted) {
		c.interrupted()
	} else if err != nil {
		return err
	}
	r := c.report()
	return s.report(r, func() *table { return calibrateTable(r) }, r.Warnings)
}

// calibration is calibrate's report as it grows on the measuring
// goroutine.
type calibration struct {
	mu sync.Mutex
	r  reports.CalibrateReport
}

// report returns a copy of the report as it is.
func (c *calibration) report() *reports.CalibrateReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.r
	r.Methods, r.Warnings = slices.Clone(r.Methods), slices.Clone(r.Warnings)
	return &r
}

// gather measures with method (bracket, sleep or both) on a thread pinned
// to cpu, each figure cross-checked.
func (c *calibration) gather(cpu int, d time.Duration, method string) error {
	var warnings []error
	err := onThread(cpu, func(th *pinned.Thread) error {
		c.mu.Lock()
		c.r.PinnedCPU = th.CPU
		c.mu.Unlock()
		warnings = append(warnings, th.Warnings...)
		for _, m := range []string{calibrate.MethodBracket, calibrate.MethodSleep} {
			if method != m && method != methodBoth {
				continue
			}
			measure := sys.bracket
			if m == calibrate.MethodSleep {
				measure = sys.sleep
			}
			f, err := measure(d)
			if err != nil {
				return err
			}
			sys.crossChecks(&f, sys.detectCPU())
			c.mu.Lock()
			c.r.Methods = append(c.r.Methods, reports.FrequencyOf(f))
			c.mu.Unlock()
			warnings = append(warnings, f.Warnings...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r.Compare()
	c.r.Warnings = results.ErrorStrings(warnings)
	return nil
}

// interrupted adds to the methods that finished the frequency measured so
// far, over the bracket opened when the command started.
func (c *calibration) interrupted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	msg := "interrupted by a signal"
	if cal, err := sys.soFar(); err == nil {
		f := reports.FrequencyOf(cal.Frequency)
		f.Method, f.Brackets = f.Method+", so far", nil
		c.r.Methods = append(c.r.Methods, f)
		msg += fmt.Sprintf(": the last figure is the frequency measured over the %v since the command started", cal.Frequency.Duration.Round(time.Millisecond))
	}
	c.r.Warnings = append(c.r.Warnings, msg)
}

// table lays r out as a key/value table: one block per method, then the
// sleep-vs-bracket difference.
func calibrateTable(r *reports.CalibrateReport) *table {
	t := kvTable()
	t.KV("counter", "%s", r.Counter)
	pinned := reports.PinnedLine(r.PinnedCPU)
	t.Add(pinned[0], pinned[1])
	for _, m := range r.Methods {
		t.Blank()
		for _, l := range m.Lines() {
			t.Add(l[0], l[1])
		}
	}
	if r.SleepVsBracketPPM != nil {
		t.Blank()
		t.KV("sleep_vs_bracket", "%s ppm", sigfig.Signed(*r.SleepVsBracketPPM, 4))
	}
	return t
}
