package harness

// Figures of the whole sampling loop, read around it and never inside a
// timed region: the measuring thread's CPU time and the process's
// utilisation, and the confirmation of a counter frequency the calibration
// took at once.

import (
	"errors"
	"fmt"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
)

// minCPUShare is the share of the wall time the measuring thread must spend
// on the CPU during the sampling loop (Result.ThreadCPUNsPerCall over
// Result.WallNsPerCall); below it Measure warns with [ErrBlocks]. Half
// leaves room for preemption by other processes on a busy machine while
// still flagging a kernel that sleeps most of the time.
const minCPUShare = 0.5

// loopFigures are the CPU time and utilisation of the whole loop.
type loopFigures struct {
	threadCPU    time.Duration
	threadSource string
	util         cputime.Utilisation
}

// loopClocks are the readings taken before the loop: the thread-CPU
// interval lies inside the wall interval, which lies inside the
// utilisation interval.
type loopClocks struct {
	util     *cputime.Sampler
	utilErr  error
	start    time.Time
	cpuStart cputime.Times
	cpuErr   error
}

// startLoopClocks reads the clocks before the loop, the wall clock last.
func startLoopClocks() loopClocks {
	var c loopClocks
	c.util, c.utilErr = cputime.StartUtilisation()
	c.start = time.Now()
	c.cpuStart, c.cpuErr = cputime.Thread()
	return c
}

// stopLoopClocks reads the clocks after the loop and sets e.wall and e.loop
// (threadCPUShare judges the thread's share), with their warnings.
func (e *engine) stopLoopClocks(c loopClocks) {
	cpuEnd, cpuEndErr := cputime.Thread()
	e.wall = time.Since(c.start)
	var w []error
	e.loop.threadCPU, e.loop.threadSource, w = threadCPUShare(c.cpuStart, cpuEnd, errors.Join(c.cpuErr, cpuEndErr), e.wall)
	e.warnings = append(e.warnings, w...)
	utilErr := c.utilErr
	if utilErr == nil {
		var u cputime.Utilisation
		if u, utilErr = c.util.Stop(); utilErr == nil {
			e.loop.util = u
		}
	}
	if utilErr != nil {
		e.warnings = append(e.warnings, fmt.Errorf("harness: no cpu utilisation for the sampling loop: %w", utilErr))
	}
}

// threadCPUShare is the measuring thread's CPU time over the sampling
// loop from its readings before and after (err: either failed), with its
// clock's name, and a warning when it cannot be told or when the thread
// ran for less than minCPUShare of the loop's wall time ([ErrBlocks]).
func threadCPUShare(before, after cputime.Times, err error, wall time.Duration) (time.Duration, string, []error) {
	switch {
	case err != nil:
		return 0, "", []error{fmt.Errorf("harness: no thread cpu time for the sampling loop: %w", err)}
	case before.Source != after.Source:
		return 0, "", []error{fmt.Errorf("harness: no thread cpu time for the sampling loop: the source changed from %s to %s", before.Source, after.Source)}
	case after.Total < before.Total:
		return 0, "", []error{fmt.Errorf("harness: no thread cpu time for the sampling loop: %s went backwards (%v to %v)", before.Source, before.Total, after.Total)}
	}
	cpu := after.Total - before.Total
	if wall > 0 && float64(cpu) < minCPUShare*float64(wall) {
		return cpu, string(before.Source), []error{fmt.Errorf("%w: the measuring thread ran %v of cpu time in %v of wall time (%.3g%%, under %.0f%%) over the sampling loop",
			ErrBlocks, cpu.Round(time.Microsecond), wall.Round(time.Microsecond), 100*float64(cpu)/float64(wall), 100*minCPUShare)}
	}
	return cpu, string(before.Source), nil
}

// confirmFrequency confirms a kernel frequency the calibration took at
// once (calibrate.Options.DeferConfirm): the bracket it opened closes now,
// over the whole measurement, so that a first result waits for no
// confirmation.
func (e *engine) confirmFrequency() {
	if !e.cal.Pending() {
		return
	}
	c, err := calibrate.Confirmed(e.cal)
	if err != nil {
		e.warnings = append(e.warnings, fmt.Errorf("harness: the kernel's counter frequency, used as it is, could not be confirmed: %w", err))
		return
	}
	e.cal, e.ctr.hz = c, c.Frequency.Hz
	e.warnings = append(e.warnings, c.Frequency.Warnings...)
}
