package harness

// The choices of R on the pinned thread: the probe at growing R before the
// first round, one R for the targets of a comparison, and the retune when
// the loop's own samples show a coarser counter quantum. The decisions are
// decideRepeat's (decide.go); this file takes the samples they judge.

import (
	"fmt"
	"math"
	"time"

	"github.com/cyclebench/cyclebench/stats"
)

// chooseRepeat probes f at growing R until [decideRepeat] says R is final,
// or until MaxTime has passed or the context is cancelled (then the last R
// stands, and the result warns that its samples are short).
func (e *engine) chooseRepeat(f func()) repeatDecision {
	r := 1
	buf := make([]uint64, 0, probeSamples)
	start := time.Now()
	// q carries the coarsest quantum any probe has shown: at the final R
	// the noise can hide a quantum that shorter samples showed plainly.
	q := e.ctr.step
	finest := math.Inf(1) // the shortest sample of the probes before this one
	for {
		buf = buf[:0]
		for i := 0; i < probeSamples; i++ {
			if t, ok := e.ctr.take(f, r); ok {
				buf = append(buf, t)
				// A first sample far longer than needed settles R = 1
				// without probing a slow kernel eight times.
				if r == 1 && i == 0 && float64(t) >= longProbe*q*regionSteps(e.cfg.MinRegionSteps, e.cfg.Epsilon) {
					break
				}
			}
		}
		d := decideRepeat(r, buf, q, e.cal.Overhead.Median, e.cfg.MinRegionSteps, e.cfg.Epsilon, finest)
		for _, v := range buf {
			if v > 0 {
				finest = math.Min(finest, float64(v))
			}
		}
		d.Finest, q = finest, d.Quantum
		if d.Done {
			return d
		}
		if time.Since(start) > e.cfg.MaxTime || e.ctx.Err() != nil {
			d.R = r
			return d
		}
		r = d.R
	}
}

// overlapSamples is how many samples of each length the overlap check
// takes, in turn: as many as a probe of R.
const overlapSamples = probeSamples

// checkOverlap times f at r and 4r calls per sample, in turn, and returns
// [decideOverlap]'s verdict on their best samples: in throughput mode a
// sample's ends cut off one call's overlap with its neighbours, and R
// must be long enough that this stays a small part of the figure. The
// check is skipped (r stands) when a sample of 4r calls would pass
// overlapMaxSample: r calls then take over 250 µs, and their overlap is
// a small part of them.
func (e *engine) checkOverlap(f func(), r int, q float64) overlapDecision {
	maxTicks := overlapMaxSample * e.ctr.hz
	t1, t4 := math.Inf(1), math.Inf(1)
	start := time.Now()
	// A quarter of MaxTime at most, so that a short MaxTime still leaves
	// the sampling most of it (the check takes about 0.2 ms for a 1 µs
	// call, up to 10 ms for calls of 250 µs).
	for i := 0; i < overlapSamples && e.ctx.Err() == nil && (i < 2 || time.Since(start) < e.cfg.MaxTime/4); i++ {
		if v, ok := e.ctr.take(f, r); ok {
			t1 = math.Min(t1, float64(v))
		}
		if i == 0 && !math.IsInf(t1, 1) && 4*t1 > maxTicks {
			break
		}
		if v, ok := e.ctr.take(f, 4*r); ok {
			t4 = math.Min(t4, float64(v))
		}
	}
	if math.IsInf(t4, 1) {
		return overlapDecision{R: r, PerCall: math.NaN()}
	}
	return decideOverlap(r, t1, t4, e.cal.Overhead.Median, q, overlapMinSample*e.ctr.hz, maxTicks)
}

