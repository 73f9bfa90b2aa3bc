package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

// Methods returns the clocks in the order the lab reports them, from the
// coarsest to the finest wall clock, then CPU time: wall-ms (GetTickCount
// / Now), wall-us (gettimeofday), monotonic (QueryPerformanceCounter's
// analogue), tsc, process, thread.
func Methods() []cputime.Clock {
	return []cputime.Clock{cputime.ClockWallMs, cputime.ClockWallUs, cputime.ClockMonotonic, cputime.ClockTSC, cputime.ClockProcess, cputime.ClockThread}
}

// Nesting returns the clocks in the order Clocks starts them, from the
// outermost to the innermost: process, thread, wall-ms, wall-us,
// monotonic, tsc. They are stopped in the reverse order, so every clock's
// interval holds the kernel run and the start and stop reads of the clocks
// nested inside it, and nothing else. The TSC, innermost, times only the
// kernel; the dearest reads (the CPU clocks are system calls, about a
// microsecond each on a KVM guest) are outermost, so they add to no other
// clock. ClockInfo.Empty measures what each clock sees around nothing.
func Nesting() []cputime.Clock {
	return []cputime.Clock{cputime.ClockProcess, cputime.ClockThread, cputime.ClockWallMs, cputime.ClockWallUs, cputime.ClockMonotonic, cputime.ClockTSC}
}

// ClockInfo describes one clock as the lab found it.
type ClockInfo struct {
	Clock cputime.Clock
	// Source is the interface that answered (for the CPU clocks, the level
	// of the fallback chain; for tsc, the counter).
	Source cputime.Source
	// Resolution is the smallest step the clock can show (cputime's
	// Resolution; for tsc one counter step at the calibrated frequency,
	// never below 1 ns). 0 when unknown; a warning says why.
	Resolution time.Duration
	// Empty is the median reading of an empty interval (Reps of them,
	// nested as around a kernel): what the clock adds to every reading.
	Empty time.Duration
}

// Method is one clock's readings of one kernel.
type Method struct {
	ClockInfo
	// Readings holds one elapsed time per repetition, in order.
	Readings []time.Duration
	// Ticks holds the tsc clock's readings in counter ticks (nil for the
	// other clocks); Readings are these divided by the calibrated
	// frequency.
	Ticks []uint64
	// Min, Median and Max summarise Readings (the median of an even count
	// is the mean of the middle two).
	Min, Median, Max time.Duration
	// Spread is (Max − Min) / Median; NaN when Median is 0.
	Spread float64
	// Zeros counts the readings of 0: intervals the clock did not see.
	Zeros int
	// Resolves reports whether the clock can time this interval to the
	// lab's tolerance: no reading is 0 and the resolution is known and at
	// most Tolerance × the reference's median (the clock's own median when
	// there is no reference).
	Resolves bool
	// DiffFromReference is (Median − reference Median) / reference Median;
	// NaN when there is no reference or its median is 0.
	DiffFromReference float64
	// Agrees reports whether |DiffFromReference| ≤ Tolerance (true for the
	// reference itself).
	Agrees bool
	// DiffFromKBest is (Median − K-best figure) / K-best figure: how far
	// a single reading of this clock typically lies from the harness's
	// figure (KernelResult.KBest's Nanoseconds); NaN without a K-best
	// figure above 0.
	DiffFromKBest float64
}

// KernelResult is what the lab found for one kernel.
type KernelResult struct {
	Name string
	// Methods holds one entry per clock read, in the order of Methods().
	Methods []Method
	// Reference is the clock the others are compared with: tsc when read,
	// else monotonic when read; HasReference is false when neither was.
	Reference    cputime.Clock
	HasReference bool
	// Tolerance is the verdict's relative tolerance.
	Tolerance float64
	// KBest is the harness's own figure for the kernel: harness.Measure
	// (the K-best method: K, ε and the other settings at their defaults,
	// Setup before every sample, overhead subtracted, core cycles from the
	// ruler) run on the lab's CPU after the clocks' repetitions. The
	// clocks each time one run; KBest is what many runs agree on. nil with
	// Config.NoKBest, or when the lab was cancelled before it began; when
	// cancelled during it, what was measured so far, not converged.
	KBest *harness.Result
	// Redone counts repetitions run again because a clock failed to read
	// (a wall clock stepped back, a CPU-clock source changed).
	Redone int
	// CheckError is the first error Check returned, nil when every
	// repetition's output was right (or there is no Check).
	CheckError error
	// Warnings holds soft problems with this kernel's figures, the K-best
	// measurement's among them ("lab: K-best: ..."; those the Result's own
	// Warnings hold already are left out).
	Warnings []error
}

