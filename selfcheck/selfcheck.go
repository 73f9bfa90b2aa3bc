package selfcheck

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// Limits of Validate, each with its reason.
const (
	// speedReps is how many times Validate measures the ~1 µs kernel; the
	// median wall time is judged, as the exec-to-exit figure is a median:
	// about one measurement in ten falls in a stretch where the core clock
	// drifts by 1–2% over tens of milliseconds and the ruler waits it out.
	// The detail lists every wall time, so such a stretch still shows.
	speedReps = 5
	// slopeTol is the relative tolerance of a chain's cycles per op: a
	// ruler made of a folded chain is off by 400%, a multiply latency
	// other than the table's by 33% or more; the slopes of sound chains
	// come within 0.5% on a busy guest.
	slopeTol = 0.03
	// minR2 is the least R² of a fit of cycles against length: a chain's
	// cost is linear in its length, and one point 2% off the line of seven
	// from 1e3 to 1e5 ops already brings R² to 0.9995.
	minR2 = 0.9999
	// maxEmptyTicks bounds the empty function's cost after the overhead is
	// subtracted, in ticks per call: the resolution of one call's share of
	// a sample on the counters seen.
	maxEmptyTicks = 2
	// quietCVThroughput and quietCVLatency are the spreads (CV) of ten
	// results of a 1000-ADD kernel that a quiet moment gives on the guests
	// seen (0.02–0.1% and 0.01–0.05%); above them the machine is noisy now.
	quietCVThroughput, quietCVLatency = 0.002, 0.001
	// quietDetectable is the smallest difference an A/A comparison must
	// resolve for the moment to count as quiet.
	quietDetectable = 0.001
	// maxResultWall bounds the wall time per result and the median time to
	// a converged ~1 µs kernel: the tool's speed, judged where the machine
	// lets it show.
	maxResultWall = 20 * time.Millisecond
	// minBenchRatio is how many times testing.B's spread must exceed ours.
	minBenchRatio = 5
)

// Options sets what [Validate] runs; the zero value gives the
// defaults.
type Options struct {
	// Config is the base measurement configuration (K, ε, CPU, ...); start
	// from harness.DefaultConfig(). Its Mode is set per check.
	Config harness.Config
	// Lengths are the chain lengths of the throughput sweep; nil means
	// 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5. At least 3, each 1 to 1e9.
	Lengths []int
	// LatencyLengths are the chain lengths of the latency sweep (each call
	// fenced); nil means 100, 200, 500, 1000, 2000, 5000: short enough that
	// the intercept (a few cycles) is not lost in the long chains' noise.
	// At least 3, each 1 to 1e9.
	LatencyLengths []int
	// Reps is how many times the 1000-ADD kernel is measured by each of
	// harness.Measure and testing.Benchmark for the repeatability figures; 0 means
	// 10 (allowed 3 to 1000).
	Reps int
	// SkipBenchmark skips the testing.Benchmark side of the comparison
	// (each repetition of it takes about a second).
	SkipBenchmark bool
	// MaxCV, when above 0, makes the machine's state decide Pass too: the
	// spread (coefficient of variation) of the Reps results in each mode
	// must be at most MaxCV (0.001 for 0.1%), for a CI job that gates on a
	// quiet runner. 0 reports the state without judging it.
	MaxCV float64
}

// Check is one pass/fail line of a validation.
type Check struct {
	Name      string  // what was checked
	Value     float64 // what was measured
	Truth     float64 // what it should be (or the bound)
	Tolerance float64 // allowed |Value − Truth| (or 0 for a bound check)
	Unit      string
	Pass      bool
	Detail    string // how the value was obtained, or why it failed
	// State marks a figure of the machine's state now (spread, speed)
	// rather than a truth about the tool: it decides Validation.Pass only
	// when Options.MaxCV asks (the spreads then).
	State bool
	// Bound is "≥" or "≤" for a bound check (Tolerance 0), "" otherwise.
	Bound string
}

