package harness

// The clocks lab of seed 004 and the utilisation demo of seed 002: every
// timing method the seeds teach, read around the same runs of a kernel.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/stats"
)

// Defaults and limits of [LabConfig].
const (
	// DefaultLabReps is the seed's minimum number of repetitions.
	DefaultLabReps = 5
	// MaxLabReps bounds LabConfig.Reps.
	MaxLabReps = 1000
	// DefaultLabTolerance is the relative tolerance of the lab's verdict.
	DefaultLabTolerance = 0.01
)

// LabConfig says how [ClocksLab] and [UtilisationLab] run. Its zero value
// is valid and gives the documented defaults, except CPU, which as in
// [Config] means CPU 0: start from [DefaultLabConfig] to let the lab pick.
type LabConfig struct {
	// Reps is the number of timed repetitions of each kernel; 0 means
	// DefaultLabReps (5, the seed's minimum), at most MaxLabReps. Fewer
	// than 5 is allowed with a warning. UtilisationLab runs each kernel
	// once and ignores it.
	Reps int
	// Methods selects the clocks ClocksLab reads; nil means every clock
	// (cputime.Clocks), each at most once. Whatever the order given, they
	// are nested in the fixed order of [LabNesting] and reported in the
	// order of [LabMethods].
	Methods []cputime.Clock
	// Tolerance is the relative tolerance of the verdict: a clock resolves
	// the interval when its resolution is at most Tolerance × the
	// reference's median, and agrees with the reference when its median is
	// within Tolerance of the reference's. 0 means 0.01; must be in (0, 1).
	Tolerance float64
	// CPU is the CPU to pin the measuring thread to; AnyCPU (-1) picks one.
	CPU int
	// KeepPriority leaves the thread's priority alone; by default it is
	// raised (nice −20 on Linux, HIGH on Windows) where permitted.
	KeepPriority bool
	// NoWarmup skips ClocksLab's untimed warm-up run of each kernel
	// (Setup, Run) before its repetitions. UtilisationLab never warms up.
	NoWarmup bool
	// KeepGC leaves the garbage collector running during the lab.
	KeepGC bool
	// Context cancels the lab between repetitions; nil means
	// context.Background().
	Context context.Context
	// Progress, when not nil, is called on the lab's thread before each
	// timed repetition (rep from 0 to reps−1) of each kernel, outside every
	// timed interval.
	Progress func(kernel string, rep, reps int)
	// Calibration supplies the counter frequency that turns TSC ticks into
	// time; nil means calibrate.Get() (only when the tsc method is read).
	Calibration *calibrate.Calibration
}

// DefaultLabConfig returns the zero LabConfig with CPU set to AnyCPU.
func DefaultLabConfig() LabConfig { return LabConfig{CPU: AnyCPU} }

// LabKernel is one piece of code for the lab: the protocol of the example
// kernels (package bench_examples), with a name.
type LabKernel struct {
	// Name labels the kernel's results; it must not be empty.
	Name string
	// Setup, when not nil, is called before every run, untimed (it
	// restores an input Run consumes, such as an array to sort).
	Setup func()
	// Run is the work timed; it must not be nil.
	Run func()
	// Check, when not nil, verifies the output of the latest Run; it is
	// called, untimed, after every repetition.
	Check func() error
}

// LabMethods returns the clocks in the order the lab reports them, the
// seed's order from the coarsest to the finest wall clock, then CPU time:
// wall-ms (GetTickCount / Now), wall-us (gettimeofday), monotonic
// (QueryPerformanceCounter's analogue), tsc, process, thread.
func LabMethods() []cputime.Clock {
	return []cputime.Clock{cputime.ClockWallMs, cputime.ClockWallUs, cputime.ClockMonotonic, cputime.ClockTSC, cputime.ClockProcess, cputime.ClockThread}
}

// LabNesting returns the clocks in the order ClocksLab starts them, from
// the outermost to the innermost: process, thread, wall-ms, wall-us,
// monotonic, tsc. They are stopped in the reverse order, so every clock's
// interval holds the kernel run and the start and stop reads of the clocks
// nested inside it, and nothing else. The TSC, innermost, times only the
// kernel; the dearest reads (the CPU clocks are system calls, about a
// microsecond each on a KVM guest) are outermost, so they add to no other
// clock. LabClock.Empty measures what each clock sees around nothing.
func LabNesting() []cputime.Clock {
	return []cputime.Clock{cputime.ClockProcess, cputime.ClockThread, cputime.ClockWallMs, cputime.ClockWallUs, cputime.ClockMonotonic, cputime.ClockTSC}
}

