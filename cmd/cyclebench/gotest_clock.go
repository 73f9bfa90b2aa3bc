package main

// Cycles for the plain testing.B benchmarks of a package pattern: go test
// runs pinned to one CPU, and the core clock of that CPU is read with the
// ruler right before and after (gotest.CoreClock).

import (
	"fmt"
	"slices"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/perfevent"
	"github.com/cyclebench/cyclebench/results"
)

// plainCycles reports whether a run of f got its cycles from the ns/op of
// a plain benchmark (gotest.SourceNsRuler).
func plainCycles(f results.File) bool {
	for _, e := range f.Entries {
		for _, r := range e.Runs {
			if r.CyclesSource == gotest.SourceNsRuler {
				return true
			}
		}
	}
	return false
}

// plainClock is the core clock that gives plain benchmarks cycles: on the
// highest-numbered CPU this process may use (the one harness.Report picks
// in the test binary, pinned there with it), with the counter frequency
// of this machine's calibration. nil, with the reason, when there is no
// calibration to convert ns to ticks.
func plainClock() (*gotest.CoreClock, error) {
	cal, _, err := calibrateOn(-1)
	if err != nil {
		return nil, err
	}
	if !(cal.Frequency.Hz > 0) {
		return nil, fmt.Errorf("no counter frequency")
	}
	cpu := -1
	if allowed, err := sys.allowed(); err == nil && len(allowed) > 0 {
		cpu = slices.Max(allowed)
	}
	hz := cal.Frequency.Hz
	return &gotest.CoreClock{CPU: cpu, CounterHz: hz, Read: func() (float64, error) {
		cc, err := calibrate.MeasureCoreClock(calibrate.CoreOptions{CounterHz: hz})
		if err != nil {
			return 0, err
		}
		if cc.Refused() {
			return 0, cc.Err
		}
		return cc.CyclesPerTick, nil
	}}, nil
}

// plainCyclesSource says where a plain benchmark's cycles come from, for
// the report's header: the ruler, and why not a hardware cycles counter.
func plainCyclesSource() string {
	why := "not counted for the timed part of a testing.B benchmark yet"
	if evs, err := perfevent.Parse("cycles"); err == nil {
		if g, err := perfevent.Open(evs); err != nil {
			why = err.Error()
		} else {
			g.Close()
		}
	}
	return gotest.SourceNsRuler + " (ns/op × the core clock read on the benchmark's CPU before and after its run; no PMU cycles: " + why + ")"
}
