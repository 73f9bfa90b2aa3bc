package harness

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// roomWith returns a room probe of 8 chains whose window holds ws (ticks)
// and whose machine level is usual cycles per chain (0: unknown).
func roomWith(ws []float64, usual float64) *hostProbe {
	s := newRoom(false, 0, 0, 100)
	s.calls, s.usual = 8, usual
	for _, w := range ws {
		s.window = append(s.window, w)
		s.seen++
	}
	return &s
}

// spread returns n samples around c ticks, within ±d.
func spread(n int, c, d float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = c - d + 2*d*float64(i%9)/8
	}
	return out
}

// TestRoomMarks: the rule that sets a round aside, on windows shaped like
// the Intel guest's (usual 3,170 ticks within ±0.2%, moments of room at
// 3,120, a shared core spreading the samples over 3,300 to 3,900), with
// and without the machine's level (3,170 ticks at 1.24 cycles a tick).
func TestRoomMarks(t *testing.T) {
	const cpt = 1.24
	usual := 3170 * cpt / 8 // cycles per chain
	quiet := append(spread(120, 3170, 6), 3120, 3118, 3122)
	for _, tt := range []struct {
		name   string
		window []float64
		usual  float64
		cpt    float64
		v      float64
		want   bool
	}{
		{"a moment of room in a quiet window", quiet, 0, cpt, 3120, true},
		{"a usual sample in a quiet window", quiet, 0, cpt, 3160, false},
		{"just within roomDrop", quiet, 0, cpt, 3170 * (1 - roomDrop) * 1.0001, false},
		{"a moment of room in a quiet window, the machine's level known", quiet, usual, cpt, 3120, true},
		{"a spread window (shared core) marks nothing", spread(120, 3600, 300), 0, cpt, 3320, false},
		{"a spread window: the machine's level sees a moment of room", spread(120, 3600, 300), usual, cpt, 3120, true},
		{"a spread window: the machine's level keeps a slow sample", spread(120, 3600, 300), usual, cpt, 3320, false},
		{"a window that is all one moment of room: the window alone sees nothing", spread(120, 3120, 4), 0, cpt, 3118, false},
		{"a window that is all one moment of room: the machine's level sees it", spread(120, 3120, 4), usual, cpt, 3118, true},
		{"no ruler slope yet: the window judges", spread(120, 3120, 4), usual, math.NaN(), 3118, false},
		{"a round without a room sample", quiet, usual, cpt, math.Inf(1), false},
	} {
		s := roomWith(tt.window, tt.usual)
		if got := s.marks(tt.v, tt.cpt, 0); got != tt.want {
			m, q := s.quartiles()
			t.Errorf("%s: marks(%v) = %v, want %v (median %v, q25 %v)", tt.name, tt.v, got, tt.want, m, q)
		}
	}
	if (&hostProbe{}).marks(3000, cpt, 0) {
		t.Errorf("a probe that is not sampled marked a round")
	}
	// The quartiles follow the window: sorted again once roomResort
	// samples have come into a full window.
	s := roomWith(spread(roomWindow, 3170, 4), 0)
	s.marks(3170, cpt, 0)
	for range roomResort {
		s.window[s.next] = 3120
		s.next = (s.next + 1) % roomWindow
		s.seen++
	}
	if m, _ := s.quartiles(); m < 3160 {
		t.Fatalf("median %v before the window was sorted again, want the old one (3166 to 3174)", m)
	}
	for i := range roomWindow {
		s.window[i] = 3120
	}
	s.seen += roomResort
	if m, _ := s.quartiles(); m != 3120 {
		t.Fatalf("median %v after %d new samples, want 3120", m, 2*roomResort)
	}
}