// LabClock describes one clock as the lab found it.
type LabClock struct {
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

// LabMethod is one clock's readings of one kernel.
type LabMethod struct {
	LabClock
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
}

// LabKernelResult is what the lab found for one kernel.
type LabKernelResult struct {
	Name string
	// Methods holds one entry per clock read, in the order of LabMethods.
	Methods []LabMethod
	// Reference is the clock the others are compared with: tsc when read,
	// else monotonic when read; HasReference is false when neither was.
	Reference    cputime.Clock
	HasReference bool
	// Tolerance is the verdict's relative tolerance.
	Tolerance float64
	// Redone counts repetitions run again because a clock failed to read
	// (a wall clock stepped back, a CPU-clock source changed).
	Redone int
	// CheckError is the first error Check returned, nil when every
	// repetition's output was right (or there is no Check).
	CheckError error
	// Warnings holds soft problems with this kernel's figures.
	Warnings []error
}

// Method returns the entry of clock c, and whether c was read.
func (k LabKernelResult) Method(c cputime.Clock) (LabMethod, bool) {
	for _, m := range k.Methods {
		if m.Clock == c {
			return m, true
		}
	}
	return LabMethod{}, false
}

// LabResult is what [ClocksLab] found.
type LabResult struct {
	// Reps is the number of repetitions of each kernel.
	Reps int
	// Tolerance is the verdict's relative tolerance.
	Tolerance float64
	// Clocks describes every clock read, in the order of LabMethods.
	Clocks []LabClock
	// Nesting lists the clocks read from the outermost to the innermost.
	Nesting []cputime.Clock
	// Kernels holds one result per kernel, in the order given.
	Kernels []LabKernelResult
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

// labEnv is the pinned thread a lab runs on.
type labEnv struct {
	cfg      LabConfig
	cpu      int
	priority string
	warnings []error
}

// validate fills in the defaults of c and checks it and the kernels.
func (c LabConfig) validate(kernels []LabKernel) (LabConfig, error) {
	if c.Reps == 0 {
		c.Reps = DefaultLabReps
	}
	if c.Tolerance == 0 {
		c.Tolerance = DefaultLabTolerance
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	switch {
	case c.Reps < 1 || c.Reps > MaxLabReps:
		return c, fmt.Errorf("%w: Reps %d (allowed: 1 to %d, or 0 for %d)", ErrBadConfig, c.Reps, MaxLabReps, DefaultLabReps)
	case math.IsNaN(c.Tolerance) || c.Tolerance <= 0 || c.Tolerance >= 1:
		return c, fmt.Errorf("%w: Tolerance %v (allowed: 0 < tolerance < 1, or 0 for %v)", ErrBadConfig, c.Tolerance, DefaultLabTolerance)
	case c.CPU < AnyCPU:
		return c, fmt.Errorf("%w: CPU %d (allowed: %d for any, or a CPU number ≥ 0)", ErrBadConfig, c.CPU, AnyCPU)
	case len(kernels) == 0:
		return c, fmt.Errorf("%w: no kernel given to the lab", ErrBadConfig)
	}
	if c.Methods == nil {
		c.Methods = LabMethods()
	}
	if len(c.Methods) == 0 {
		return c, fmt.Errorf("%w: no clock selected (allowed: %s)", ErrBadConfig, clockNames(LabMethods()))
	}
	seen := map[cputime.Clock]bool{}
	for _, m := range c.Methods {
		if !slices.Contains(LabMethods(), m) {
			return c, fmt.Errorf("%w: unknown clock %s (allowed: %s)", ErrBadConfig, m, clockNames(LabMethods()))
		}
		if seen[m] {
			return c, fmt.Errorf("%w: clock %s selected twice", ErrBadConfig, m)
		}
		seen[m] = true
	}
	for i, k := range kernels {
		switch {
		case k.Name == "":
			return c, fmt.Errorf("%w: kernel %d has no name", ErrBadConfig, i)
		case k.Run == nil:
			return c, fmt.Errorf("%w: kernel %q has no Run", ErrNilFunc, k.Name)
		}
	}
	return c, nil
}

func clockNames(cs []cputime.Clock) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}

// onPinnedThread runs body on a thread pinned as cfg says (the one
// pinning path, internal/pinned), with the GC off unless cfg.KeepGC;
// everything is restored afterwards, also when body panics or calls
// runtime.Goexit.
func onPinnedThread(cfg LabConfig, body func(env *labEnv) error) (*labEnv, error) {
	env := &labEnv{cfg: cfg, cpu: -1, priority: affinity.PriorityNormal.String()}
	prio := affinity.PriorityHigh
	if cfg.KeepPriority {
		prio = affinity.PriorityNormal
	}
	_, err := pinned.Run(pinned.Options{CPU: cfg.CPU, Priority: prio, KeepGC: cfg.KeepGC}, func(th *pinned.Thread) error {
		env.cpu, env.priority = th.CPU, th.Priority.String()
		env.warnings = append(env.warnings, th.Warnings...)
		return body(env)
	})
	return env, err
}

// ClocksLab runs the lab of seed 004 properly: each kernel is run
// cfg.Reps times (after one untimed warm-up run) on a pinned thread, and
// every selected clock times the same runs: Setup is called untimed, then
// the clocks are started from the outermost to the innermost
// ([LabNesting]), the kernel runs, and they are stopped from the innermost
// to the outermost; Check follows, untimed. A repetition in which a clock
// fails to read (a wall clock stepping back, say) is run again, for every
// clock, at most Reps times per kernel; more failures are an error. The
// result has each clock's readings, summary, resolution and empty-interval
// reading, and a verdict derived from the data ([LabKernelResult.Verdict]).
//
// It runs on a new goroutine locked to its OS thread, with the GC off, and
// restores everything it changes. Errors: a bad LabConfig or kernel
// (wrapping ErrBadConfig or ErrNilFunc), a clock that cannot be read at all
// on this platform, a failed calibration, a panic in a kernel, or a
// cancelled context (the result then holds the kernels finished so far).
func ClocksLab(cfg LabConfig, kernels ...LabKernel) (LabResult, error) {
	cfg, err := cfg.validate(kernels)
	if err != nil {
		return LabResult{}, err
	}
	res := LabResult{Reps: cfg.Reps, Tolerance: cfg.Tolerance, CPU: -1}
	for _, c := range LabNesting() {
		if slices.Contains(cfg.Methods, c) {
			res.Nesting = append(res.Nesting, c)
		}
	}
	env, err := onPinnedThread(cfg, func(env *labEnv) error {
		return env.clocksLab(&res, kernels)
	})
	res.CPU, res.Priority = env.cpu, env.priority
	res.Warnings = append(env.warnings, res.Warnings...)
	if cfg.Reps < DefaultLabReps {
		res.Warnings = append(res.Warnings, fmt.Errorf("harness: %d repetitions, fewer than the %d the seed asks for: the spread says little", cfg.Reps, DefaultLabReps))
	}
	return res, err
}

// labWatches is the stopwatches of one lab, in nesting order.
type labWatches struct {
	clocks []cputime.Clock
	sw     []*cputime.Stopwatch
	errs   []error
}

// time times one run of f (which may be nil: the empty interval) with every
// stopwatch and returns the elapsed times and TSC ticks, or the first error
// any clock gave. Setup must have been called already.
func (w *labWatches) time(f func()) (elapsed []time.Duration, ticks uint64, err error) {
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

func (env *labEnv) clocksLab(res *LabResult, kernels []LabKernel) error {
	cfg := env.cfg
	w := &labWatches{clocks: res.Nesting, errs: make([]error, len(res.Nesting))}
	clocks := make(map[cputime.Clock]*LabClock)
	for _, c := range res.Nesting {
		sw, err := cputime.NewStopwatch(c)
		if err != nil {
			return err
		}
		lc := &LabClock{Clock: c}
		if c == cputime.ClockTSC {
			cal := cfg.Calibration
			if cal == nil {
				if cal, err = calibrate.Get(); err != nil {
					return err
				}
			}
			res.Warnings = append(res.Warnings, cal.Warnings...)
			if err := sw.SetTSCHz(cal.Frequency.Hz); err != nil {
				return fmt.Errorf("harness: tsc clock: %w", err)
			}
			res.TicksPerSecond = cal.Frequency.Hz
			res.FrequencySource = cal.Frequency.Method + ": " + cal.Frequency.Source
			// One counter step as the calibration measured it.
			lc.Resolution = max(time.Nanosecond, time.Duration(math.Round(max(cal.Step.Step, 1)/cal.Frequency.Hz*1e9)))
		}
		if lc.Source, err = c.Source(); err != nil {
			return fmt.Errorf("harness: %s clock: %w", c, err)
		}
		if lc.Resolution == 0 {
			if lc.Resolution, err = sw.Resolution(); err != nil {
				res.Warnings = append(res.Warnings, fmt.Errorf("harness: resolution of the %s clock unknown: %w", c, err))
				lc.Resolution = 0
			}
		}
		w.sw = append(w.sw, sw)
		clocks[c] = lc
	}

	// The empty interval: what every clock reads around nothing.
	empty := make([][]time.Duration, len(w.sw))
	for rep, failures := 0, 0; rep < cfg.Reps; {
		el, _, err := w.time(nil)
		if err != nil {
			if failures++; failures > cfg.Reps {
				return fmt.Errorf("harness: clocks lab: empty interval: %d reads failed, the last: %w", failures, err)
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
	for _, c := range LabMethods() {
		if lc, ok := clocks[c]; ok {
			res.Clocks = append(res.Clocks, *lc)
		}
	}

	for _, k := range kernels {
		if err := cfg.Context.Err(); err != nil {
			return fmt.Errorf("harness: clocks lab cancelled before %s: %w", k.Name, err)
		}
		kr, err := w.kernel(cfg, k, clocks)
		if err != nil {
			return err
		}
		res.Kernels = append(res.Kernels, kr)
	}
	return nil
}

// kernel runs one kernel's repetitions and derives its figures.
func (w *labWatches) kernel(cfg LabConfig, k LabKernel, clocks map[cputime.Clock]*LabClock) (LabKernelResult, error) {
	kr := LabKernelResult{Name: k.Name, Tolerance: cfg.Tolerance}
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
		if err := cfg.Context.Err(); err != nil {
			return kr, fmt.Errorf("harness: clocks lab cancelled during %s: %w", k.Name, err)
		}
		if cfg.Progress != nil {
			cfg.Progress(k.Name, rep, cfg.Reps)
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
				return kr, fmt.Errorf("harness: clocks lab: %s: %d repetitions failed, the last: %w", k.Name, kr.Redone, err)
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
		kr.Warnings = append(kr.Warnings, fmt.Errorf("harness: %s: %d repetitions run again because a clock failed to read, the last: %v", k.Name, kr.Redone, lastErr))
	}

	byClock := map[cputime.Clock][]time.Duration{}
	for i, c := range w.clocks {
		byClock[c] = readings[i]
	}
	for _, c := range LabMethods() {
		r, ok := byClock[c]
		if !ok {
			continue
		}
		m := newLabMethod(*clocks[c], r)
		if c == cputime.ClockTSC {
			m.Ticks = ticks
		}
		kr.Methods = append(kr.Methods, m)
	}
	kr.judge()
	return kr, nil
}

// newLabMethod summarises the readings of one clock; the fields that
// compare it with the reference are left to judge.
func newLabMethod(lc LabClock, readings []time.Duration) LabMethod {
	s := summarise(readings)
	m := LabMethod{LabClock: lc, Readings: readings, Min: s.Min, Median: s.Median, Max: s.Max, Spread: math.NaN(), DiffFromReference: math.NaN()}
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

// reference returns the method the others are compared with.
func (k *LabKernelResult) reference() (LabMethod, bool) {
	for _, c := range []cputime.Clock{cputime.ClockTSC, cputime.ClockMonotonic} {
		if m, ok := k.Method(c); ok {
			return m, true
		}
	}
	return LabMethod{}, false
}

// judge sets the reference and every method's Resolves, DiffFromReference
// and Agrees.
func (k *LabKernelResult) judge() {
	ref, hasRef := k.reference()
	k.Reference, k.HasReference = ref.Clock, hasRef
	for i := range k.Methods {
		m := &k.Methods[i]
		scale := m.Median
		if hasRef {
			scale = ref.Median
		}
		m.Resolves = m.Zeros == 0 && m.Resolution > 0 && float64(m.Resolution) <= k.Tolerance*float64(scale)
		if hasRef && ref.Median > 0 {
			m.DiffFromReference = float64(m.Median-ref.Median) / float64(ref.Median)
			m.Agrees = math.Abs(m.DiffFromReference) <= k.Tolerance
		}
		if hasRef && m.Clock == ref.Clock {
			m.DiffFromReference, m.Agrees = 0, true
		}
	}
}

// Verdict returns a few sentences derived from the figures: which clocks
// cannot resolve the interval and why (readings of 0, a resolution above
// the tolerance), which agree with the reference within the tolerance and
// which do not, the repetitions in which the thread's CPU time fell short of
// the reference by more than the tolerance (preempted, or sleeping), and
// how much the reference's repetitions spread. It never returns an empty
// list.
func (k LabKernelResult) Verdict() []string {
	ref, hasRef := k.reference()
	tol := sig3(100*k.Tolerance) + "%"
	var cannot, agree, differ []string
	for _, m := range k.Methods {
		if !m.Resolves {
			var why []string
			if m.Zeros > 0 {
				why = append(why, fmt.Sprintf("read 0 in %d of %d repetitions", m.Zeros, len(m.Readings)))
			}
			scale, whose := m.Median, "its"
			if hasRef {
				scale, whose = ref.Median, "the "+ref.Clock.String()
			}
			switch {
			case m.Resolution == 0:
				why = append(why, "resolution unknown")
			case float64(m.Resolution) > k.Tolerance*float64(scale):
				why = append(why, fmt.Sprintf("resolution %v > %s of %s median %v", m.Resolution, tol, whose, scale))
			}
			cannot = append(cannot, fmt.Sprintf("%s (%s)", m.Clock, strings.Join(why, "; ")))
		}
		if !hasRef || m.Clock == ref.Clock || math.IsNaN(m.DiffFromReference) {
			continue
		}
		d := signed3(100*m.DiffFromReference) + "%"
		if m.Agrees {
			agree = append(agree, fmt.Sprintf("%s (%s)", m.Clock, d))
			continue
		}
		// A clock that sees the reads of the clocks nested inside it may
		// differ by that alone: say so when it explains half the gap.
		if gap := math.Abs(float64(m.Median - ref.Median)); m.Empty > 0 && float64(m.Empty) >= gap/2 {
			d += fmt.Sprintf("; it reads %v around nothing", m.Empty)
		}
		differ = append(differ, fmt.Sprintf("%s (%s)", m.Clock, d))
	}
	var v []string
	if len(cannot) > 0 {
		v = append(v, "cannot resolve the interval: "+strings.Join(cannot, ", "))
	} else {
		v = append(v, "every clock resolves the interval to "+tol)
	}
	if hasRef {
		if len(agree) > 0 {
			v = append(v, fmt.Sprintf("agree with %s within %s: %s", ref.Clock, tol, strings.Join(agree, ", ")))
		}
		if len(differ) > 0 {
			v = append(v, fmt.Sprintf("differ from %s by more than %s: %s", ref.Clock, tol, strings.Join(differ, ", ")))
		}
		if th, ok := k.Method(cputime.ClockThread); ok && ref.Clock != cputime.ClockThread && len(th.Readings) == len(ref.Readings) {
			var reps, shares []string
			for i, r := range ref.Readings {
				if r > 0 && float64(th.Readings[i]) < (1-k.Tolerance)*float64(r) {
					reps = append(reps, strconv.Itoa(i+1))
					shares = append(shares, sig3(100*float64(th.Readings[i])/float64(r))+"%")
				}
			}
			if len(reps) > 0 {
				word := "repetition"
				if len(reps) > 1 {
					word += "s"
				}
				v = append(v, fmt.Sprintf("in %s %s the thread ran for only %s of the %s interval: it was preempted, or the kernel sleeps or blocks", word, strings.Join(reps, ", "), strings.Join(shares, ", "), ref.Clock))
			}
		}
		if !math.IsNaN(ref.Spread) {
			v = append(v, fmt.Sprintf("the %s's %d repetitions spread by %s%% (max − min over median); noise only adds time, so the minimum, %v, is the best estimate", ref.Clock, len(ref.Readings), sig3(100*ref.Spread), ref.Min))
		}
	}
	return v
}

// sig3 formats v with three significant digits and no exponent.
func sig3(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	d := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	s := fmt.Sprintf("%.*f", d, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func signed3(v float64) string {
	if v >= 0 {
		return "+" + sig3(v)
	}
	return sig3(v)
}

// KernelUtilisation is one kernel's CPU utilisation (seed 002).
type KernelUtilisation struct {
	Name string
	// Utilisation is cputime's snapshot pair around the run: wall time,
	// process CPU time, share of one CPU and of all CPUs.
	Utilisation cputime.Utilisation
	// ThreadCPU is the measuring thread's CPU time during the run (0 when
	// it could not be read; a warning says why).
	ThreadCPU time.Duration
	// CheckError is what Check returned after the run (nil: right).
	CheckError error
	// Warnings holds soft problems with this kernel's figures.
	Warnings []error
}

// UtilisationLabResult is what [UtilisationLab] found.
type UtilisationLabResult struct {
	Kernels []KernelUtilisation
	// CPU is the CPU the kernels ran on (-1 when not pinned) and Priority
	// the priority obtained.
	CPU      int
	Priority string
	Warnings []error
}

// UtilisationLab reproduces seed 002's demos: each kernel runs once, on a
// pinned thread with the GC off, between two utilisation snapshots
// (cputime.StartUtilisation and Stop) and two readings of the thread's CPU
// time; Setup runs before, Check after, both untimed. A compute-bound
// kernel keeps one CPU about 100% busy; a kernel that sleeps, about 0%.
// Of cfg it uses CPU, KeepPriority, KeepGC and Context. Where utilisation is
// unsupported the error wraps errors.ErrUnsupported (cputime.ErrNoProcfs
// on a Linux without /proc).
func UtilisationLab(cfg LabConfig, kernels ...LabKernel) (UtilisationLabResult, error) {
	cfg.Methods, cfg.Reps = nil, 0
	cfg, err := cfg.validate(kernels)
	if err != nil {
		return UtilisationLabResult{}, err
	}
	var res UtilisationLabResult
	env, err := onPinnedThread(cfg, func(env *labEnv) error {
		for _, k := range kernels {
			if err := cfg.Context.Err(); err != nil {
				return fmt.Errorf("harness: utilisation lab cancelled before %s: %w", k.Name, err)
			}
			if cfg.Progress != nil {
				cfg.Progress(k.Name, 0, 1)
			}
			ku, err := utilisationOf(k)
			if err != nil {
				return err
			}
			res.Kernels = append(res.Kernels, ku)
		}
		return nil
	})
	res.CPU, res.Priority = env.cpu, env.priority
	res.Warnings = append(env.warnings, res.Warnings...)
	return res, err
}

func utilisationOf(k LabKernel) (KernelUtilisation, error) {
	ku := KernelUtilisation{Name: k.Name}
	if k.Setup != nil {
		k.Setup()
	}
	s, err := cputime.StartUtilisation()
	if err != nil {
		return ku, fmt.Errorf("harness: utilisation of %s: %w", k.Name, err)
	}
	before, errBefore := cputime.Thread()
	k.Run()
	after, errAfter := cputime.Thread()
	u, err := s.Stop()
	if err != nil {
		return ku, fmt.Errorf("harness: utilisation of %s: %w", k.Name, err)
	}
	ku.Utilisation = u
	switch err := errors.Join(errBefore, errAfter); {
	case err != nil:
		ku.Warnings = append(ku.Warnings, fmt.Errorf("harness: no thread cpu time for %s: %w", k.Name, err))
	case before.Source != after.Source || after.Total < before.Total:
		ku.Warnings = append(ku.Warnings, fmt.Errorf("harness: no thread cpu time for %s: readings %v (%s) and %v (%s) not comparable", k.Name, before.Total, before.Source, after.Total, after.Source))
	default:
		ku.ThreadCPU = after.Total - before.Total
	}
	if k.Check != nil {
		ku.CheckError = k.Check()
	}
	return ku, nil
}
