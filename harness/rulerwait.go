package harness

// What the ruler's streams give a measurement: the engine asks
// calibrate.DecideCycles, the one answer to whether there is a cycle
// figure, when its targets have converged (wait, or stop) and when its
// loop has ended (accept, fall back or refuse); this file turns the answer
// into the engine's figures and the warnings' prose.

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// Waits counts the measurements in a row of one run that waited the whole
// budget for a shared core to be free (the ruler's chains to agree, the
// probe to run at its best) and still found it shared; from
// calibrate.RulerThresholds.GiveUp on, the rest of the run does not wait,
// and still labels its figures. A core shared for the whole of a run (a
// busy sibling CPU that shares the physical core) would otherwise cost
// every measurement the whole budget. The caller owns it, not the
// process: a count kept across calls made a measurement's wait, and so its
// figure, depend on what the process had measured before. A run shares one
// through Config.Waits (a validation, a CLI run, a CPE call's sweeps); a
// Measure without one waits at most the budget on its own. The zero value
// is ready; it is safe for concurrent use.
type Waits struct {
	mu     sync.Mutex
	inVain int
}

// GobEncode encodes nothing: a run's count is not part of a result that
// travels between processes (Result.Config drops it), but the type must be
// encodable for a Config to be.
func (w *Waits) GobEncode() ([]byte, error) { return []byte{}, nil }

// GobDecode decodes nothing (see GobEncode).
func (w *Waits) GobDecode([]byte) error { return nil }

func (w *Waits) get() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inVain
}

// record counts a measurement that waited in vain (or resets the count).
func (w *Waits) record(inVain bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if inVain {
		w.inVain++
	} else {
		w.inVain = 0
	}
}

// decideCycles asks calibrate.DecideCycles about the ruler's figures as
// they stand; mayWait is false once the loop has ended.
func (e *engine) decideCycles(mayWait bool, waited time.Duration) calibrate.CycleVerdict {
	r := e.rl.r
	// Under emulation the probe's cost is the emulator's, which says
	// nothing of a shared core: it is not judged. What is judged is the
	// probe beside the targets' best samples (beside.go).
	alone := 0.0
	if e.cal.CPU.Emulated == "" {
		alone = calibrate.ProbeAlone()
	}
	f := r.Figures()
	if p := e.probeBesideTicks(); !math.IsNaN(p) {
		f.ProbeTicks = p
	}
	return calibrate.DecideCycles(calibrate.CycleInputs{
		Ruler: f, Converged: r.Converged(), Resolution: r.Resolution(e.rl.q),
		Calibration: e.cal.Core, ProbeAlone: alone, MayWait: mayWait, Waited: waited, WaitsInVain: e.rl.waits.get(),
	}, calibrate.DefaultRulerThresholds)
}

// rulerWaits reports whether the loop, which decideStop ends for why, goes
// on for the core to be free ([decideWait]); now is the loop's elapsed time
// and allowed false for a Compare's pairs and with Config.NoSettle.
func (e *engine) rulerWaits(why stopReason, allowed bool, now time.Duration) bool {
	rl := &e.rl
	if rl.r == nil {
		return false
	}
	var waited time.Duration
	if rl.waitFrom >= 0 {
		waited = now - rl.waitFrom
		rl.waited = waited
	}
	wait := decideWait(why, waitState{
		Waiting: rl.waitFrom >= 0, Waited: waited, Budget: calibrate.DefaultRulerThresholds.Wait, Converged: e.allConverged(),
		Shared: func() bool { return e.decideCycles(allowed, waited).Action == calibrate.CyclesWait },
	})
	if wait && rl.waitFrom < 0 {
		rl.waitFrom = now
	}
	return wait
}

