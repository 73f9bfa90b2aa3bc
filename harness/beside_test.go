package harness

import (
	"math"
	"testing"
)

// TestProbeBesideBurstyHost: when the host's sharing comes in bursts, the
// probe's short samples fit in gaps that no target sample fits in. Here
// every target sample ran twice as slow, while one probe sample in ten
// found a gap: the probe's best anywhere reads alone, the probe beside the
// target's best samples reads shared. When the target's best samples come
// from a quiet moment, so do the probe samples beside them.
func TestProbeBesideBurstyHost(t *testing.T) {
	const alone, shared = 1700.0, 3400.0 // probe ticks
	round := func(e *engine, tg *target, perCall float64, probe float64) {
		tg.last, tg.lastOK = rawSample{ticks: uint64(perCall)}, true
		e.noteBeside(tg, probe, math.Inf(1))
	}
	newEngine := func() (*engine, *target) {
		tg := &target{rs: []int{1}}
		return &engine{targets: []*target{tg}}, tg
	}

	e, tg := newEngine()
	best := math.Inf(1)
	for i := range 200 {
		p := shared + float64(i%7)
		if i%10 == 3 {
			p = alone // a gap the probe fitted in
		}
		best = math.Min(best, p)
		round(e, tg, 32400+float64(i%13), p)
	}
	if best != alone {
		t.Fatalf("the probe's best anywhere = %v, want %v (the gap)", best, alone)
	}
	if got := probeBeside(tg, 3); got < shared {
		t.Errorf("every target sample slow: probe beside its 3 best = %v, want ≥ %v (shared)", got, shared)
	}
	if len(tg.beside) != besideKept {
		t.Errorf("kept %d rounds, want %d", len(tg.beside), besideKept)
	}
	for i := 1; i < len(tg.beside); i++ {
		if tg.beside[i].perCall < tg.beside[i-1].perCall {
			t.Fatalf("rounds kept out of order at %d: %v", i, tg.beside)
		}
	}

	// A quiet moment among shared ones: the best sample is the quiet one,
	// with the quiet probe beside it; the figure is the code's with the
	// core alone.
	e, tg = newEngine()
	for i := range 200 {
		v, p := 32400.0, shared
		if i == 150 {
			v, p = 16200, alone+3
		}
		round(e, tg, v, p)
	}
	if got := probeBeside(tg, 3); got != alone+3 {
		t.Errorf("best sample from a quiet moment: probe beside = %v, want its own %v", got, alone+3)
	}

	// A round without a probe sample (discarded) keeps nothing.
	e, tg = newEngine()
	round(e, tg, 16200, math.NaN())
	if len(tg.beside) != 0 || !math.IsNaN(probeBeside(tg, 3)) {
		t.Errorf("no probe sample: kept %v, probe beside %v; want nothing, NaN", tg.beside, probeBeside(tg, 3))
	}
}
