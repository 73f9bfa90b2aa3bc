package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

const infoDescription = `
info describes the processor, the counter and its calibration on a thread
pinned to one CPU: the counter frequency with its method, source,
uncertainty and every cross-check, the counter step, the cost of an empty
start/stop pair, core cycles per tick with the verdict of its two rulers
(a register ADD chain checked against an IMUL chain), whether this core
folds small-immediate ADD chains at rename, what the CPU table knows of the
core, the CPUs this process may use and the priority it could obtain.
Counter figures are in ticks, not cycles. The table ends with what to do
on this machine for steadier numbers (to_do).`

func runInfo(args []string, stdout, stderr io.Writer) error {
	s := newSession("info", "[-format table|json|csv] [-cpu N] [-duration D]", infoDescription, stdout)
	s.o = addOutputFlags(s.fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	cpu := cpuFlag(s.fs)
	duration := calibrationFlag(s.fs, "interval of the frequency calibration (a number with a unit: 100ms, 1s)")
	s.fs.example("cyclebench info", "the machine and the counter, as a table")
	s.fs.example("cyclebench info -cpu 0 -duration 1s -json", "on CPU 0, the frequency over 1 s, as JSON")
	if err := s.open(args, false, duration.check); err != nil {
		return err
	}
	defer s.close()
	sys.begin()
	var r *reports.InfoReport
	err := untilSignal(s.in, s.o, "info: calibrating", duration.d, func() (err error) { r, err = gatherInfo(*cpu, duration.d); return err })
	if errors.Is(err, errInterrupted) {
		// The frequency measured so far, over the bracket opened when the
		// process started.
		c, serr := sys.soFar()
		if serr != nil {
			return s.o.status(s.in, "")
		}
		r = infoReport(c, nil, -1, affinity.Capabilities{})
		r.Warnings = append(r.Warnings, fmt.Sprintf("interrupted by a signal: the frequency is the one measured over the %v since the command started", c.Frequency.Duration.Round(time.Millisecond)))
	} else if err != nil {
		return err
	}
	var siblings []int
	if sys.siblings != nil && r.PinnedCPU >= 0 {
		siblings = sys.siblings(r.PinnedCPU)
	}
	return s.report(r, func() *table {
		t := infoTable(r)
		for _, a := range r.Advice(siblings) {
			t.Add("to_do", a)
		}
		return t
	}, r.Warnings)
}

// gatherInfo reads the allowed CPU set and the priority capabilities, then
// calibrates on a thread pinned to cpu.
func gatherInfo(cpu int, d time.Duration) (*reports.InfoReport, error) {
	// Before pinning: once pinned, the thread's allowed set is one CPU.
	allowed, err := sys.allowed()
	if err != nil {
		return nil, err
	}
	var c *calibrate.Calibration
	var th pinned.Thread
	if err := onThread(cpu, func(t *pinned.Thread) error {
		th = *t
		var err error
		c, err = sys.measure(calibrate.Options{Duration: d})
		return err
	}); err != nil {
		return nil, err
	}
	// After restoring: Probe tries the priorities on a thread of its own.
	r := infoReport(c, allowed, th.CPU, sys.probe())
	r.Events = reports.EventsOf(sys.events())
	for i := range r.Events {
		r.Events[i].Reason = withoutPackages.Replace(r.Events[i].Reason)
	}
	r.Warnings = results.ErrorStrings(append(append([]error(nil), th.Warnings...), c.Warnings...))
	return r, nil
}

// infoReport is reports.NewInfoReport on the platform sys says, its
// reasons without package names.
func infoReport(c *calibrate.Calibration, allowed []int, pinnedCPU int, caps affinity.Capabilities) *reports.InfoReport {
	r := reports.NewInfoReport(c, allowed, pinnedCPU, caps)
	r.GoVersion, r.GOOS, r.GOARCH = sys.goVersion, sys.goos, sys.goarch
	r.CoreRefused, r.CoreUnchecked = withoutPackages.Replace(r.CoreRefused), withoutPackages.Replace(r.CoreUnchecked)
	return r
}

// infoTable lays r out as a key/value table (reports.InfoReport.Lines).
func infoTable(r *reports.InfoReport) *table { return kvLines(r.Lines()) }