// Method returns the entry of clock c, and whether c was read.
func (k KernelResult) Method(c cputime.Clock) (Method, bool) {
	for _, m := range k.Methods {
		if m.Clock == c {
			return m, true
		}
	}
	return Method{}, false
}

// Result is what [Clocks] found.
type Result struct {
	// Reps is the number of repetitions of each kernel.
	Reps int
	// Tolerance is the verdict's relative tolerance.
	Tolerance float64
	// Clocks describes every clock read, in the order of Methods().
	Clocks []ClockInfo
	// Nesting lists the clocks read from the outermost to the innermost.
	Nesting []cputime.Clock
	// Kernels holds one result per kernel, in the order given.
	Kernels []KernelResult
	// CPU is the CPU the lab ran on (-1 when not pinned) and Priority the
	// priority obtained.
	CPU      int
	Priority string
	// TicksPerSecond is the counter frequency that converted TSC ticks (0
	// when the tsc clock was not read) and FrequencySource where it came
	// from.
	TicksPerSecond  float64
	FrequencySource string
	// Warnings holds soft problems: not pinned, priority not raised,
	// calibration warnings, a resolution that could not be found.
	Warnings []error
}

// Clocks runs the clocks lab: each kernel is run cfg.Reps times (after one
// untimed warm-up run) on a pinned thread, and every selected clock times
// the same runs: Setup is called untimed, then the clocks are started from
// the outermost to the innermost ([Nesting]), the kernel runs, and they
// are stopped from the innermost to the outermost; Check follows, untimed.
// A repetition in which a clock fails to read (a wall clock stepping back,
// say) is run again, for every clock, at most Reps times per kernel; more
// failures are an error. The result has each clock's readings, summary,
// resolution and empty-interval reading, and a verdict derived from the
// data ([KernelResult.Verdict]).
//
// Then, unless cfg.NoKBest, harness.Measure measures the kernel by the
// K-best method ([KernelResult.KBest]): the figure the harness gives
// beside what each clock read. It runs on harness's own pinned thread, on
// the lab's CPU, while the lab's thread waits; ctx and cfg's CPU,
// KeepPriority, KeepGC and Calibration apply to it, harness's defaults to
// the rest (its MaxTime bounds it).
//
// ctx cancels the lab between repetitions and during the K-best
// measurement, and may carry a progress hook (harness.WithProgress): Stage
// "repetitions" before each timed repetition of each kernel, and the
// K-best measurement's own reports (Stage ""), at most every 50 ms. It runs on
// a new goroutine locked to its OS thread, with the GC off, and
// restores everything it changes. Errors: a bad Config or kernel (wrapping
// ErrBadConfig), a clock that cannot be read at all on this
// platform, a failed calibration, a panic in a kernel (ErrPanic), or a
// cancelled context (the result then holds the kernels finished so far).
func Clocks(ctx context.Context, cfg Config, kernels ...harness.Target) (Result, error) {
	cfg, err := cfg.validate(ctx, kernels)
	if err != nil {
		return Result{}, err
	}
	res := Result{Reps: cfg.Reps, Tolerance: cfg.Tolerance, CPU: -1}
	for _, c := range Nesting() {
		if slices.Contains(cfg.Methods, c) {
			res.Nesting = append(res.Nesting, c)
		}
	}
	e, err := onPinnedThread(cfg, func(e *env) error {
		return e.clocks(&res, kernels)
	})
	res.CPU, res.Priority = e.cpu, e.priority
	res.Warnings = append(e.warnings, res.Warnings...)
	if cfg.Reps < DefaultReps {
		res.Warnings = append(res.Warnings, fmt.Errorf("lab: %d repetitions, fewer than %d: the spread says little", cfg.Reps, DefaultReps))
	}
	return res, err
}

// watches is the stopwatches of one lab, in nesting order.
type watches struct {
	clocks []cputime.Clock
	sw     []*cputime.Stopwatch
	errs   []error
}

