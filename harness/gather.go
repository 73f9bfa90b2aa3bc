package harness

// Gathering: what the engine measured for one target, as the plain figures
// buildResult (result.go) turns into a Result.

import (
	"math"
	"slices"
)

// result turns a target's streams into its Result (see buildResult). The
// loop's own warnings (pinning, calibration, ruler, CPU share) are in
// e.warnings, not repeated here.
func (e *engine) result(t *target) (Result, error) {
	return buildResult(e.measured(t))
}

// measured gathers what the engine measured for t, as plain figures.
func (e *engine) measured(t *target) measured {
	m := measured{
		target: t.inst, cfg: e.cfg, cpu: e.th.CPU, priority: e.th.Priority.String(),
		step: e.ctr.step, hz: e.ctr.hz, quantum: t.quantum, need: t.need, forced: t.forced,
		frequencySource: e.cal.Frequency.Method + ": " + e.cal.Frequency.Source,
		repeats:         slices.Clone(t.rs), wall: e.wall, rulerWait: e.rl.waited, shared: e.rl.shared || e.rl.callsShared, room: e.room.gaveUp && roomMatters(t), probe: math.NaN(), probeExcess: math.NaN(),
		taken: t.taken, discarded: t.discard, retunes: t.retunes, overlap: t.overlap, dist: t.dist,
		monitored: e.mon != nil && e.mon.soft, faultsKept: e.mon != nil && e.mon.faultsKept,
		kept: t.kb.Kept(), converged: e.converged(t), halvesApart: t.apart, halves: e.rl.r != nil, best: t.kb.Best(), spread: t.kb.Spread(),
		vmin: slices.Clone(t.vmin), overheadConverged: true,
		calls: t.calls, allCalls: e.allCalls(),
		threadCPU: e.loop.threadCPU, threadSource: e.loop.threadSource, util: e.loop.util,
		verdict: e.rl.verdict, cyclesPerTick: e.rl.cpt, cyclesFrom: e.rl.from, checked: e.rl.checked, refOK: e.rl.refOK,
		counters: counters(t.hw, t.overs[0].hw),
	}
	m.repeat = t.r
	if !m.converged {
		m.stoppedBy = limitName[e.stop]
	}
	if e.rl.r != nil {
		m.probe, m.probeExcess = e.rl.probe, e.rl.probeExcess
	}
	for j, o := range t.overs {
		m.overheads = append(m.overheads, t.overhead(j))
		m.overheadConverged = m.overheadConverged && o.kb.Converged()
	}
	m.perCall = t.perCall()
	m.floorShare, m.floor = math.NaN(), floorNotJudged
	if len(e.targets) == 1 && !e.rl.shared {
		m.floorJudged = true
		alone, _ := t.alone(e.aloneLimit(t))
		m.nAlone = len(alone)
		m.alone, m.floorShare, m.floor, m.floorShared = finalFloor(alone, m.perCall, t.floorTol(e.cfg))
		if m.floorShared {
			m.shared = true
			if e.cfg.RefuseShared {
				m.cyclesPerTick = 0
			}
		}
	}
	return m
}

// allCalls is the number of calls timed over every target.
func (e *engine) allCalls() int64 {
	var n int64
	for _, t := range e.targets {
		n += t.calls
	}
	return n
}

func nameOr(name string) string {
	if name == "" {
		return "the function"
	}
	return name
}
