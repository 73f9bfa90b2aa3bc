package calibrate

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// CoreClock is the ratio of core cycles to counter ticks as a ruler of two
// dependent chains measured it ([Ruler], [MeasureCoreClock]), with the
// decision of [DecideRuler]: a figure only when the chains agree (or, where
// nothing can check them, marked unchecked), never a number that could not
// be cross-checked.
type CoreClock struct {
	// CyclesPerTick is core cycles per counter tick: the inverse of the
	// register ADD chain's slope in ticks per link (one cycle each). 0 when
	// the ruler was refused; Err says why.
	CyclesPerTick float64
	// Checked reports that the IMUL chain agreed with the ADD chain at its
	// documented latency. A figure that is not checked (the multiply
	// latency of this core is not documented, or the chains are the
	// pure-Go fallback) rests on the ADD chain alone; Err says why.
	Checked bool
	// Err is nil when the figure is checked; otherwise why there is no
	// figure (wrapping [ErrRulersDisagree], [ErrImplausibleClock] or
	// [ErrUnstable]) or why it is unchecked (wrapping [ErrUnchecked]).
	Err error
	// CoreHz is the core clock the ADD chain implies (counter Hz × cycles
	// per tick if each ADD takes one cycle), also when it was refused; 0
	// when the counter frequency or the slope is unknown.
	CoreHz float64
	// AddTicksPerOp and ImulTicksPerOp are the chains' slopes, ticks per
	// link (NaN when a chain gave none or was not measured).
	AddTicksPerOp, ImulTicksPerOp float64
	// ImulAddRatio is ImulTicksPerOp / AddTicksPerOp; with a sound ruler
	// it equals ImulLatency.
	ImulAddRatio float64
	// ImulLatency is the documented latency of one IMUL link (arm64: MUL)
	// in cycles on this processor, 0 when not documented ([CPU.ImulLatency]).
	ImulLatency float64
	// Imm is the small-immediate ADD chain's cost, measured beside the
	// ruler where asked for: whether this core folds it at rename.
	Imm Folding
	// ProbeCycles is the core-state probe's best in core cycles per
	// iteration ([ProbeIters] iterations of [chain.Branch], the timing's
	// fixed cost included), measured beside the ruler: one reading of what
	// [ProbeAlone] keeps the best of. 0 or NaN when not measured or
	// without an accepted ruler.
	ProbeCycles float64
	// Converged reports whether the ADD streams' K best samples agreed
	// (meaningful for a [Ruler] with K > 1).
	Converged bool
	// Short and Long are the ADD chain's two lengths; Reps the samples of
	// each chain at each length per try; Tries the measurements made
	// (MeasureCoreClock measures again when the chains disagree).
	Short, Long, Reps, Tries int
	// Exact reports that the chains are the assembly ones; the pure-Go
	// fallback's figures are approximate.
	Exact bool
	// Warnings holds Err when it is not nil, and the soft problems of the
	// measurement.
	Warnings []error
}

// Folding is what a small-immediate ADD chain (ADD reg, 1) costs on this
// core, relative to a register ADD chain measured beside it: one cycle per
// link on most cores, about 0.2 on Golden Cove-class Intel cores, which
// fold it at register rename.
type Folding struct {
	// TicksPerOp is the immediate chain's slope in ticks per link (NaN
	// when not measured).
	TicksPerOp float64
	// CyclesPerOp is TicksPerOp over the register ADD chain's slope:
	// cycles per link when a register ADD takes one (NaN when not
	// measured).
	CyclesPerOp float64
	// Folded reports CyclesPerOp below FoldedBelow.
	Folded bool
}

// FoldedBelow is the cost in cycles per link below which a small-immediate
// ADD chain counts as folded: folded chains run at 0.19–0.21 (Emerald
// Rapids guest), unfolded ones at 1 within the 5% the core clock moves
// between chains timed one after the other.
const FoldedBelow = 0.75

// Measured reports whether the immediate chain was measured.
func (f Folding) Measured() bool { return !math.IsNaN(f.CyclesPerOp) && f.CyclesPerOp > 0 }

