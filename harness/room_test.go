package harness

import (
	"math"
	"testing"
	"time"
)

// roomWith returns a room probe of 8 chains whose window holds ws (ticks)
// and whose machine level is usual cycles per chain (0: unknown).
func roomWith(ws []float64, usual float64) *roomState {
	s := roomState{calls: 8, low: math.Inf(1), since: -1, usual: usual, cap: 100}
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
	if (&roomState{}).marks(3000, cpt, 0) {
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

// TestRoomHold: the first rounds wait until the window holds roomWarm
// samples, then leave in order; later rounds leave at once; without the
// probe every round leaves at once.
func TestRoomHold(t *testing.T) {
	s := newRoom(false, 2, 1.24, 100)
	if got := s.hold(0, 1, true); len(got) != 1 || got[0].round != 0 {
		t.Fatalf("no probe: hold = %v, want round 0 at once", got)
	}
	s = roomState{calls: 8, low: math.Inf(1)}
	for r := range 3 {
		s.seen += 2
		s.low = 3170
		if got := s.hold(r, float64(r), true); got != nil {
			t.Fatalf("round %d with %d samples: released %v, want held", r, s.seen, got)
		}
	}
	s.seen += 2
	s.low = 3120
	if got := s.hold(3, 3, false); got != nil {
		t.Fatalf("round 3, the caller not ready: released %v, want held", got)
	}
	s.held = s.held[:3]
	s.low = 3120
	got := s.hold(3, 3, true)
	if len(got) != 4 {
		t.Fatalf("round 3 with %d samples: released %v, want rounds 0 to 3", s.seen, got)
	}
	for i, h := range got {
		if h.round != i || h.prob != float64(i) {
			t.Errorf("released[%d] = %+v, want round %d with its probe", i, h, i)
		}
	}
	if got[3].room != 3120 || !math.IsInf(s.low, 1) {
		t.Errorf("round 3 held room %v (want its lowest sample 3120), next round starts at %v (want +Inf)", got[3].room, s.low)
	}
	if got := s.hold(4, 4, true); len(got) != 1 || got[0].round != 4 || !math.IsInf(got[0].room, 1) {
		t.Errorf("round 4: %v, want it alone, without a room sample", got)
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
	e := &engine{cfg: cfg, overs: map[int]*stream{}, room: roomState{calls: 8, low: math.Inf(1), since: -1}}
	alone, kept := &target{r: 4, quantum: 2}, &target{r: 4, quantum: 2}
	e.targets = []*target{alone, kept}
	for _, tg := range e.targets {
		if err := e.reset(tg); err != nil {
			t.Fatal(err)
		}
		tg.aside = []rawSample{{ticks: 4000, round: 0}, {ticks: 4010, round: 1}}
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
}
