package harness

// The ruler's streams and their sizing: its chains' lengths follow the
// longest sample any target takes, and grow when the ruler's own samples
// show a coarser counter quantum than they were sized for. Whether its
// figures give a cycle figure is calibrate.DecideCycles' answer
// (rulerwait.go).

import (
	"fmt"
	"math"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// rulerShort is the ruler's short ADD chain in links: long enough to hold
// the timing's fixed cost, short enough to cost nothing.
const rulerShort = 256

// imulShare is the share of the ADD chain's span (beyond the short chain)
// that the IMUL chain spans: it checks a ratio against the 10% of
// calibrate.DefaultRulerThresholds, so a span of a thousand counter quanta
// (a quarter of the default Config.MinRegionSteps that the ADD chain spans)
// resolves it a hundred times over, for about 5% more sampling time per
// round.
const imulShare = 0.25

// refEpsilon caps the relative tolerance of the ruler's streams. Every
// cycle figure is a target's ticks times the ruler's cycles per tick, so
// the ruler's error goes into every figure in full; held to a twentieth of
// the default ε, it stays a small part of the spread of repeated figures
// (docs/how-it-measures.md, "The ruler"). Two counter quanta of the long
// chain (AbsSteps) is the floor that lets it converge.
const refEpsilon = 0.0005

// rulerState is the ruler beside a measurement's targets: its streams, the
// quantum its chains were sized for, and what was decided of it.
type rulerState struct {
	r       *calibrate.Ruler        // nil with Config.NoCycles
	streams []calibrate.RulerStream // sampled every round
	q       float64                 // the counter quantum the long chain was sized for
	buf     []uint64                // the long chain's first samples, for checkQuantum

	// The wait for the chains to agree (rulerwait.go): waitFrom is the
	// loop's elapsed time when it began (−1: never), waited how long it
	// lasted; waits is the caller's count of waits in vain.
	waitFrom, waited time.Duration
	waits            *Waits

	// The answer at the end (finishRuler).
	verdict calibrate.CoreClock // the ruler's verdict
	cpt     float64             // core cycles per tick; 0 when refused
	from    string              // cyclesRuler, or cyclesCalibration when the ruler gave no slope
	checked bool                // a second chain checked cpt
	refOK   bool                // both ADD streams converged

	roundProbe  float64 // this round's probe sample in ticks; NaN before it or when discarded
	shared      bool    // the probe said the core was shared to the end
	callsShared bool    // the calls probe said the best samples came from the calls state
	probe       float64 // the probe beside the targets' best samples, cycles per iteration; NaN without one
	probeExcess float64 // the probe's excess over its best on the machine; NaN when not judged
}

// newRuler builds the ruler for samples of need ticks, after the targets'
// R is chosen.
func (e *engine) newRuler(need float64) error {
	cfg := e.cfg
	e.rl.q = e.ctr.step
	for _, t := range e.targets {
		e.rl.q = math.Max(e.rl.q, t.quantum)
	}
	lat, _ := e.cal.CPU.ImulLatency()
	ro := calibrate.RulerOptions{
		AddShort: rulerShort, ImulLatency: lat, CounterHz: e.ctr.hz,
		K: cfg.K, Epsilon: math.Min(cfg.Epsilon, refEpsilon), AbsTicks: cfg.absTicks(e.ctr.step), MaxSamples: cfg.MaxSamples,
		Add: rulerChains.add, Imul: rulerChains.imul, Probe: calibrate.ProbeIters,
	}
	ro.AddLong, ro.ImulShort, ro.ImulLong = e.rulerLengths(need)
	if lat <= 0 {
		// Nothing documents the multiply here: the IMUL chain could
		// check nothing, so it is not sampled.
		ro.ImulShort, ro.ImulLong = 0, 0
	}
	var err error
	if e.rl.r, err = calibrate.NewRuler(ro); err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	e.rl.streams = e.rl.r.Streams()
	e.rl.buf = make([]uint64, 0, probeSamples)
	return nil
}

// linksPerTick is how many links of the register ADD chain run per counter
// tick, as the calibration measured it (whether or not its ruler was
// accepted: this only sizes the chains).
func (e *engine) linksPerTick() float64 {
	if a := e.cal.Core.AddTicksPerOp; a > 0 && !math.IsInf(a, 0) {
		return 1 / a
	}
	return math.Max(e.cal.Core.CyclesPerTick, 0.1)
}

// rulerLengths returns the long ADD chain that spans need ticks beyond the
// short one, and the IMUL chain's short and long lengths, which span the
// short ADD chain's ticks and imulShare of need beyond it, at three cycles
// a link (the exact latency does not matter for sizing).
func (e *engine) rulerLengths(need float64) (addLong, imulShort, imulLong int) {
	lpt := e.linksPerTick()
	addLong = rulerShort + int(math.Ceil(need*lpt))
	imulShort = rulerShort / 3
	imulLong = imulShort + int(math.Ceil(imulShare*need*lpt/3))
	return addLong, imulShort, max(imulLong, imulShort+1)
}

// rulerMatchMax caps the span rulerSpan matches, in seconds: the shortest
// throughput sample (overlapMinSample). Beyond it the ruler's two quanta
// are under 0.01% of its span, and other noise rules.
const rulerMatchMax = overlapMinSample

// rulerSpan is the span in ticks the ruler's long ADD chain must reach
// beyond its short one for target t: the span t's samples must reach
// (t.need), and as much as t's samples do reach, up to rulerMatchMax. The
// ruler's slope is the difference of two best samples, each good to about
// a counter quantum, so its precision is quanta over its span, and every
// cycle figure carries it in full: sized to t.need alone (8,000 ticks on
// the Intel guest's 2-tick counter) while the overlap check had lengthened
// the target's samples to 50,000 ticks, the ruler's cycles per tick moved
// by 0.015% (CV) between processes and the target's ticks by 0.003%; with
// the ruler's long chain past 60,000 ticks, by 0.006% (120 processes
// measuring a 1000-link continued ADD chain; docs/how-it-measures.md,
// "Where the limits come from").
func (e *engine) rulerSpan(t *target) float64 {
	span := t.need
	if b := t.overlap.PerCall; b > 0 {
		span = math.Max(span, math.Min(float64(t.r)*b, rulerMatchMax*e.ctr.hz))
	}
	return span
}

// sizeRuler lengthens the ruler's long chains to span need ticks beyond the
// short ones (never shortens them); the streams whose length changed start
// again.
func (e *engine) sizeRuler(need float64) {
	r := e.rl.r
	if r == nil {
		return
	}
	addLong, _, imulLong := e.rulerLengths(need)
	if r.Resize(max(addLong, r.Ops(calibrate.AddLong)), max(imulLong, r.Ops(calibrate.ImulLong))) {
		for p := range e.half {
			e.half[p].resetRuler()
		}
	}
}

// checkRulerQuantum lengthens the ruler when its long chain's first
// probeSamples samples show a coarser counter quantum than it was sized
// for: the step detection can miss one, and a ruler of 4000 ticks on a
// 26-tick counter is good to 0.65% only, so that its cycles per tick would
// move from one measurement to the next. The samples are the loop's own
// (two a round), so the check costs no sampling before the first round; a
// lengthened chain starts its stream again, in the first rounds of the at
// least minRounds a measurement takes.
func (e *engine) checkRulerQuantum(v uint64, ok bool) {
	if !ok || cap(e.rl.buf) == 0 {
		return
	}
	e.rl.buf = append(e.rl.buf, v)
	if len(e.rl.buf) < probeSamples {
		return
	}
	q := sampleQuantum(e.rl.buf)
	e.rl.buf = nil // checked once
	if q > e.rl.q && !multipleOf(q, e.rl.q) {
		e.rl.q = q
		e.sizeRuler(q * regionSteps(e.cfg.MinRegionSteps, e.cfg.Epsilon))
	}
}