// finishRuler takes the final answer on the ruler's streams: the cycles
// per tick and their warnings, and a warning (ErrRulerLag) when the ADD
// chain still lags its IMUL chain, for the cycle figures it gives; it keeps
// the caller's count of waits in vain. allowed is as for rulerWaits.
func (e *engine) finishRuler(allowed bool) {
	rl := &e.rl
	if rl.r == nil {
		return
	}
	v := e.decideCycles(false, rl.waited)
	f := cycleFigures(v, e.cal.Core)
	rl.verdict = v.Ruler
	rl.cpt, rl.from, rl.checked, rl.refOK = f.cyclesPerTick, f.from, f.checked, f.refOK
	e.warnings = append(e.warnings, f.warnings...)
	rl.probe, rl.probeExcess = v.Probe, v.ProbeExcess
	// The probe's best sample anywhere in the measurement teaches the
	// machine's best, only from a ruler that was checked, not lagging and
	// not a test's stand-in: a reading too low would make later figures
	// look shared.
	if f := rl.r.Figures(); v.Action == calibrate.CyclesAccept && v.Checked && v.Ruler.Converged && !v.Lagging && rulerChains.add == nil && rulerChains.imul == nil {
		calibrate.NoteProbe(f.ProbeTicks / f.AddTicksPerOp)
		if !v.SharedCore() {
			for _, p := range []*hostProbe{&e.room, &e.calls} {
				calibrate.NoteUsual(p.name, p.calls, p.level(1/f.AddTicksPerOp))
			}
		}
	}
	calls := e.labelCalls(v)
	if !v.SharedCore() {
		rl.waits.record(calls)
		return
	}
	th := calibrate.DefaultRulerThresholds
	var why string
	switch {
	case rl.waitFrom >= 0 && rl.waited >= th.Wait:
		rl.waits.record(true)
		why = fmt.Sprintf(", after waiting %v for them to agree", rl.waited.Round(time.Millisecond))
	case rl.waitFrom >= 0:
		why = fmt.Sprintf(", after waiting %v for them to agree (the measurement's time ran out)", rl.waited.Round(time.Millisecond))
	case !allowed && e.cfg.NoSettle:
		why = " (not waited for: Config.NoSettle)"
	case !allowed:
		why = " (a comparison does not wait for them: its ratio does not depend on the ruler)"
	case v.GivenUp:
		why = fmt.Sprintf(" (not waited for: the last %d measurements of this run waited %v each in vain)", th.GiveUp, th.Wait)
	}
	if v.Action != calibrate.CyclesAccept || rl.cpt <= 0 {
		return
	}
	if v.Shared {
		rl.shared = true
		refused := ""
		if e.cfg.RefuseShared {
			rl.cpt, refused = 0, "; no cycle figure (Config.RefuseShared)"
		}
		e.warnings = append(e.warnings, fmt.Errorf("%w: the probe (a loop of one taken branch per iteration) ran %.0f%% slower than its best on this machine (%.3f against %.3f cycles per iteration)%s: another hardware thread had part of the core, and code bound by the front end or by branches ran slower than with the core alone%s",
			ErrSharedCore, 100*v.ProbeExcess, v.Probe, v.Probe/(1+v.ProbeExcess), why, refused))
	}
	if !v.Lagging {
		return
	}
	e.warnings = append(e.warnings, fmt.Errorf("%w by %.2f%% (IMUL/ADD %.4f where the documented IMUL latency makes it %g; tolerance %.2f%%)%s: the core was probably shared, a busy SMT sibling delaying a dependent ADD chain more than an IMUL chain, so cycle figures may read up to %.2f%% low",
		ErrRulerLag, 100*v.Lag, v.Ruler.ImulAddRatio, v.Ruler.ImulLatency, 100*v.LagTolerance, why, 100*v.Lag))
}

