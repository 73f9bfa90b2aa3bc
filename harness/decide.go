package harness

// The engine's decisions, as pure functions of what it has seen: the
// choice of R, the counter quantum the samples show, the R variants of a
// throughput measurement, when to stop, and whether the samples form two
// clusters. Each is tested from tables, without hardware (decide_test.go).

import (
	"math"
	"slices"
	"time"
)

// Limits of the decisions below, each with its reason.
const (
	// probeSamples is how many samples the choice of R takes at each
	// candidate R: enough to see repeated values on a quantized counter
	// (a quantum shows as few distinct values), few enough that the probe
	// of a microsecond kernel costs well under a millisecond.
	probeSamples = 8
	// longProbe: when one sample at R = 1 already spans this many times the
	// ticks a sample needs, R = 1 is final without more samples, so a
	// kernel of a second is not probed eight times.
	longProbe = 4
	// quantumMinGap is the smallest counter quantum the samples can reveal,
	// in ticks: merging values within quantumMerge turns narrow noise on a
	// fine counter into groups 3 ticks apart, and against a tolerance of 2
	// ticks any gap under 8 fits some grid. Quanta that fine are left to the
	// step detection (an even-valued TSC has GCD 2) and cost at most 0.2% of
	// a MinRegionSteps sample when missed.
	quantumMinGap = 8
	// quantumMerge merges sample values this close (in ticks) before
	// looking for a grid: a virtual TSC's reads are occasionally 1 tick off
	// its quantum (seen on AMD Zen 5 guests).
	quantumMerge = 2
	// scaleQuanta and scaleOverheads: a best sample of at least 64 quanta
	// and 32 empty regions gives the cost per call to within 1/64 (its
	// quantization) plus 1/32 (the empty region it includes, which makes
	// the per-call figure too high and the scaled R too short by as much):
	// within the 5% a scaled R is given to spare.
	scaleQuanta, scaleOverheads = 64, 32
	// maxQuantumRetunes bounds how often a measurement may lengthen R after
	// its samples revealed a coarser quantum than the one R was chosen for.
	maxQuantumRetunes = 3
	// retuneAt lists the accepted-sample counts of a target at which the
	// engine looks for a quantum in its samples again.
	retuneAt1, retuneAt2 = 32, 128
	// maxEpsSteps caps the 10/ε quanta a sample must span: with ε = 1e-12
	// the rule would ask for samples of hours. 1e5 quanta is about 1 ms on
	// a 26-tick quantum at 2.6 GHz; below ε = 1e-4 the absolute floor
	// (AbsSteps) is what lets a measurement converge.
	maxEpsSteps = 1e5
	// minRounds is the fewest rounds a measurement takes before it may stop
	// as converged: K agreeing samples can come from two rounds, while the
	// core's speed (and a fenced call's mode) on a shared host moves within
	// a millisecond, so the target's best samples and the ruler's must have
	// had a fair chance to see the same moments. 16 rounds of a 1 µs kernel
	// take about 2 ms; fewer let interleaved measurements of one kernel
	// miss its usual figure measurably more often (docs/how-it-measures.md).
	minRounds = 16
	// modeMinSamples is the fewest samples the two-cluster check judges.
	modeMinSamples = 20
	// modeMinShare is the smallest share of the samples (in the lower 90%)
	// that a cluster must hold to count as a mode rather than a tail.
	modeMinShare = 0.15
	// modeMinGap is the smallest relative distance between two clusters
	// reported as modes (2%): below it the difference is within what a
	// moving core clock does to one mode (it steps by about 0.7% on an AMD
	// Zen 4 guest, so a steady ADD chain would be reported in "two modes"
	// one step apart), while the modes this check is for, the overlap of
	// back-to-back calls of a latency-bound kernel, lie about 4% apart.
	modeMinGap = 0.02
)

// regionSteps is the length a sample must have, in counter quanta: at least
// minSteps, and at least 10/ε so that one quantum is at most a tenth of the
// K-best tolerance ε of a sample, up to maxEpsSteps (ε = 0 leaves minSteps
// alone).
func regionSteps(minSteps, eps float64) float64 {
	if eps > 0 {
		return math.Max(minSteps, math.Min(10/eps, maxEpsSteps))
	}
	return minSteps
}