// Validation is the outcome of [Validate].
type Validation struct {
	Calibration *calibrate.Calibration
	// Lengths are the throughput sweep's chain lengths. AddTicks, ImulTicks
	// and ImmTicks fit ticks per call against length for the register ADD,
	// IMUL and immediate ADD chains; AddCycles, ImulCycles and ImmCycles
	// fit cycles per call, each length converted with its own
	// measurement's ruler (truth: 1, the IMUL latency, and 1 or about 0.2
	// where the core folds the immediate ADD). AddCyclesByImul fits the
	// register ADD chain's ticks converted with each measurement's IMUL
	// chain instead (cycles per tick = the IMUL latency over the IMUL
	// chain's ticks per link): the ADD kernel judged by the other ruler
	// (empty where the IMUL latency is not documented).
	Lengths                          []int
	AddTicks, ImulTicks, ImmTicks    stats.Fit
	AddCycles, ImulCycles, ImmCycles stats.Fit
	AddCyclesByImul                  stats.Fit
	// ImulAddRatio is ImulCycles.Slope / AddCycles.Slope (truth: the IMUL
	// latency, 3): the core clock's moves between measurements cancel.
	// TickRatio is ImulTicks.Slope / AddTicks.Slope: equal to it only when
	// the core clock held still over the whole sweep.
	ImulAddRatio, TickRatio float64
	// ImmRatio is the immediate ADD chain's cost over the register ADD
	// chain's, from their ticks compared pair by pair (truth for ImmCycles'
	// slope); ImmFolded reports it below calibrate.FoldedBelow: the core
	// folds the immediate at rename.
	ImmRatio  float64
	ImmFolded bool
	// LatencyLengths are the latency sweep's lengths; LatencyAdd and
	// LatencyImul fit latency-mode cycles per call (each call fenced, a
	// chain of its own) against length: the slope is cycles per op, the
	// intercept what a fenced call costs beyond the fenced empty call (the
	// call, the fence, the chain's loads and the loop's exit), which
	// differs between cores. LatencyAddByImul is the ADD chain in cycles
	// of the IMUL chain measured beside it.
	LatencyLengths          []int
	LatencyAdd, LatencyImul stats.Fit
	LatencyAddByImul        stats.Fit
	// RulerRatios are the IMUL/ADD slope ratios of the ruler of every
	// measurement of the validation, in order; RulersChecked counts those
	// whose ruler was checked (the chains agreed at the documented
	// latency), RulersRefused those that gave no cycle figure.
	RulerRatios                  []float64
	RulersChecked, RulersRefused int
	// Empty is the empty function's result in latency mode (truth 0 after
	// the fenced empty call is subtracted). EmptyThroughput is the same in
	// throughput mode, where only the counter reads are subtracted: what a
	// call costs back to back, reported and not judged (2.7 to 5.2 ticks
	// per call on an AMD Zen 4 guest, by the moment).
	Empty, EmptyThroughput harness.Result
	// HarnessCycles are the 1000-ADD kernel's Cycles over Reps throughput
	// measurements, HarnessCV their coefficient of variation, HarnessWall
	// the total time; LatencyCycles, LatencyCV and LatencyWall the same in
	// latency mode.
	HarnessCycles, LatencyCycles []float64
	HarnessCV, LatencyCV         float64
	HarnessWall, LatencyWall     time.Duration
	// BenchNs are testing.Benchmark's ns/op of the same kernel over Reps
	// runs; BenchCV their coefficient of variation; BenchWall the total.
	BenchNs   []float64
	BenchCV   float64
	BenchWall time.Duration
	// AA is an A/A comparison of the 1000-ADD kernel: what harness.Compare
	// resolves now (State.Detectable).
	AA harness.Comparison
	// SpeedWalls are the wall times harness.Measure took for a ~1 µs kernel
	// (after calibration), speedReps measurements in a row, and SpeedWall
	// their median, the figure judged; SpeedKernel is the result of the
	// measurement that took the median time. SpeedBenchWall is
	// testing.Benchmark's wall time for the same kernel.
	SpeedKernel    harness.Result
	SpeedWall      time.Duration
	SpeedWalls     []time.Duration
	SpeedBenchWall time.Duration
	// State is the machine's state over the validation.
	State MachineState
	// Checks are the checks made: the tool's correctness (State false)
	// and the machine's state (State true).
	Checks []Check
	// Pass reports that every correctness check passed (and, with
	// Options.MaxCV, that the spreads were within it).
	Pass     bool
	Warnings []error
}