// TestRoomWaitEnds: a moment of room that outlasts the window is waited
// out for roomWait and cap rounds at most; then the window alone judges
// (and the result warns: gaveUp); a window back at the usual level ends
// the wait.
func TestRoomWaitEnds(t *testing.T) {
	const cpt = 1.24
	usual := 3170 * cpt / 8
	s := roomWith(spread(120, 3120, 4), usual)
	for _, el := range []time.Duration{time.Millisecond, 100 * time.Millisecond, time.Millisecond + roomWait} {
		if !s.marks(3120, cpt, el) {
			t.Fatalf("at %v of a moment that began at 1 ms: not marked, want marked (the wait is %v)", el, roomWait)
		}
	}
	if s.marks(3120, cpt, 2*time.Millisecond+roomWait) || !s.gaveUp {
		t.Fatalf("past the wait: gave up %v; want the window to judge", s.gaveUp)
	}

	s = roomWith(spread(120, 3120, 4), usual)
	s.cap = 3
	for i := range 3 {
		if !s.marks(3120, cpt, time.Duration(i)*time.Millisecond) {
			t.Fatalf("round %d of a cap of 3: not marked", i)
		}
	}
	if s.marks(3120, cpt, 3*time.Millisecond) || !s.gaveUp {
		t.Fatalf("past the cap of 3 rounds: gave up %v; want the window to judge", s.gaveUp)
	}

	s = roomWith(spread(120, 3120, 4), usual)
	s.marks(3120, cpt, time.Millisecond)
	s.window = spread(120, 3170, 4)
	s.sortedAt = 0
	if s.marks(3168, cpt, 200*time.Millisecond) || s.since != -1 {
		t.Fatalf("back at the usual level: since = %v, want −1", s.since)
	}
}

// TestRoomLevel: the level taught to the machine is the window's median
// in cycles per chain, and none from a spread window (a shared core) or
// from fewer than roomWarm samples.
func TestRoomLevel(t *testing.T) {
	if got, want := roomWith(spread(120, 3170, 4), 0).level(1.24), 3170*1.24/8; math.Abs(got-want) > 0.01 {
		t.Errorf("level = %v, want %v", got, want)
	}
	if got := roomWith(spread(120, 3600, 300), 0).level(1.24); got != 0 {
		t.Errorf("a spread window's level = %v, want 0", got)
	}
	if got := roomWith(spread(roomWarm-1, 3170, 4), 0).level(1.24); got != 0 {
		t.Errorf("%d samples' level = %v, want 0", roomWarm-1, got)
	}
}

// TestRoomHold: the first rounds wait until both host probes' windows
// hold roomWarm samples and the caller is ready, then leave in order;
// later rounds leave at once; without the probes every round leaves at
// once.
func TestRoomHold(t *testing.T) {
	e := &engine{room: newRoom(false, 2, 1.24, 100), calls: newCalls(false, 100)}
	if got := e.hold(heldRound{round: 0}, true); len(got) != 1 || got[0].round != 0 {
		t.Fatalf("no probes: hold = %v, want round 0 at once", got)
	}
	e.room.calls, e.calls.calls = 8, callsN
	for r := range 3 {
		e.room.seen += 2
		e.calls.seen += 2
		if got := e.hold(heldRound{round: r, prob: float64(r)}, true); got != nil {
			t.Fatalf("round %d with %d and %d samples: released %v, want held", r, e.room.seen, e.calls.seen, got)
		}
	}
	e.room.seen += 2
	if got := e.hold(heldRound{round: 3, prob: 3}, true); got != nil {
		t.Fatalf("round 3, the calls probe's window not warm (%d samples): released %v, want held", e.calls.seen, got)
	}
	e.calls.seen += 2
	if got := e.hold(heldRound{round: 4, prob: 4}, false); got != nil {
		t.Fatalf("round 4, the caller not ready: released %v, want held", got)
	}
	got := e.hold(heldRound{round: 5, prob: 5}, true)
	if len(got) != 6 {
		t.Fatalf("round 5, both warm: released %v, want rounds 0 to 5", got)
	}
	for i, h := range got {
		if h.round != i || h.prob != float64(i) {
			t.Errorf("released[%d] = %+v, want round %d with its probe", i, h, i)
		}
	}
	if got := e.hold(heldRound{round: 6}, true); len(got) != 1 || got[0].round != 6 {
		t.Errorf("round 6: %v, want it alone", got)
	}
}

