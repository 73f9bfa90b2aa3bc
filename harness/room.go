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
// probe's recent samples, or the machine's (calibrate.RoomUsual) when the
// whole window sits below that: a moment can outlast a measurement. How
// it was found: harness/testdata/rooms (TestReplayRooms, whole
// measurements) and, sample by sample, docs/how-it-measures.md ("The
// room").

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
)

// roomState is the room probe of a measurement (its zero value: not
// sampled).
type roomState struct {
	calls    int       // chains a sample runs; 0: not sampled
	window   []float64 // the latest samples in ticks, a ring of roomWindow
	next     int       // where the ring writes next
	seen     int       // samples taken into the ring in all
	scratch  []float64 // the window sorted
	median   float64   // the window's median and lower quartile when last sorted
	q25      float64
	sortedAt int     // s.seen then; 0: never
	low      float64 // the lowest sample of the round so far (ticks); +Inf before one
	held     []heldRound
	usual    float64       // the machine's level, core cycles per chain (calibrate.RoomUsual); 0 unknown
	since    time.Duration // when the window began to sit below the machine's level; −1: it does not
	waited   int           // rounds set aside against the machine's level
	cap      int           // at most this many
	gaveUp   bool          // the wait ended: the window alone judges
	sink     uint64
}

// heldRound is a round whose target samples wait for its judgment: the
// lowest room sample around them and the round's core-state probe sample
// (NaN without one).
type heldRound struct {
	round      int
	room, prob float64
}

// newRoom returns the room probe for a counter of quantum q ticks that
// runs linksPerTick ADD links a tick, which waits for a moment of room
// for at most maxWait rounds, or a probe that is not sampled (calls 0)
// when on is false.
func newRoom(on bool, q, linksPerTick float64, maxWait int) roomState {
	s := roomState{low: math.Inf(1), since: -1, cap: maxWait}
	if !on || noRoom {
		return s
	}
	// A chain of 200 links overlapped with the next costs about 2.3
	// cycles a link: ticksPerChain ≈ 2 × RoomLinks / linksPerTick, sized
	// low so that the sample is not shorter than roomQuanta quanta.
	perChain := 2 * chain.RoomLinks / math.Max(linksPerTick, 0.1)
	s.calls = max(roomMinCalls, int(math.Ceil(roomQuanta*q/perChain)))
	s.window = make([]float64, 0, roomWindow)
	s.usual = calibrate.RoomUsual(s.calls)
	return s
}

// on reports whether the probe is sampled.
func (s *roomState) on() bool { return s.calls > 0 }

// take times one probe sample and keeps it.
func (s *roomState) take(c counter) (uint64, bool) {
	a, auxA := tsc.StartCPU()
	v := chain.Room(uint64(a), s.calls)
	b, auxB := tsc.StopCPU()
	s.sink += v
	if auxA != auxB || b < a || (c.checkCPU && tsc.AuxCPU(auxB) != c.cpu) {
		return 0, false
	}
	t := float64(b - a)
	if len(s.window) < roomWindow {
		s.window = append(s.window, t)
	} else {
		s.window[s.next] = t
	}
	s.next = (s.next + 1) % roomWindow
	s.seen++
	s.low = math.Min(s.low, t)
	return b - a, true
}

// hold ends the round's probe: the round waits with its lowest sample and
// the core-state probe's, and hold returns the rounds that can be judged
// now (in order), which leave the queue: once the window holds roomWarm
// samples and the caller is ready (the ruler can convert the machine's
// level, where one is known: a measurement that starts in a moment of
// room must not judge its first rounds by the moment's level). Without
// the probe every round is judged at once.
func (s *roomState) hold(round int, probe float64, ready bool) []heldRound {
	s.held = append(s.held, heldRound{round: round, room: s.low, prob: probe})
	s.low = math.Inf(1)
	if s.on() && (s.seen < roomWarm || !ready) {
		return nil
	}
	return s.release()
}

// release returns every held round and empties the queue.
func (s *roomState) release() []heldRound {
	out := s.held
	s.held = nil
	return out
}

// marks reports whether a round whose lowest room sample was v ticks is
// set aside: more than roomDrop below the usual level.
//
// Where the machine's usual level is known (calibrate.RoomUsual, at cpt
// core cycles per tick as the ruler's samples stand), it is the usual
// level: a moment of room can outlast the window, and a measurement can
// start in one. Slow samples (a shared core) never read below it. While
// the window's median sits below it too, the measurement is waiting for a
// moment to end: for roomWait of the loop's time (elapsed) and s.cap
// rounds set aside at most; after that the window alone judges and the
// result warns (ErrRoom).
//
// Else the usual level is the window's median, while the window's lower
// quartile lies within roomDrop of it (one tight cluster: on a core
// shared with a busy sibling the samples spread by percents, and a sample
// below their median is then no moment of room).
//
// A round without a room sample (none taken, or all discarded) is not
// marked.
func (s *roomState) marks(v, cpt float64, elapsed time.Duration) bool {
	if !s.on() || math.IsInf(v, 1) || len(s.window) == 0 {
		return false
	}
	m, q25 := s.quartiles()
	if u := s.usual * float64(s.calls) / cpt; !s.gaveUp && u > 0 && !math.IsInf(u, 1) {
		below := m < (1-roomDrop)*u
		switch {
		case !below:
			s.since = -1
		case s.since < 0:
			s.since = elapsed
		}
		if below && (elapsed-s.since > roomWait || s.waited >= s.cap) {
			s.gaveUp = true
		} else {
			mark := v < (1-roomDrop)*u
			if mark && below {
				s.waited++
			}
			return mark
		}
	}
	return q25 >= (1-roomDrop)*m && v < (1-roomDrop)*m
}

// quartiles returns the window's median and lower quartile, sorted again
// after every roomResort samples (a round takes four or more).
func (s *roomState) quartiles() (median, q25 float64) {
	if s.sortedAt == 0 || s.seen-s.sortedAt >= roomResort || len(s.window) < roomWindow {
		s.scratch = append(s.scratch[:0], s.window...)
		slices.Sort(s.scratch)
		n := len(s.scratch)
		s.median, s.q25, s.sortedAt = (s.scratch[(n-1)/2]+s.scratch[n/2])/2, s.scratch[n/4], s.seen
	}
	return s.median, s.q25
}

// level is the window's median in core cycles per chain at cpt cycles per
// tick, for calibrate.NoteRoom; 0 with fewer than roomWarm samples or a
// window that is not one tight cluster (a shared core).
func (s *roomState) level(cpt float64) float64 {
	if !s.on() || len(s.window) < roomWarm {
		return 0
	}
	s.sortedAt = 0
	m, q25 := s.quartiles()
	if q25 < (1-roomDrop)*m {
		return 0
	}
	return m * cpt / float64(s.calls)
}

// noRoom, when set (by tests), turns the room probe off.
var noRoom bool
