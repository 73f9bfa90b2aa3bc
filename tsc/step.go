package tsc

import (
	"math"
	"slices"
	"sync"
)

// StepInfo describes how the counter advances, measured from back-to-back
// reads separated by a varying amount of work.
type StepInfo struct {
	// Step is the counter's effective resolution in ticks: the quantum when
	// the counter is quantized, else the GCD of the differences seen. It may
	// be fractional (a TSC that adds 24.45 ticks every 10 ns has Step 24.45).
	// It is at least 1 and finite.
	Step float64
	// GCD is the greatest common divisor of the non-zero differences seen.
	GCD uint64
	// MinDelta is the smallest non-zero difference seen, in ticks.
	MinDelta uint64
	// Quantized reports that Step is a grid found in the differences rather
	// than their GCD: every difference seen, except the OffGrid ones and the
	// Outliers, lay less than one tick from a whole multiple of Step,
	// although GCD is smaller. The counter jumps by Step at a lower
	// underlying rate (for example a virtual TSC updated from a 100 MHz
	// reference and scaled to the nominal frequency).
	Quantized bool
	// Deltas is the number of non-zero differences the figures rest on.
	Deltas int
	// OffGrid is the number of differences, Outliers excluded, that lie one
	// tick or more from every multiple k·Step with k ≥ 1: artefacts such as
	// the 1-tick differences of some virtual TSCs. It is 0 when Step is the
	// GCD.
	OffGrid int
	// Outliers is the number of differences longer than 16 times the
	// (lower) median difference or than 2^44 ticks: reads interrupted by the
	// operating system, left out of the search for a grid and of OffGrid
	// (but not of GCD and MinDelta).
	Outliers int
}

// OffGridShare returns OffGrid as a share of the differences the grid was
// checked on (Deltas − Outliers), between 0 and 1.
func (s StepInfo) OffGridShare() float64 {
	n := s.Deltas - s.Outliers
	if n <= 0 || s.OffGrid <= 0 {
		return 0
	}
	return float64(s.OffGrid) / float64(n)
}

var (
	stepOnce sync.Once
	stepVal  StepInfo
)

// Step returns the counter's effective resolution in ticks (see
// [StepInfo]), measured once on first use. A tolerance below one step is
// meaningless. The calling thread should be pinned.
func Step() float64 { return Steps().Step }

// Steps returns the full [StepInfo] behind [Step], measured once.
func Steps() StepInfo {
	stepOnce.Do(func() { stepVal = MeasureStep(stepPairs) })
	return stepVal
}

// stepPairs is the number of read pairs Steps takes: every run of this
// many consecutive pairs in the traces recorded on the machines seen
// (testdata) gives the step the whole 4000-pair trace gives, and it costs
// about 0.05 ms instead of 0.2 ms before a process's first measurement.
const stepPairs = 1000

// spinSink keeps the spacing loop in readDeltas from being removed.
var spinSink uint64

// MeasureStep takes n pairs of counter reads (at least 16) separated by 0 to
// 63 rounds of a short dependent loop, so that the differences spread over
// many values, and derives the step from them. It does not cache; [Steps]
// does. The calling thread should be pinned.
func MeasureStep(n int) StepInfo { return stepFromDeltas(readDeltas(n)) }

// readDeltas returns the non-zero differences of n pairs of reads (at least
// 16) taken as [MeasureStep] describes.
func readDeltas(n int) []uint64 {
	if n < 16 {
		n = 16
	}
	deltas := make([]uint64, 0, n)
	x := spinSink
	for i := 0; i < n; i++ {
		a := Read()
		for j := 0; j < i%64; j++ {
			x = x*3 + 1
		}
		b := Read()
		if b > a {
			deltas = append(deltas, b-a)
		}
	}
	spinSink = x
	return deltas
}