// TestRoundLow: a round's lowest sample is kept until the round ends, and
// the next round starts without one.
func TestRoundLow(t *testing.T) {
	s := roomWith(nil, 0)
	for _, v := range []float64{3170, 3120, 3150} {
		s.keep(v)
	}
	if got := s.roundLow(); got != 3120 {
		t.Errorf("roundLow = %v, want 3120", got)
	}
	if got := s.roundLow(); !math.IsInf(got, 1) {
		t.Errorf("the next round's low before a sample = %v, want +Inf", got)
	}
}

// TestRoomSize: a sample spans roomQuanta counter quanta, and at least
// roomMinCalls chains.
func TestRoomSize(t *testing.T) {
	for _, tt := range []struct {
		q, lpt float64
		want   int
	}{
		{2, 1.24, roomMinCalls}, // Intel: 8 chains, about 3,200 ticks
		{26, 1.7, 45},           // a 26-tick counter: 400 quanta
		{1, 0, roomMinCalls},    // no figure of the ADD chain: the floor
	} {
		if got := newRoom(true, tt.q, tt.lpt, 100).calls; got != tt.want {
			t.Errorf("quantum %v, %v links a tick: %d chains, want %d", tt.q, tt.lpt, got, tt.want)
		}
	}
}

// TestRoomTakesBackTheOnlySamples: a loop that ends while every sample
// was set aside as a moment of room takes them back rather than have no
// figure, and says so (gaveUp: ErrRoom); a target with a sample of its
// own keeps its samples set aside.
func TestRoomTakesBackTheOnlySamples(t *testing.T) {
	cfg, err := DefaultConfig().WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{cfg: cfg, overs: map[int]*stream{}, room: newRoom(false, 0, 0, 100), calls: newCalls(false, 100)}
	alone, kept := &target{r: 4, quantum: 2}, &target{r: 4, quantum: 2}
	e.targets = []*target{alone, kept}
	for _, tg := range e.targets {
		if err := e.reset(tg); err != nil {
			t.Fatal(err)
		}
		tg.aside = []asideSample{{s: rawSample{ticks: 4000, round: 0}}, {s: rawSample{ticks: 4010, round: 1}}}
		tg.discard, tg.dist.Room = 2, 2
	}
	e.accept(kept, rawSample{ticks: 4100, round: 2})
	e.settleHeld(0)
	if alone.kb.Kept() != 2 || alone.discard != 0 || alone.dist.Room != 0 {
		t.Errorf("the target with no sample: %d kept, %d discarded, %d room; want its 2 samples back", alone.kb.Kept(), alone.discard, alone.dist.Room)
	}
	if kept.kb.Kept() != 1 || kept.dist.Room != 2 {
		t.Errorf("the target with a sample: %d kept, %d room; want 1 and 2", kept.kb.Kept(), kept.dist.Room)
	}
	if !e.room.gaveUp {
		t.Errorf("samples taken back without the warning (gaveUp false)")
	}
	// The result carries the label: Room, beside the ErrRoom warning the
	// loop adds.
	m := cleanMeasured()
	m.room = e.room.gaveUp
	if r, err := buildResult(m); err != nil || !r.Room {
		t.Errorf("Result.Room %v (err %v) after the wait gave up; want true", r.Room, err)
	}
	if r, _ := buildResult(cleanMeasured()); r.Room {
		t.Error("Result.Room true without a moment of room")
	}
}

// callsWith returns a calls probe whose window holds ws (ticks) and whose
// machine level is usual cycles per call (0: unknown).
func callsWith(ws []float64, usual float64) *hostProbe {
	s := newCalls(false, 100)
	s.calls, s.usual = callsN, usual
	for _, w := range ws {
		s.keep(w)
	}
	s.roundLow()
	return &s
}