// Validate checks the harness against kernels whose cost is known, and
// measures how noisy the machine is now.
//
// The correctness checks judge truths that hold on every CPU, from slopes
// rather than absolute figures: cycles per op of dependent register ADD
// and IMUL chains (1 and the documented IMUL latency, 3 on Intel's big
// cores and AMD Zen), fitted over several lengths in throughput mode and,
// each call fenced, in latency mode; an immediate ADD chain whose cycles
// must follow its ticks (about 0.2 per op where the core folds it at
// rename, 1 elsewhere); the linearity of the fits; the empty function (0
// after overhead subtraction); and the rulers of every measurement
// agreeing. No chain is judged by a ruler made of itself: the ADD chain is
// judged in cycles of the IMUL chain measured beside it and the IMUL chain
// in cycles of the ADD chain. Each sweep is measured twice, up and down
// the lengths, and the less disturbed result of each length (the fewer
// ticks: noise only adds time) is fitted.
//
// The machine's state is measured and stated, not judged unless
// Options.MaxCV asks: the spread of ten results in each mode,
// testing.Benchmark's beside it, the smallest difference an A/A comparison
// resolves now, how far the core clock moved, the samples disturbed, and
// the wall time to a result.
//
// It takes about 15 s with the testing.Benchmark comparison, 2 s without.
// ctx cancels it and may carry a progress hook (harness.WithProgress),
// told each step as a harness.Progress with Stage "validate" and the step
// in Name; the measurements of a step do not report to it. When a
// measurement fails (a cancelled ctx, for
// example), the Validation made so far, with the checks that were
// complete, comes with the error; Pass is then false.
func Validate(ctx context.Context, o Options) (*Validation, error) {
	if o.Lengths == nil {
		o.Lengths = []int{1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000}
	}
	if o.LatencyLengths == nil {
		o.LatencyLengths = []int{100, 200, 500, 1000, 2000, 5000}
	}
	if o.Reps == 0 {
		o.Reps = 10
	}
	for _, l := range []struct {
		what string
		ns   []int
	}{{"chain", o.Lengths}, {"latency chain", o.LatencyLengths}} {
		if len(l.ns) < 3 {
			return nil, fmt.Errorf("%w: %d %s lengths (allowed: at least 3)", harness.ErrBadConfig, len(l.ns), l.what)
		}
		for _, n := range l.ns {
			if n < 1 || n > 1e9 {
				return nil, fmt.Errorf("%w: %s length %d (allowed: 1 to 1e9)", harness.ErrBadConfig, l.what, n)
			}
		}
	}
	if o.Reps < 3 || o.Reps > 1000 {
		return nil, fmt.Errorf("%w: reps %d (allowed: 3 to 1000)", harness.ErrBadConfig, o.Reps)
	}
	if math.IsNaN(o.MaxCV) || o.MaxCV < 0 || o.MaxCV >= 1 {
		return nil, fmt.Errorf("%w: MaxCV %v (allowed: 0, to report the machine's state without judging it, or above 0 and below 1)", harness.ErrBadConfig, o.MaxCV)
	}
	base := o.Config
	if _, err := base.WithDefaults(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: nil context (allowed: any context, such as context.Background())", harness.ErrBadConfig)
	}
	vr := &validator{o: o, ctx: harness.WithProgress(ctx, nil), progress: harness.ProgressOf(ctx), core: coreState{start: time.Now()}}
	vr.say("calibrating")
	cal, err := calibrate.Get()
	if err != nil {
		return nil, err
	}
	base.Calibration = cal
	if base.Waits == nil {
		// One validation is one run: a core shared throughout costs two
		// waits, not one per measurement.
		base.Waits = &harness.Waits{}
	}
	vr.base = base
	vr.v = &Validation{Calibration: cal, Lengths: o.Lengths, LatencyLengths: o.LatencyLengths, State: MachineState{Detectable: math.NaN(), SiblingCPU: -1, SiblingSlowdown: math.NaN()}}
	vr.v.Warnings = append(vr.v.Warnings, cal.Warnings...)
	vr.lat, vr.known = cal.CPU.ImulLatency()
	err = vr.run()
	runtime.KeepAlive(&vr.sink)
	vr.finish()
	return vr.v, err
}