// sampleQuantum returns the counter quantum that samples of one region
// show, in ticks, or 0 when they show none.
//
// A quantized counter (a virtual TSC advancing 26 ticks at a time, say)
// shows itself in the samples whatever the step detection said: few
// distinct values, on a grid. So: values within quantumMerge ticks are
// merged (occasional 1-tick artefacts); when more than half of the samples
// are distinct, they are not quantized at the scale of their noise (and a
// quantum finer than the noise does not limit the K-best figure) and 0 is
// returned, as when, among retuneAt1 samples or more, fewer than two
// values were taken twice or more (an outlier is not a grid); otherwise
// the gaps between the distinct values (of the loop's samples, those
// taken twice or more) must all lie
// within quantumMerge ticks of whole multiples of one quantum q ≥
// quantumMinGap, fitted as Σgap / Σround(gap/min gap). A single distinct
// value (every sample equal) returns -1: the samples cannot resolve
// anything finer than their region.
func sampleQuantum(samples []uint64) float64 {
	n := len(samples)
	if n < probeSamples-2 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	// Merge runs of values closer than quantumMerge, keeping each run's
	// lowest value.
	var groups []uint64
	var count []int
	for i, v := range s {
		if i == 0 || v-groups[len(groups)-1] > quantumMerge {
			groups, count = append(groups, v), append(count, 0)
		}
		count[len(count)-1]++
	}
	switch {
	case len(groups) == 1:
		return -1
	case 2*len(groups) > n:
		return 0
	}
	// Among the loop's samples (retuneAt1 and more), a value taken once is
	// no evidence of a grid: one sample an interrupt lengthened, beside 31
	// equal ones, makes a "quantum" of the distance between them (a retune
	// took a continued chain of 1000 IMULs from R = 4 to 38,336, a 5 s
	// measurement). There the grid is fitted to values taken at least
	// twice. (The probe's eight samples of a quantized counter often take
	// one grid value once.)
	if n >= retuneAt1 {
		kept := groups[:0:0]
		for i, g := range groups {
			if count[i] >= 2 {
				kept = append(kept, g)
			}
		}
		if len(kept) < 2 {
			return 0
		}
		groups = kept
	}
	gaps := make([]float64, len(groups)-1)
	minGap := math.Inf(1)
	for i := range gaps {
		gaps[i] = float64(groups[i+1] - groups[i])
		minGap = math.Min(minGap, gaps[i])
	}
	if minGap < quantumMinGap {
		return 0
	}
	var sumG, sumK float64
	for _, g := range gaps {
		sumG += g
		sumK += math.Round(g / minGap)
	}
	q := sumG / sumK
	// A quantum wider than the best sample is an outlier's distance, not a
	// grid: a sample of 1000 chained IMULs (9,700 ticks) and one 16,000
	// ticks longer made R 27,475 and the measurement 10 s long.
	if q > float64(s[0]) {
		return 0
	}
	for _, g := range gaps {
		k := math.Round(g / q)
		if k < 1 || math.Abs(g-k*q) > quantumMerge {
			return 0
		}
	}
	return q
}

// multipleOf reports whether a quantum seen in samples is a whole multiple
// of a known quantum of at least quantumMinGap ticks (within quantumMerge
// ticks per multiple): samples that took only every second or fourth grid
// value are consistent with the known quantum and say nothing coarser.
func multipleOf(seen, known float64) bool {
	if known < quantumMinGap {
		return false
	}
	k := math.Round(seen / known)
	return k >= 1 && math.Abs(seen-k*known) <= quantumMerge*k
}

// repeatDecision is what one probe of the choice of R concluded.
type repeatDecision struct {
	R       int     // the R to probe next, or the final R when Done
	Done    bool    // R is final
	Quantum float64 // the counter quantum assumed, in ticks
	Need    float64 // ticks a sample must span
	Finest  float64 // the shortest sample of the probes so far (chooseRepeat's), +Inf for none
}

