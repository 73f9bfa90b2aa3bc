package harness

// Convergence judged in cycles: the K-best rule compares a target's
// samples in ticks, and on a shared host the core clock moves by percents
// within a measurement, so the K best ticks can disagree while the cycle
// figure they give does not move, and a figure that repeats would be
// reported as not converged. The figure is the best target sample less the
// best empty-loop sample, times the ruler's cycles per tick from its best
// samples. Taken once from the even rounds and once from the odd ones,
// which span the same stretch of time, the two figures agree when
// repeating the measurement would give the same figure: that is what
// "converged" is to mean. TestReplayConvergence replays the rule over
// every recorded stream, as recorded and under moving clocks.

import (
	"math"

	"github.com/cyclebench/cyclebench/calibrate"
)

// halfRecord holds one half of a measurement's rounds (even or odd): the
// best target and overhead samples by R, and the best samples of the
// ruler's long and short ADD chains, in ticks.
type halfRecord struct {
	t, o        map[int]float64
	n           int // target samples recorded
	long, short float64
}

func newHalfRecord() halfRecord {
	return halfRecord{t: map[int]float64{}, o: map[int]float64{}, long: math.Inf(1), short: math.Inf(1)}
}

func lowest(m map[int]float64, r int, v float64) {
	if old, ok := m[r]; !ok || v < old {
		m[r] = v
	}
}

// target records a target sample of r calls.
func (h *halfRecord) target(r int, ticks float64) { lowest(h.t, r, ticks); h.n++ }

// overhead records an overhead sample of r calls (0: the empty region).
func (h *halfRecord) overhead(r int, ticks float64) { lowest(h.o, r, ticks) }

// ruler records a sample of the ruler's long (or short) ADD chain.
func (h *halfRecord) ruler(long bool, ticks float64) {
	if long {
		h.long = math.Min(h.long, ticks)
	} else {
		h.short = math.Min(h.short, ticks)
	}
}

// resetRuler forgets the ruler's samples (its chains changed length).
func (h *halfRecord) resetRuler() { h.long, h.short = math.Inf(1), math.Inf(1) }

// cyclesPerTick is the half's ruler figure, the inverse of the ADD chain's
// slope (calibrate.Slope), NaN without a positive one; dOps is the long
// chain's links beyond the short one's.
func (h halfRecord) cyclesPerTick(dOps float64) float64 {
	if s := calibrate.Slope(h.short, h.long, dOps); s > 0 {
		return 1 / s
	}
	return math.NaN()
}

// figure is the half's ticks per call: net, with the overhead's best
// sample subtracted (the empty loop of the same R, or the empty region of
// R = 0 where only that was sampled: overheadRepeat), and gross, the
// target's best sample as it is; from the R variant with the smallest net
// figure among those with both samples. NaN where a part is missing.
func (h halfRecord) figure() (net, gross float64) {
	net, gross = math.Inf(1), math.NaN()
	for r, v := range h.t {
		o, ok := h.o[r]
		if !ok {
			o, ok = h.o[0]
		}
		if ok && r > 0 {
			if n := (v - o) / float64(r); n < net {
				net, gross = n, v/float64(r)
			}
		}
	}
	if math.IsInf(net, 1) {
		return math.NaN(), math.NaN()
	}
	return net, gross
}

// halvesAgree reports whether the two halves' net cycle figures agree
// within eps of the smaller gross figure (the target's sample per call as
// timed, overhead included, as CS:APP's rule judges it: a function that
// costs no more than the empty loop has a net figure near 0, which no
// relative tolerance of itself could judge), or within absTicks (ticks
// per call: the counter quanta of the K-best floor over a sample's calls).
// Each half's ticks are converted with its own ruler.
func halvesAgree(h [2]halfRecord, dOps, eps, absTicks float64) bool {
	var net, gross, cpt [2]float64
	for p := range h {
		net[p], gross[p] = h[p].figure()
		cpt[p] = h[p].cyclesPerTick(dOps)
		if math.IsNaN(net[p]) || !(cpt[p] > 0) {
			return false
		}
	}
	a, b := net[0]*cpt[0], net[1]*cpt[1]
	tol := math.Max(eps*math.Min(gross[0]*cpt[0], gross[1]*cpt[1]), math.Max(absTicks, 0)*math.Min(cpt[0], cpt[1]))
	return math.Abs(a-b) <= tol
}

// halvesApart is how far apart the halves' net cycle figures are,
// relative to the smaller gross one; NaN without both.
func halvesApart(h [2]halfRecord, dOps float64) float64 {
	var net, gross, cpt [2]float64
	for p := range h {
		net[p], gross[p] = h[p].figure()
		cpt[p] = h[p].cyclesPerTick(dOps)
	}
	return math.Abs(net[0]*cpt[0]-net[1]*cpt[1]) / math.Min(gross[0]*cpt[0], gross[1]*cpt[1])
}