// labelCalls labels the figures shared (Result.Shared, an ErrSharedCore
// warning; no cycle figure with Config.RefuseShared) when the calls probe
// waited in vain for the host's calls state to end (room.go), or did not
// wait (callsNoWait), and the calls probe beside the best samples still
// reads in the state (callsBeside: the state may end after the wait, and
// the best samples come from after it), unless the core-state probe
// labels them already; it reports whether it found the figures from the
// calls state.
func (e *engine) labelCalls(v calibrate.CycleVerdict) bool {
	rl, c := &e.rl, &e.calls
	if !c.gaveUp || rl.cpt <= 0 {
		return false
	}
	now := e.callsBesideTicks()
	if math.IsInf(now, 1) {
		now, _ = c.quartiles()
	} else if c.usual > 0 && !c.in(now, c.usual*float64(c.calls)/rl.cpt) {
		return false
	}
	if v.Action != calibrate.CyclesAccept || v.Shared {
		return true
	}
	rl.callsShared = true
	now *= rl.cpt / float64(c.calls)
	how := "slower than the rest of its samples"
	if c.usual > 0 {
		how = fmt.Sprintf("%.0f%% slower than usual on this machine (%.1f against %.1f cycles per call)", 100*(now/c.usual-1), now, c.usual)
	}
	why := fmt.Sprintf("for longer than the measurement waits (%v, or %d rounds)", roomWait, c.cap)
	if w := e.callsNoWait(); w != "" {
		why = "(not waited for: " + w + ")"
	}
	refused := ""
	if e.cfg.RefuseShared {
		rl.cpt, refused = 0, "; no cycle figure (Config.RefuseShared)"
	}
	e.warnings = append(e.warnings, fmt.Errorf("%w: the calls probe (calls of an %d-link continued ADD chain) ran %s %s: the host held the core in a state in which short calls and continued chains run slower%s",
		ErrSharedCore, callsLinks, how, why, refused))
	return true
}

// callsNoWait says why the calls probe does not wait for the calls state
// to end ("" when it does): where the ruler would not wait for a shared
// core either.
func (e *engine) callsNoWait() string {
	th := calibrate.DefaultRulerThresholds
	switch {
	case e.spec.extra != nil:
		return "a comparison does not wait for it"
	case e.cfg.NoSettle:
		return "Config.NoSettle"
	case e.rl.waits != nil && e.rl.waits.get() >= th.GiveUp:
		return fmt.Sprintf("the last %d measurements of this run waited %v each in vain", th.GiveUp, th.Wait)
	}
	return ""
}

// rulerFigures is what the answer on the ruler gives the figures of a
// measurement: core cycles per tick (0 when there is none), where they
// came from (cyclesRuler or cyclesCalibration), whether a second chain
// checked them, whether both ADD streams converged, and the warnings.
type rulerFigures struct {
	cyclesPerTick  float64
	from           string
	checked, refOK bool
	warnings       []error
}

// cycleFigures words the final answer v of calibrate.DecideCycles, given
// the calibration's own ruler cal: the ruler's figure (warning when its
// streams did not converge, or when it is unchecked here while the
// calibration's was checked); the calibration's figure when the ruler
// gave no slope; otherwise no figure, and a warning naming both chains.
func cycleFigures(v calibrate.CycleVerdict, cal calibrate.CoreClock) rulerFigures {
	var f rulerFigures
	switch v.Action {
	case calibrate.CyclesAccept, calibrate.CyclesWait:
		f = rulerFigures{cyclesPerTick: v.CyclesPerTick, from: cyclesRuler, checked: v.Checked, refOK: v.Ruler.Converged}
		if !v.Ruler.Converged {
			f.warnings = append(f.warnings, fmt.Errorf("%w: the reference chain did not converge; the cycle estimate is less certain", ErrNoCycles))
		}
		if !v.Checked && cal.Checked {
			f.warnings = append(f.warnings, fmt.Errorf("%w: %w", ErrNoCycles, v.Reason))
		}
	case calibrate.CyclesFallBack:
		f = rulerFigures{cyclesPerTick: v.CyclesPerTick, from: cyclesCalibration, checked: v.Checked}
		f.warnings = append(f.warnings, fmt.Errorf("%w: the reference chain gave no usable slope; the calibration's %.4f cycles/tick is used", ErrNoCycles, f.cyclesPerTick))
	default:
		why := "the calibration's chains agreed a moment before: measure again to tell a busy moment from a fact about this CPU"
		if cal.Refused() {
			why = "the calibration's chains were refused too: " + errorText(cal.Err)
		}
		f.warnings = append(f.warnings, fmt.Errorf("%w: %w (%s)", ErrNoCycles, v.Reason, why))
	}
	return f
}
