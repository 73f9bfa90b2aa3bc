package harness

// The core-state probe beside a target's best samples. A target's figure
// comes from its best samples, so what says whether the core was shared
// for that figure is the probe sampled in the same rounds as those
// samples, a few microseconds from them, not the probe's best anywhere in
// the measurement: when the host's sharing comes in bursts, a short probe
// sample (0.7 µs) fits in a gap of a few microseconds that no target
// sample (6.5 µs for SumLoop) fits in, so the probe's best read 2–5% over
// its best alone while every sample of the target ran twice as slow
// (TestProbeBesideBurstyHost; docs/how-it-measures.md, "The core was
// shared").

import (
	"math"
	"slices"

	"github.com/cyclebench/cyclebench/calibrate"
)

// besideKept is how many of a target's best rounds keep their probe
// sample: more than any K, so that the K best are among them.
const besideKept = 32

// beside is a target's best sample of a round, per call in ticks, with
// the probe's sample of that round and the calls probe's lowest (+Inf
// without one; room.go), in ticks.
type beside struct{ perCall, probe, calls float64 }

// noteBeside keeps the round's best sample of t with the round's probe
// sample and calls probe sample (ticks), when t had a usable sample and
// the probe one.
func (e *engine) noteBeside(t *target, probe, calls float64) {
	if !t.lastOK || math.IsNaN(probe) {
		return
	}
	b := beside{perCall: float64(t.last.ticks) / float64(t.rs[t.last.variant]), probe: probe, calls: calls}
	i, _ := slices.BinarySearchFunc(t.beside, b.perCall, func(x beside, v float64) int {
		switch {
		case x.perCall < v:
			return -1
		case x.perCall > v:
			return 1
		}
		return 0
	})
	if i >= besideKept {
		return
	}
	t.beside = slices.Insert(t.beside, i, b)
	if len(t.beside) > besideKept {
		t.beside = t.beside[:besideKept]
	}
}

// probeBeside is the lowest of the probe samples of the rounds that gave
// t's k best samples, in ticks per sample; NaN without any. The lowest,
// because the figure comes from the best sample: a figure from a quiet
// moment among shared ones is the figure with the core alone (a quiet
// probe beside it), and a stray interrupt in one probe sample cannot
// make it look shared; a figure from a shared stretch has every probe
// beside its best samples slow.
func probeBeside(t *target, k int) float64 {
	n := min(k, len(t.beside))
	if n == 0 {
		return math.NaN()
	}
	v := t.beside[0].probe
	for _, b := range t.beside[1:n] {
		v = math.Min(v, b.probe)
	}
	return v
}

// probeBesideTicks is the probe reading the engine judges, in ticks per
// iteration: the highest of its targets' probeBeside (the most shared
// target's), or NaN when no target has one yet.
func (e *engine) probeBesideTicks() float64 {
	v := math.NaN()
	for _, t := range e.targets {
		if p := probeBeside(t, e.cfg.K); !math.IsNaN(p) && !(p <= v) {
			v = p
		}
	}
	return v / float64(e.rl.r.Ops(calibrate.Probe))
}

// callsBeside is the lowest of the calls probe's samples of the rounds
// that gave t's k best samples, in ticks per sample; +Inf without any. As
// for probeBeside: a figure from rounds outside the calls state has a
// usual sample beside it.
func callsBeside(t *target, k int) float64 {
	v := math.Inf(1)
	for _, b := range t.beside[:min(k, len(t.beside))] {
		v = math.Min(v, b.calls)
	}
	return v
}

// callsBesideTicks is the highest of the targets' callsBeside (the one
// most in the calls state), or +Inf when none has one.
func (e *engine) callsBesideTicks() float64 {
	v := math.Inf(-1)
	for _, t := range e.targets {
		if c := callsBeside(t, e.cfg.K); !math.IsInf(c, 1) {
			v = math.Max(v, c)
		}
	}
	if math.IsInf(v, -1) {
		return math.Inf(1)
	}
	return v
}
