package harness

// The rounds of the sampling loop: which samples a round takes and in what
// order (plan), taking one (do), and what is judged after each round
// (endRound): Compare's pair, the halves' agreement and the quantum
// re-check.

import (
	"math"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// slot kinds of a round.
const (
	slotTarget = iota
	slotOverhead
	slotRuler
	slotRoom
	slotCalls
)

type slot struct {
	kind int
	t    *target
	s    *stream               // the overhead stream of slotOverhead
	r    int                   // its R
	rs   calibrate.RulerStream // the ruler's stream of slotRuler
}

// plan lists the samples of the next round in order. A round visits the
// targets there and back with the ruler's long ADD chain at the turn (A B
// L B A for two; T L T for one), each in the round's R variant, with a
// sample of the room probe on either side of every one in throughput mode
// (Q T Q L Q T Q: room.go), then the core-state probe (P, next to the
// targets: beside.go) and in throughput mode the calls probe (K:
// room.go), the overhead of every R variant (the empty region in
// throughput mode, the fenced empty loop in latency mode: overheadRepeat)
// and the ruler's other streams (ADD short and long, then IMUL short and
// long where the IMUL chain checks the ADD chain): P K O S L. Every other
// round runs backwards and starts from the other end (L S O K P B A L A
// B), so each target takes the first, the outer and the inner places
// equally often.
//
// The long chain is sampled twice a round, as often as each target: the
// core clock steps between rates from one sample to the next, and with
// fewer ruler samples than target samples the target's best comes more
// often from a faster step than the ruler's, which reads its cycle figure
// low. TestPlanRound checks the order; docs/how-it-measures.md gives the
// measurements behind it.
func (e *engine) plan(slots []slot) []slot {
	for _, t := range e.targets {
		slots = append(slots, slot{kind: slotTarget, t: t})
	}
	nt := len(slots)
	if e.rounds%2 == 1 {
		slices.Reverse(slots)
	}
	if len(e.rl.streams) > 0 {
		slots = append(slots, slot{kind: slotRuler, rs: calibrate.AddLong})
	}
	for i := nt - 1; i >= 0; i-- {
		slots = append(slots, slots[i])
	}
	if e.room.on() {
		// A room sample on either side of every sample of the block.
		n := len(slots)
		for i := n - 1; i >= 0; i-- {
			slots = append(slots, slot{kind: slotRoom}, slots[i])
		}
		slots = append(slots, slot{kind: slotRoom})
		slots = append(slots[:0], slots[n:]...)
	}
	block := len(slots) // the targets' block, a palindrome
	// The probes next to the targets' block, so that the samples beside
	// each round's target samples are microseconds from them (beside.go,
	// room.go).
	if slices.Contains(e.rl.streams, calibrate.Probe) {
		slots = append(slots, slot{kind: slotRuler, rs: calibrate.Probe})
	}
	if e.calls.on() {
		slots = append(slots, slot{kind: slotCalls})
	}
	for _, t := range e.targets {
		for j, s := range t.overs {
			if !slices.ContainsFunc(slots[block:], func(x slot) bool { return x.s == s }) {
				slots = append(slots, slot{kind: slotOverhead, s: s, r: overheadRepeat(t.rs[j], e.cfg.Mode)})
			}
		}
	}
	for _, rs := range e.rl.streams {
		if rs != calibrate.Probe {
			slots = append(slots, slot{kind: slotRuler, rs: rs})
		}
	}
	if e.rounds%2 == 1 {
		// The others first, backwards.
		others := slices.Clone(slots[block:])
		slices.Reverse(others)
		copy(slots[len(others):], slots[:block])
		copy(slots, others)
	}
	return slots
}

// do takes one sample. Each target sample of a multi-target round is
// preceded by one untimed call (or its Setup): the other targets may have
// evicted its code and data.
func (e *engine) do(s slot) {
	switch s.kind {
	case slotTarget:
		e.doTarget(s.t)
	case slotOverhead:
		if e.mon.hw == nil {
			v, ok := e.ctr.take(empty, s.r)
			s.s.add(float64(v), ok)
			if ok {
				e.half[e.rounds%2].overhead(s.r, float64(v))
			}
			if tracer != nil {
				tracer(traceSample{Round: e.rounds, Kind: 'O', N: s.r, Ticks: v, OK: ok})
			}
			return
		}
		e.mon.begin()
		v, ok := e.ctr.take(empty, s.r)
		e.mon.end()
		s.s.add(float64(v), ok)
		if ok {
			e.mon.keepBest(&s.s.hw, v, s.r)
			e.half[e.rounds%2].overhead(s.r, float64(v))
		}
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'O', N: s.r, Ticks: v, OK: ok})
		}
	case slotRoom:
		v, ok := e.room.takeRoom(e.ctr)
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'Q', N: e.room.calls * chain.RoomLinks, Ticks: v, OK: ok})
		}
	case slotCalls:
		v, ok := e.calls.takeCalls(e.ctr)
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'C', N: e.calls.calls * callsLinks, Ticks: v, OK: ok})
		}
	case slotRuler:
		r := e.rl.r
		v, ok := r.Time(s.rs, e.ctr.cpu, e.ctr.checkCPU)
		r.Add(s.rs, v, ok)
		if ok && (s.rs == calibrate.AddLong || s.rs == calibrate.AddShort) {
			e.half[e.rounds%2].ruler(s.rs == calibrate.AddLong, float64(v))
		}
		if s.rs == calibrate.AddLong {
			e.checkRulerQuantum(v, ok)
		}
		if s.rs == calibrate.Probe && ok {
			e.rl.roundProbe = float64(v)
		}
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'R', Index: int(s.rs), N: r.Ops(s.rs), Ticks: v, OK: ok})
		}
	}
}