// String says in one line whether the chain is folded and by how much.
func (f Folding) String() string {
	switch {
	case !f.Measured():
		return "not measured"
	case f.Folded:
		return fmt.Sprintf("folded at rename: %.3f cycles per link, %.1f× faster than a register ADD", f.CyclesPerOp, 1/f.CyclesPerOp)
	default:
		return fmt.Sprintf("not folded: %.3f cycles per link", f.CyclesPerOp)
	}
}

// RulerThresholds are the limits of [DecideRuler] and [DecideCycles].
type RulerThresholds struct {
	// Agree is the largest relative difference allowed between the IMUL/ADD
	// slope ratio and the documented IMUL latency, widened by
	// RulerFigures.Spread up to MaxAgree.
	Agree float64
	// MaxAgree caps the widened tolerance.
	MaxAgree float64
	// MinCoreHz and MaxCoreHz bound a plausible core clock.
	MinCoreHz, MaxCoreHz float64
	// Lag is how much slower than its IMUL chain implies the register ADD
	// chain may run (beyond the slopes' resolution) before a measurement
	// waits for the two to agree; 0 waits for any lag past the resolution.
	Lag float64
	// Wait is the longest a measurement goes on for its ruler's chains to
	// agree; 0 never waits.
	Wait time.Duration
	// GiveUp: after this many measurements in a row of one caller's run
	// waited Wait in vain, the next ones do not wait; 0 never gives up.
	GiveUp int
	// Shared is how much slower than its best on the machine the
	// core-state probe may run before the core counts as shared: the
	// measurement waits, and a figure measured so is labelled. 0 does not
	// judge the probe.
	Shared float64
}

// DefaultRulerThresholds are the limits the harness and the calibration
// use. Each guards one failure; docs/how-it-measures.md ("The ruler")
// gives the measurements behind them, and ruler_test.go and cycles_test.go
// replay them.
//
//   - Agree, 10%: sound chains timed one after the other differ by the
//     core clock's moves between them (a few percent), while a ruler made
//     of a chain folded at rename is off by a factor of 5; 10% tells the
//     two apart with room on both sides.
//   - MaxAgree, 50%: the tolerance widens by how far the chains' best
//     samples spread on a busy machine, but never so far that a folded
//     chain's 400% error passes.
//   - MinCoreHz and MaxCoreHz, 0.2 to 7 GHz: every processor shipped at
//     stock settings runs in that band.
//   - Lag, 0.1%: a busy SMT sibling delays a dependent one-cycle ADD more
//     than a three-cycle IMUL, and every cycle figure of the ADD ruler then
//     reads low by the ADD chain's lag; 0.1% beyond the slopes'
//     resolution catches the shared stretches seen on an AMD Zen 4 guest,
//     where 0.2% let about half of them pass.
//   - Wait, 250 ms: the shared stretches that make the ADD chain lag last
//     50 to 250 ms, and the K best samples kept across the wait come from
//     the moment the core is free again.
//   - GiveUp, 2: a lag that outlasts two whole waits is the CPU's own or a
//     core shared for long, and waiting on every later measurement of the
//     same run would only cost time; they still warn.
//   - Shared, 10%: the probe (one taken branch per iteration), read beside
//     a measurement's best samples (its lowest sample in the few rounds
//     that gave them), runs 25% to 100% slower while a sibling shares the
//     core, but over 5% above its best beside 6% of the figures that did
//     not slow at all; 10% labelled 0.7% of those and left no slow SumLoop
//     or Combine4 figure unlabelled in the Intel recordings. harness's
//     TestReplayStretches replays the recordings of every machine kind met
//     and fails when another threshold gets clearly fewer figures wrong.
var DefaultRulerThresholds = RulerThresholds{Agree: 0.10, MaxAgree: 0.5, MinCoreHz: 0.2e9, MaxCoreHz: 7e9, Lag: 0.001, Wait: 250 * time.Millisecond, GiveUp: 2, Shared: 0.10}