// validator is one run of Validate.
type validator struct {
	o          Options
	ctx        context.Context        // the caller's, without its progress hook
	progress   func(harness.Progress) // the caller's progress hook, or nil
	base       harness.Config
	v          *Validation
	lat        float64 // the documented IMUL latency
	known      bool    // lat is documented
	sink       uint64
	cpt        []float64 // every measurement's cycles per tick
	disc, samp int
	// measurements, waits, lagging and waited: see MachineState.
	measurements, waits, lagging int
	waited                       time.Duration
	core                         coreState
}

func (vr *validator) say(format string, a ...any) {
	if vr.progress != nil {
		vr.progress(harness.Progress{Name: fmt.Sprintf(format, a...), Stage: "validate", Spread: math.NaN()})
	}
}

func (vr *validator) add(c Check) { vr.v.Checks = append(vr.v.Checks, c) }

// within adds a check that val lies within tol of truth.
func (vr *validator) within(name string, val, truth, tol float64, unit, detail string) {
	vr.add(Check{Name: name, Value: val, Truth: truth, Tolerance: tol, Unit: unit, Pass: math.Abs(val-truth) <= tol, Detail: detail})
}

// measure runs harness.Measure and records the result's ruler and samples.
func (vr *validator) measure(cfg harness.Config, name string, f func()) (harness.Result, error) {
	r, err := harness.Measure(vr.ctx, cfg, harness.Target{Name: name, Run: f})
	if err != nil {
		return r, err
	}
	v := vr.v
	v.RulerRatios = append(v.RulerRatios, r.Ruler.ImulAddRatio)
	switch {
	case r.CyclesPerTick <= 0:
		v.RulersRefused++
	case r.Ruler.Checked:
		v.RulersChecked++
	}
	if r.CyclesPerTick > 0 {
		vr.cpt = append(vr.cpt, r.CyclesPerTick)
	}
	vr.disc += r.Discarded
	vr.samp += r.Samples
	vr.measurements++
	if r.RulerWait > 0 {
		vr.waits++
		vr.waited += r.RulerWait
	}
	vr.core.note(r, time.Now())
	if slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, harness.ErrRulerLag) }) {
		vr.lagging++
	}
	if !r.Converged {
		v.Warnings = append(v.Warnings, fmt.Errorf("%w: %s (%s)", harness.ErrNotConverged, name, cfg.Mode))
	}
	return r, nil
}

// byImul converts r's ticks with its own IMUL chain (NaN without one).
func (vr *validator) byImul(r harness.Result) float64 {
	if !vr.known || !(r.Ruler.ImulTicksPerOp > 0) {
		return math.NaN()
	}
	return r.Ticks * vr.lat / r.Ruler.ImulTicksPerOp
}

// sweepKernel is one chain of a sweep: x continued from call to call.
type sweepKernel struct {
	name string
	f    func(x uint64, n int) uint64
}

// sweep measures every kernel at every length in mode, in two passes, up
// the lengths and down again, and keeps per length and kernel the result
// with the fewer ticks: noise only adds time, so it is the less disturbed.
func (vr *validator) sweep(mode harness.Mode, lengths []int, ks []sweepKernel) ([][]harness.Result, error) {
	best := make([][]harness.Result, len(ks))
	for i := range best {
		best[i] = make([]harness.Result, len(lengths))
	}
	order := make([]int, 0, 2*len(lengths))
	for i := range lengths {
		order = append(order, i)
	}
	for i := len(lengths) - 1; i >= 0; i-- {
		order = append(order, i)
	}
	for pass, li := range order {
		n := lengths[li]
		vr.say("%s chains: %d ops (%d of %d)", mode, n, pass+1, len(order))
		for ki, k := range ks {
			cfg := vr.base
			cfg.Mode = mode
			name := fmt.Sprintf("%s(%d)", k.name, n)
			var f func()
			if mode == harness.Latency {
				// Each fenced call is a chain of its own.
				f = func() { vr.sink += k.f(0, n) }
			} else {
				// Each call continues the last, so calls back to back
				// cost exactly n ops (see chain.AddFrom).
				f = func() { vr.sink = k.f(vr.sink, n) }
			}
			r, err := vr.measure(cfg, name, f)
			if err != nil {
				return nil, err
			}
			if old := best[ki][li]; old.Samples == 0 || r.Ticks < old.Ticks {
				best[ki][li] = r
			}
		}
	}
	return best, nil
}