// chooseRepeats gives every target its R (1 with a Setup, Config.Repeat
// when set, else chooseRepeat's) and returns the span the ruler is sized
// for (rulerSpan's, the most of any target).
func (e *engine) chooseRepeats(insts []Target) (need float64) {
	cfg := e.cfg
	for _, in := range insts {
		t := &target{inst: in, finest: math.Inf(1)}
		switch {
		case in.Setup != nil:
			t.r, t.forced = 1, true
			t.quantum = e.ctr.step
			t.need = e.ctr.step * regionSteps(cfg.MinRegionSteps, cfg.Epsilon)
		case cfg.Repeat > 0:
			t.r, t.forced = cfg.Repeat, true
			t.quantum = e.ctr.step
			t.need = e.ctr.step * regionSteps(cfg.MinRegionSteps, cfg.Epsilon)
		default:
			d := e.chooseRepeat(in.Run)
			t.r, t.quantum, t.need, t.cut, t.finest = d.R, d.Quantum, d.Need, !d.Done, d.Finest
			if cfg.Mode == Throughput && d.Done {
				t.overlap = e.checkOverlap(in.Run, d.R, d.Quantum)
				t.r = t.overlap.R
			}
		}
		need = math.Max(need, e.rulerSpan(t))
		e.targets = append(e.targets, t)
	}
	if e.commonR {
		e.alignRepeats()
	}
	return need
}

// alignRepeats gives every target the largest R and quantum among them (R
// 1 when any has a Setup).
func (e *engine) alignRepeats() {
	r, q, need, setup := 1, 0.0, 0.0, false
	for _, t := range e.targets {
		r, q, need = max(r, t.r), math.Max(q, t.quantum), math.Max(need, t.need)
		setup = setup || t.inst.Setup != nil
	}
	if setup {
		r = 1
	}
	for _, t := range e.targets {
		t.forced = t.forced || t.r != r
		t.r, t.quantum, t.need = r, q, need
	}
}

// reset (re)starts t's streams for its current R.
func (e *engine) reset(t *target) error {
	cfg := e.cfg
	t.rs = repeatVariants(t.r, cfg.Mode)
	if t.inst.Setup != nil {
		t.rs = []int{1}
	}
	kb, err := stats.NewKBest(cfg.K, cfg.Epsilon, cfg.absTicks(t.quantum)/float64(t.r), cfg.MaxSamples)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	t.kb = kb
	t.beside = t.beside[:0]
	t.vmin = make([]float64, len(t.rs))
	t.overs = make([]*stream, len(t.rs))
	for j, r := range t.rs {
		t.vmin[j] = math.Inf(1)
		orep := overheadRepeat(r, cfg.Mode)
		if t.overs[j] = e.overs[orep]; t.overs[j] == nil {
			if t.overs[j], err = newStream(cfg.K, cfg.Epsilon, cfg.absTicks(t.quantum), cfg.MaxSamples); err != nil {
				return err
			}
			e.overs[orep] = t.overs[j]
		}
	}
	t.taken, t.discard = 0, 0
	t.pending, t.aside = t.pending[:0], t.aside[:0]
	t.half = [2]halfRecord{newHalfRecord(), newHalfRecord()}
	t.agree, t.apart = false, math.NaN()
	t.fl = floorState{}
	t.raw, t.rawNext = make([]rawSample, 0, min(cfg.MaxSamples, maxRecorded)), 0
	t.pairs = nil
	return nil
}

// retune looks for a counter quantum in t's samples of its base R and, when
// they show one coarser than R was chosen for, lengthens R and starts t's
// streams again (all targets' with a common R).
func (e *engine) retune(t *target) {
	var base []uint64
	for _, s := range t.raw {
		if s.variant == 0 {
			base = append(base, s.ticks)
		}
	}
	d := decideRepeat(t.r, base, math.Max(e.ctr.step, t.quantum), e.cal.Overhead.Median, e.cfg.MinRegionSteps, e.cfg.Epsilon, t.finest)
	if d.R <= t.r {
		return // final as it is (a lengthened R may be final at once: decideRepeat)
	}
	retune := []*target{t}
	if e.commonR {
		retune = e.targets
	}
	for _, u := range retune {
		u.r, u.quantum, u.need = d.R, d.Quantum, d.Need
		u.retunes++
		_ = e.reset(u) // cannot fail: the same K, ε and MaxSamples made it before
	}
	e.sizeRuler(d.Need)
}