func (t RulerThresholds) check() error {
	switch {
	case !(t.Agree > 0 && t.Agree < 1):
		return fmt.Errorf("%w: ruler agreement tolerance %v (allowed: between 0 and 1)", ErrBadCount, t.Agree)
	case !(t.MaxAgree >= t.Agree && t.MaxAgree < 1):
		return fmt.Errorf("%w: ruler agreement cap %v (allowed: from the tolerance %v to below 1)", ErrBadCount, t.MaxAgree, t.Agree)
	case !(t.MinCoreHz > 0 && t.MaxCoreHz > t.MinCoreHz && !math.IsInf(t.MaxCoreHz, 0)):
		return fmt.Errorf("%w: plausible core clock %v to %v Hz (allowed: 0 < min < max, finite)", ErrBadCount, t.MinCoreHz, t.MaxCoreHz)
	case !(t.Lag >= 0 && t.Lag < 1):
		return fmt.Errorf("%w: ruler lag tolerance %v (allowed: 0 to below 1)", ErrBadCount, t.Lag)
	case !(t.Shared >= 0) || math.IsInf(t.Shared, 0):
		return fmt.Errorf("%w: shared-core probe tolerance %v (allowed: ≥ 0, finite; 0 does not judge the probe)", ErrBadCount, t.Shared)
	case t.Wait < 0:
		return fmt.Errorf("%w: ruler wait %v (allowed: ≥ 0)", ErrBadCount, t.Wait)
	case t.GiveUp < 0:
		return fmt.Errorf("%w: ruler give-up count %d (allowed: ≥ 0)", ErrBadCount, t.GiveUp)
	}
	return nil
}

// RulerFigures are what a ruler measured, the inputs of [DecideRuler].
type RulerFigures struct {
	// AddTicksPerOp, ImulTicksPerOp and ImmTicksPerOp are the register ADD,
	// IMUL and small-immediate ADD chains' slopes in ticks per link; NaN
	// (or ≤ 0) when a chain gave none or was not measured.
	AddTicksPerOp, ImulTicksPerOp, ImmTicksPerOp float64
	// ImulLatency is the documented IMUL latency in cycles, 0 when unknown.
	ImulLatency float64
	// CounterHz is the counter's frequency, 0 when unknown.
	CounterHz float64
	// Exact reports the assembly chains (false: the pure-Go fallback).
	Exact bool
	// Spread is how far the ratio may be off from the moments alone: the
	// relative spreads of the K best samples of the long ADD and IMUL
	// streams, added (0 when unknown). It widens the tolerance.
	Spread float64
	// ProbeTicks is the core-state probe's reading in ticks per
	// iteration, the timing's fixed cost included (NaN or 0 when not
	// measured): [Ruler.Figures] gives its best sample; a caller may judge
	// another reading instead (harness: the probe's samples beside its
	// target's best samples). [DecideCycles] compares it, in cycles, with
	// the best the probe has shown on the machine.
	ProbeTicks float64
}

// tolerance is the relative disagreement DecideRuler allows for f.
func (th RulerThresholds) tolerance(f RulerFigures) float64 {
	t := th.Agree
	if f.Spread > 0 && !math.IsInf(f.Spread, 0) {
		t += f.Spread
	}
	return math.Min(t, th.MaxAgree)
}