// doTarget takes one sample of t in the round's R variant. A usable
// sample waits in t.pending for its round's judgment (settle).
func (e *engine) doTarget(t *target) {
	j := e.rounds % len(t.rs)
	r := t.rs[j]
	if t.inst.Setup != nil {
		t.inst.Setup()
	} else if len(e.targets) > 1 {
		t.inst.Run()
	}
	e.mon.begin()
	v, ok := e.ctr.take(t.inst.Run, r)
	cause := e.mon.end()
	t.taken++
	t.calls += int64(r)
	if tracer != nil {
		tracer(traceSample{Round: e.rounds, Kind: 'T', Index: slices.Index(e.targets, t), N: r, Ticks: v, OK: ok && cause == 0})
	}
	if !ok {
		t.discard++
		t.dist.Migrations++
		return
	}
	if cause != 0 && e.mon.classify(cause, &t.dist, t.taken, t.kb.Kept()+len(t.pending)) {
		t.discard++
		return
	}
	// The hardware counts are kept now (the monitor holds this sample's):
	// a sample the room probe sets aside ran the same instructions.
	e.mon.keepBest(&t.hw, v, r)
	t.pending = append(t.pending, rawSample{ticks: v, variant: j, round: e.rounds, probe: math.NaN()})
}

// accept adds a judged sample to t's streams.
func (e *engine) accept(t *target, s rawSample) {
	r := t.rs[s.variant]
	t.kb.Add(float64(s.ticks) / float64(r))
	t.half[s.round%2].target(r, float64(s.ticks))
	t.vmin[s.variant] = math.Min(t.vmin[s.variant], float64(s.ticks))
	t.record(s)
	if !t.lastOK || s.ticks < t.last.ticks {
		t.last, t.lastOK = s, true
	}
}

// record keeps s in t's record of samples, over the oldest once it is
// full: a wait for the end of a host's state takes samples past
// MaxSamples, and those of the state at the start would have the floor
// check judge the state (floor.go), and label a figure from after it
// shared.
func (t *target) record(s rawSample) {
	switch {
	case len(t.raw) < cap(t.raw):
		t.raw = append(t.raw, s)
	case len(t.raw) > 0:
		t.raw[t.rawNext] = s
		t.rawNext = (t.rawNext + 1) % len(t.raw)
	}
}

