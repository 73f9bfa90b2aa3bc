package harness

import (
	"time"

	"github.com/cyclebench/cyclebench/stats"
)

// Result is what [Measure] found. Ticks are counter ticks (see package
// tsc); per-call figures have the overhead of the timing loop subtracted.
type Result struct {
	Name string
	// Ticks is counter ticks per call: (v1(target) − v1(empty)) / Repeat.
	Ticks float64
	// Nanoseconds is Ticks converted with TicksPerSecond.
	Nanoseconds float64
	// Cycles is estimated core cycles per call: Ticks × CyclesPerTick. 0
	// when there is no estimate (Config.NoCycles, or see Warnings).
	Cycles float64
	// Converged reports whether the K best target samples agreed within
	// the tolerance before MaxSamples or MaxTime.
	Converged bool
	// Samples is target samples taken (discarded ones included).
	Samples int
	// Discarded is target samples thrown away because start and stop ran
	// on different CPUs, or not on the pinned one.
	Discarded int
	// Warnings holds soft problems: not converged, not pinned, priority not
	// raised, many discards, calibration warnings.
	Warnings []error

	// Best is the K smallest target samples, ascending, in ticks per
	// sample (Repeat calls, overhead not subtracted).
	Best []float64
	// Spread is (vK − v1)/v1 of Best.
	Spread float64
	// Repeat is R, the calls per sample.
	Repeat int
	// OverheadTicks is v1 of the same loop around an empty function, in
	// ticks per sample: what was subtracted.
	OverheadTicks float64
	// OverheadConverged reports whether the empty-loop stream converged.
	OverheadConverged bool
	// TicksPerSecond is the counter frequency used for Nanoseconds.
	TicksPerSecond float64
	// FrequencySource says where TicksPerSecond came from.
	FrequencySource string
	// CyclesPerTick is the core-clock ratio measured by the ADD chain
	// interleaved with the target (0 with NoCycles).
	CyclesPerTick float64
	// ReferenceConverged reports whether both reference-chain streams converged.
	ReferenceConverged bool
	// Step is the counter's step in ticks.
	Step float64

	// Elements is Config.Elements; the per-element figures below are 0
	// when it is 0.
	Elements                                        float64
	TicksPerElement, NsPerElement, CyclesPerElement float64

	// Summary describes every accepted target sample converted to ticks
	// per call (overhead subtracted): the distribution behind v1.
	Summary stats.Summary

	// CPU is the CPU the measurement ran on (-1 when not pinned).
	CPU int
	// Priority is the priority obtained ("normal", "high", "realtime").
	Priority string
	// Wall is the wall time of the measuring loop (after calibration).
	Wall time.Duration
	// Config is the configuration used, defaults filled in (functions,
	// context and calibration omitted).
	Config Config
}
