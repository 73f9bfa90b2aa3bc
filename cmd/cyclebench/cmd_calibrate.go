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
	o, in := s.o, s.in
	sys.begin()
	r := &calibrateReport{Counter: sys.detectCPU().Counter, PinnedCPU: -1, Methods: []frequencyJSON{}, Warnings: []string{}}
	d := duration.d
	if *method == methodBoth {
		d *= 2
	}
	err := untilSignal(in, o, "calibrate: "+*method, d, func() error { return gatherCalibration(r, *cpu, duration.d, *method) })
	if errors.Is(err, errInterrupted) {
		r = r.interrupted()
	} else if err != nil {
		return err
	}
	return s.report(r, r.table, r.Warnings)
}

// calibrateReport is what calibrate prints.
type calibrateReport struct {
	Counter   string          `json:"counter"`
	PinnedCPU int             `json:"pinned_cpu"`
	Methods   []frequencyJSON `json:"methods"`
	// SleepVsBracketPPM is (sleep − bracket) / bracket in ppm, for -method both.
	SleepVsBracketPPM *float64   `json:"sleep_vs_bracket_ppm,omitempty"`
	Warnings          []string   `json:"warnings"`
	mu                sync.Mutex // Methods grow on the measuring goroutine
}

// frequencyJSON is one calibrate.Frequency.
type frequencyJSON struct {
	Method      string           `json:"method"`
	Hz          float64          `json:"hz"`
	PPM         float64          `json:"ppm"`
	Source      string           `json:"source"`
	Seconds     float64          `json:"interval_seconds"`
	Ticks       uint64           `json:"ticks"`
	Brackets    *[2]uint64       `json:"bracket_ticks,omitempty"` // start and end widths, bracket only
	CrossChecks []crossCheckJSON `json:"cross_checks"`
}

// gatherCalibration measures with method on a thread pinned to cpu into r.
func gatherCalibration(r *calibrateReport, cpu int, d time.Duration, method string) error {
	var warnings []error
	var hz = map[string]float64{}
	err := onThread(cpu, func(th *pinned.Thread) error {
		r.mu.Lock()
		r.PinnedCPU = th.CPU
		r.mu.Unlock()
		warnings = append(warnings, th.Warnings...)
		return measureMethods(r, sys.detectCPU(), d, method, hz, &warnings)
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if method == methodBoth {
		diff := ppmDiff(hz[calibrate.MethodSleep], hz[calibrate.MethodBracket])
		r.SleepVsBracketPPM = &diff
	}
	r.Warnings = errorStrings(warnings)
	return nil
}

// interrupted returns a copy of r with the methods that finished and the
// frequency measured so far, over the bracket opened when the command
// started.
func (r *calibrateReport) interrupted() *calibrateReport {
	r.mu.Lock()
	c := &calibrateReport{Counter: r.Counter, PinnedCPU: r.PinnedCPU, Methods: slices.Clone(r.Methods), Warnings: slices.Clone(r.Warnings)}
	r.mu.Unlock()
	msg := "interrupted by a signal"
	if cal, err := sys.soFar(); err == nil {
		f := cal.Frequency
		c.Methods = append(c.Methods, frequencyJSON{Method: f.Method + ", so far", Hz: f.Hz, PPM: f.PPM, Source: f.Source, Seconds: f.Duration.Seconds(),
			Ticks: f.Ticks, CrossChecks: crossChecks(f)})
		msg += fmt.Sprintf(": the last figure is the frequency measured over the %v since the command started", f.Duration.Round(time.Millisecond))
	}
	c.Warnings = append(c.Warnings, msg)
	return c
}

// measureMethods measures the frequency with method (or both) into r, on
// the pinned thread.
func measureMethods(r *calibrateReport, c calibrate.CPU, d time.Duration, method string, hz map[string]float64, warnings *[]error) error {
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
		sys.crossChecks(&f, c)
		fj := frequencyJSON{
			Method:      f.Method,
			Hz:          f.Hz,
			PPM:         f.PPM,
			Source:      f.Source,
			Seconds:     f.Duration.Seconds(),
			Ticks:       f.Ticks,
			CrossChecks: crossChecks(f),
		}
		if f.Method == calibrate.MethodBracket {
			b := f.Brackets
			fj.Brackets = &b
		}
		r.mu.Lock()
		r.Methods = append(r.Methods, fj)
		r.mu.Unlock()
		*warnings = append(*warnings, f.Warnings...)
		hz[m] = f.Hz
	}
	return nil
}

// table lays r out as a key/value table: one block per method, then the
// sleep-vs-bracket difference.
func (r *calibrateReport) table() *table {
	t := kvTable()
	row := t.kv
	row("counter", "%s", r.Counter)
	if r.PinnedCPU >= 0 {
		row("pinned_cpu", "%d", r.PinnedCPU)
	} else {
		row("pinned_cpu", "none (pinning unsupported)")
	}
	for _, m := range r.Methods {
		t.blank()
		row("method", "%s", m.Method)
		row("tsc_hz", "%s", formatHz(m.Hz))
		row("tsc_hz_ppm", "±%s", sig(m.PPM, 3))
		row("source", "%s", m.Source)
		row("interval", "%.6fs", m.Seconds)
		row("ticks", "%d", m.Ticks)
		if m.Brackets != nil {
			row("bracket_ticks", "start %d, end %d", m.Brackets[0], m.Brackets[1])
		}
		if len(m.CrossChecks) == 0 {
			row("cross_check", "none available")
		}
		for _, c := range m.CrossChecks {
			row("cross_check", "%s ppm: %.0f Hz from %s", signedSig(c.DiffPPM, 3), c.Hz, c.Source)
		}
	}
	if r.SleepVsBracketPPM != nil {
		t.blank()
		row("sleep_vs_bracket", "%s ppm", signedSig(*r.SleepVsBracketPPM, 4))
	}
	return t
}