// fit fits the figure of each result against the lengths.
func fit(lengths []int, rs []harness.Result, figure func(harness.Result) float64) (stats.Fit, error) {
	xs, ys := make([]float64, len(rs)), make([]float64, len(rs))
	for i, r := range rs {
		xs[i], ys[i] = float64(lengths[i]), figure(r)
	}
	return stats.LinearFit(xs, ys)
}

func ticksOf(r harness.Result) float64  { return r.Ticks }
func cyclesOf(r harness.Result) float64 { return r.Cycles }

// run makes the measurements and the checks, in order.
func (vr *validator) run() error {
	v := vr.v
	if !vr.known {
		v.Warnings = append(v.Warnings, fmt.Errorf("selfcheck: the multiply latency of this processor is not documented: the rulers are unchecked, no chain can be judged by another's ruler, and the IMUL figures are reported, not judged"))
	}
	if err := vr.throughputSweep(); err != nil {
		return err
	}
	if err := vr.latencySweep(); err != nil {
		return err
	}
	if err := vr.empty(); err != nil {
		return err
	}
	vr.linear()
	if err := vr.state(); err != nil {
		return err
	}
	if err := vr.sibling(); err != nil {
		return err
	}
	vr.rulersAgree()
	return nil
}

func (vr *validator) throughputSweep() error {
	v := vr.v
	rs, err := vr.sweep(harness.Throughput, v.Lengths, []sweepKernel{{"AddChain", chain.AddFrom}, {"ImulChain", chain.ImulFrom}, {"AddImmChain", chain.AddImmFrom}})
	if err != nil {
		return err
	}
	for _, f := range []struct {
		fit    *stats.Fit
		rs     []harness.Result
		figure func(harness.Result) float64
	}{{&v.AddTicks, rs[0], ticksOf}, {&v.AddCycles, rs[0], cyclesOf}, {&v.ImulTicks, rs[1], ticksOf}, {&v.ImulCycles, rs[1], cyclesOf},
		{&v.ImmTicks, rs[2], ticksOf}, {&v.ImmCycles, rs[2], cyclesOf}} {
		if *f.fit, err = fit(v.Lengths, f.rs, f.figure); err != nil {
			return fmt.Errorf("selfcheck: fitting the chains: %w", err)
		}
	}
	v.ImulAddRatio = v.ImulCycles.Slope / v.AddCycles.Slope
	v.TickRatio = v.ImulTicks.Slope / v.AddTicks.Slope
	if vr.known {
		if v.AddCyclesByImul, err = fit(v.Lengths, rs[0], vr.byImul); err != nil {
			return fmt.Errorf("selfcheck: fitting the chains: %w", err)
		}
		vr.within("cycles per register ADD, throughput, by the IMUL ruler", v.AddCyclesByImul.Slope, 1, slopeTol, "cycles/op",
			fmt.Sprintf("slope over %d lengths of ticks × IMUL latency / the IMUL chain's ticks per link, ± %.4f (95%%); by the ADD ruler %.4f", len(v.Lengths), v.AddCyclesByImul.SlopeCI, v.AddCycles.Slope))
		vr.within("cycles per IMUL, throughput, by the ADD ruler", v.ImulCycles.Slope, vr.lat, slopeTol*vr.lat, "cycles/op",
			fmt.Sprintf("slope over %d lengths, ± %.4f (95%%); in ticks %.4f and %.4f per IMUL and ADD (ratio %.4f)", len(v.Lengths), v.ImulCycles.SlopeCI, v.ImulTicks.Slope, v.AddTicks.Slope, v.TickRatio))
	}
	// The immediate ADD's cost in register ADDs, from ticks alone, against
	// what the ruler made of it: a ruler made of a folded chain would give
	// 1 cycle per op where the ticks say 0.2. The ticks' ratio comes from
	// the two chains compared pair by pair (harness.Compare: each pair back to
	// back, so the core clock's moves between the sweep's measurements,
	// several % on some guests, do not enter it).
	n := v.Lengths[len(v.Lengths)/2]
	vr.say("the immediate ADD against the register ADD, %d ops, paired", n)
	pair, err := harness.Compare(vr.ctx, vr.base, harness.Target{Name: "AddChain", Run: func() { vr.sink = chain.AddFrom(vr.sink, n) }},
		harness.Target{Name: "AddImmChain", Run: func() { vr.sink = chain.AddImmFrom(vr.sink, n) }}, harness.CompareOptions{Pairs: 200})
	if err != nil {
		return err
	}
	v.ImmRatio = pair.Stats.Ratio
	v.ImmFolded = v.ImmRatio < calibrate.FoldedBelow
	folded := "not folded"
	if v.ImmFolded {
		folded = fmt.Sprintf("folded at rename (%.1f× faster than a register ADD)", 1/v.ImmRatio)
	}
	vr.within("cycles per immediate ADD follow its ticks", v.ImmCycles.Slope, v.ImmRatio, 0.05*v.ImmRatio, "cycles/op",
		fmt.Sprintf("truth: its ticks over the register ADD's, %d ops each, %d pairs back to back (%.4f; in the sweep's slopes %.4f / %.4f): %s",
			n, len(pair.TicksA), v.ImmRatio, v.ImmTicks.Slope, v.AddTicks.Slope, folded))
	return nil
}