// endRound judges the rounds the room probe lets it judge (settle),
// re-checks the quantum where due and counts the round. A retune restarts
// a target's samples, so it is not done in the second half of MaxTime (it
// would leave too little time to measure again) nor after a choice of R
// that ran out of time (its samples are known to be short; the result
// warns).
func (e *engine) endRound(elapsed time.Duration) {
	cpt := e.cyclesPerTickNow()
	h := heldRound{round: e.rounds, room: e.room.roundLow(), calls: e.calls.roundLow(), prob: e.rl.roundProbe}
	for _, h := range e.hold(h, !e.knowsUsual() || !math.IsNaN(cpt)) {
		e.settle(h, cpt, elapsed)
	}
	e.rl.roundProbe = math.NaN()
	e.rounds++
	e.judgeHalves()
	if len(e.targets) == 1 {
		e.judgeFloor(e.targets[0], elapsed)
	}
	for _, t := range e.targets {
		if n := len(t.raw); !t.forced && !t.cut && t.retunes < maxQuantumRetunes && (n == retuneAt1 || n == retuneAt2) && elapsed < e.cfg.MaxTime/2 {
			e.retune(t)
		}
	}
}

// hold queues round h for judgment and returns the rounds that can be
// judged now (in order), which leave the queue: once the host probes'
// windows are warm and the caller is ready (the ruler can convert the
// machine's levels, where one is known: a measurement that starts in one
// of the host's states must not judge its first rounds by the state's
// level). Without the probes every round is judged at once.
func (e *engine) hold(h heldRound, ready bool) []heldRound {
	e.held = append(e.held, h)
	if !e.room.warm() || !e.calls.warm() || !ready {
		return nil
	}
	return e.release()
}

// release returns every held round and empties the queue.
func (e *engine) release() []heldRound {
	out := e.held
	e.held = nil
	return out
}

// knowsUsual reports whether a host probe knows the machine's level.
func (e *engine) knowsUsual() bool { return e.room.usual > 0 || e.calls.usual > 0 }

// settle judges round h: when a host probe marks it, its target samples
// are set aside (Disturbances.Room, Disturbances.Calls); else they are
// accepted with the round's core-state probe sample, and Compare's pair
// and each target's best sample beside that probe sample (beside.go) are
// recorded. cpt is cyclesPerTickNow's.
func (e *engine) settle(h heldRound, cpt float64, elapsed time.Duration) {
	room := e.room.marks(h.room, cpt, elapsed)
	calls := e.calls.marks(h.calls, cpt, elapsed)
	for _, t := range e.targets {
		t.lastOK = false
		n := 0
		for _, s := range t.pending {
			switch {
			case s.round != h.round:
				t.pending[n] = s
				n++
			case room || calls:
				t.discard++
				if calls {
					t.dist.Calls++
				} else {
					t.dist.Room++
				}
				if len(t.aside) < roomAside {
					t.aside = append(t.aside, asideSample{s, calls})
				}
			default:
				s.probe = h.prob
				e.accept(t, s)
			}
		}
		t.pending = t.pending[:n]
	}
	if len(e.targets) == 2 && e.commonR {
		a, b := e.targets[0], e.targets[1]
		if a.lastOK && b.lastOK {
			a.pairs = append(a.pairs, [2]rawSample{a.last, b.last})
		}
	}
	for _, t := range e.targets {
		e.noteBeside(t, h.prob, h.calls)
	}
}

// cyclesPerTickNow is the ruler's core cycles per tick as its samples
// stand, once each ADD stream has a sample from each of the rounds the
// room probe holds back at first (roomWarm/2: NaN before, when the slope
// of one or two samples can be off by more than the room probe must
// resolve); it is read only where a host probe knows the machine's
// level.
func (e *engine) cyclesPerTickNow() float64 {
	r := e.rl.r
	if r == nil || !e.knowsUsual() || r.Taken(calibrate.AddShort) < roomWarm/2 || r.Taken(calibrate.AddLong) < roomWarm/2 {
		return math.NaN()
	}
	return 1 / r.Figures().AddTicksPerOp
}

