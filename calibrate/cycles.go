package calibrate

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// CycleAction is what [DecideCycles] says of a measurement's cycle figure.
type CycleAction int

// The answers of [DecideCycles].
const (
	// CyclesAccept: the ruler's cycles per tick stand (checked, or
	// unchecked where nothing can check them; the verdict says which).
	CyclesAccept CycleAction = iota
	// CyclesWait: sample on before deciding. The ruler's ADD chain lags its
	// IMUL chain (a shared core) and the wait's budget is not spent.
	CyclesWait
	// CyclesFallBack: the ruler gave no slope; the calibration's ratio,
	// measured at another moment, stands in for it.
	CyclesFallBack
	// CyclesRefuse: no cycle figure; the verdict's Reason says why.
	CyclesRefuse
)

var cycleActionNames = [...]string{"accept", "wait", "fall back", "refuse"}

func (a CycleAction) String() string {
	if a < 0 || int(a) >= len(cycleActionNames) {
		return fmt.Sprintf("CycleAction(%d)", int(a))
	}
	return cycleActionNames[a]
}

// CycleInputs is what [DecideCycles] judges: a ruler's figures as they
// stand, the calibration's own verdict, and the state of the wait.
type CycleInputs struct {
	// Ruler is the ruler's slopes as they stand ([Ruler.Figures]).
	Ruler RulerFigures
	// Converged reports that both ADD streams converged ([Ruler.Converged]).
	Converged bool
	// Resolution is the relative resolution of the ADD and IMUL slopes
	// ([Ruler.Resolution]); it widens the lag's tolerance. NaN, infinite or
	// negative counts as 0.
	Resolution float64
	// Calibration is the calibration's verdict on its own ruler
	// (Calibration.Core): the fallback when this ruler gives no slope.
	Calibration CoreClock
	// ProbeAlone is the best the core-state probe has shown on this
	// machine, in core cycles per iteration with the timing's fixed cost
	// ([Calibration.ProbeAlone]); 0 when unknown: the probe is then not
	// judged.
	ProbeAlone float64
	// MayWait reports that the caller can take more samples for a lag to
	// pass: false once its loop has ended, for a comparison's pairs (their
	// ratio does not depend on the ruler) and when the caller turned the
	// wait off.
	MayWait bool
	// Waited is how long the caller has waited so far.
	Waited time.Duration
	// WaitsInVain is how many measurements in a row just before this one,
	// in the same caller's run (a sweep's sizes), waited the whole budget
	// and still lagged: from RulerThresholds.GiveUp on, no wait.
	WaitsInVain int
}

// CycleVerdict is the answer of [DecideCycles].
type CycleVerdict struct {
	// Action is what to do with the figure.
	Action CycleAction
	// CyclesPerTick is core cycles per counter tick: the ruler's (Accept,
	// and Wait when it has one) or the calibration's (FallBack); 0 for
	// Refuse.
	CyclesPerTick float64
	// Checked reports that a second chain checked CyclesPerTick.
	Checked bool
	// Reason is why the figure is unchecked, a fallback or refused (the
	// ruler's verdict's Err); nil for a checked figure. A lag is not a
	// reason: see Lagging.
	Reason error
	// Ruler is [DecideRuler]'s verdict on the ruler's figures, with
	// Converged set.
	Ruler CoreClock
	// Lag is how much slower the ruler's register ADD chain ran than its
	// IMUL chain implies, as a fraction of its slope: 1 − (IMUL/ADD) /
	// latency. LagTolerance is RulerThresholds.Lag plus the slopes'
	// resolution. Both are NaN when there is nothing to judge (no
	// documented latency, a chain without a slope, the pure-Go chains).
	Lag, LagTolerance float64
	// Lagging reports Lag > LagTolerance: the core was probably shared,
	// and cycle figures of the ADD ruler read low by about Lag.
	Lagging bool
	// Probe is the core-state probe's best in this measurement, in core
	// cycles per iteration (the ruler's cycles per tick; NaN without a
	// probe sample or an ADD slope), and ProbeExcess how much slower it ran
	// than ProbeAlone: Probe/ProbeAlone − 1 (NaN when not judged).
	Probe, ProbeExcess float64
	// Shared reports ProbeExcess > RulerThresholds.Shared: the core was
	// shared with another thread for the whole measurement, and code bound
	// by the front end or by branches ran slower than with the core alone.
	// Unlike Lagging, it does not make the cycles per tick read wrong: the
	// code really had less of a core.
	Shared bool
	// GivenUp reports that the wait was skipped because WaitsInVain
	// reached RulerThresholds.GiveUp.
	GivenUp bool
}

