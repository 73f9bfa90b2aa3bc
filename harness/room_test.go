package harness

import (
	"math"
	"testing"
)

// roomWith returns a room probe of 8 chains whose window holds ws (ticks).
func roomWith(ws []float64) *roomState {
	s := roomState{calls: 8, low: math.Inf(1)}
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
// 3,120, a shared core spreading the samples over 3,300 to 3,900).
func TestRoomMarks(t *testing.T) {
	quiet := append(spread(120, 3170, 6), 3120, 3118, 3122)
	for _, tt := range []struct {
		name   string
		window []float64
		v      float64
		want   bool
	}{
		{"a moment of room in a quiet window", quiet, 3120, true},
		{"a usual sample in a quiet window", quiet, 3160, false},
		{"just within roomDrop", quiet, 3170 * (1 - roomDrop) * 1.0001, false},
		{"a spread window (shared core) marks nothing", spread(120, 3600, 300), 3320, false},
		{"a window that is all one moment of room sees nothing", spread(120, 3120, 4), 3118, false},
		{"a round without a room sample", quiet, math.Inf(1), false},
	} {
		s := roomWith(tt.window)
		if got := s.marks(tt.v); got != tt.want {
			m, q := s.quartiles()
			t.Errorf("%s: marks(%v) = %v, want %v (median %v, q25 %v)", tt.name, tt.v, got, tt.want, m, q)
		}
	}
	if (&roomState{}).marks(3000) {
		t.Errorf("a probe that is not sampled marked a round")
	}
	// The quartiles follow the window: sorted again once roomResort
	// samples have come into a full window.
	s := roomWith(spread(roomWindow, 3170, 4))
	s.marks(3170)
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

// TestRoomHold: the first rounds wait until the window holds roomWarm
// samples, then leave in order; later rounds leave at once; without the
// probe every round leaves at once.
func TestRoomHold(t *testing.T) {
	s := newRoom(false, 2, 1.24)
	if got := s.hold(0, 1); len(got) != 1 || got[0].round != 0 {
		t.Fatalf("no probe: hold = %v, want round 0 at once", got)
	}
	s = roomState{calls: 8, low: math.Inf(1)}
	for r := range 3 {
		s.seen += 2
		s.low = 3170
		if got := s.hold(r, float64(r)); got != nil {
			t.Fatalf("round %d with %d samples: released %v, want held", r, s.seen, got)
		}
	}
	s.seen += 2
	s.low = 3120
	got := s.hold(3, 3)
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
	if got := s.hold(4, 4); len(got) != 1 || got[0].round != 4 || !math.IsInf(got[0].room, 1) {
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
		if got := newRoom(true, tt.q, tt.lpt).calls; got != tt.want {
			t.Errorf("quantum %v, %v links a tick: %d chains, want %d", tt.q, tt.lpt, got, tt.want)
		}
	}
}