// TestCallsMarks: the calls probe marks a round whose sample reads more
// than callsRise above the usual level, on windows shaped like the Intel
// guest's (usual 620 ticks within ±0.3%, the calls state 42 to 79% high),
// with the machine's level and without; a state that outlasts the wait
// ends it (gaveUp), and a window back at the usual level ends the wait.
func TestCallsMarks(t *testing.T) {
	const cpt = 1.24
	usual := 620 * cpt / callsN // cycles per call
	quiet := append(spread(120, 620, 2), 1000, 1050)
	for _, tt := range []struct {
		name   string
		window []float64
		usual  float64
		v      float64
		want   bool
	}{
		{"the state in a quiet window", quiet, 0, 1000, true},
		{"a usual sample", quiet, 0, 622, false},
		{"a low sample is no state", quiet, 0, 500, false},
		{"just within callsRise", quiet, 0, 620 * (1 + callsRise) * 0.999, false},
		{"the state, the machine's level known", quiet, usual, 1000, true},
		{"a window all in the state: the window alone sees nothing", spread(120, 1000, 20), 0, 990, false},
		{"a window all in the state: the machine's level sees it", spread(120, 1000, 20), usual, 990, true},
		{"a window half in the state: the window alone sees nothing", append(spread(60, 620, 2), spread(60, 1000, 20)...), 0, 1000, false},
		{"a window half in the state: the machine's level sees it", append(spread(60, 620, 2), spread(60, 1000, 20)...), usual, 1000, true},
		{"a round without a calls sample", quiet, usual, math.Inf(1), false},
	} {
		s := callsWith(tt.window, tt.usual)
		if got := s.marks(tt.v, cpt, 0); got != tt.want {
			m, q := s.quartiles()
			t.Errorf("%s: marks(%v) = %v, want %v (median %v, q75 %v)", tt.name, tt.v, got, tt.want, m, q)
		}
	}

	s := callsWith(spread(120, 1000, 20), usual)
	if !s.marks(1000, cpt, time.Millisecond) || !s.marks(1000, cpt, time.Millisecond+roomWait) {
		t.Fatalf("within the wait: not marked")
	}
	if s.marks(1000, cpt, 2*time.Millisecond+roomWait) || !s.gaveUp {
		t.Fatalf("past the wait: gave up %v; want the window to judge", s.gaveUp)
	}
	s = callsWith(spread(120, 1000, 20), usual)
	s.marks(1000, cpt, time.Millisecond)
	s.window, s.sortedAt = spread(120, 620, 2), 0
	if s.marks(621, cpt, 200*time.Millisecond) || s.since != -1 {
		t.Fatalf("back at the usual level: since = %v, want −1", s.since)
	}
	if got, want := s.level(cpt), usual; math.Abs(got-want) > 1e-9 {
		t.Errorf("level = %v, want %v", got, want)
	}
	if got := callsWith(spread(120, 800, 600), 0).level(cpt); got != 0 {
		t.Errorf("a spread window's level = %v, want 0", got)
	}
}