// Judged reports whether the lag could be judged.
func (v CycleVerdict) Judged() bool { return !math.IsNaN(v.Lag) }

// ProbeJudged reports whether the probe could be judged.
func (v CycleVerdict) ProbeJudged() bool { return !math.IsNaN(v.ProbeExcess) }

// SharedCore reports whether either sign says the core was shared: the
// ruler's ADD chain lagging its IMUL chain, or the probe running slow.
func (v CycleVerdict) SharedCore() bool { return v.Lagging || v.Shared }

// DecideCycles is the one answer to "is there a cycle figure, and which?"
// for a measurement with a ruler beside it. In order:
//
//   - Wait, when the caller may wait, the core was shared — the ADD chain
//     lags the IMUL chain by more than th.Lag plus the slopes' resolution
//     (a negative lag, the IMUL chain the slower, is never waited for), or
//     the probe ran more than th.Shared slower than its best on the
//     machine — the wait has lasted less than th.Wait and fewer than
//     th.GiveUp measurements before it waited in vain;
//   - Accept, when [DecideRuler] accepts the ruler (checked, or unchecked
//     where nothing can check it);
//   - FallBack, when the ruler gave no usable ADD slope ([ErrUnstable])
//     and the calibration's own ruler was accepted;
//   - Refuse otherwise.
//
// The two signs of a shared core are one rule: either makes the caller
// wait, and the verdict says which was seen (Lagging, Shared) for the
// figure's label. It is a pure function.
func DecideCycles(in CycleInputs, th RulerThresholds) CycleVerdict {
	rv := DecideRuler(in.Ruler, th)
	rv.Converged = in.Converged
	v := CycleVerdict{Ruler: rv, Reason: rv.Err}
	v.Lag, v.LagTolerance = rulerLag(in.Ruler, in.Resolution, th.Lag)
	v.Lagging = v.Lag > v.LagTolerance
	v.Probe, v.ProbeExcess = probeExcess(in.Ruler, in.ProbeAlone, th.Shared)
	v.Shared = v.ProbeExcess > th.Shared
	v.GivenUp = v.SharedCore() && th.GiveUp > 0 && in.WaitsInVain >= th.GiveUp
	switch {
	case !rv.Refused():
		v.Action, v.CyclesPerTick, v.Checked = CyclesAccept, rv.CyclesPerTick, rv.Checked
	case errors.Is(rv.Err, ErrUnstable) && !in.Calibration.Refused():
		v.Action, v.CyclesPerTick, v.Checked = CyclesFallBack, in.Calibration.CyclesPerTick, in.Calibration.Checked
	default:
		v.Action = CyclesRefuse
	}
	if in.MayWait && v.SharedCore() && !v.GivenUp && in.Waited < th.Wait {
		v.Action = CyclesWait
	}
	return v
}

// rulerLag returns how much slower the ADD chain ran than the IMUL chain
// implies, and the tolerance it is judged with (agree plus the slopes'
// resolution); NaN and NaN when there is nothing to judge.
func rulerLag(f RulerFigures, resolution, agree float64) (lag, tol float64) {
	if !f.Exact || !usable(f.AddTicksPerOp) || !usable(f.ImulTicksPerOp) || !(f.ImulLatency > 0) {
		return math.NaN(), math.NaN()
	}
	if !(resolution >= 0) || math.IsInf(resolution, 0) {
		resolution = 0
	}
	return 1 - f.ImulTicksPerOp/f.AddTicksPerOp/f.ImulLatency, agree + resolution
}

// probeExcess returns the probe's best in cycles per iteration (its ticks
// over the ADD chain's ticks per link; NaN without a probe sample or an ADD
// slope) and how much slower that is than alone (NaN when there is
// nothing to judge: no threshold, no best on the machine, no probe).
func probeExcess(f RulerFigures, alone, shared float64) (probe, excess float64) {
	if !usable(f.ProbeTicks) || !usable(f.AddTicksPerOp) {
		return math.NaN(), math.NaN()
	}
	probe = f.ProbeTicks / f.AddTicksPerOp
	if !(shared > 0) || !usable(alone) {
		return probe, math.NaN()
	}
	return probe, probe/alone - 1
}

// Slope is a chain's cost in ticks per link from its best samples at two
// lengths, links apart: (long − short) / links. It is NaN when a sample is
// missing (NaN or +Inf) or links ≤ 0; it may be 0 or negative (noise),
// which [DecideRuler] refuses. [Ruler] and the harness's halves of a
// measurement use it alike.
func Slope(short, long, links float64) float64 {
	if math.IsNaN(short) || math.IsNaN(long) || math.IsInf(short, 1) || math.IsInf(long, 1) || !(links > 0) {
		return math.NaN()
	}
	return (long - short) / links
}
