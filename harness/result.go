package harness

import (
	"errors"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/stats"
)

// ErrBlocks (a warning): the measuring thread consumed much less CPU time
// than wall time during the sampling loop, because the kernel sleeps or
// blocks, or because the thread was preempted. The tick figures then
// include time the CPU spent elsewhere.
var ErrBlocks = errors.New("harness: the kernel sleeps or blocks")

// MinCPUShare is the share of the wall time the measuring thread must spend
// on the CPU during the sampling loop (Result.ThreadCPUNsPerCall over
// Result.WallNsPerCall); below it Measure warns with [ErrBlocks]. Half
// leaves room for preemption by other processes on a busy machine while
// still flagging a kernel that sleeps most of the time.
const MinCPUShare = 0.5

// RulerTolerance is the relative tolerance the core-clock ruler converges
// to (at most Config.Epsilon). Every cycle figure is ticks times the ruler's
// cycles per tick, so two measurements of one piece of code can differ in
// cycles by about this much from their rulers alone: a systematic error to
// allow for when comparing results of separate runs
// (stats.CompareOptions.Systematic).
const RulerTolerance = refEpsilon

// Result is what [Measure] found. Ticks are counter ticks (see package
// tsc); per-call figures have the overhead of the timing loop subtracted.
type Result struct {
	Name string
	// Mode is the mode that produced the figures: Throughput (calls back to
	// back) or Latency (calls fenced apart).
	Mode Mode
	// Ticks is counter ticks per call: (v1(target) − v1(empty)) / Repeat.
	Ticks float64
	// Nanoseconds is Ticks converted with TicksPerSecond.
	Nanoseconds float64
	// Cycles is core cycles per call: Ticks × CyclesPerTick from the ruler,
	// or the PMU's count (see CyclesSource). 0 when there is no figure:
	// Config.NoCycles, or a ruler that was refused because its two chains
	// disagreed or implied an impossible core clock (a warning wrapping
	// ErrNoCycles names both chains' figures; Ruler.Err says why).
	Cycles float64
	// CyclesSource says where Cycles came from: CyclesRuler ("ruler"),
	// CyclesPMU ("pmu"), CyclesCalibration ("calibration": the ruler gave
	// no slope and the calibration's ratio, measured at another moment, was
	// used; a warning says so), or "" when there is no cycle figure.
	CyclesSource string
	// CyclesChecked reports that Cycles was cross-checked: the ruler's
	// register ADD chain and its IMUL chain (at this core's documented
	// latency) agreed, or the PMU counted them. False when there is no
	// figure and when the figure rests on the ADD chain alone (the
	// multiply latency of this core is not documented, or the chains are
	// the pure-Go fallback; a calibration warning wrapping
	// calibrate.ErrUnchecked says so).
	CyclesChecked bool
	// Counters are the extra events of Config.Events, per call.
	Counters []Counter
	// Converged reports whether the figure would come out the same again,
	// judged before MaxSamples or MaxTime: with a core-clock ruler, the
	// cycle figures of the even and the odd rounds (each from the best of
	// at least K samples) agree within the tolerance (HalvesApart); in
	// cycles, so that a core clock moving under the samples does not count
	// as disagreement. Without a ruler (Config.NoCycles), the K best target
	// samples agree within it in ticks (CS:APP's rule).
	Converged bool
	// HalvesApart is how far apart the cycle figures of the even and the
	// odd rounds are, relative to the smaller of the two halves' samples
	// per call as timed (overhead included, as ε applies); NaN without a
	// ruler.
	HalvesApart float64
	// Samples is target samples taken (discarded ones included).
	Samples int
	// Discarded is target samples thrown away: start and stop ran on
	// different CPUs or not on the pinned one (RDTSCP), or the thread was
	// switched out or took a page fault during the sample; Disturbed counts them by cause.
	Discarded int
	// Disturbed counts the discarded samples by cause.
	Disturbed Disturbances
	// Warnings holds soft problems: not converged, not pinned, priority not
	// raised, many discards, calibration warnings.
	Warnings []error

	// Best is the K smallest target samples, ascending, in ticks per call
	// with the timing loop's overhead not subtracted (a sample's ticks over
	// its R): the values the K-best rule judged.
	Best []float64
	// Spread is (vK − v1)/v1 of Best.
	Spread float64
	// Repeat is R, the calls per sample (the first of Repeats).
	Repeat int
	// Repeats are the R values sampled in turn: R, R+1, R+2, R+3 in
	// throughput mode when R ≥ 8 (so that every measurement sees every
	// remainder of the unrolled loop), else R alone. Ticks is the best of
	// the variants.
	Repeats []int
	// Retunes counts the times R was lengthened during the measurement
	// because the samples showed a coarser counter quantum than R had been
	// chosen for; Samples counts those since the last.
	Retunes int
	// OverheadTicks is v1 of the same loop around an empty function (fenced
	// in latency mode), in ticks per sample of Repeat calls: what was
	// subtracted from the first variant.
	OverheadTicks float64
	// OverheadConverged reports whether every empty-loop stream converged.
	OverheadConverged bool
	// Modes, when not nil, says that the per-call samples form two
	// clusters (in ticks per call, overhead subtracted): the function runs
	// in two modes (a warning wrapping ErrModes names them).
	Modes *Modes
	// TicksPerSecond is the counter frequency used for Nanoseconds.
	TicksPerSecond float64
	// FrequencySource says where TicksPerSecond came from.
	FrequencySource string
	// CyclesPerTick is the core-clock ratio measured by the ruler
	// interleaved with the target (0 with NoCycles, and when the ruler was
	// refused).
	CyclesPerTick float64
	// Ruler is the verdict of the core-clock ruler measured beside the
	// target (calibrate.DecideRuler): both chains' slopes in ticks per
	// link, their ratio, the core clock implied and, in Ruler.Err, why it
	// was refused or unchecked. Zero with NoCycles.
	Ruler calibrate.CoreClock
	// ReferenceConverged reports whether both reference-chain streams converged.
	ReferenceConverged bool
	// Step is the counter's step in ticks, as detected (tsc.Steps).
	Step float64
	// Quantum is the counter resolution R was chosen for, in ticks: the
	// larger of Step and the quantum the samples themselves showed.
	Quantum float64

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

	// Calls is the number of timed calls of f in the sampling loop,
	// discarded samples and samples before a retune included. The warm-up,
	// the choice of Repeat and the untimed calls before each sample of a
	// multi-function loop are not counted.
	Calls int64
	// ThreadCPU is the CPU time the measuring thread consumed during the
	// sampling loop, over the same interval as Wall: cputime.Thread read
	// just before and just after the loop, on the measuring thread. Besides
	// the Calls calls of f it includes everything else the loop runs on
	// that thread: Setup before each sample, the empty-function samples,
	// the reference chains, the counter reads and the bookkeeping. 0 when
	// the thread's CPU time could not be read (a warning says why).
	ThreadCPU time.Duration
	// ThreadCPUSource names the clock behind ThreadCPU ("" when it is 0
	// because it could not be read).
	ThreadCPUSource string
	// ThreadCPUNsPerCall is ThreadCPU / calls in nanoseconds, and
	// WallNsPerCall is Wall / calls, where calls counts the timed calls of
	// every function of the loop (Calls when there is one): figures for the
	// whole loop, so they exceed Nanoseconds by the loop's other work.
	// Their ratio is what matters: a kernel that computes keeps it near 1,
	// one that sleeps, blocks or is preempted drops it, and below
	// MinCPUShare the measurement warns with ErrBlocks. 0 when no call was
	// timed (and ThreadCPUNsPerCall 0 when ThreadCPU could not be read).
	ThreadCPUNsPerCall, WallNsPerCall float64
	// Utilisation is the CPU utilisation of the whole process during the
	// sampling loop (cputime.StartUtilisation just before the loop, Stop
	// just after): wall time, process CPU time, share of one CPU and of
	// all CPUs. Its Wall is 0 where utilisation is unsupported or /proc is
	// missing; a warning then says why. Its own Warnings are left in it.
	Utilisation cputime.Utilisation
	// Config is the configuration used, defaults filled in (functions,
	// context and calibration omitted).
	Config Config
}

// In returns the per-call cost in unit: "cycles", "ticks", or nanoseconds
// for anything else ("ns").
func (r Result) In(unit string) float64 {
	switch unit {
	case "cycles":
		return r.Cycles
	case "ticks":
		return r.Ticks
	}
	return r.Nanoseconds
}
