package harness

// The floor check: is the best sample the code's cost, or a rare call?
//
// The K-best rule takes the best sample as the cost because noise only
// adds: every call costs its floor plus what disturbed it, and the floor
// comes back again and again. Code whose own cost varies from call to call
// (a bubble sort, whose branch predictor's state differs from call to
// call, though it sorts the same input every time) has no such floor: its
// best samples are rare calls, the least of N samples falls as N grows,
// and a figure that stops when its halves happen to agree does not repeat.
// So a target's figure is its best sample only when the code reaches its
// floor often; otherwise it is a low quantile of its samples, which
// repeats, and the result says so (Result.Quantile, ErrNoFloor).
// TestReplayFloors chooses the rule from recordings and fails when another
// does better; docs/how-it-measures.md ("Code without a floor") has the
// figures.

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"

	"gonum.org/v1/gonum/stat"
)

// Quantile is the quantile of its samples that a result's figures are
// when the code has no floor (Result.Quantile): near the best, and the
// quantile whose figure repeated best in TestReplayFloors.
const Quantile = 0.05

const (
	// floorShare is the share of samples within ε of the best that makes
	// the best the figure: the typical call runs at the floor. There the
	// 5th percentile lies well within ε of the best, so a kernel on the
	// border moves by little when it crosses it; at a border of 5% the
	// two figures lie ε apart, and a sort whose share moved between 2% and
	// 10% from one measurement to the next gave figures 0.9% apart
	// (TestReplayFloors).
	floorShare = 0.5
	// floorQuantile is the figure of a target without a floor (Quantile).
	floorQuantile = Quantile
	// floorSamples is the fewest samples a floor is judged from when fewer
	// than half of them lie within ε of the best: 10 of them then lie
	// below the floorQuantile. The best of 32 samples of the bubble sort
	// lies near their 5th percentile, and of 32 more a little lower.
	floorSamples = 200
	// floorBudget bounds how long a measurement goes on to gather
	// floorSamples: 200 samples of a 5 ms call. A longer call keeps its
	// best sample as the figure, with a warning that the floor was not
	// judged.
	floorBudget = time.Second
	// floorSharedShare: a target without a floor more than this share of
	// whose samples came from rounds with the core shared is labelled
	// shared. Its figure comes from the other rounds, but a long sample
	// (1.2 ms of the bubble sort) outlasts the probe beside it (1.6 µs):
	// in one second in which half of the rounds read shared, the sort's
	// low quantile rose by 0.5%; where more did, by 1% and more.
	floorSharedShare = 0.5
	// floorMinAlone is the fewest samples a floor is judged from at all:
	// half of 8 at the best is a floor, 1 of 8 is not. The series found
	// measurements of the bubble sort with 8 to 19 samples with the core
	// alone, 1 or 2 of them at the best, and one with 2 samples, 1 at the
	// best, called a floor (its best read 1.4% slow, unlabelled).
	floorMinAlone = 8
)

// floorVerdict is what decideFloor found.
type floorVerdict int

const (
	floorNotJudged floorVerdict = iota // too few samples, or not asked (Compare)
	floorFound                         // the best sample is the figure
	floorNone                          // the floorQuantile is the figure
)

// decideFloor judges a target's per-call samples (ticks, any order): the
// share of them within tol of the best, and whether the best is a floor
// (at least floorShare of floorMinAlone or more within tol) or a rare call
// (less, of floorSamples or more).
func decideFloor(perCall []float64, tol float64) (share float64, v floorVerdict) {
	n := len(perCall)
	if n == 0 {
		return math.NaN(), floorNotJudged
	}
	v1 := slices.Min(perCall)
	within := 0
	for _, x := range perCall {
		if x <= v1+tol {
			within++
		}
	}
	share = float64(within) / float64(n)
	switch {
	case n < floorMinAlone:
		return share, floorNotJudged
	case share >= floorShare:
		return share, floorFound
	case n < floorSamples:
		return share, floorNotJudged
	}
	return share, floorNone
}

// finalFloor is the floor check's last word on a target measured alone:
// alone are the samples of the rounds with the core alone, all every
// sample, tol the tolerance. When fewer than floorSamples were alone but
// floorSamples were taken, and the floorMinAlone or more alone show no
// floor either, the floor is judged on all of them: code without a floor
// then gets the quantile of all its samples, labelled shared, rather than
// a best sample that more samples would lower (the bubble sort's read up
// to 6% low in the series, unlabelled). Alone samples at the floor keep
// the best sample, the figure with the core alone: a vector sum measured
// mostly on a shared core read 56% slow from all its samples. judged is
// the samples the verdict rests on; shared is floorShared's label.
func finalFloor(alone, all []float64, tol float64) (judged []float64, share float64, v floorVerdict, shared bool) {
	judged = alone
	share, v = decideFloor(alone, tol)
	if v == floorNotJudged && len(all) >= floorSamples && len(alone) >= floorMinAlone {
		judged = all
		share, v = decideFloor(all, tol)
	}
	return judged, share, v, floorShared(v, len(alone), len(all))
}