// time times one run of f (which may be nil: the empty interval) with every
// stopwatch and returns the elapsed times and TSC ticks, or the first error
// any clock gave. Setup must have been called already.
func (w *watches) time(f func()) (elapsed []time.Duration, ticks uint64, err error) {
	for i := range w.sw {
		w.sw[i].Reset()
		w.errs[i] = nil
	}
	for i, s := range w.sw {
		w.errs[i] = s.Start()
	}
	if f != nil {
		f()
	}
	for i := len(w.sw) - 1; i >= 0; i-- {
		if err := w.sw[i].Stop(); w.errs[i] == nil {
			w.errs[i] = err
		}
	}
	if err := errors.Join(w.errs...); err != nil {
		return nil, 0, err
	}
	elapsed = make([]time.Duration, len(w.sw))
	for i, s := range w.sw {
		if elapsed[i], err = s.Elapsed(); err != nil {
			return nil, 0, err
		}
		if w.clocks[i] == cputime.ClockTSC {
			ticks, _ = s.ElapsedTicks()
		}
	}
	return elapsed, ticks, nil
}

func (e *env) clocks(res *Result, kernels []harness.Target) error {
	cfg := e.cfg
	w := &watches{clocks: res.Nesting, errs: make([]error, len(res.Nesting))}
	clocks := make(map[cputime.Clock]*ClockInfo)
	for _, c := range res.Nesting {
		sw, err := cputime.NewStopwatch(c)
		if err != nil {
			return err
		}
		ci := &ClockInfo{Clock: c}
		if c == cputime.ClockTSC {
			cal := cfg.Calibration
			if cal == nil {
				if cal, err = calibrate.Get(); err != nil {
					return err
				}
			}
			res.Warnings = append(res.Warnings, cal.Warnings...)
			if err := sw.SetTSCHz(cal.Frequency.Hz); err != nil {
				return fmt.Errorf("lab: tsc clock: %w", err)
			}
			res.TicksPerSecond = cal.Frequency.Hz
			res.FrequencySource = cal.Frequency.Method + ": " + cal.Frequency.Source
			// One counter step as the calibration measured it.
			ci.Resolution = max(time.Nanosecond, time.Duration(math.Round(max(cal.Step.Step, 1)/cal.Frequency.Hz*1e9)))
		}
		if ci.Source, err = c.Source(); err != nil {
			return fmt.Errorf("lab: %s clock: %w", c, err)
		}
		if ci.Resolution == 0 {
			if ci.Resolution, err = sw.Resolution(); err != nil {
				res.Warnings = append(res.Warnings, fmt.Errorf("lab: resolution of the %s clock unknown: %w", c, err))
				ci.Resolution = 0
			}
		}
		w.sw = append(w.sw, sw)
		clocks[c] = ci
	}

	// The empty interval: what every clock reads around nothing.
	empty := make([][]time.Duration, len(w.sw))
	for rep, failures := 0, 0; rep < cfg.Reps; {
		el, _, err := w.time(nil)
		if err != nil {
			if failures++; failures > cfg.Reps {
				return fmt.Errorf("lab: clocks: empty interval: %d reads failed, the last: %w", failures, err)
			}
			continue
		}
		for i := range el {
			empty[i] = append(empty[i], el[i])
		}
		rep++
	}
	for i, c := range res.Nesting {
		clocks[c].Empty = summarise(empty[i]).Median
	}
	for _, c := range Methods() {
		if ci, ok := clocks[c]; ok {
			res.Clocks = append(res.Clocks, *ci)
		}
	}

	for _, k := range kernels {
		if err := cfg.ctx.Err(); err != nil {
			return fmt.Errorf("lab: clocks cancelled before %s: %w", k.Name, err)
		}
		kr, err := w.kernel(cfg, k, clocks)
		if err != nil {
			return err
		}
		if !cfg.NoKBest {
			err = e.kbest(&kr, k, append(e.warnings, res.Warnings...))
		}
		if err != nil && cfg.ctx.Err() == nil {
			return err
		}
		// Cancelled during the K-best measurement: the clocks' figures are
		// whole, and kept.
		kr.judge()
		res.Kernels = append(res.Kernels, kr)
		if err != nil {
			return err
		}
	}
	return nil
}

