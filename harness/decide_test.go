package harness

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// grid returns n samples of about base ticks on a counter that advances q
// ticks at a time: base plus noise of up to spread ticks, rounded down to
// the grid, with every art-th sample 1 tick off the grid (the artefact of
// AMD Zen 5 guests; art 0 means none).
func grid(seed uint64, n int, base, spread, q float64, art int) []uint64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := make([]uint64, n)
	for i := range s {
		v := base + rng.Float64()*spread
		v = math.Floor(v/q) * q
		if art > 0 && i%art == art-1 {
			v++
		}
		s[i] = uint64(math.Round(v))
	}
	return s
}

func TestSampleQuantum(t *testing.T) {
	for _, tt := range []struct {
		name   string
		s      []uint64
		lo, hi float64 // accepted range of the answer
	}{
		{"too few samples", []uint64{26, 52, 78}, 0, 0},
		{"all equal", []uint64{4004, 4004, 4004, 4004, 4004, 4004, 4004, 4004}, -1, -1},
		{"26-tick grid, 2 values", []uint64{3978, 4004, 4004, 3978, 4004, 4004, 3978, 4004}, 26, 26},
		{"26-tick grid, noise 3 quanta", grid(1, 16, 104000, 78, 26, 0), 26, 26},
		{"26-tick grid with a 1-tick artefact", grid(2, 16, 104000, 78, 26, 5), 25.5, 26.5},
		{"24.45-tick grid (Zen 3)", grid(3, 16, 50000, 100, 24.45, 0), 23.5, 25.5},
		{"fine counter, wide noise", grid(4, 16, 100000, 2000, 1, 0), 0, 0},
		{"fine counter, noise within 2 ticks: unresolved", grid(5, 16, 4000, 3, 1, 0), -1, -1},
		{"fine counter, narrow noise", grid(5, 16, 4000, 6, 1, 0), 0, 0},
		{"step 2 (Intel), narrow noise", grid(6, 16, 8000, 8, 2, 0), 0, 0},
		{"two values 1 tick apart", []uint64{4000, 4001, 4000, 4001, 4000, 4001, 4000, 4001}, -1, -1},
		{"groups 3 ticks apart are not a grid", []uint64{106, 105, 108, 109, 106, 102, 102, 102}, 0, 0},
		{"a gap wider than the best sample is an outlier", []uint64{9700, 9700, 9702, 9700, 25700, 9700, 9700, 9700}, 0, 0},
		{"among the loop's samples, one outlier is not a grid", append(slices.Repeat([]uint64{9700, 9702}, 16), 32700), 0, 0},
		{"among the loop's samples, a grid beside an outlier", append(slices.Repeat([]uint64{3978, 4004}, 16), 27004), 26, 26},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := sampleQuantum(tt.s)
			if got < tt.lo || got > tt.hi {
				t.Fatalf("sampleQuantum(%v) = %v, want %v to %v", tt.s, got, tt.lo, tt.hi)
			}
		})
	}
}

// TestSampleQuantumNeverOnNoise: samples of a fine counter spread over more
// ticks than there are samples never show a quantum, whatever the seed.
func TestSampleQuantumNeverOnNoise(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		s := grid(seed, probeSamples, 100000, 400, 1, 0)
		if q := sampleQuantum(s); q != 0 {
			t.Fatalf("seed %d: quantum %v found in noise %v", seed, q, s)
		}
	}
}

func TestRegionSteps(t *testing.T) {
	for _, tt := range []struct{ min, eps, want float64 }{
		{4000, 0.01, 4000},
		{100, 0.01, 1000},
		{4000, 0.001, 10000},
		{4000, 0, 4000},
		{4000, 1e-12, maxEpsSteps},
	} {
		if got := regionSteps(tt.min, tt.eps); got != tt.want {
			t.Errorf("regionSteps(%v, %v) = %v, want %v", tt.min, tt.eps, got, tt.want)
		}
	}
}

