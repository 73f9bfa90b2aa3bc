package harness

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
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

// Result is what [Measure] found. Ticks are counter ticks (see package
// tsc); per-call figures have the timing loop's overhead subtracted (see
// OverheadTicks: the counter reads in throughput mode, a fenced empty call
// in latency mode).
type Result struct {
	Name string
	// Mode is the mode that produced the figures: Throughput (calls back to
	// back) or Latency (calls fenced apart).
	Mode Mode
	// Ticks is counter ticks per call: (v1(target) − OverheadTicks) / Repeat,
	// the smallest over the R variants; or, when the code has no floor
	// (Quantile > 0), that quantile of the samples per call, overhead
	// subtracted.
	Ticks float64
	// Nanoseconds is Ticks converted with TicksPerSecond.
	Nanoseconds float64
	// Cycles is core cycles per call: Ticks × CyclesPerTick from the ruler,
	// or the PMU's count (see CyclesSource). 0 when there is no figure:
	// Config.NoCycles, or a ruler that was refused because its two chains
	// disagreed or implied an impossible core clock (a warning wrapping
	// ErrNoCycles names both chains' figures; Ruler.Err says why).
	Cycles float64
	// CyclesSource says where Cycles came from: "ruler" (the core-clock
	// ruler measured beside the target), "pmu" (the processor's cycle
	// counter), "calibration" (the ruler gave no slope and the
	// calibration's ratio, measured at another moment, was used; a warning
	// says so), or "" when there is no cycle figure.
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
	// as judged when the loop stopped (MaxTime and MaxSamples end it
	// unconverged; the wait for the ruler may go past MaxSamples). With the
	// ruler (the default, whether or not its cycle figure was accepted), a
	// target has converged when the cycle figures of its even and its odd
	// rounds agree: each half's best target sample less its best overhead
	// sample, converted with that half's own ADD-chain slope, each half
	// holding at least K target samples, within ε of the smaller figure as
	// timed (overhead included) or within AbsSteps counter quanta per
	// sample; HalvesApart says how far apart they are. The K best samples
	// need not agree in ticks: the core clock moves under them. With
	// Config.NoCycles it is CS:APP's rule in ticks: (1+ε)·v1 ≥ vK, or vK −
	// v1 ≤ AbsSteps counter steps. A figure from the samples' low quantile
	// (Quantile > 0: no floor) has converged when the quantiles of the even
	// and the odd rounds agree; HalvesApart still measures the best
	// samples' halves. The overhead's and the ruler's own streams do not
	// count (OverheadConverged, ReferenceConverged).
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
	// Overlap is what a sample's two ends added to R calls back to back, in
	// ticks (throughput mode, R chosen): the overlap with its neighbours
	// that the sample's first and last calls cannot have, measured before
	// sampling from the best samples of R and 4R calls. R was raised so
	// that Overlap/R is at most 0.025% of the figure (or to a sample of
	// 1 ms, with an ErrOverlap warning), and so that a sample spans 20 µs
	// at least; 0 when the two lengths showed none beyond a few counter
	// quanta, or R was given (Config.Repeat, a Setup) or not checked.
	Overlap float64
	// Retunes counts the times R was lengthened during the measurement
	// because the samples showed a coarser counter quantum than R had been
	// chosen for; Samples counts those since the last.
	Retunes int
	// OverheadTicks is what was subtracted from every sample, in ticks per
	// sample: in throughput mode v1 of the empty region (the counter reads
	// and the loop's entry and exit, no call), so that Ticks is what a call
	// costs back to back, the call included; in latency mode v1 of the
	// same loop of Repeat fenced calls of an empty function, so that Ticks
	// is what a fenced call costs beyond a fenced empty call.
	OverheadTicks float64
	// OverheadConverged reports whether the overhead's stream converged.
	OverheadConverged bool
	// Modes, when not nil, says that the per-call samples form two
	// clusters (in ticks per call, overhead subtracted): the function runs
	// in two modes (a warning wrapping ErrModes names them).
	Modes *Modes
	// TicksPerSecond is the counter frequency used for Nanoseconds.
	TicksPerSecond float64
	// FrequencySource says where TicksPerSecond came from.
	FrequencySource string
	// CyclesPerTick is core cycles per counter tick behind Cycles: the
	// ruler's, measured interleaved with the target, or the calibration's
	// ratio, measured at another moment, when the ruler gave no slope
	// (CyclesSource "calibration"). 0 with NoCycles and when there is no
	// cycle figure.
	CyclesPerTick float64
	// Ruler is the verdict of the core-clock ruler measured beside the
	// target (calibrate.DecideCycles, calibrate.DecideRuler): both chains' slopes in ticks per
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

	// Elements is Target.Elements; the per-element figures below are 0
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
	// RulerWait is how long the loop went on, after every stream had
	// converged, for the ruler's register ADD chain to stop lagging its IMUL
	// chain (0 when it did not wait): a lag beyond 0.1% and the slopes'
	// resolution (calibrate.DefaultRulerThresholds) means a shared core (a busy SMT sibling delays a dependent
	// ADD chain more than an IMUL chain), which makes cycle figures read
	// low. It waits at most 250 ms; a lag left at the end is a warning
	// (ErrRulerLag).
	RulerWait time.Duration
	// Shared reports that the core-state probe, sampled in the rounds that
	// gave the target's best samples, ran more than calibrate.DefaultRulerThresholds.Shared
	// slower than its best on this machine (calibrate.ProbeAlone) to the
	// end of the measurement, after the wait: another hardware thread had
	// part of the core, and the figure is that of the code with less of a
	// core, not its cost (an ErrSharedCore warning says by how much).
	// Code bound by the front end or by branches reads slow by up to the
	// probe's excess; dependent chains barely move. In throughput mode it
	// also reports that the calls probe beside the best samples read in
	// the host's calls state after the wait (Disturbances.Calls), where
	// short calls run 40 to 80% slower and long continued chains 0.3%.
	Shared bool
	// Room reports that in throughput mode the room probe read the host's
	// other state, the core with more room than usual, for longer than the
	// measurement waits (an ErrRoom warning): calls that overlap the next
	// may read low (on the Intel Cascade Lake guest, restarted 1000-link
	// chains by 0.3%). Measure again: such moments come and go within
	// seconds.
	Room bool
	// Probe is the probe beside the target's best samples in core cycles
	// per iteration (calibrate.ProbeIters iterations, the timing's fixed
	// cost included): the lowest of the probe's samples in the rounds that
	// gave the K best samples (with Compare, of the target whose probe read
	// slowest), and ProbeExcess how much slower that is than its best on
	// this machine: Probe/calibrate.ProbeAlone() − 1 (0.02: 2% slower).
	// Probe is NaN without a ruler (Config.NoCycles) or a probe sample;
	// ProbeExcess also when no best was known yet.
	Probe, ProbeExcess float64
	// FloorShare is the share of the accepted samples that came within ε
	// (or AbsSteps counter quanta) of the best one: how often the code
	// reached its floor. NaN when not judged (Compare's targets).
	FloorShare float64
	// Quantile is 0 when the figures come from the best sample (the K-best
	// rule), and 0.05 when they are the 5th percentile of the samples per
	// call: fewer than half of 200 or more samples (those taken with the
	// core alone) came within ε of the best, so the code's cost varies
	// from call to call (a branchy sort), the best was a rare call, and the
	// least of N samples falls as N grows; the 5th percentile repeats. A warning wrapping ErrNoFloor says so.
	// Converged then means the 5th percentiles of the even and the odd
	// rounds agree within ε.
	Quantile float64
	// StoppedBy names the limit that ended an unconverged measurement:
	// "MaxSamples" or "MaxTime" (the Config field); "" when it converged,
	// was cancelled, or the wait for the ruler ended it.
	StoppedBy string

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
	// half the measurement warns with ErrBlocks. 0 when no call was
	// timed (and ThreadCPUNsPerCall 0 when ThreadCPU could not be read).
	ThreadCPUNsPerCall, WallNsPerCall float64
	// Utilisation is the CPU utilisation of the whole process during the
	// sampling loop (cputime.StartUtilisation just before the loop, Stop
	// just after): wall time, process CPU time, share of one CPU and of
	// all CPUs. Its Wall is 0 where utilisation is unsupported or /proc is
	// missing; a warning then says why. Its own Warnings are left in it.
	Utilisation cputime.Utilisation
	// Config is the configuration used, defaults filled in (the
	// calibration omitted: TicksPerSecond and the fields beside it hold
	// what was used of it).
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

// Where a cycle figure came from (Result.CyclesSource).
const (
	cyclesRuler       = "ruler"       // the core-clock ruler measured beside the target
	cyclesPMU         = "pmu"         // the processor's cycle counter
	cyclesCalibration = "calibration" // the calibration's ratio: the ruler gave no slope
)

// measured is what the engine measured for one target, as plain figures:
// the input of buildResult, which tests fill by hand.
type measured struct {
	target   Target
	cfg      Config // defaults filled in
	cpu      int
	priority string

	step, hz        float64 // the counter's step in ticks and its frequency
	frequencySource string
	quantum         float64 // the counter quantum R was chosen for, ticks
	need            float64 // the ticks a sample should span
	forced          bool    // R was not chosen for this target alone
	repeat          int     // the base R
	repeats         []int   // the R of each variant

	wall                      time.Duration
	rulerWait                 time.Duration
	stoppedBy                 string // Result.StoppedBy
	shared                    bool
	room                      bool // the room probe's wait ended in its state (ErrRoom)
	probe, probeExcess        float64
	taken, discarded, retunes int
	overlap                   overlapDecision
	dist                      Disturbances
	monitored, faultsKept     bool
	kept                      int       // samples kept by the K-best streams
	converged                 bool      // the figure would come out the same again (engine.converged)
	halves                    bool      // converged was judged by the halves (a ruler was measured)
	halvesApart               float64   // how far apart the halves' cycle figures are, NaN without both
	best                      []float64 // the K best, ticks per call, gross
	spread                    float64   // (vK − v1)/v1 of best
	vmin                      []float64 // the smallest sample of each variant, ticks
	overheads                 []float64 // the overhead's best of each variant, ticks
	overheadConverged         bool
	calls, allCalls           int64 // calls of this target, of every target of the loop
	threadCPU                 time.Duration
	threadSource              string
	util                      cputime.Utilisation
	perCall                   []float64 // the accepted samples, ticks per call, overhead subtracted
	floorJudged               bool      // the floor check applies (a target measured alone)
	alone                     []float64 // the samples it judges (floor.go: finalFloor)
	nAlone                    int       // how many samples came from rounds with the core alone (target.alone)
	floorShared               bool      // without a floor, and most samples from shared rounds (floorSharedShare)
	floorShare                float64   // share of perCall within the tolerance of the best (floor.go)
	floor                     floorVerdict

	verdict       calibrate.CoreClock // the ruler's verdict
	cyclesPerTick float64             // 0 when the ruler was refused
	cyclesFrom    string              // cyclesRuler or cyclesCalibration
	checked       bool                // a second chain checked cyclesPerTick
	refOK         bool                // both ADD streams converged
	counters      []Counter           // Config.Events per call
}

// buildResult turns what was measured into the Result and its warnings:
// the per-call figure is the best of the R variants' smallest samples less
// that variant's overhead, over R; the unit conversions; and a warning
// for each problem the figures show. It returns an error only when no
// sample was usable (the Result then holds what is known).
func buildResult(m measured) (Result, error) {
	cfg, name := m.cfg, m.target.name()
	res := Result{
		Name: m.target.Name, Mode: cfg.Mode, CPU: m.cpu, Priority: m.priority,
		Step: m.step, Quantum: m.quantum, TicksPerSecond: m.hz, FrequencySource: m.frequencySource,
		Elements: m.target.Elements, Repeat: m.repeat, Repeats: slices.Clone(m.repeats),
		Samples: m.taken, Discarded: m.discarded, Retunes: m.retunes, Overlap: m.overlap.Edge, Disturbed: m.dist,
		Converged: m.converged, HalvesApart: m.halvesApart, Best: slices.Clone(m.best), Spread: m.spread,
		OverheadTicks: math.NaN(), OverheadConverged: m.overheadConverged,
		Config: cfg.forResult(), Calls: m.calls,
		Wall: m.wall, RulerWait: m.rulerWait, StoppedBy: m.stoppedBy, FloorShare: m.floorShare, Shared: m.shared, Room: m.room, Probe: m.probe, ProbeExcess: m.probeExcess, ThreadCPU: m.threadCPU, ThreadCPUSource: m.threadSource, Utilisation: m.util,
	}
	res.Disturbed.Monitored = m.monitored
	if len(m.overheads) > 0 {
		res.OverheadTicks = m.overheads[0]
	}
	if m.allCalls > 0 {
		res.WallNsPerCall = float64(m.wall.Nanoseconds()) / float64(m.allCalls)
		if m.threadSource != "" {
			res.ThreadCPUNsPerCall = float64(m.threadCPU.Nanoseconds()) / float64(m.allCalls)
		}
	}
	if m.kept == 0 || math.IsNaN(res.OverheadTicks) {
		d := m.dist
		return res, fmt.Errorf("harness: %s: no usable sample in %d taken (%d discarded: %d migrations, %d context switches, %d page faults)", name, m.taken, m.discarded, d.Migrations, d.ContextSwitches, d.PageFaults)
	}
	res.Ticks = math.Inf(1)
	for j, r := range m.repeats {
		if j < len(m.vmin) && j < len(m.overheads) && !math.IsInf(m.vmin[j], 1) && !math.IsNaN(m.overheads[j]) {
			res.Ticks = math.Min(res.Ticks, (m.vmin[j]-m.overheads[j])/float64(r))
		}
	}
	if m.floor == floorNone {
		res.Ticks, res.Quantile = floorFigure(m.alone), floorQuantile
	}
	res.Nanoseconds = res.Ticks / m.hz * 1e9
	if !cfg.NoCycles {
		res.Ruler = m.verdict
		res.CyclesPerTick, res.ReferenceConverged = m.cyclesPerTick, m.refOK
		if m.cyclesPerTick > 0 {
			res.Cycles, res.CyclesSource, res.CyclesChecked = res.Ticks*m.cyclesPerTick, m.cyclesFrom, m.checked
		}
	}
	res.Counters = m.counters
	if pmu, ok := res.CounterValue("cycles"); ok && pmu > 0 {
		if res.Cycles > 0 && math.Abs(pmu/res.Cycles-1) > 0.01 {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: the PMU counts %.5g cycles per call and the ruler %.5g (%.2g%% apart)", ErrCounters, name, pmu, res.Cycles, 100*(pmu/res.Cycles-1)))
		}
		res.Cycles, res.CyclesSource, res.CyclesChecked = pmu, cyclesPMU, true
	}
	if m.faultsKept {
		res.Warnings = append(res.Warnings, fmt.Errorf("harness: %s: %d of %d samples took page faults; the faults are part of the function's cost (it touches new memory) and those samples were kept", name, m.dist.FaultingSamples, res.Samples))
	}
	if n := m.target.Elements; n > 0 {
		res.TicksPerElement, res.NsPerElement, res.CyclesPerElement = res.Ticks/n, res.Nanoseconds/n, res.Cycles/n
	}
	if s, err := stats.Summarize(m.perCall, 0.1, 0.9); err == nil {
		res.Summary = s
	}
	perCall := func(ticks float64) string {
		if m.cyclesPerTick > 0 {
			return fmt.Sprintf("%.5g cycles", ticks*m.cyclesPerTick)
		}
		return fmt.Sprintf("%.5g ticks", ticks)
	}
	if md, ok := findModes(m.perCall, cfg.Epsilon); ok {
		res.Modes = &md
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: the samples form two clusters, from %s and from %s per call (%d and %d of the lower 90%% of %d samples); the figure is the lower one",
			ErrModes, name, perCall(md.Low), perCall(md.High), md.NLow, md.NHigh, len(m.perCall)))
	}
	res.Warnings = append(res.Warnings, floorWarnings(m, name, perCall)...)
	if !res.Converged {
		spread := fmt.Sprintf("spread of the %d best is %.3g%%", cfg.K, res.Spread*100)
		switch {
		case m.floor == floorNone:
			spread = fmt.Sprintf("the %g%% quantiles of the even and the odd rounds do not agree", 100*floorQuantile)
		case m.halves && !math.IsNaN(m.halvesApart):
			spread = fmt.Sprintf("the cycle figures of the even and the odd rounds are %.3g%% apart", m.halvesApart*100)
		case m.halves:
			spread = fmt.Sprintf("fewer than K = %d usable samples in each half of the rounds", cfg.K)
		case math.IsNaN(res.Spread):
			spread = fmt.Sprintf("fewer than K = %d usable samples", cfg.K)
		}
		limit := ""
		if res.StoppedBy != "" {
			limit = "; stopped by " + res.StoppedBy
		}
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: %s after %d samples in %v (ε %.3g%%%s)", ErrNotConverged, name, spread, res.Samples, res.Wall.Round(time.Millisecond), cfg.Epsilon*100, limit))
	}
	if !res.OverheadConverged {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: the overhead subtracted (%s) did not converge in %v; the figure is less certain", ErrNotConverged, name, overheadName(cfg.Mode), res.Wall.Round(time.Millisecond)))
	}
	if d := res.Disturbed; res.Samples > 0 && float64(res.Discarded) > 0.1*float64(res.Samples) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: %d of %d samples (%.0f%%): %d context switches, %d migrations, %d page faults, %d in moments of room, %d in the calls state", ErrDiscards, name, res.Discarded, res.Samples, 100*float64(res.Discarded)/float64(res.Samples), d.ContextSwitches, d.Migrations, d.PageFaults, d.Room, d.Calls))
	}
	if o := m.overlap; o.Capped && o.PerCall > 0 {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: a sample's ends add %.0f ticks to its calls back to back; at %d calls per sample (%.3g ms) the figure may read %.2g%% high",
			ErrOverlap, name, o.Edge, o.R, float64(o.R)*o.PerCall/m.hz*1e3, 100*o.Edge/(float64(o.R)*o.PerCall)))
	}
	// An automatic R aims at the need from the best of the probe's samples,
	// so v1 can fall a little short of it; only a forced R is held to it.
	if len(m.vmin) > 0 && m.quantum > 0 {
		if v1 := m.vmin[0]; v1 < m.need && (m.forced || v1 < m.need/2) {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: a sample of %d calls spans %.0f ticks (%.0f counter quanta of %.3g ticks), fewer than the %.0f that make one quantum ≤ ε/10 of a sample",
				ErrTooShort, name, m.repeat, v1, v1/m.quantum, m.quantum, regionSteps(cfg.MinRegionSteps, cfg.Epsilon)))
		}
	}
	return res, nil
}

// errorText is err's message without the package prefix it starts with.
func errorText(err error) string {
	if err == nil {
		return "no reason given"
	}
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 && !strings.Contains(s[:i], " ") {
		return s[i+2:]
	}
	return s
}

// overheadName names what was subtracted as the timing loop's overhead in
// mode (overheadRepeat).
func overheadName(mode Mode) string {
	if mode == Latency {
		return "the fenced empty loop"
	}
	return "the empty region between the counter reads"
}