// floorShared reports whether a target, alone of whose all samples came
// from rounds with the core alone, is labelled shared: more than
// floorSharedShare of its samples came from shared rounds, and its figure
// is a quantile of them (floorNone), or its floor could not be judged for
// want of samples with the core alone (floorNotJudged, all at least
// floorSamples).
func floorShared(v floorVerdict, alone, all int) bool {
	most := float64(alone) < (1-floorSharedShare)*float64(all)
	return most && (v == floorNone || v == floorNotJudged && all >= floorSamples)
}

// floorFigure is the figure of samples without a floor: their
// floorQuantile (the empirical quantile, a sample's value). perCall is
// not modified.
func floorFigure(perCall []float64) float64 {
	s := slices.Clone(perCall)
	slices.Sort(s)
	return stat.Quantile(floorQuantile, stat.Empirical, s, nil)
}

// floorHalvesAgree reports whether the floorQuantile of the even rounds'
// samples and that of the odd rounds' agree within tol, each half holding
// at least floorSamples/2 samples: the convergence of a target without a
// floor.
func floorHalvesAgree(perCall []float64, odd []bool, tol float64) bool {
	var h [2][]float64
	for i, x := range perCall {
		p := 0
		if odd[i] {
			p = 1
		}
		h[p] = append(h[p], x)
	}
	if len(h[0]) < floorSamples/2 || len(h[1]) < floorSamples/2 {
		return false
	}
	return math.Abs(floorFigure(h[0])-floorFigure(h[1])) <= tol
}

// floorState is the floor check's state for one target.
type floorState struct {
	verdict floorVerdict
	agree   bool // floorNone: the halves' floorQuantiles agree
	waiting bool // the best samples agree, and the loop goes on to judge the floor
	past    bool // waiting, past MaxSamples if need be (floorWait)
}

// perCall returns t's recorded samples in ticks per call, overhead
// subtracted, in the order taken.
func (t *target) perCall() []float64 {
	per := make([]float64, 0, len(t.raw))
	for _, s := range t.raw[t.rawNext:] {
		per = append(per, t.net(s))
	}
	for _, s := range t.raw[:t.rawNext] {
		per = append(per, t.net(s))
	}
	return per
}

// alone returns the samples of t that the floor check judges, per call
// in ticks, overhead subtracted, and which came from odd rounds: those
// of the rounds whose core-state probe sample was at most limit ticks
// (every sample when limit is +Inf). A stretch in which the host shared
// the core, or slowed its clock, for most of a measurement would otherwise
// decide the floor, and put the figure in the stretch.
func (t *target) alone(limit float64) ([]float64, []bool) {
	var per []float64
	var odd []bool
	for _, s := range t.raw {
		if s.probe <= limit || math.IsInf(limit, 1) {
			per, odd = append(per, t.net(s)), append(odd, s.round%2 == 1)
		}
	}
	return per, odd
}

// aloneLimit is the probe sample, in ticks, above which a round counts as
// shared for the floor check: the probe's best on this machine
// (calibrate.ProbeAlone, cycles per iteration) at the ruler's ADD slope,
// plus calibrate.DefaultRulerThresholds.Shared; without that best (none
// kept yet, or emulation), the best probe sample of t's rounds plus as
// much; +Inf without a ruler, whose rounds have no probe.
func (e *engine) aloneLimit(t *target) float64 {
	r := e.rl.r
	if r == nil || r.Ops(calibrate.Probe) == 0 {
		return math.Inf(1)
	}
	over := 1 + calibrate.DefaultRulerThresholds.Shared
	if a, f := calibrate.ProbeAlone(), r.Figures(); a > 0 && f.AddTicksPerOp > 0 && e.cal.CPU.Emulated == "" {
		return a * f.AddTicksPerOp * float64(r.Ops(calibrate.Probe)) * over
	}
	best := math.Inf(1)
	for _, s := range t.raw {
		best = math.Min(best, s.probe) // NaN never wins
	}
	return best * over
}

// floorTol is the tolerance of t's floor check in ticks per call: that of
// its K-best rule, ε of the best sample per call as timed or AbsSteps
// counter quanta over a sample.
func (t *target) floorTol(cfg Config) float64 {
	return math.Max(cfg.Epsilon*t.kb.Min(), cfg.absTicks(t.quantum)/float64(t.r))
}

