package harness

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// TestRulerSpan checks the rule that sizes the ruler: the span a target's
// samples must reach, and the span they do reach after the overlap check,
// up to rulerMatchMax.
func TestRulerSpan(t *testing.T) {
	e := &engine{ctr: counter{hz: 2.5e9, step: 2}}
	capTicks := rulerMatchMax * e.ctr.hz // 50,000 ticks
	for _, c := range []struct {
		name string
		t    target
		want float64
	}{
		{"no overlap check (latency mode, a Setup, Config.Repeat)", target{need: 8000, r: 10}, 8000},
		{"overlap check, samples shorter than need", target{need: 8000, r: 4, overlap: overlapDecision{PerCall: 1000}}, 8000},
		{"overlap check lengthened the samples", target{need: 8000, r: 40, overlap: overlapDecision{PerCall: 800}}, 32000},
		{"samples past the cap", target{need: 8000, r: 400, overlap: overlapDecision{PerCall: 800}}, capTicks},
		{"need past the cap", target{need: 80000, r: 400, overlap: overlapDecision{PerCall: 800}}, 80000},
		{"no per-call figure", target{need: 8000, r: 400, overlap: overlapDecision{PerCall: math.NaN()}}, 8000},
	} {
		if got := e.rulerSpan(&c.t); got != c.want {
			t.Errorf("%s: rulerSpan = %v ticks, want %v", c.name, got, c.want)
		}
	}
}

// TestRulerMatchesTheSamples measures a continued 1000-link ADD chain,
// whose samples the overlap check lengthens to overlapMinSample, and
// checks that the ruler's long ADD chain spans as much beyond its short
// one as the target's samples do (up to rulerMatchMax): sized to the
// region's 4,000 quanta alone, its cycles per tick moved five times as
// much between processes as the target's ticks.
func TestRulerMatchesTheSamples(t *testing.T) {
	if !chain.Exact() {
		t.Skip("the pure-Go chains: no ruler to size")
	}
	var short, long, r int
	tracer = func(s traceSample) {
		switch {
		case s.Kind == 'R' && calibrate.RulerStream(s.Index) == calibrate.AddShort:
			short = s.N
		case s.Kind == 'R' && calibrate.RulerStream(s.Index) == calibrate.AddLong:
			long = s.N
		case s.Kind == 'T':
			r = max(r, s.N)
		}
	}
	t.Cleanup(func() { tracer = nil })
	// Convergence does not matter here (under qemu-user it takes the
	// default 10 s MaxTime): the ruler is sized before the first round.
	cfg := DefaultConfig()
	cfg.MaxTime = 2 * time.Second
	res, err := Measure(context.Background(), cfg, Target{Run: func() { testSink = chain.AddFrom(testSink, 1000) }})
	tracer = nil
	if err != nil {
		t.Fatal(err)
	}
	if res.CyclesPerTick == 0 || res.Repeat < 2 {
		t.Skipf("no ruler (cycles per tick %v) or R %d: nothing to compare", res.CyclesPerTick, res.Repeat)
	}
	// One ADD link a cycle: the ruler's span in ticks is its extra links
	// over cycles per tick.
	span := float64(long-short) / res.CyclesPerTick
	sample := float64(res.Repeat) * res.Ticks
	want := math.Min(sample, rulerMatchMax*res.TicksPerSecond)
	t.Logf("R %d (largest variant %d): target samples %.0f ticks; ruler %d−%d links, %.0f ticks", res.Repeat, r, sample, long, short, span)
	// 10% for the overlap check's per-call figure against the final one.
	if span < 0.9*want {
		t.Errorf("the ruler's long chain spans %.0f ticks beyond its short one; the target's samples %.0f (want at least %.0f)", span, sample, 0.9*want)
	}
}