func (vr *validator) latencySweep() error {
	v := vr.v
	rs, err := vr.sweep(harness.Latency, v.LatencyLengths, []sweepKernel{{"AddChain", chain.AddFrom}, {"ImulChain", chain.ImulFrom}})
	if err != nil {
		return err
	}
	if v.LatencyAdd, err = fit(v.LatencyLengths, rs[0], cyclesOf); err != nil {
		return fmt.Errorf("selfcheck: fitting the latency chains: %w", err)
	}
	if v.LatencyImul, err = fit(v.LatencyLengths, rs[1], cyclesOf); err != nil {
		return fmt.Errorf("selfcheck: fitting the latency chains: %w", err)
	}
	if !vr.known {
		return nil
	}
	if v.LatencyAddByImul, err = fit(v.LatencyLengths, rs[0], vr.byImul); err != nil {
		return fmt.Errorf("selfcheck: fitting the latency chains: %w", err)
	}
	vr.within("cycles per register ADD, latency, by the IMUL ruler", v.LatencyAddByImul.Slope, 1, slopeTol, "cycles/op",
		fmt.Sprintf("slope over %d lengths, each call fenced, ± %.4f (95%%); intercept %.1f cycles: what a fenced call costs beyond the fenced empty call", len(v.LatencyLengths), v.LatencyAddByImul.SlopeCI, v.LatencyAddByImul.Intercept))
	vr.within("cycles per IMUL, latency, by the ADD ruler", v.LatencyImul.Slope, vr.lat, slopeTol*vr.lat, "cycles/op",
		fmt.Sprintf("slope over %d lengths, each call fenced, ± %.4f (95%%); intercept %.1f cycles", len(v.LatencyLengths), v.LatencyImul.SlopeCI, v.LatencyImul.Intercept))
	return nil
}

func (vr *validator) empty() error {
	v := vr.v
	vr.say("empty function")
	// Judged in latency mode, where a fence before each call makes the
	// timing loop's cost additive (see Validation.EmptyThroughput).
	cfg := vr.base
	cfg.Mode = harness.Latency
	var err error
	if v.Empty, err = vr.measure(cfg, "the empty function", func() {}); err != nil {
		return err
	}
	vr.within("empty function after overhead subtraction, latency mode", v.Empty.Ticks, 0, maxEmptyTicks, "ticks",
		fmt.Sprintf("R = %d calls per sample, overhead %.0f ticks per sample, counter step %.3g ticks", v.Empty.Repeat, v.Empty.OverheadTicks, v.Calibration.Step.Step))
	cfg.Mode = harness.Throughput
	v.EmptyThroughput, err = vr.measure(cfg, "the empty function", func() {})
	return err
}