// judgeFloor applies the floor check to a target measured alone, once its
// best samples agree (or once it was found without a floor): it waits, at
// most floorBudget into the loop, for floorSamples samples; a target
// without a floor has converged when its halves' floorQuantiles agree.
func (e *engine) judgeFloor(t *target, elapsed time.Duration) {
	if !e.bestConverged(t) && t.fl.verdict != floorNone {
		t.fl.waiting, t.fl.past = false, false
		return
	}
	limit := e.aloneLimit(t)
	per, odd := t.alone(limit)
	tol := t.floorTol(e.cfg)
	_, t.fl.verdict = decideFloor(per, tol)
	room := len(t.raw) < floorSamples && floorSamples <= e.cfg.MaxSamples
	wait, past := floorWait(t.fl.verdict, len(per), len(t.raw), t.latestAlone(limit), room)
	t.fl.waiting = wait && elapsed < min(floorBudget, e.cfg.MaxTime/2)
	t.fl.past = past && t.fl.waiting
	if t.fl.verdict == floorNone {
		t.fl.agree = floorHalvesAgree(per, odd, tol)
	}
}

// floorWait reports whether the loop goes on for the floor check (within
// floorBudget), and whether past MaxSamples, given the verdict on the
// alone of the recorded samples, whether the latest came from a round
// with the core alone, and whether the record has room below
// floorSamples. It waits for floorSamples samples, not for as many with
// the core alone: on a host sharing the core, those come slowly, and a
// 1 µs kernel's start-up waited for them (exec to exit 18 ms against 8
// in bench/peers' start-up row); finalFloor judges what there is. But a
// host's state that ends near the end of a measurement leaves a few
// samples alone among floorSamples or more from the state, too few to
// judge, and the figure, from after the state, would be labelled shared
// for want of them (floorShared): while the latest round reads alone,
// the loop goes on for floorMinAlone of them (four rounds), past
// MaxSamples if need be. On the Intel guest such labels fell on 14 of
// 47,549 measurements of a SumLoop in 4 minutes, every figure within
// 0.2% of the quiet one, and on 1 SumLoop figure in 100 in a quiet series.
func floorWait(v floorVerdict, alone, recorded int, latestAlone, room bool) (wait, past bool) {
	if v != floorNotJudged {
		return false, false
	}
	few := alone < floorMinAlone && latestAlone && floorShared(v, alone, recorded)
	return room || few, few
}

// latestAlone reports whether t's latest recorded sample came from a
// round whose core-state probe sample was at most limit ticks (any, when
// limit is +Inf).
func (t *target) latestAlone(limit float64) bool {
	n := len(t.raw)
	if n == 0 {
		return false
	}
	return t.raw[(t.rawNext+n-1)%n].probe <= limit || math.IsInf(limit, 1)
}

// floorWarnings are the warnings of a target measured alone whose best
// sample is not its figure (ErrNoFloor) or whose floor could not be
// judged (ErrFloorUnjudged), and ErrSharedCore whenever the floor check
// labels it (floorShared), none of its samples alone included. perCall
// formats a per-call figure in ticks as the result shows it.
func floorWarnings(m measured, name string, perCall func(float64) string) []error {
	if !m.floorJudged {
		return nil
	}
	n := len(m.alone)
	those := "those with the core alone"
	if n == len(m.perCall) {
		those = "all of them"
	}
	var ws []error
	switch {
	case n == 0:
	case m.floor == floorNone:
		best := slices.Min(m.alone)
		s := slices.Clone(m.alone)
		slices.Sort(s)
		med := stat.Quantile(0.5, stat.Empirical, s, nil)
		ws = append(ws, fmt.Errorf("%w: %s: %.2g%% of %d samples (%s) came within ε (%.3g%%) of the best (%s per call), and the median lies %.2g%% above it: the call's cost varies from call to call, the best was a rare call and more samples would lower it; the figure is their 5th percentile, %s",
			ErrNoFloor, name, 100*m.floorShare, n, those, 100*m.cfg.Epsilon, perCall(best), 100*(med/best-1), perCall(floorFigure(m.alone))))
	case m.floor == floorNotJudged:
		ws = append(ws, fmt.Errorf("%w: %s: %.2g%% of %d samples (%s) came within ε (%.3g%%) of the best (%s per call); %d samples tell a floor the code reaches often from a rare call, and the measurement stopped before: the figure is the best sample, which more samples may lower",
			ErrFloorUnjudged, name, 100*m.floorShare, n, those, 100*m.cfg.Epsilon, perCall(slices.Min(m.alone)), floorSamples))
	}
	if m.floorShared {
		refused := ""
		if m.cfg.RefuseShared {
			refused = "; no cycle figure (Config.RefuseShared)"
		}
		judged := those + " judged"
		if n == 0 {
			judged = "the floor not judged: the figure is the best sample"
		}
		ws = append(ws, fmt.Errorf("%w: %d of %d samples came from rounds whose core-state probe read shared (%s): the figure may be that of the code with less of a core%s",
			ErrSharedCore, len(m.perCall)-m.nAlone, len(m.perCall), judged, refused))
	}
	return ws
}
