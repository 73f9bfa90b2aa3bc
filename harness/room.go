package harness

// The room probe. In throughput mode a call overlaps the next as far as
// the out-of-order core's reorder buffer reaches, and on a core shared by
// two hardware threads that buffer is split between them. On the Intel
// Cascade Lake guest the host's other thread leaves the core in moments of
// 0.1 to 2 ms, about a dozen a second: the restarted 1000-link chains then
// read 0.35% low, while the ruler's chains, continued chains and the
// taken-branch probe do not move. A measurement of a few milliseconds that
// met one took its best samples from it (about one in ten did), so the
// figure was that of the rarer state. The room probe, IMUL chains of 200
// links restarted back to back (chain.Room), reads 1.6% low in those
// moments and nowhere else: every round samples it on either side of
// every target sample, and a round in which one reads more than roomDrop
// below the usual level is set aside (Disturbances.Room): the figure is
// that of the core's usual state. The usual level is the median of the
// probe's recent samples, or the machine's (calibrate.Usual) when the
// whole window sits below that: a moment can outlast a measurement. How
// it was found: harness/testdata/rooms (TestReplayRooms, whole
// measurements) and, sample by sample, docs/how-it-measures.md ("The
// room").
//
// The calls probe. In another of the host's states, calls of a short
// continued chain (8 ADD links, its value kept in memory between calls)
// run 42 to 79% slower, and 1000-link continued ADD chains 0.3% slower,
// while the room probe, the taken-branch probe and the ruler do not move
// (harness/testdata/rooms/intel-clx-calls.txt.gz, TestReplayCalls). On
// the Intel guest it comes and goes for milliseconds to seconds, and on
// some days one measurement in ten of every 1000-link chain, continued or
// restarted, fell wholly in it and read 0.3% high, unlabelled
// (docs/how-it-measures.md, "The calls state"). Every round samples 64
// such calls beside the targets;
// a round whose sample reads more than callsRise above the usual level is
// set aside (Disturbances.Calls), and a state that outlasts the wait
// labels the figure shared (Result.Shared, ErrSharedCore): the code had
// less of a core. Both probes share the rule below (hostProbe), one
// reading low in its state, the other high.

import (
	"math"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/tsc"
)

const (
	// roomDrop is how far below the probe's median a sample must read to
	// mark its round: the moments read 1.6% low, the usual state's samples
	// stay within 0.5% of the median (2,733 of 2,733 low target samples
	// were marked, 0.7% of the rounds in all, on the Intel guest).
	roomDrop = 0.005
	// roomQuanta is how many counter quanta a probe sample spans at least,
	// so that roomDrop spans two; roomMinCalls the fewest chains a sample
	// runs (8 on a fine counter: 1.3 µs on the Intel guest).
	roomQuanta   = 400
	roomMinCalls = 8
	// roomWindow is how many of the latest probe samples the median is
	// taken over: more than the longest moment seen (33 rounds of two
	// samples), few enough to follow the core clock.
	roomWindow = 128
	// roomResort is how many new samples the window's quartiles wait for
	// once the window is full (sorting 128 samples every round would cost
	// a tenth of a short round).
	roomResort = 16
	// roomWarm is how many probe samples the first rounds wait for before
	// they are judged: a measurement that starts in a moment must not take
	// it for the usual state.
	roomWarm = 8
	// roomWait is how long a measurement waits for a moment of room that
	// outlasts its window to end: the ruler's wait for a shared core
	// (calibrate.DefaultRulerThresholds.Wait).
	roomWait = 250 * time.Millisecond
	// roomAside is how many samples set aside each target keeps, to take
	// back when the loop ends with no other (settleHeld).
	roomAside = 64
	// callsRise is how far above the usual level a calls probe sample
	// must read to mark its round: in the engine on the Intel guest the
	// state reads 42 to 79% high; the usual samples lie within 4% of
	// their median (its level differs by 3.7% between the rounds' two
	// orders), and the first rounds of a measurement read up to 26% high
	// while the probe warms, whatever runs before it.
	callsRise = 0.30
	// callsN is how many calls a calls probe sample runs, and callsLinks
	// how many ADD links each: about 1,000 cycles, as in the recording
	// that found the state; callsRise of it spans about seven quanta of a
	// 26-tick counter.
	callsN     = 64
	callsLinks = 8
)