// The limits of stepFromDeltas, each with its reason.
const (
	// outlierFactor: a difference longer than 16× the median is a read
	// interrupted by the OS (an interrupt costs a microsecond or more). The
	// spacing loop spreads differences over about 1–3× the median (up to 8×
	// under qemu-user), so nothing legitimate is cut, and the cap bounds the
	// multiples k a grid is checked on, so the fitted quantum's error, times
	// k, stays far below a tick.
	outlierFactor = 16
	// maxGridDelta: differences above 2^44 ticks (over an hour at 4 GHz)
	// are outliers whatever the median: float64 places k·q within 2^-8 of a
	// tick only up to about 2^45, and a grid must be checked to a tick.
	maxGridDelta = 1 << 44
	// maxOffGridShare: a grid must explain at least 3 differences in 4. The
	// artefacts seen (1-tick differences on AMD family 25 and 26 guests)
	// reached 2.2%; allowing 25% keeps a counter that really is quantized
	// from being reported as fine (the costly mistake: samples sized for 1
	// tick move in whole quanta), while minGridBits, not this share, is
	// what keeps a fine counter from matching a grid by chance.
	maxOffGridShare = 0.25
	// minGridBits: a grid is accepted only if the chance that differences
	// spread evenly over its period put this many of them on it, with this
	// many anywhere else, is below 2^−30 (the binomial union bound
	// C(n, off)·p^on). Some 600 candidates at most are tried (8 bases × 64
	// multiples, divisors, 6 whole-tick steps), so the chance of any false
	// grid stays below one in a million. With the 1000 differences of
	// Steps this is never the binding limit for a real grid (26 ticks, all
	// 1000 on it: about 3,700 bits; a step of 2: 1000 bits); it is what
	// rejects a grid fitted to a handful of
	// differences, and a whole-tick step of 2 with more than 23% off it
	// (where 1−f < H(f): no number of differences is evidence).
	minGridBits = 30
	// minFracQuantum: a grid tested with a ±1-tick window must have a period
	// of at least 8 ticks. The window holds at most 2 integers per multiple,
	// so a fine counter's differences land on such a grid at most 1 time in
	// 4; below 8 the window covers so much of the period that any
	// difference would fit (at 2.1 ticks, 95% of integers lie within a tick
	// of a multiple).
	minFracQuantum = 8
	// maxSmallStep: below minFracQuantum, only whole-tick steps up to 7 are
	// tested, and only for exact multiples (an even-only TSC has step 2).
	maxSmallStep = minFracQuantum - 1
	// maxBases: the grid's first multiple is among the 8 smallest values
	// that each hold at least 1% of the differences (populatedShare); rarer
	// values or larger ones are strays or later multiples.
	maxBases       = 8
	populatedShare = 0.01
	// maxMultiple: a base value is tried as the 1st to 64th multiple of the
	// quantum. A quantum below 1/64 of every difference seen moves a
	// difference by under 2%, and a finer search is not worth its cost.
	maxMultiple = 64
	// firstFitMultiples: the first fit uses differences up to 4 quanta past
	// the base value (its jth multiple). The starting period value/j is at
	// most 1/j tick off, so round(d/q) is right there while (j+4)/(j·q) < ½,
	// that is for q ≥ 10 from any base; where it is wrong, the difference
	// lies outside the 1-tick window and is left out of the fit rather than
	// skewing it.
	firstFitMultiples = 4
	// fitPasses: each refit takes in the multiples the last one settled;
	// the quantum stops moving after two or three.
	fitPasses = 4
)

// bin is one distinct difference and how often it was seen.
type bin struct {
	v uint64
	n int
}

// grid is a candidate step and how the differences sit on it.
type grid struct {
	q       float64 // period in ticks
	exact   bool    // whole-tick period; on-grid means an exact multiple
	on, off int
}

// bits is the evidence for g: −log2 of the union bound on the chance that
// differences spread evenly over the period land on it as often as they did.
func (g grid) bits() float64 { return gridBits(g.on, g.off, g.coverage()) }

// coverage is the share of integers that lie on g: 1/q for exact multiples,
// at most 2/q for a window of less than one tick either side of each
// multiple.
func (g grid) coverage() float64 {
	if g.exact {
		return 1 / g.q
	}
	return min(1, 2/g.q)
}

// passes reports whether g explains enough differences, with enough
// evidence, to be the counter's step.
func (g grid) passes() bool {
	n := g.on + g.off
	return n > 0 && float64(g.off) <= maxOffGridShare*float64(n) && g.bits() >= minGridBits
}

// gridBits returns on·log2(1/p) − log2 C(on+off, off): how far below 1 (in
// bits) is the chance that on of on+off differences, each on the grid with
// probability p, land on it.
func gridBits(on, off int, p float64) float64 {
	if on <= 0 || p <= 0 || p >= 1 {
		return 0
	}
	n := float64(on + off)
	lgN, _ := math.Lgamma(n + 1)
	lgOn, _ := math.Lgamma(float64(on) + 1)
	lgOff, _ := math.Lgamma(float64(off) + 1)
	return float64(on)*-math.Log2(p) - (lgN-lgOn-lgOff)/math.Ln2
}