// TestCallsLabel: a calls state that outlasted the wait labels the
// figures shared (ErrSharedCore; no cycle figure with RefuseShared); one
// the core-state probe labels already gets no second warning; without
// the wait in vain nothing is labelled.
func TestCallsLabel(t *testing.T) {
	accept := calibrate.CycleVerdict{Action: calibrate.CyclesAccept}
	for _, tt := range []struct {
		name           string
		gaveUp, refuse bool
		v              calibrate.CycleVerdict
		shared         bool
		cpt            float64
		warnings       int
	}{
		{"waited in vain", true, false, accept, true, 1.24, 1},
		{"waited in vain, RefuseShared", true, true, accept, true, 0, 1},
		{"the state ended", false, false, accept, false, 1.24, 0},
		{"the core-state probe labels it", true, false, calibrate.CycleVerdict{Action: calibrate.CyclesAccept, Shared: true}, false, 1.24, 0},
	} {
		e := &engine{calls: *callsWith(spread(120, 1000, 20), 620*1.24/callsN)}
		e.cfg.RefuseShared = tt.refuse
		e.calls.gaveUp = tt.gaveUp
		e.rl.cpt = 1.24
		e.labelCalls(tt.v)
		if e.rl.callsShared != tt.shared || e.rl.cpt != tt.cpt || len(e.warnings) != tt.warnings {
			t.Errorf("%s: shared %v, cpt %v, %d warnings %v; want %v, %v, %d", tt.name, e.rl.callsShared, e.rl.cpt, len(e.warnings), e.warnings, tt.shared, tt.cpt, tt.warnings)
			continue
		}
		if tt.warnings > 0 && (!errors.Is(e.warnings[0], ErrSharedCore) || !strings.Contains(e.warnings[0].Error(), "61% slower than usual")) {
			t.Errorf("%s: warning %q, want ErrSharedCore naming the calls probe's 61%%", tt.name, e.warnings[0])
		}
	}

	// The state ended after the wait: the best samples came from rounds
	// with the calls probe at its usual level, and the figure is not
	// labelled; best samples from the state are, with the probe's reading
	// beside them.
	for _, tt := range []struct {
		name   string
		calls  float64 // the calls probe beside the best samples (ticks)
		shared bool
		says   string
	}{
		{"the best samples after the state", 622, false, ""},
		{"the best samples in the state", 1050, true, "69% slower than usual"},
	} {
		tg := &target{rs: []int{1}}
		e := &engine{calls: *callsWith(spread(120, 1000, 20), 620*1.24/callsN), targets: []*target{tg}}
		e.cfg.K = 3
		for i := range 10 {
			tg.last, tg.lastOK = rawSample{ticks: uint64(5000 + i)}, true
			e.noteBeside(tg, 1700, tt.calls+float64(i))
			tg.last = rawSample{ticks: uint64(6000 + i)} // slower rounds, in the state
			e.noteBeside(tg, 1700, 1200)
		}
		e.calls.gaveUp, e.rl.cpt = true, 1.24
		e.labelCalls(accept)
		if e.rl.callsShared != tt.shared || (tt.shared && (len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), tt.says))) {
			t.Errorf("%s: shared %v, warnings %v; want shared %v saying %q", tt.name, e.rl.callsShared, e.warnings, tt.shared, tt.says)
		}
	}

	// Where the ruler would not wait, neither does the calls probe, and
	// the label says why.
	for _, tt := range []struct {
		name string
		set  func(e *engine)
		want string
	}{
		{"NoSettle", func(e *engine) { e.cfg.NoSettle = true }, "not waited for: Config.NoSettle"},
		{"a comparison", func(e *engine) { e.spec.extra = func(*engine) bool { return false } }, "a comparison does not wait"},
		{"waits in vain", func(e *engine) {
			for range calibrate.DefaultRulerThresholds.GiveUp {
				e.rl.waits.record(true)
			}
		}, "waited 250ms each in vain"},
		{"waiting", func(e *engine) {}, "for longer than the measurement waits"},
	} {
		e := &engine{calls: *callsWith(spread(120, 1000, 20), 620*1.24/callsN)}
		e.rl.waits = &Waits{}
		tt.set(e)
		e.calls.gaveUp, e.rl.cpt = true, 1.24
		if !e.labelCalls(accept) || len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), tt.want) {
			t.Errorf("%s: warnings %v, want one saying %q", tt.name, e.warnings, tt.want)
		}
	}
}

// TestCallsTakesBackTheOnlySamples: samples the calls probe set aside
// come back, counted out of Disturbances.Calls, when a target has no
// other, and the figure is then labelled (gaveUp).
func TestCallsTakesBackTheOnlySamples(t *testing.T) {
	cfg, err := DefaultConfig().WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e := &engine{cfg: cfg, overs: map[int]*stream{}, room: newRoom(false, 0, 0, 100), calls: newCalls(false, 100)}
	tg := &target{r: 4, quantum: 2}
	e.targets = []*target{tg}
	if err := e.reset(tg); err != nil {
		t.Fatal(err)
	}
	tg.aside = []asideSample{{s: rawSample{ticks: 4000, round: 0}, calls: true}, {s: rawSample{ticks: 4010, round: 1}}}
	tg.discard, tg.dist.Calls, tg.dist.Room = 2, 1, 1
	e.settleHeld(0)
	if tg.kb.Kept() != 2 || tg.discard != 0 || tg.dist.Calls != 0 || tg.dist.Room != 0 {
		t.Errorf("%d kept, %d discarded, %d calls, %d room; want 2 samples back", tg.kb.Kept(), tg.discard, tg.dist.Calls, tg.dist.Room)
	}
	if !e.calls.gaveUp || !e.room.gaveUp {
		t.Errorf("gave up: calls %v, room %v; want both (each set a sample aside)", e.calls.gaveUp, e.room.gaveUp)
	}
}