// hostProbe is one of the probes of the host's states sampled beside the
// targets: the room probe or the calls probe (its zero value: not
// sampled).
type hostProbe struct {
	name     string        // its name in calibrate.Usual: "room", "calls"
	high     bool          // its state reads high (calls), not low (room)
	tol      float64       // how far from the usual level a sample marks its round
	calls    int           // chains or calls a sample runs; 0: not sampled
	window   []float64     // the latest samples in ticks, a ring of roomWindow
	next     int           // where the ring writes next
	seen     int           // samples taken into the ring in all
	scratch  []float64     // the window sorted
	median   float64       // the window's median when last sorted, and its
	quart    float64       // quartile on the state's side (lower for room)
	sortedAt int           // s.seen then; 0: never
	low      float64       // the lowest sample of the round so far (ticks); +Inf before one
	usual    float64       // the machine's level, core cycles per unit (calibrate.Usual); 0 unknown
	since    time.Duration // when the window began to sit in the state against the machine's level; −1: it does not
	waited   int           // rounds set aside against the machine's level
	cap      int           // at most this many
	gaveUp   bool          // the wait ended: the window alone judges
	sink     uint64
}

// heldRound is a round whose target samples wait for its judgment: the
// lowest room and calls samples of the round (+Inf without one) and the
// round's core-state probe sample (NaN without one).
type heldRound struct {
	round             int
	room, calls, prob float64
}

// newRoom returns the room probe for a counter of quantum q ticks that
// runs linksPerTick ADD links a tick, which waits for a moment of room
// for at most maxWait rounds, or a probe that is not sampled (calls 0)
// when on is false.
func newRoom(on bool, q, linksPerTick float64, maxWait int) hostProbe {
	s := hostProbe{name: "room", tol: roomDrop, low: math.Inf(1), since: -1, cap: maxWait}
	if !on || noRoom {
		return s
	}
	// A chain of 200 links overlapped with the next costs about 2.3
	// cycles a link: ticksPerChain ≈ 2 × RoomLinks / linksPerTick, sized
	// low so that the sample is not shorter than roomQuanta quanta.
	perChain := 2 * chain.RoomLinks / math.Max(linksPerTick, 0.1)
	s.start(max(roomMinCalls, int(math.Ceil(roomQuanta*q/perChain))))
	return s
}

// newCalls returns the calls probe, which waits for the calls state to end
// for at most maxWait rounds, or a probe that is not sampled when on is
// false.
func newCalls(on bool, maxWait int) hostProbe {
	s := hostProbe{name: "calls", high: true, tol: callsRise, low: math.Inf(1), since: -1, cap: maxWait}
	if on && !noRoom {
		s.start(callsN)
	}
	return s
}

// start makes s a probe of n units a sample, with the machine's level.
func (s *hostProbe) start(n int) {
	s.calls = n
	s.window = make([]float64, 0, roomWindow)
	s.usual = calibrate.Usual(s.name, n)
}

// on reports whether the probe is sampled.
func (s *hostProbe) on() bool { return s.calls > 0 }

// warm reports whether the probe's window holds enough samples to judge
// rounds by (roomWarm), or the probe is not sampled.
func (s *hostProbe) warm() bool { return !s.on() || s.seen >= roomWarm }

// takeRoom times one sample of the room probe and keeps it.
func (s *hostProbe) takeRoom(c counter) (uint64, bool) {
	a, auxA := tsc.StartCPU()
	v := chain.Room(uint64(a), s.calls)
	b, auxB := tsc.StopCPU()
	s.sink += v
	if auxA != auxB || b < a || (c.checkCPU && tsc.AuxCPU(auxB) != c.cpu) {
		return 0, false
	}
	s.keep(float64(b - a))
	return b - a, true
}

// callsSink carries the calls probe's chain from one call to the next,
// through memory, as a user's continued kernel would.
var callsSink uint64

// callsOne is one call of the calls probe.
func callsOne() { callsSink = chain.AddFrom(callsSink, callsLinks) }

// takeCalls times one sample of the calls probe (s.calls calls, by the
// counter's own loop, as a target's sample) and keeps it.
func (s *hostProbe) takeCalls(c counter) (uint64, bool) {
	v, ok := c.take(callsOne, s.calls)
	if ok {
		s.keep(float64(v))
	}
	return v, ok
}

// keep adds a sample of t ticks to the window and the round's lowest.
func (s *hostProbe) keep(t float64) {
	if len(s.window) < roomWindow {
		s.window = append(s.window, t)
	} else {
		s.window[s.next] = t
	}
	s.next = (s.next + 1) % roomWindow
	s.seen++
	s.low = math.Min(s.low, t)
}