// stepFromDeltas derives a StepInfo from read differences (zeros are
// ignored). It is a pure function of the differences:
//
//  1. GCD and MinDelta over all of them; differences above 16× the median
//     (or 2^44) are Outliers and take no further part.
//  2. Grids of period q ≥ 8 ticks: for each of the 8 smallest values that
//     hold 1% of the differences, and each j from 1 to 64, q starts at
//     value/j and is fitted as Σd/Σk over the differences within one tick
//     of a multiple k ≥ 1. A difference is on the grid when it lies less
//     than one tick from a multiple: a counter that gains q ticks per step
//     shows floor or ceil of k·q.
//  3. Failing that, whole-tick steps 7 down to 2, on-grid meaning an exact
//     multiple.
//  4. A grid passes when at most 1 difference in 4 is off it and the
//     evidence (gridBits) is at least 30 bits; the largest passing period
//     is taken, then replaced by a divisor q/m whose extra multiples catch
//     q's off-grid differences with 30 bits of evidence (so a counter seen
//     mostly at even multiples of its quantum is not reported at twice it).
//  5. Step is that period if it exceeds the GCD (Quantized), else the GCD.
func stepFromDeltas(deltas []uint64) StepInfo {
	sorted := make([]uint64, 0, len(deltas))
	var g uint64
	for _, d := range deltas {
		if d != 0 {
			sorted = append(sorted, d)
			g = gcd(g, d)
		}
	}
	info := StepInfo{Step: 1, GCD: 1, Deltas: len(sorted)}
	if len(sorted) == 0 {
		return info
	}
	slices.Sort(sorted)
	info.GCD, info.MinDelta = g, sorted[0]
	info.Step = float64(g)

	median := sorted[(len(sorted)-1)/2]
	limit := uint64(maxGridDelta)
	if median <= maxGridDelta/outlierFactor {
		limit = median * outlierFactor
	}
	var bins []bin
	for _, d := range sorted {
		if d > limit {
			info.Outliers++
			continue
		}
		if len(bins) > 0 && bins[len(bins)-1].v == d {
			bins[len(bins)-1].n++
		} else {
			bins = append(bins, bin{v: d, n: 1})
		}
	}

	best, ok := bestFracGrid(bins)
	if !ok {
		best, ok = bestSmallGrid(bins)
	}
	if !ok || best.q <= float64(g) || math.IsNaN(best.q) || math.IsInf(best.q, 0) {
		return info
	}
	info.Step, info.Quantized, info.OffGrid = best.q, true, best.off
	return info
}

// bestFracGrid returns the largest passing grid of period ≥ minFracQuantum
// (step 2 and 4 of stepFromDeltas), refined to a divisor where one is
// evident.
func bestFracGrid(bins []bin) (grid, bool) {
	total := 0
	for _, b := range bins {
		total += b.n
	}
	var best grid
	found := false
	bases := 0
	for _, b := range bins {
		if bases == maxBases {
			break
		}
		if float64(b.n) < populatedShare*float64(total) || b.v < minFracQuantum {
			continue
		}
		bases++
		for j := 1; j <= maxMultiple && float64(b.v)/float64(j) >= minFracQuantum; j++ {
			q0 := float64(b.v) / float64(j)
			c, ok := fitGrid(bins, q0, float64(b.v)+firstFitMultiples*q0+1)
			if ok && c.passes() && (!found || c.q > best.q) {
				best, found = c, true
			}
		}
	}
	if !found {
		return grid{}, false
	}
	// Prefer a divisor q/m when q's off-grid differences fall on its extra
	// multiples (m−1 per period of q, each catching at most 2 integers)
	// far more often than chance.
	for m := 2; best.off > 0 && best.q/float64(m) >= minFracQuantum; m++ {
		q0 := best.q / float64(m)
		c, ok := fitGrid(bins, q0, math.Inf(1)) // q0 is already fitted
		if !ok || !c.passes() || c.off >= best.off {
			continue
		}
		p := min(1, 2*float64(m-1)/best.q)
		if gridBits(best.off-c.off, c.off, p) >= minGridBits {
			best, m = c, 1 // restart the search from the new period
		}
	}
	return best, true
}

// fitGrid fits a period near q0 to the differences, first to those up to
// firstUpTo ticks, and classifies them.
func fitGrid(bins []bin, q0, firstUpTo float64) (grid, bool) {
	q := q0
	for pass := 0; pass < fitPasses; pass++ {
		var sumD, sumK float64
		for _, b := range bins {
			d := float64(b.v)
			if pass == 0 && d > firstUpTo {
				break // bins are sorted
			}
			k := math.Round(d / q)
			if k < 1 || math.Abs(d-k*q) > 1 {
				continue
			}
			sumD += d * float64(b.n)
			sumK += k * float64(b.n)
		}
		if sumK == 0 {
			return grid{}, false
		}
		q = sumD / sumK
	}
	if !(q >= minFracQuantum) || math.IsInf(q, 0) {
		return grid{}, false
	}
	c := grid{q: q}
	for _, b := range bins {
		d := float64(b.v)
		k := math.Round(d / q)
		if k >= 1 && math.Abs(d-k*q) < 1 {
			c.on += b.n
		} else {
			c.off += b.n
		}
	}
	return c, true
}

// bestSmallGrid returns the largest passing whole-tick step from
// maxSmallStep down to 2 (step 3 of stepFromDeltas), refined to a divisor
// where one is evident.
func bestSmallGrid(bins []bin) (grid, bool) {
	count := func(s uint64) grid {
		c := grid{q: float64(s), exact: true}
		for _, b := range bins {
			if b.v%s == 0 {
				c.on += b.n
			} else {
				c.off += b.n
			}
		}
		return c
	}
	for s := uint64(maxSmallStep); s >= 2; s-- {
		best := count(s)
		if !best.passes() {
			continue
		}
		for d := s / 2; d >= 2; d-- {
			cur := uint64(best.q)
			if cur%d != 0 || d >= cur {
				continue
			}
			c := count(d)
			if !c.passes() || c.off >= best.off {
				continue
			}
			// cur/d − 1 extra multiples per period of cur, one integer each.
			p := float64(cur/d-1) / float64(cur)
			if gridBits(best.off-c.off, c.off, p) >= minGridBits {
				best = c
			}
		}
		return best, true
	}
	return grid{}, false
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