// decideRepeat decides, from samples of r calls each (usable ones only, in
// ticks), the R to try next or that r is final. step is the counter's step
// as detected (or the coarsest quantum known so far); the quantum assumed
// is the larger of it and the quantum the samples show ([sampleQuantum]).
// A sample must span regionSteps quanta. overhead is the ticks of an empty
// timed region (the counter reads themselves; 0 if unknown). finest is the
// shortest sample seen before (+Inf for none): a counter quantum coarser
// than a sample it timed is refuted (a quantized counter cannot time less
// than one quantum), and the samples' grid is then the code's own modes
// (two modes of a chained IMUL's loop, 3.7% apart, made a 24,000-tick
// "quantum" of samples of 222 calls, and R 42,000).
//
//   - no usable sample (all straddled CPUs): try 2r, to make progress;
//   - a best sample of 0 ticks: R grows sixteenfold;
//   - every sample equal: the samples resolve nothing finer than
//     themselves, so R grows fourfold until they differ or span 16× the
//     need (then the counter is fine enough and the kernel steady);
//   - the best sample spans the need: r is final;
//   - otherwise R is scaled to reach the need with 5% to spare, from the
//     best sample. The scaled R is final at once, without samples of it,
//     when the best sample says the cost per call to within the spare: the
//     quantum is a known coarse one (at least quantumMinGap ticks: a fine
//     counter may hide a coarser quantum that longer samples would show),
//     and the best sample spans at least scaleQuanta quanta and
//     scaleOverheads times the empty region, which it includes. That
//     spares a microsecond kernel a probe of 8 × R calls (0.5 ms) before
//     its first figure; the quantum is checked again on the loop's samples
//     (retuneAt1, retuneAt2).
//
// R never exceeds maxRepeat; reaching it is final.
func decideRepeat(r int, samples []uint64, step, overhead, minSteps, eps, finest float64) repeatDecision {
	q := math.Max(step, 1)
	sq := sampleQuantum(samples)
	if sq > q && !multipleOf(sq, q) && sq <= finest {
		q = sq
	}
	d := repeatDecision{R: r, Quantum: q, Need: q * regionSteps(minSteps, eps)}
	if r >= maxRepeat {
		d.R, d.Done = maxRepeat, true
		return d
	}
	if len(samples) == 0 {
		d.R = min(maxRepeat, 2*r)
		return d
	}
	best := float64(slices.Min(samples))
	switch {
	case best <= 0:
		d.R = min(maxRepeat, 16*r)
	case sq < 0 && best < 16*d.Need:
		d.R = min(maxRepeat, 4*r)
	case best >= d.Need:
		d.Done = true
	default:
		next := math.Ceil(float64(r) * d.Need * 1.05 / best)
		d.R = int(math.Min(float64(maxRepeat), math.Max(next, float64(r+1))))
		d.Done = q >= quantumMinGap && best >= scaleQuanta*q && best >= scaleOverheads*overhead
	}
	return d
}

// Limits of the overlap check (decideOverlap).
const (
	// overlapBias is the most a sample's ends may add to a throughput
	// figure, relative: back to back, a call overlaps the next in the
	// out-of-order core, but a sample's last call has none to overlap and
	// its first starts after a fence, so a sample of R calls is longer
	// than R calls in a loop by about one call's overlap, and the figure
	// reads high by overlap/R. A restarted chain of 1000 IMULs overlaps by
	// about 100 ticks on an Intel Cascade Lake guest: its figure read 1.1%
	// high at the R = 4 a 10,000-tick sample gives, 0.26% at R = 16, 0.02%
	// from R = 128 on, and R moved between processes as the quantum check
	// retuned it (testdata/overlaps, TestReplayOverlaps). 2.5e-4 is a
	// quarter of the spread between processes the best of the peers reach
	// on such a chain.
	overlapBias = 2.5e-4
	// overlapMinSample is the shortest throughput sample, in seconds,
	// whatever the check sees: the pipeline refills after the counter's
	// fence, about 10 ticks a sample on the Cascade Lake guest even for
	// calls that cannot overlap (a chain continued through memory: 815.0
	// ticks a call at R = 16, 814.3 from R = 128 on), too few for the two
	// lengths to tell from their noise. 20 µs makes them 0.02% of a sample.
	overlapMinSample = 20e-6
	// overlapMaxSample caps the sample the overlap check may ask for, in
	// seconds: longer samples catch more interrupts (from about 1 ms on,
	// their best reads 0.3% high) and slow a measurement; beyond it the
	// figure carries its bias, with a warning.
	overlapMaxSample = 1e-3
	// overlapQuanta is the least overlap, in counter quanta, the check
	// acts on: below it the two lengths' best samples differ by their
	// quantization alone.
	overlapQuanta = 4
)