// roundLow returns the round's lowest sample (+Inf without one) and starts
// the next round.
func (s *hostProbe) roundLow() float64 {
	v := s.low
	s.low = math.Inf(1)
	return v
}

// in reports whether v lies in the probe's state against the reference
// ref: more than tol below it (room) or above it (calls).
func (s *hostProbe) in(v, ref float64) bool {
	if s.high {
		return v > (1+s.tol)*ref
	}
	return v < (1-s.tol)*ref
}

// marks reports whether a round whose lowest sample was v ticks is set
// aside: in the probe's state against the usual level.
//
// Where the machine's usual level is known (calibrate.Usual, at cpt core
// cycles per tick as the ruler's samples stand), it is the usual level: a
// state can outlast the window, and a measurement can start in one. The
// window's rule below marks a round too: in the first rounds the ruler's
// slope is still off by up to 1%, more than roomDrop, and moments of room
// went unmarked (a restarted IMUL chain read 0.4% low from rounds 1 and 2
// whose room samples read 1.6% below the window's median). While
// the window's median lies in the state too, the measurement is waiting
// for it to end: for roomWait of the loop's time (elapsed) and s.cap
// rounds set aside at most; after that the window alone judges and the
// result says so (the room probe: ErrRoom; the calls probe: Shared).
//
// Else the usual level is the window's median, while the window's
// quartile on the state's side lies within tol of it (one tight cluster:
// on a core shared with a busy sibling the samples spread by percents,
// and a sample beyond their median is then no sign of the state).
//
// A round without a sample (none taken, or all discarded) is not marked.
func (s *hostProbe) marks(v, cpt float64, elapsed time.Duration) bool {
	if !s.on() || math.IsInf(v, 1) || len(s.window) == 0 {
		return false
	}
	m, q := s.quartiles()
	if u := s.usual * float64(s.calls) / cpt; !s.gaveUp && u > 0 && !math.IsInf(u, 1) {
		inState := s.in(m, u)
		switch {
		case !inState:
			s.since = -1
		case s.since < 0:
			s.since = elapsed
		}
		if inState && (elapsed-s.since > roomWait || s.waited >= s.cap) {
			s.gaveUp = true
		} else {
			mark := s.in(v, u)
			if mark && inState {
				s.waited++
			}
			return mark || !s.in(q, m) && s.in(v, m)
		}
	}
	return !s.in(q, m) && s.in(v, m)
}

// quartiles returns the window's median and its quartile on the state's
// side (lower for room, upper for calls), sorted again after every
// roomResort samples (a round takes one or more).
func (s *hostProbe) quartiles() (median, quart float64) {
	if s.sortedAt == 0 || s.seen-s.sortedAt >= roomResort || len(s.window) < roomWindow {
		s.scratch = append(s.scratch[:0], s.window...)
		slices.Sort(s.scratch)
		n := len(s.scratch)
		s.median, s.sortedAt = (s.scratch[(n-1)/2]+s.scratch[n/2])/2, s.seen
		s.quart = s.scratch[n/4]
		if s.high {
			s.quart = s.scratch[n-1-n/4]
		}
	}
	return s.median, s.quart
}

// level is the window's median in core cycles per unit at cpt cycles per
// tick, for calibrate.NoteUsual; 0 with fewer than roomWarm samples or a
// window that is not one tight cluster (a shared core).
func (s *hostProbe) level(cpt float64) float64 {
	if !s.on() || len(s.window) < roomWarm {
		return 0
	}
	s.sortedAt = 0
	m, q := s.quartiles()
	if s.in(q, m) {
		return 0
	}
	return m * cpt / float64(s.calls)
}

// roomMatters reports whether a moment of room can move t's figure: its
// calls may overlap, unless each sample is one call after its Setup. The
// overlap check's edge cannot tell: on the Intel guest it read 0 to 6.7%
// of a call for a continued ADD chain, whose calls do not overlap (the
// fence's refill and noise), and 0 to 7.8% for a restarted IMUL chain,
// which the room moves by 0.35% (12 measurements each). So a wait that
// gave up labels every other target, SumLoop's too (12 of 570 in a
// stretchy hour, every figure at its usual value).
func roomMatters(t *target) bool { return t.inst.Setup == nil }

// noRoom, when set (by tests), turns the room and calls probes off.
var noRoom bool