func TestDecideRepeat(t *testing.T) {
	const minSteps, eps = 4000, 0.01
	for _, tt := range []struct {
		name    string
		r       int
		s       []uint64
		step    float64
		done    bool
		r0, r1  int     // accepted range of the R decided
		quantum float64 // the quantum assumed
		// overhead is the ticks of an empty timed region
		overhead float64
	}{
		{"long enough on a fine counter", 40, grid(1, 8, 104000, 300, 1, 0), 1, true, 40, 40, 1, 52},
		// The Zen 5 case: the step detection said 1, the samples say 26.
		// The quantum the samples show is known: the scaled R is final.
		{"quantized samples lengthen R", 1, []uint64{2652, 2652, 2678, 2652, 2652, 2678, 2652, 2652}, 1, true, 40, 45, 26, 52},
		// A best sample of 100 quanta and 50 empty regions says the cost
		// per call well enough: the scaled R is final without a probe.
		{"a detected step counts", 1, grid(2, 8, 2600, 300, 1, 0), 26, true, 40, 45, 26, 52},
		{"a short sample is probed again", 1, grid(2, 8, 1300, 300, 1, 0), 26, false, 80, 90, 26, 52},
		{"a sample of few empty regions is probed again", 1, grid(2, 8, 2600, 300, 1, 0), 26, false, 40, 45, 26, 100},
		{"short on a fine counter", 1, grid(3, 8, 2000, 300, 1, 0), 1, false, 2, 3, 1, 52},
		{"no usable sample doubles", 5, nil, 1, false, 10, 10, 1, 52},
		{"all equal and short grows fourfold", 10, []uint64{9000, 9000, 9000, 9000, 9000, 9000, 9000, 9000}, 1, false, 40, 40, 1, 52},
		{"all equal and long is final", 1000, []uint64{70000, 70000, 70000, 70000, 70000, 70000, 70000, 70000}, 1, true, 1000, 1000, 1, 52},
		{"zero samples grow sixteenfold", 2, []uint64{0, 0, 0, 0, 1, 0, 0, 0}, 1, false, 32, 32, 1, 52},
		{"a multiple of the known quantum keeps it", 40, []uint64{104000, 104104, 104000, 104208, 104104, 104000, 104104, 104000}, 26, true, 40, 40, 26, 52},
		{"maxRepeat is final", maxRepeat, grid(4, 8, 100, 10, 1, 0), 1, true, maxRepeat, maxRepeat, 1, 52},
		{"never beyond maxRepeat", maxRepeat / 2, []uint64{10, 10, 10, 12, 11, 10, 13, 10}, 1, false, maxRepeat, maxRepeat, 1, 52},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := decideRepeat(tt.r, tt.s, tt.step, tt.overhead, minSteps, eps, math.Inf(1))
			if d.Done != tt.done || d.R < tt.r0 || d.R > tt.r1 || math.Abs(d.Quantum-tt.quantum) > 0.5 {
				t.Fatalf("decideRepeat(%d, %v, step %v) = %+v; want done %v, R %d to %d, quantum %v", tt.r, tt.s, tt.step, d, tt.done, tt.r0, tt.r1, tt.quantum)
			}
			if d.Need != d.Quantum*regionSteps(minSteps, eps) {
				t.Errorf("need %v, want quantum × regionSteps = %v", d.Need, d.Quantum*regionSteps(minSteps, eps))
			}
		})
	}
}