// overlapDecision is what the overlap check concluded.
type overlapDecision struct {
	R       int     // the R to sample with (at least the one checked)
	Edge    float64 // ticks a sample's ends add to R calls in a loop; 0 when none was seen
	PerCall float64 // ticks per call in a loop, from the two lengths; NaN when not measured
	Capped  bool    // R was capped at maxTicks with the bias above overlapBias
}

// decideOverlap decides, from the best samples of r calls (t1) and of 4r
// calls (t4), in ticks, how many calls a throughput sample needs so that
// its ends add at most overlapBias to the figure. A sample of n calls
// takes overhead + n·b + edge ticks, b the cost of a call in a loop: the
// two lengths give b = (t4 − t1)/3r and edge = t1 − overhead − r·b. An
// edge under overlapQuanta quanta q is quantization. R rises to
// edge/(overlapBias·b), and to minTicks/b at least, up to maxTicks per
// sample (and maxRepeat); it never falls below r.
func decideOverlap(r int, t1, t4, overhead, q, minTicks, maxTicks float64) overlapDecision {
	d := overlapDecision{R: r, PerCall: math.NaN()}
	if r < 1 || !(t1 > 0) || !(t4 > t1) {
		return d
	}
	b := (t4 - t1) / float64(3*r)
	d.PerCall = b
	need := math.Ceil(minTicks / b)
	if edge := t1 - overhead - float64(r)*b; edge > overlapQuanta*math.Max(q, 1) {
		d.Edge = edge
		need = math.Max(need, math.Ceil(edge/(overlapBias*b)))
	}
	if most := math.Max(float64(r), math.Floor(maxTicks/b)); need > most {
		need = most
		d.Capped = d.Edge/(need*b) > overlapBias
	}
	d.R = int(math.Min(math.Max(need, float64(r)), maxRepeat))
	return d
}

// repeatVariants returns the R values a target is sampled with in turn.
// In throughput mode, how much consecutive calls overlap in the
// out-of-order core can depend on the loop around them (the remainder of
// the loop unrolled by four, the loop-exit prediction), and one fixed R
// can lock a measurement into one mode and the next measurement, with a
// slightly different R, into another. So R, R+1, R+2, R+3 are taken in
// turn, which covers every remainder mod 4, and every measurement sees
// every mode. Below 8 calls per sample the variants would change a
// sample's length by more than a third: R alone (how much a sample's ends
// cut off of the calls' overlap is decideOverlap's). In latency mode the calls
// are fenced apart and cannot overlap: R alone.
func repeatVariants(r int, mode Mode) []int {
	if mode == Latency || r < 8 {
		return []int{r}
	}
	return []int{r, r + 1, r + 2, r + 3}
}

// loopState is what the stopping rule looks at after each round.
type loopState struct {
	Rounds    int           // rounds taken
	Elapsed   time.Duration // since sampling began
	Cancelled bool          // the context is done
	Busy      bool          // some target still needs samples
	Pending   bool          // some overhead or ruler stream has not converged
	Exhausted bool          // some target has taken MaxSamples samples
	MinTime   time.Duration // sample at least this long unless exhausted
}

// stopReason says why the loop stops, or "" to go on.
type stopReason string

const (
	stopCancelled stopReason = "cancelled"
	stopMaxTime   stopReason = "max-time"
	stopSamples   stopReason = "max-samples"
	stopDone      stopReason = "done"
)

// decideStop is the stopping rule. At least one round is always taken, so
// a time limit yields a result that says it did not converge rather than
// no result. Then the loop stops when the context is cancelled, when
// MaxTime has passed, when a target has taken MaxSamples samples and none
// needs more (M bounds the measurement: every stream is sampled in every
// round, so no target may go on past it while another stream converges),
// or when no target needs samples, every overhead and ruler stream has
// converged, MinTime has passed and minRounds rounds are done. The engine
// may still go on after stopDone or stopSamples ([decideWait]); that wait,
// bounded by its own budget, can take a target past MaxSamples.
func decideStop(s loopState, maxTime time.Duration) stopReason {
	switch {
	case s.Cancelled:
		return stopCancelled
	case s.Rounds == 0:
		return ""
	case s.Elapsed > maxTime:
		return stopMaxTime
	case s.Exhausted && !s.Busy:
		return stopSamples
	case !s.Busy && !s.Pending && s.Elapsed >= s.MinTime && s.Rounds >= minRounds:
		return stopDone
	}
	return ""
}