// kbest measures k with harness.Measure into kr.KBest, on the lab's CPU
// (harness pins its own thread there while this one waits), and adds its
// warnings that shared (the lab's own) does not hold to kr.Warnings.
func (e *env) kbest(kr *KernelResult, k harness.Target, shared []error) error {
	cfg := e.cfg
	hc := harness.DefaultConfig()
	hc.Calibration = cfg.Calibration
	hc.CPU, hc.KeepPriority, hc.KeepGC = cfg.CPU, cfg.KeepPriority, cfg.KeepGC
	if e.cpu >= 0 {
		hc.CPU = e.cpu
	}
	// The context's progress hook, if any, hears the K-best measurement's
	// own samples (Stage "").
	ctx := cfg.ctx
	// The lab calls Check after its own repetitions; the K-best
	// measurement need not call it again.
	kt := k
	kt.Check = nil
	r, err := harness.Measure(ctx, hc, kt)
	if r.Samples > 0 {
		kr.KBest = &r
		for _, w := range r.Warnings {
			if !slices.ContainsFunc(shared, func(s error) bool { return s.Error() == w.Error() }) {
				kr.Warnings = append(kr.Warnings, fmt.Errorf("lab: K-best: %w", w))
			}
		}
	}
	if err != nil {
		return fmt.Errorf("lab: K-best measurement of %s: %w", k.Name, err)
	}
	return nil
}

// kernel runs one kernel's repetitions and derives its figures.
func (w *watches) kernel(cfg Config, k harness.Target, clocks map[cputime.Clock]*ClockInfo) (KernelResult, error) {
	kr := KernelResult{Name: k.Name, Tolerance: cfg.Tolerance}
	if !cfg.NoWarmup {
		if k.Setup != nil {
			k.Setup()
		}
		k.Run()
	}
	readings := make([][]time.Duration, len(w.sw))
	var ticks []uint64
	var lastErr error
	for rep := 0; rep < cfg.Reps; {
		if err := cfg.ctx.Err(); err != nil {
			return kr, fmt.Errorf("lab: clocks cancelled during %s: %w", k.Name, err)
		}
		if cfg.progress != nil {
			cfg.progress(harness.Progress{Name: k.Name, Stage: "repetitions", Samples: rep, Max: cfg.Reps, Spread: math.NaN()})
		}
		if k.Setup != nil {
			k.Setup()
		}
		el, t, err := w.time(k.Run)
		if k.Check != nil && kr.CheckError == nil {
			kr.CheckError = k.Check()
		}
		if err != nil {
			lastErr = err
			if kr.Redone++; kr.Redone > cfg.Reps {
				return kr, fmt.Errorf("lab: clocks: %s: %d repetitions failed, the last: %w", k.Name, kr.Redone, err)
			}
			continue
		}
		for i := range el {
			readings[i] = append(readings[i], el[i])
		}
		ticks = append(ticks, t)
		rep++
	}
	if kr.Redone > 0 {
		kr.Warnings = append(kr.Warnings, fmt.Errorf("lab: %s: %d repetitions run again because a clock failed to read, the last: %v", k.Name, kr.Redone, lastErr))
	}

	byClock := map[cputime.Clock][]time.Duration{}
	for i, c := range w.clocks {
		byClock[c] = readings[i]
	}
	for _, c := range Methods() {
		r, ok := byClock[c]
		if !ok {
			continue
		}
		m := newMethod(*clocks[c], r)
		if c == cputime.ClockTSC {
			m.Ticks = ticks
		}
		kr.Methods = append(kr.Methods, m)
	}
	return kr, nil
}

// newMethod summarises the readings of one clock; the fields that compare
// it with the reference and the K-best figure are left to judge.
func newMethod(ci ClockInfo, readings []time.Duration) Method {
	s := summarise(readings)
	m := Method{ClockInfo: ci, Readings: readings, Min: s.Min, Median: s.Median, Max: s.Max, Spread: math.NaN(), DiffFromReference: math.NaN(), DiffFromKBest: math.NaN()}
	if m.Median > 0 {
		m.Spread = float64(m.Max-m.Min) / float64(m.Median)
	}
	for _, v := range readings {
		if v == 0 {
			m.Zeros++
		}
	}
	return m
}

// summary is the minimum, median and maximum of some durations.
type summary struct{ Min, Median, Max time.Duration }

func summarise(ds []time.Duration) summary {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	s, err := stats.Summarize(xs)
	if err != nil {
		return summary{}
	}
	return summary{Min: time.Duration(s.Min), Median: time.Duration(math.Round(s.Median)), Max: time.Duration(s.Max)}
}