// TestDecideRepeatConverges simulates the probe on counters of every kind
// seen (fine, step 2, quantized at 24.45 and 26 with artefacts) and kernels
// from 1 ns to 1 ms: it must end within 12 probes at an R whose samples
// span the need, with the quantum of the counter (or the detected step).
func TestDecideRepeatConverges(t *testing.T) {
	for _, c := range []struct {
		name       string
		q, step    float64 // the counter's true quantum and the detected step
		art        int
		perCall    float64 // ticks per call
		overhead   float64 // ticks per sample
		wantQuanta float64 // the quantum the decision must end with
	}{
		{"fine 2.1 GHz, 1 µs", 2, 2, 0, 2100, 50, 2},
		{"Zen 3 misdetected, 1 µs", 24.45, 1, 0, 2445, 49, 24.45},
		{"Zen 5 misdetected, 1 µs", 26, 1, 40, 2600, 52, 26},
		{"Zen 5 misdetected, 1 ns", 26, 1, 40, 2.6, 52, 26},
		{"Zen 5 detected, 1 ms", 26, 26, 40, 2.6e6, 52, 26},
		{"1-tick counter, 10 ns", 1, 1, 0, 26, 52, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			samples := func(r int) []uint64 {
				s := make([]uint64, probeSamples)
				for i := range s {
					v := c.overhead + float64(r)*c.perCall*(1+0.0005*rng.Float64())
					v = math.Floor(v/c.q) * c.q
					if c.art > 0 && rng.IntN(c.art) == 0 {
						v++
					}
					s[i] = uint64(v)
				}
				return s
			}
			r := 1
			for probe := 0; probe < 12; probe++ {
				s := samples(r)
				d := decideRepeat(r, s, c.step, c.overhead, defaultMinRegionSteps, defaultEpsilon, math.Inf(1))
				if d.Done {
					final := s
					if d.R != r {
						// Final at once, from the samples of r: the samples
						// of the new R must span the need all the same.
						final = samples(d.R)
					}
					if float64(slices.Min(final)) < d.Need {
						t.Fatalf("final R %d: best sample %d < need %v", d.R, slices.Min(final), d.Need)
					}
					// The quantum may show or not at the final R (the noise
					// can hide it), but R was chosen for it.
					if need := c.wantQuanta * regionSteps(defaultMinRegionSteps, defaultEpsilon); float64(slices.Min(final)) < 0.95*need {
						t.Fatalf("final R %d spans %d ticks, under the %v a %v-tick quantum needs", d.R, slices.Min(final), need, c.wantQuanta)
					}
					t.Logf("R %d after %d probes (quantum %.3g)", d.R, probe+1, d.Quantum)
					return
				}
				r = d.R
			}
			t.Fatalf("no decision after 12 probes (R %d)", r)
		})
	}
}

func TestRepeatVariants(t *testing.T) {
	for _, tt := range []struct {
		r    int
		mode Mode
		want []int
	}{
		{1, Throughput, []int{1}},
		{7, Throughput, []int{7}},
		{8, Throughput, []int{8, 9, 10, 11}},
		{150, Throughput, []int{150, 151, 152, 153}},
		{150, Latency, []int{150}},
	} {
		got := repeatVariants(tt.r, tt.mode)
		if !slices.Equal(got, tt.want) {
			t.Errorf("repeatVariants(%d, %v) = %v, want %v", tt.r, tt.mode, got, tt.want)
		}
		// Every remainder of the loop unrolled by four, when there are variants.
		if len(got) == 4 {
			seen := map[int]bool{}
			for _, r := range got {
				seen[r%4] = true
			}
			if len(seen) != 4 {
				t.Errorf("variants %v miss a remainder mod 4", got)
			}
		}
	}
}

func TestDecideStop(t *testing.T) {
	const maxTime = time.Second
	for _, tt := range []struct {
		name string
		s    loopState
		want stopReason
	}{
		{"first round always", loopState{Rounds: 0, Elapsed: 2 * maxTime}, ""},
		{"cancelled even before", loopState{Rounds: 0, Cancelled: true}, stopCancelled},
		{"busy", loopState{Rounds: 3, Busy: true}, ""},
		{"pending ruler", loopState{Rounds: 3, Pending: true}, ""},
		{"all done, too few rounds", loopState{Rounds: 3}, ""},
		{"all done", loopState{Rounds: minRounds}, stopDone},
		{"all done, before MinTime", loopState{Rounds: minRounds, MinTime: time.Second}, ""},
		{"all done, after MinTime", loopState{Rounds: minRounds, MinTime: time.Second, Elapsed: time.Second}, stopDone},
		{"time", loopState{Rounds: 3, Busy: true, Elapsed: 2 * maxTime}, stopMaxTime},
		{"cancel beats done", loopState{Rounds: 3, Cancelled: true}, stopCancelled},
		{"a target at M stops a pending ruler", loopState{Rounds: 500, Pending: true, Exhausted: true}, stopSamples},
		{"pairs still needed go past M", loopState{Rounds: 500, Busy: true, Exhausted: true}, ""},
	} {
		if got := decideStop(tt.s, maxTime); got != tt.want {
			t.Errorf("%s: decideStop(%+v) = %q, want %q", tt.name, tt.s, got, tt.want)
		}
	}
}