// linear checks the linearity of the fits.
func (vr *validator) linear() {
	v := vr.v
	fits := []struct {
		name string
		f    stats.Fit
	}{{"ADD", v.AddCycles}, {"IMUL", v.ImulCycles}, {"immediate ADD", v.ImmCycles}, {"ADD latency", v.LatencyAdd}, {"IMUL latency", v.LatencyImul}}
	worst, parts := math.Inf(1), make([]string, len(fits))
	for i, f := range fits {
		worst = math.Min(worst, f.f.R2)
		parts[i] = fmt.Sprintf("%s %.6f", f.name, f.f.R2)
	}
	vr.add(Check{Name: "R² of the fits of cycles against length, the least", Value: worst, Truth: minR2, Bound: "≥", Pass: worst >= minR2, Detail: strings.Join(parts, ", ")})
}

// rulersAgree checks that every measurement's ruler was checked.
func (vr *validator) rulersAgree() {
	v := vr.v
	if !vr.known {
		return
	}
	worstRatio := math.NaN()
	for _, q := range v.RulerRatios {
		if !math.IsNaN(q) && (math.IsNaN(worstRatio) || math.Abs(q/vr.lat-1) > math.Abs(worstRatio/vr.lat-1)) {
			worstRatio = q
		}
	}
	n := len(v.RulerRatios)
	vr.add(Check{Name: "the rulers agree (IMUL/ADD of every measurement's ruler)", Value: worstRatio, Truth: vr.lat, Tolerance: vr.lat * calibrate.DefaultRulerThresholds.Agree,
		Pass: v.RulersChecked == n && n > 0,
		Detail: fmt.Sprintf("%d of %d rulers checked, %d refused; the ratio farthest from %g is shown (the tolerance widens by how far each ruler's best samples spread, up to %g%%)",
			v.RulersChecked, n, v.RulersRefused, vr.lat, 100*calibrate.DefaultRulerThresholds.MaxAgree)})
}

// speed measures the time to a converged result of a ~1 µs kernel.
func (vr *validator) speed() error {
	v, cal := vr.v, vr.v.Calibration
	linksPerTick := math.Max(cal.Core.CyclesPerTick, 0.1)
	if a := cal.Core.AddTicksPerOp; a > 0 && !math.IsInf(a, 0) {
		linksPerTick = 1 / a
	}
	n1us := max(1, int(math.Round(1e-6*cal.Frequency.Hz*linksPerTick)))
	k1us := func() { vr.sink = chain.AddFrom(vr.sink, n1us) }
	vr.say("speed: a %d-ADD kernel (~1 µs) ×%d", n1us, speedReps)
	speed := make([]harness.Result, 0, speedReps)
	allConverged := true
	name := fmt.Sprintf("AddChain(%d)", n1us)
	for range speedReps {
		t0 := time.Now()
		r, err := vr.measure(vr.base, name, k1us)
		if err != nil {
			return err
		}
		v.SpeedWalls = append(v.SpeedWalls, time.Since(t0))
		speed = append(speed, r)
		allConverged = allConverged && r.Converged
	}
	order := make([]int, len(speed))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v.SpeedWalls[a], v.SpeedWalls[b]) })
	mid := order[len(order)/2]
	v.SpeedKernel, v.SpeedWall = speed[mid], v.SpeedWalls[mid]
	if !vr.o.SkipBenchmark {
		t0 := time.Now()
		testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				k1us()
			}
		})
		v.SpeedBenchWall = time.Since(t0)
	}
	walls := make([]string, len(v.SpeedWalls))
	for i, w := range v.SpeedWalls {
		walls[i] = strconv.FormatFloat(float64(w.Microseconds())/1000, 'f', 1, 64)
	}
	detail := fmt.Sprintf("median of %d results (%s ms); %s: %.0f ns, all converged %v", len(v.SpeedWalls), strings.Join(walls, ", "), v.SpeedKernel.Name, v.SpeedKernel.Nanoseconds, allConverged)
	if v.SpeedBenchWall > 0 {
		detail += fmt.Sprintf("; testing.Benchmark took %v (%.0f× longer)", v.SpeedBenchWall.Round(time.Millisecond), v.SpeedBenchWall.Seconds()/v.SpeedWall.Seconds())
	}
	vr.add(Check{Name: "median wall time for a converged ~1 µs kernel", Value: float64(v.SpeedWall.Microseconds()) / 1000, Truth: msOf(maxResultWall), Unit: "ms", Bound: "≤",
		Pass: v.SpeedWall <= maxResultWall && allConverged, State: true, Detail: detail})
	return nil
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