// waitState is what decides whether a loop that [decideStop] would end
// goes on for the core to be free (rulerwait.go).
type waitState struct {
	Waiting   bool          // a wait has begun
	Waited    time.Duration // how long it has lasted
	Budget    time.Duration // calibrate.RulerThresholds.Wait
	Converged bool          // every target has converged
	Shared    func() bool   // calibrate.DecideCycles says wait; asked only when needed
}

// decideWait reports whether a loop that decideStop ends for why goes on
// for the core to be free. Only a loop done, or at MaxSamples with every
// target converged or in a wait, may. A wait ends when the core is free
// and every target has converged again, or when its budget is spent: the
// first sample from the freed core (the probe beside it reading alone)
// would end it at once, while that new best sample of a target, or of the
// ruler's chains, stands alone. The core clock moves by up to 25% between
// the shared and the free core on the hosts met, and a target's best from
// the one converted with the ruler's best from the other reads up to 22%
// low or 30% high: hunt_test.go's recording on an Intel guest found 165
// wrong figures in 8,960 measurements, 80 off by more than 5%, 73 of which
// ended within two rounds of the new best.
func decideWait(why stopReason, s waitState) bool {
	switch {
	case why != stopDone && why != stopSamples:
		return false
	case why == stopSamples && !s.Converged && !s.Waiting:
		return false
	case s.Waiting && !s.Converged && s.Waited < s.Budget:
		return true
	}
	return s.Shared()
}

// Modes describes two clusters found among a measurement's per-call
// samples (see [Result.Modes]).
type Modes struct {
	// Low and High are the smallest per-call value of each cluster, in the
	// unit of the values given (ticks per call in Result.Modes).
	Low, High float64
	// NLow and NHigh are the numbers of samples in each.
	NLow, NHigh int
}

// findModes reports whether per-call values form two clusters, and which.
// The top 10% are dropped as the tail every timing has; in the rest, the
// widest gap between consecutive sorted values splits them in two. They
// are two modes when each side holds at least modeMinShare of them (and 3
// values), the gap is at least modeMinGap and eps/2 of the lower value,
// and it is wider than twice the spread of the lower cluster's lower half
// (so a sparse tail is not a mode).
func findModes(values []float64, eps float64) (Modes, bool) {
	if len(values) < modeMinSamples {
		return Modes{}, false
	}
	s := slices.Clone(values)
	slices.Sort(s)
	s = s[:int(math.Ceil(0.9*float64(len(s))))]
	n := len(s)
	minSide := max(3, int(math.Ceil(modeMinShare*float64(n))))
	split, gap := -1, 0.0
	for i := minSide - 1; i+minSide < n; i++ {
		if g := s[i+1] - s[i]; g > gap {
			split, gap = i, g
		}
	}
	if split < 0 || s[0] <= 0 {
		return Modes{}, false
	}
	lo := s[:split+1]
	inner := lo[len(lo)/2] - lo[0]
	if gap < math.Max(modeMinGap, eps/2)*lo[0] || gap <= 2*inner {
		return Modes{}, false
	}
	return Modes{Low: lo[0], High: s[split+1], NLow: len(lo), NHigh: n - len(lo)}, true
}

// overheadRepeat returns the R of the empty loop subtracted from a sample
// of r calls. In latency mode it is the same r fenced empty calls: the
// fence before each call makes a call's fixed cost additive, and the
// fenced empty call is what the intercept is measured against. In
// throughput mode it is 0, the counter reads and the loop's entry and exit
// alone: back to back, a call's own cost (the indirect call, the return,
// the loop) overlaps with the function's work by an amount no empty
// function can stand for, and the best sample of an empty loop of calls
// moves from one moment to the next by far more than a steady kernel's
// does, so subtracting it would move the kernel's figure with the empty
// loop (docs/how-it-measures.md). A throughput figure is therefore what a
// call costs back to back, the call included.
func overheadRepeat(r int, mode Mode) int {
	if mode == Latency {
		return r
	}
	return 0
}