func TestDecideWait(t *testing.T) {
	const budget = 250 * time.Millisecond
	shared := func(v bool) func() bool { return func() bool { return v } }
	for _, tt := range []struct {
		name string
		why  stopReason
		s    waitState
		want bool
	}{
		{"running: nothing to decide", "", waitState{Shared: shared(true)}, false},
		{"time is up", stopMaxTime, waitState{Waiting: true, Shared: shared(true)}, false},
		{"cancelled", stopCancelled, waitState{Waiting: true, Shared: shared(true)}, false},
		{"done, core free", stopDone, waitState{Converged: true, Shared: shared(false)}, false},
		{"done, core shared: wait", stopDone, waitState{Converged: true, Shared: shared(true)}, true},
		{"at M, converged, shared: wait", stopSamples, waitState{Converged: true, Shared: shared(true)}, true},
		{"at M, unconverged, no wait begun: stop", stopSamples, waitState{Shared: shared(true)}, false},
		// The hunt's case: the wait took the loop past M; a sample from the
		// freed core unsettled a target. The probe now reads alone, but
		// the loop goes on until the figures settle.
		{"in a wait, a new best unsettled a target", stopSamples, waitState{Waiting: true, Waited: budget / 2, Budget: budget, Shared: shared(false)}, true},
		{"in a wait, unsettled, budget spent", stopSamples, waitState{Waiting: true, Waited: budget, Budget: budget, Shared: shared(false)}, false},
		{"in a wait, settled, core free", stopSamples, waitState{Waiting: true, Waited: budget / 2, Budget: budget, Converged: true, Shared: shared(false)}, false},
		{"in a wait, settled, still shared", stopDone, waitState{Waiting: true, Waited: budget / 2, Budget: budget, Converged: true, Shared: shared(true)}, true},
	} {
		if got := decideWait(tt.why, tt.s); got != tt.want {
			t.Errorf("%s: decideWait(%q, %+v) = %v, want %v", tt.name, tt.why, tt.s, got, tt.want)
		}
	}
}

func TestFindModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	mode := func(n int, at, width float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = at + width*rng.Float64()
		}
		return v
	}
	tail := func(n int, from float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = from * (1 + 0.5*rng.ExpFloat64())
		}
		return v
	}
	for _, tt := range []struct {
		name   string
		v      []float64
		want   bool
		lo, hi float64
	}{
		{"too few", mode(10, 948, 2), false, 0, 0},
		{"one mode", mode(200, 948, 3), false, 0, 0},
		{"one mode and a tail", append(mode(180, 948, 3), tail(20, 960)...), false, 0, 0},
		{"the 1000-ADD modes", append(mode(60, 948, 3), mode(40, 989, 3)...), true, 948, 989},
		{"modes with a tail", append(append(mode(100, 948, 3), mode(60, 989, 3)...), tail(20, 1000)...), true, 948, 989},
		{"a few stragglers are not a mode", append(mode(95, 948, 3), mode(5, 989, 3)...), false, 0, 0},
		{"0.2% apart is one mode", append(mode(50, 1000, 0.5), mode(50, 1002, 0.5)...), false, 0, 0},
		{"two steps of the core clock (1.4%) are one mode", append(mode(50, 10001, 3), mode(50, 10140, 3)...), false, 0, 0},
		{"3% apart are two modes", append(mode(50, 3000, 2), mode(50, 3090, 2)...), true, 3000, 3090},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := findModes(tt.v, 0.01)
			if ok != tt.want {
				t.Fatalf("findModes: %v (%+v), want %v", ok, m, tt.want)
			}
			if ok && (math.Abs(m.Low-tt.lo) > 3 || math.Abs(m.High-tt.hi) > 3 || m.NLow < 3 || m.NHigh < 3) {
				t.Fatalf("modes %+v, want about %v and %v", m, tt.lo, tt.hi)
			}
		})
	}
}

