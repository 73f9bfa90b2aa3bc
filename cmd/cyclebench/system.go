package main

// This file holds pinning and the system: what the subcommands read from
// the machine, replaceable by tests.

import (
	"errors"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/perfevent"
)

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
	siblings    func(cpu int) []int // the CPUs sharing a core with cpu; nil: unknown
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
		siblings:    reports.ThreadSiblings,
		goVersion:   runtime.Version(),
		goos:        runtime.GOOS,
		goarch:      runtime.GOARCH,
	}
}