func usable(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// DecideRuler decides what a ruler's figures are worth. A register ADD
// takes one core cycle, so the ADD slope gives cycles per tick, accepted
// only when:
//
//   - the slope is positive (else no figure, [ErrUnstable]);
//   - the core clock it implies lies within MinCoreHz to MaxCoreHz, where
//     the counter frequency is known (else no figure, [ErrImplausibleClock]);
//   - the IMUL chain, where its latency is documented and it was measured,
//     runs at that latency in the same cycles: |IMUL/ADD ÷ latency − 1| ≤
//     Agree + Spread, at most MaxAgree (else no figure, [ErrRulersDisagree],
//     naming both chains).
//
// A figure no second chain could check (latency not documented, IMUL not
// measured, pure-Go chains) is given with Checked false and Err wrapping
// [ErrUnchecked]. It is a pure function.
func DecideRuler(f RulerFigures, th RulerThresholds) CoreClock {
	cc := CoreClock{AddTicksPerOp: f.AddTicksPerOp, ImulTicksPerOp: f.ImulTicksPerOp, ImulLatency: f.ImulLatency, Exact: f.Exact,
		ImulAddRatio: math.NaN(), Imm: Folding{TicksPerOp: f.ImmTicksPerOp, CyclesPerOp: math.NaN()}}
	if !usable(f.AddTicksPerOp) {
		cc.Err = fmt.Errorf("%w: the register ADD chain gave no usable slope (%.4g ticks per link): no cycle figure", ErrUnstable, f.AddTicksPerOp)
		return cc
	}
	cpt := 1 / f.AddTicksPerOp
	if usable(f.CounterHz) {
		cc.CoreHz = f.CounterHz * cpt
	}
	if usable(f.ImulTicksPerOp) {
		cc.ImulAddRatio = f.ImulTicksPerOp / f.AddTicksPerOp
	}
	if usable(f.ImmTicksPerOp) {
		cc.Imm.CyclesPerOp = f.ImmTicksPerOp / f.AddTicksPerOp
		cc.Imm.Folded = cc.Imm.CyclesPerOp < FoldedBelow
	}
	var implausible error
	if cc.CoreHz > 0 && (cc.CoreHz < th.MinCoreHz || cc.CoreHz > th.MaxCoreHz) {
		implausible = fmt.Errorf("%w: the register ADD chain runs at %.4g ticks per link, which at %.6g MHz means a core clock of %.4g GHz (plausible: %g to %g GHz)",
			ErrImplausibleClock, f.AddTicksPerOp, f.CounterHz/1e6, cc.CoreHz/1e9, th.MinCoreHz/1e9, th.MaxCoreHz/1e9)
	}
	tol := th.tolerance(f)
	disagree := f.Exact && f.ImulLatency > 0 && !math.IsNaN(cc.ImulAddRatio) && math.Abs(cc.ImulAddRatio/f.ImulLatency-1) > tol
	switch {
	case disagree:
		also := ""
		if implausible != nil {
			also = fmt.Sprintf("; one cycle per ADD would mean an implausible core clock of %.4g GHz", cc.CoreHz/1e9)
		}
		cc.Err = fmt.Errorf("%w: the register ADD chain runs at %.4g ticks per link and the IMUL chain at %.4g: IMUL/ADD = %.3f where this core's documented latency makes it %g (±%.3g%%)%s: no cycle figure",
			ErrRulersDisagree, f.AddTicksPerOp, f.ImulTicksPerOp, cc.ImulAddRatio, f.ImulLatency, tol*100, also)
		if implausible != nil {
			cc.Err = alsoIs{cc.Err, ErrImplausibleClock}
		}
	case implausible != nil:
		cc.Err = fmt.Errorf("%w: no cycle figure", implausible)
	case !f.Exact:
		cc.CyclesPerTick = cpt
		cc.Err = fmt.Errorf("%w: %w: the chains are the pure-Go fallback (GOARCH %s or -tags noasm), whose links are not single instructions: %.4g cycles per tick is approximate",
			ErrUnchecked, ErrInexactChains, runtime.GOARCH, cpt)
	case f.ImulLatency <= 0:
		measured := ""
		if !math.IsNaN(cc.ImulAddRatio) {
			measured = fmt.Sprintf(" (IMUL/ADD measured %.3f)", cc.ImulAddRatio)
		}
		cc.CyclesPerTick = cpt
		cc.Err = fmt.Errorf("%w: no multiply latency is documented for this processor (not in the CPU table, or emulated), so nothing checks the register ADD chain's %.4g cycles per tick%s", ErrUnchecked, cpt, measured)
	case math.IsNaN(cc.ImulAddRatio):
		cc.CyclesPerTick = cpt
		cc.Err = fmt.Errorf("%w: the IMUL chain gave no usable slope (%.4g ticks per link), so nothing checked the register ADD chain's %.4g cycles per tick", ErrUnchecked, f.ImulTicksPerOp, cpt)
	default:
		cc.CyclesPerTick, cc.Checked = cpt, true
	}
	return cc
}

// alsoIs is err, which also is another sentinel its text already explains.
type alsoIs struct{ err, also error }

func (a alsoIs) Error() string   { return a.err.Error() }
func (a alsoIs) Unwrap() []error { return []error{a.err, a.also} }

// Refused reports whether the ruler gave no figure.
func (c CoreClock) Refused() bool { return c.CyclesPerTick <= 0 }

// CoreOptions sets how [MeasureCoreClock] runs; the zero value gives the
// defaults.
type CoreOptions struct {
	Short int // ADD chain's short length in links; 0 means 2,000
	Long  int // ADD chain's long length; 0 means 100,000 (must exceed Short by at least 1,000)
	Reps  int // samples of each chain at each length per try; 0 means 30 (1 to 100,000)
	// RatioTolerance is the agreement the IMUL chain must show
	// (RulerThresholds.Agree); 0 means DefaultRulerThresholds.Agree.
	RatioTolerance float64
	// Tries is how many times the chains are measured when they disagree
	// (a disagreement every time is a fact about the CPU, not the moment);
	// 0 means 3 (1 to 100).
	Tries int
	// CounterHz is the counter frequency for the plausibility of the core
	// clock; 0 skips that check ([Measure] decides again with the
	// frequency it measured).
	CounterHz float64
}

// DefaultCoreOptions holds the defaults behind a zero [CoreOptions].
var DefaultCoreOptions = CoreOptions{Short: 2000, Long: 100_000, Reps: 30, RatioTolerance: DefaultRulerThresholds.Agree, Tries: 3}

func (o CoreOptions) withDefaults() (CoreOptions, error) {
	if o.Short == 0 {
		o.Short = DefaultCoreOptions.Short
	}
	if o.Long == 0 {
		o.Long = DefaultCoreOptions.Long
	}
	if o.Reps == 0 {
		o.Reps = DefaultCoreOptions.Reps
	}
	if o.RatioTolerance == 0 {
		o.RatioTolerance = DefaultCoreOptions.RatioTolerance
	}
	if o.Tries == 0 {
		o.Tries = DefaultCoreOptions.Tries
	}
	switch {
	case o.Short < 1:
		return o, fmt.Errorf("%w: short chain length %d (allowed: ≥ 1)", ErrBadCount, o.Short)
	case o.Long < o.Short+1000 || o.Long > 1e9:
		return o, fmt.Errorf("%w: long chain length %d (allowed: %d to 1e9, at least 1000 above the short length)", ErrBadCount, o.Long, o.Short+1000)
	case o.Reps < 1 || o.Reps > 100_000:
		return o, fmt.Errorf("%w: reps %d (allowed: 1 to 100000)", ErrBadCount, o.Reps)
	case !(o.RatioTolerance > 0 && o.RatioTolerance < 1):
		return o, fmt.Errorf("%w: ratio tolerance %v (allowed: between 0 and 1)", ErrBadCount, o.RatioTolerance)
	case o.Tries < 1 || o.Tries > 100:
		return o, fmt.Errorf("%w: tries %d (allowed: 1 to 100)", ErrBadCount, o.Tries)
	case math.IsNaN(o.CounterHz) || o.CounterHz < 0:
		return o, fmt.Errorf("%w: counter frequency %v Hz (allowed: ≥ 0; 0 skips the plausibility check)", ErrBadCount, o.CounterHz)
	}
	return o, nil
}

func (o CoreOptions) thresholds() RulerThresholds {
	t := DefaultRulerThresholds
	t.Agree, t.MaxAgree = o.RatioTolerance, max(t.MaxAgree, o.RatioTolerance)
	return t
}

var (
	imulOnce  sync.Once
	imulLat   float64
	imulKnown bool
)

// MeasureCoreClock measures core cycles per tick with a [Ruler]: the
// register ADD, IMUL and small-immediate ADD chains at two lengths each,
// o.Reps samples of every stream, interleaved, the minimum of each kept.
// The IMUL chain checks the ADD chain where this processor's multiply
// latency is documented ([CPU.ImulLatency], detected once); when they
// disagree it measures again, up to o.Tries times, and a disagreement in
// every try is reported as a fact about this CPU. It locks the calling
// goroutine's OS thread while it runs; pin it first.
func MeasureCoreClock(o CoreOptions) (CoreClock, error) {
	imulOnce.Do(func() { imulLat, imulKnown = DetectCPU().ImulLatency() })
	return measureCoreClock(o, imulLat, imulKnown)
}

// measureCoreClock is MeasureCoreClock with the IMUL latency given.
func measureCoreClock(o CoreOptions, lat float64, known bool) (CoreClock, error) {
	o, err := o.withDefaults()
	if err != nil {
		return CoreClock{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !known {
		lat = 0
	}
	// The IMUL chain spans about the ADD chain's ticks at 3 cycles a link.
	ro := RulerOptions{
		AddShort: o.Short, AddLong: o.Long,
		ImulShort: max(1, o.Short/3), ImulLong: max(2, o.Long/3),
		ImmShort: o.Short, ImmLong: o.Long, Probe: ProbeIters,
		ImulLatency: lat, CounterHz: o.CounterHz, K: 1, MaxSamples: o.Reps,
		Thresholds: o.thresholds(),
	}
	chain.Add(o.Long) // warm up: page in the code, let the core clock settle
	var cc CoreClock
	for try := 1; try <= o.Tries; try++ {
		r, err := NewRuler(ro)
		if err != nil {
			return CoreClock{}, err
		}
		for range o.Reps {
			for _, s := range r.Streams() {
				r.Sample(s, 0, false)
			}
		}
		for _, s := range r.Streams() {
			if r.Taken(s) > 0 && r.kb[s].Kept() == 0 {
				return cc, fmt.Errorf("%w: every timing of the %s chain straddled a CPU migration", ErrUnstable, s)
			}
		}
		cc = r.Verdict()
		cc.Tries = try
		cc.ProbeCycles = math.NaN()
		if f := r.Figures(); !cc.Refused() && usable(f.ProbeTicks) {
			cc.ProbeCycles = f.ProbeTicks * cc.CyclesPerTick
		}
		if !errors.Is(cc.Err, ErrRulersDisagree) {
			break
		}
	}
	cc.Short, cc.Long, cc.Reps = o.Short, o.Long, o.Reps
	cc.finish()
	return cc, nil
}

// finish words a disagreement that persisted over every try as a fact about
// the CPU, and gathers the warnings.
func (c *CoreClock) finish() {
	if errors.Is(c.Err, ErrRulersDisagree) && c.Tries > 1 {
		c.Err = fmt.Errorf("%w; the same in %d measurements of %d: this CPU does not run one of the chains at its documented latency (a renamer that folds the chain, or a multiply latency other than the CPU table's), not a busy moment", c.Err, c.Tries, c.Tries)
	}
	c.Warnings = nil
	if c.Err != nil {
		c.Warnings = append(c.Warnings, c.Err)
	}
}

// withCounterHz decides c's figures again with the counter frequency
// known, for the plausibility of the core clock.
func (c CoreClock) withCounterHz(hz float64, th RulerThresholds) CoreClock {
	d := DecideRuler(RulerFigures{AddTicksPerOp: c.AddTicksPerOp, ImulTicksPerOp: c.ImulTicksPerOp, ImmTicksPerOp: c.Imm.TicksPerOp,
		ImulLatency: c.ImulLatency, CounterHz: hz, Exact: c.Exact}, th)
	d.Converged, d.Short, d.Long, d.Reps, d.Tries = c.Converged, c.Short, c.Long, c.Reps, c.Tries
	d.ProbeCycles = math.NaN()
	if !d.Refused() && usable(c.ProbeCycles) && usable(c.CyclesPerTick) {
		d.ProbeCycles = c.ProbeCycles / c.CyclesPerTick * d.CyclesPerTick
	}
	d.finish()
	return d
}