// TestPlanRound checks the order of a round's samples: the targets there
// and back with the ruler's long chain at the turn, then the empty loop and
// the ruler's streams (ADD short and long, IMUL short and long where the
// IMUL chain checks); every other round backwards, others first; no ruler
// without cycles.
func TestPlanRound(t *testing.T) {
	over := &stream{}
	a := &target{inst: Target{Name: "A"}, rs: []int{8}, overs: []*stream{over}}
	b := &target{inst: Target{Name: "B"}, rs: []int{8}, overs: []*stream{over}}
	// Throughput mode: every variant's overhead is the one empty region.
	c := &target{inst: Target{Name: "C"}, rs: []int{8, 9, 10, 11}, overs: []*stream{over, over, over, over}}
	// An overhead stream per variant (none of the modes has that now; the
	// plan must still sample each once).
	d := &target{inst: Target{Name: "D"}, rs: []int{8, 9, 10, 11}, overs: []*stream{over, {}, {}, {}}}
	layout := func(e *engine) string {
		var out []string
		for _, s := range e.plan(nil) {
			switch s.kind {
			case slotTarget:
				out = append(out, s.t.inst.Name)
			case slotOverhead:
				out = append(out, "O")
			case slotRuler:
				out = append(out, map[calibrate.RulerStream]string{calibrate.AddShort: "S", calibrate.AddLong: "L", calibrate.ImulShort: "s", calibrate.ImulLong: "l", calibrate.Probe: "P"}[s.rs])
			case slotRoom:
				out = append(out, "Q")
			case slotCalls:
				out = append(out, "K")
			}
		}
		return strings.Join(out, " ")
	}
	addOnly := []calibrate.RulerStream{calibrate.AddShort, calibrate.AddLong}
	checked := []calibrate.RulerStream{calibrate.AddShort, calibrate.AddLong, calibrate.ImulShort, calibrate.ImulLong}
	for _, tt := range []struct {
		targets  []*target
		rounds   int
		noCycles bool
		want     string
	}{
		{[]*target{a, b}, 0, false, "A B L B A O S L"},
		{[]*target{a}, 2, false, "A L A O S L s l"}, // with the IMUL chain
		{[]*target{a}, 3, false, "l s L S O A L A"},
		{[]*target{a, b}, 1, false, "L S O B A L A B"},
		{[]*target{a}, 0, false, "A L A O S L"},
		{[]*target{a}, 1, false, "L S O A L A"},
		{[]*target{c}, 0, false, "C L C O S L"}, // one empty region for every R variant
		{[]*target{a, c}, 1, false, "L S O C A L A C"},
		{[]*target{d}, 0, false, "D L D O O O O S L"}, // the overhead of every R variant
		{[]*target{a, d}, 1, false, "L S O O O O D A L A D"},
		// The probe next to the targets, whichever way the round runs.
		{[]*target{a, b}, 0, false, "A B L B A P O S L s l"},
		{[]*target{a, b}, 1, false, "l s L S O P B A L A B"},
		// The room probe on either side of every sample of the block.
		{[]*target{a}, 0, false, "Q A Q L Q A Q P O S L s l"},
		{[]*target{a, b}, 1, false, "l s L S O P Q B Q A Q L Q A Q B Q"},
		// The calls probe next to the core-state probe.
		{[]*target{a}, 0, false, "Q A Q L Q A Q P K O S L s l"},
		{[]*target{a, b}, 1, false, "l s L S O K P Q B Q A Q L Q A Q B Q"},
		{[]*target{a, b}, 0, true, "A B B A O"},
		{[]*target{a, b}, 1, true, "O B A A B"},
	} {
		e := &engine{targets: tt.targets, rounds: tt.rounds, rl: rulerState{streams: addOnly}}
		if tt.noCycles {
			e.rl.streams = nil
		} else if strings.Contains(tt.want, " s") { // the IMUL streams
			e.rl.streams = checked
		}
		if strings.Contains(tt.want, "P") {
			e.rl.streams = append(slices.Clone(checked), calibrate.Probe)
		}
		if strings.Contains(tt.want, "Q") {
			e.room = newRoom(true, 2, 1.24, 100)
		}
		if strings.Contains(tt.want, "K") {
			e.calls = newCalls(true, 100)
		}
		if got := layout(e); got != tt.want {
			t.Errorf("%d targets, round %d, NoCycles %v: %q, want %q", len(tt.targets), tt.rounds, tt.noCycles, got, tt.want)
		}
	}
}