// settleHeld judges the rounds still held when the loop stops (it stopped
// within the host probes' first rounds).
// A target left with no sample but those set aside by a host probe (the
// loop ended while it waited) takes those back: the result says so (the
// room probe's ErrRoom, the calls probe's Shared) rather than having no
// figure.
func (e *engine) settleHeld(elapsed time.Duration) {
	held := e.release()
	cpt := e.cyclesPerTickNow()
	for _, h := range held {
		e.settle(h, cpt, elapsed)
	}
	back := false
	for _, t := range e.targets {
		if t.kb.Kept() > 0 || len(t.aside) == 0 {
			continue
		}
		for _, a := range t.aside {
			t.discard--
			if a.calls {
				t.dist.Calls--
				e.calls.gaveUp = true
			} else {
				t.dist.Room--
				e.room.gaveUp = true
			}
			e.accept(t, a.s)
		}
		back = true
	}
	if len(held) > 0 || back {
		e.judgeHalves()
	}
}

// judgeHalves compares, for every target, the cycle figures of the even
// and the odd rounds, with the tolerance of its K-best stream (ε, and
// AbsSteps counter quanta over a sample of R calls).
func (e *engine) judgeHalves() {
	r := e.rl.r
	if r == nil {
		return
	}
	dOps := float64(r.Ops(calibrate.AddLong) - r.Ops(calibrate.AddShort))
	for _, t := range e.targets {
		var h [2]halfRecord
		enough := true
		for p := range h {
			h[p] = e.half[p]
			h[p].t = t.half[p].t
			enough = enough && t.half[p].n >= e.cfg.K
		}
		t.apart = halvesApart(h, dOps)
		t.agree = enough && halvesAgree(h, dOps, e.cfg.Epsilon, e.cfg.absTicks(t.quantum)/float64(t.r))
	}
}

// converged reports whether t's figure would come out the same again:
// with a ruler, the cycle figures of the even and the odd rounds agree
// (converge.go), each half holding at least K target samples; without
// one (NoCycles), the K best ticks per call agree (CS:APP's rule).
func (e *engine) converged(t *target) bool {
	switch {
	case t.fl.verdict == floorNone:
		return t.fl.agree
	case t.fl.waiting:
		return false
	}
	return e.bestConverged(t)
}

// bestConverged is converged's rule for the best samples, before the
// floor check.
func (e *engine) bestConverged(t *target) bool {
	if e.rl.r == nil {
		return t.kb.Converged()
	}
	return t.agree
}

// busy reports whether any target still needs samples (every stream is
// sampled until all are done): below MaxSamples, or past it while the
// floor check waits for samples with the core alone (floorWait).
func (e *engine) busy() bool {
	for _, t := range e.targets {
		if !e.converged(t) && (t.taken < e.cfg.MaxSamples || t.fl.past) {
			return true
		}
	}
	return false
}

// allConverged reports whether every target has converged.
func (e *engine) allConverged() bool {
	return !slices.ContainsFunc(e.targets, func(t *target) bool { return !e.converged(t) })
}

// exhausted reports whether a target has taken MaxSamples samples.
func (e *engine) exhausted() bool {
	return slices.ContainsFunc(e.targets, func(t *target) bool { return t.taken >= e.cfg.MaxSamples })
}

// othersDone reports whether every overhead and ruler stream has converged
// or reached MaxSamples.
func (e *engine) othersDone() bool {
	m := e.cfg.MaxSamples
	for _, t := range e.targets {
		for _, o := range t.overs {
			if !o.done(m) {
				return false
			}
		}
	}
	return e.rl.r == nil || e.rl.r.Done()
}