func TestDecideOverlap(t *testing.T) {
	// A restarted chain of 1000 IMULs on the Cascade Lake guest: 2313 ticks
	// a call in a loop, 105 ticks of overlap the sample's ends cut off, 62
	// ticks of counter reads; 2.5e6 ticks (1 ms) at most per sample.
	const b, edge, ovh = 2313.0, 105.0, 62.0
	at := func(n int) float64 { return ovh + float64(n)*b + edge }
	bare := func(n int) float64 { return ovh + float64(n)*b }
	tests := []struct {
		name                      string
		r                         int
		t1, t4, q, minT, maxTicks float64
		wantR                     int
		wantEdge                  float64
		wantCapped, wantCall      bool
	}{
		{"overlapping calls: R rises to edge/(bias·b)", 4, at(4), at(16), 2, 0, 2.5e6, int(math.Ceil(edge / (overlapBias * b))), edge, false, true},
		{"the overlap's R beyond the shortest sample", 4, at(4), at(16), 2, 5e4, 2.5e6, int(math.Ceil(edge / (overlapBias * b))), edge, false, true},
		{"capped at the longest sample", 4, at(4), at(16), 2, 0, 100 * b, 100, edge, true, true},
		{"no overlap: R stays", 4, bare(4), bare(16), 2, 0, 2.5e6, 4, 0, false, true},
		{"no overlap, short sample: R rises to the shortest sample", 4, bare(4), bare(16), 2, 5e4, 2.5e6, int(math.Ceil(5e4 / b)), 0, false, true},
		{"an edge of a few quanta is quantization", 4, bare(4) + 90, bare(16) + 90, 26, 0, 2.5e6, 4, 0, false, true},
		{"already long enough", 2000, at(2000), at(8000), 2, 5e4, 1e9, 2000, edge, false, true},
		{"4r no longer than r: nothing to judge", 4, at(4), at(4), 2, 5e4, 2.5e6, 4, 0, false, false},
		{"no sample of r", 4, math.Inf(1), at(16), 2, 5e4, 2.5e6, 4, 0, false, false},
		{"r = 0", 0, at(0), at(0), 2, 5e4, 2.5e6, 0, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decideOverlap(tc.r, tc.t1, tc.t4, ovh, tc.q, tc.minT, tc.maxTicks)
			if d.R != tc.wantR || math.Abs(d.Edge-tc.wantEdge) > 1e-6 || d.Capped != tc.wantCapped || (d.PerCall > 0) != tc.wantCall {
				t.Errorf("decideOverlap = %+v, want R %d edge %g capped %v per-call known %v", d, tc.wantR, tc.wantEdge, tc.wantCapped, tc.wantCall)
			}
			if tc.wantCall && math.Abs(d.PerCall-b) > 1e-6 {
				t.Errorf("per call %g, want %g", d.PerCall, b)
			}
			// Whatever R it gives, the sample it asks for fits the cap.
			if d.PerCall > 0 && float64(d.R)*d.PerCall > math.Max(tc.maxTicks, float64(tc.r)*d.PerCall)+1e-6 {
				t.Errorf("R %d asks for %g ticks a sample, cap %g", d.R, float64(d.R)*d.PerCall, tc.maxTicks)
			}
		})
	}
}
