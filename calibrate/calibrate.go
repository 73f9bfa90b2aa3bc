package calibrate

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

// Calibration is everything the harness needs to turn ticks into time and
// core cycles, measured together.
type Calibration struct {
	CPU       CPU
	Frequency Frequency    // the figure used to convert ticks to seconds
	Step      tsc.StepInfo // how the counter advances
	Overhead  Overhead
	Core      CoreClock
	At        time.Time     // when the calibration finished
	Took      time.Duration // how long it took
	// Warnings gathers every soft problem: an emulated processor
	// ([ErrEmulated]), a counter that cannot detect migration
	// ([ErrNoMigrationCheck]), hypervisor, non-invariant TSC, disagreeing
	// frequency sources, an imprecise frequency, a core-clock ruler that
	// was refused or could not be checked.
	Warnings []error

	// open is the bracket started when the calibration began, kept so
	// that [Calibration.Refine] can close it later; nil for the sleep
	// method and for calibrations not made by [Measure].
	open *openBracket
	// kernel is what the kernel said about the TSC at the start.
	kernel kernelReading
}

// MaxFrequencyPPM is the frequency uncertainty above which a calibration
// warns ([ErrImprecise]). The bracket method reaches about 10 ppm in 5 ms
// and 0.5 ppm in 100 ms on the machines seen; more than 10 ppm means a
// short interval, a busy machine, or the sleep method.
const MaxFrequencyPPM = 10

// Options sets what [Measure] does; the zero value gives [DefaultOptions].
type Options struct {
	// Duration is the frequency calibration interval; 0 means 100 ms. With
	// MethodAuto it is the shortest interval (see TargetPPM). Where the
	// frequency is architected (arm64, the monotonic fallback) it sets
	// only the cross-check's interval, which is at least 20 ms except with
	// MethodAuto.
	Duration time.Duration
	// Method is MethodBracket, MethodSleep or MethodAuto; "" means
	// MethodBracket.
	Method string
	// TargetPPM (MethodAuto only): the bracket is lengthened beyond
	// Duration, up to the longer of Duration and DefaultOptions.Duration,
	// until its bound is at most TargetPPM; 0 means MaxFrequencyPPM.
	TargetPPM float64
	// Pairs is the number of empty start/stop pairs for the overhead; 0 means 20,000.
	Pairs int
	// Core sets the core-clock measurement.
	Core CoreOptions
	// DeferConfirm (MethodAuto only): where the kernel states the
	// counter's frequency to TargetPPM or better, take its figure at once
	// and leave the bracket open (Frequency.Pending), so that a measurement
	// costs no confirmation before it: [Confirmed] closes the bracket after
	// the measurement, over its whole length, and the harness does so.
	// Without a kernel figure the bracket is closed as usual.
	DeferConfirm bool
}

// DefaultOptions holds the defaults behind a zero [Options]: the full
// calibration (`cyclebench calibrate`, `cyclebench info`), about 100 ms.
var DefaultOptions = Options{Duration: 100 * time.Millisecond, Method: MethodBracket, TargetPPM: MaxFrequencyPPM, Pairs: 20_000, Core: DefaultCoreOptions}

// FastOptions are what [Get] calibrates with: each part as short as gives
// its figures at the precision they are used with. On a 2.6 GHz KVM guest
// (AMD EPYC, TSC stepping by 26 ticks) the parts cost:
//
//   - the frequency: MethodAuto with DeferConfirm. Where the kernel states
//     the figure (±0.8 ppm there), it is taken at once and the bracket
//     opened at the start confirms it after the measurement, over the
//     measurement's whole length ([Confirmed]): it costs 0.2 ms then, and
//     nothing before the first result. Elsewhere a bracket of at least 2
//     ms, lengthened to reach ±10 ppm (5 to 6 ms where every bracket is
//     130 ticks wide), is the figure; the other parts run inside it;
//   - the counter's step (tsc.Steps, 1,000 read pairs): 0.05 ms, once
//     per process;
//   - the overhead, 500 empty pairs: 0.07 ms. Its minimum and median
//     matched those of 20,000 pairs exactly in five tries there (52 and
//     78 ticks); only `cyclebench info` shows them, from 20,000 pairs (the
//     harness measures its own);
//   - the core clock, ADD and IMUL chains of 1,000 and 21,000 links, best
//     of 5: 0.15 ms. Cycles per tick come within ±0.4% of the 100,000-link
//     figure (one step over the 14,600-tick difference), well inside the
//     1.5% by which the core clock itself wanders between calibrations;
//     the harness uses the figure only to size its own reference chain and
//     as a fallback. IMUL/ADD stays within ±0.01 of the 30-rep figure;
//   - describing the CPU (CPUID, /proc/cpuinfo) and the kernel's figures:
//     0.3 ms.
//
// [Calibration.Refine] makes the frequency precise later, at no cost
// while the program runs.
var FastOptions = Options{
	Duration:     2 * time.Millisecond,
	Method:       MethodAuto,
	TargetPPM:    MaxFrequencyPPM,
	Pairs:        500,
	Core:         CoreOptions{Short: 1000, Long: 21_000, Reps: 5},
	DeferConfirm: true,
}

// fullCheckDuration is the architected frequency's cross-check interval
// outside MethodAuto.
const fullCheckDuration = 20 * time.Millisecond

func (o Options) withDefaults() (Options, error) {
	if o.Duration == 0 {
		o.Duration = DefaultOptions.Duration
	}
	if o.Method == "" {
		o.Method = DefaultOptions.Method
	}
	if o.Pairs == 0 {
		o.Pairs = DefaultOptions.Pairs
	}
	if o.TargetPPM == 0 {
		o.TargetPPM = MaxFrequencyPPM
	}
	if err := checkDuration(o.Duration); err != nil {
		return o, err
	}
	if o.Method != MethodBracket && o.Method != MethodSleep && o.Method != MethodAuto {
		return o, fmt.Errorf("%w: method %q (allowed: %q, %q, %q)", ErrBadMethod, o.Method, MethodBracket, MethodSleep, MethodAuto)
	}
	if !(o.TargetPPM > 0 && o.TargetPPM <= 1e6) {
		return o, fmt.Errorf("%w: target %v ppm (allowed: above 0, at most 1e6)", ErrBadTarget, o.TargetPPM)
	}
	return o, nil
}

// Measure calibrates now. It locks the calling goroutine's OS thread while
// it runs but does not pin it: pin first (package affinity) for figures
// that match a pinned measurement. The frequency's bracket is opened first
// and closed last, so the other parts run inside its interval.
func Measure(o Options) (*Calibration, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Core, err = o.Core.withDefaults(); err != nil {
		return nil, err
	}
	if o.Pairs < MinPairs || o.Pairs > MaxPairs {
		return nil, fmt.Errorf("%w: pairs %d (allowed: %d to %d)", ErrBadCount, o.Pairs, MinPairs, MaxPairs)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	c := &Calibration{}
	arch, architected := Architected()
	if o.Method != MethodSleep || architected {
		// Opened first, so that everything else runs inside its interval;
		// whether the clock follows the counter matters only for the bound.
		ob, err := open(false)
		if err != nil {
			return nil, err
		}
		c.open = &ob
	}
	c.CPU, c.kernel = DetectCPU(), readKernel(sysRoot, readDiscipline)
	if c.open != nil {
		c.open.followsCounter = c.kernel.clockFollowsCounter(c.CPU.Counter)
	}
	c.Step = tsc.Steps()
	if c.CPU.Emulated == "" && architected {
		c.CPU.Emulated = coarseCounterReason(c.CPU.Counter, c.Step, arch.Hz)
	}
	if c.Overhead, err = MeasureOverhead(o.Pairs); err != nil {
		return nil, err
	}
	lat, known := c.CPU.ImulLatency()
	if c.Core, err = measureCoreClock(o.Core, lat, known); err != nil {
		return nil, err
	}
	switch {
	case architected:
		d := max(o.Duration, fullCheckDuration)
		if o.Method == MethodAuto {
			d = o.Duration
		}
		c.Frequency = confirmArchitected(arch, *c.open, d)
	case o.Method == MethodSleep:
		c.Frequency, err = Sleep(o.Duration)
	case o.Method == MethodBracket:
		c.Frequency, err = c.open.closeAt(o.Duration)
	default:
		c.Frequency, err = c.auto(o)
	}
	if err != nil {
		return nil, err
	}
	addCrossChecks(&c.Frequency, c.CPU, c.kernel)
	c.Core = c.Core.withCounterHz(c.Frequency.Hz, o.Core.thresholds())
	if !c.Core.Refused() && c.Core.Checked && c.CPU.Emulated == "" {
		NoteProbe(c.Core.ProbeCycles)
	}
	c.Warnings = c.warnings()
	c.At = time.Now()
	c.Took = c.At.Sub(t0)
	return c, nil
}

// confirmArchitected returns the architected frequency a with the bracket
// ob, closed at d, as its cross-check. The architected figure is exact
// only if the firmware set CNTFRQ_EL0 right; a bracket that disagrees
// beyond its own uncertainty says it did not.
func confirmArchitected(a Frequency, ob openBracket, d time.Duration) Frequency {
	b, err := ob.closeAt(d)
	if err != nil {
		return a
	}
	cc := CrossCheck{
		Source:  fmt.Sprintf("bracket against the monotonic clock (%v)", b.Duration.Round(10*time.Microsecond)),
		Hz:      b.Hz,
		DiffPPM: (b.Hz - a.Hz) / a.Hz * 1e6,
		PPM:     b.PPM,
	}
	a.CrossChecks = append(a.CrossChecks, cc)
	if tol := b.PPM + 1; math.Abs(cc.DiffPPM) > tol {
		a.Warnings = append(a.Warnings, fmt.Errorf("%w: %s says %.0f Hz, %+.1f ppm from %s (tolerance %.1f ppm)", ErrDisagree, cc.Source, cc.Hz, cc.DiffPPM, a.Source, tol))
	}
	return a
}

// auto closes c's bracket after o.Duration, later if needed to bring its
// bound within o.TargetPPM (never beyond the full interval), and returns
// the kernel's figure when the bracket confirms it and it is the more
// precise, else the bracket's. When the two disagree beyond their bounds
// it closes the bracket at the full interval instead, uses that, and warns.
func (c *Calibration) auto(o Options) (Frequency, error) {
	if o.DeferConfirm {
		if k, err := c.kernel.frequency(c.CPU.Counter); err == nil && k.PPM <= o.TargetPPM {
			k.Pending = true
			return k, nil
		}
	}
	full := max(o.Duration, DefaultOptions.Duration)
	// 2% beyond the predicted length absorbs a closing bracket a little
	// wider than the opening one; a wider one costs another try.
	d := max(o.Duration, time.Duration(float64(c.open.needed(o.TargetPPM, tsc.Step()))*1.02))
	b, err := c.open.closeAt(min(d, full))
	for err == nil && b.PPM > o.TargetPPM && b.Duration < full {
		// The bound falls as the inverse of the interval.
		next := time.Duration(float64(b.Duration) * b.PPM / o.TargetPPM * 1.02)
		b, err = c.open.closeAt(min(max(next, b.Duration+100*time.Microsecond), full))
	}
	if err != nil {
		return Frequency{}, err
	}
	k, err := c.kernel.frequency(c.CPU.Counter)
	if err != nil {
		return b, nil
	}
	f, agree := choose(k, b)
	if agree {
		return f, nil
	}
	fb, err := c.open.closeAt(full)
	if err != nil {
		return Frequency{}, err
	}
	fb.Warnings = append(fb.Warnings, fmt.Errorf("%w: the kernel's %.0f Hz (±%.2g ppm) and a %v bracket's %.0f Hz (±%.2g ppm) differ by %+.3g ppm, more than both bounds; the %v bracket is used instead",
		ErrDisagree, k.Hz, k.PPM, b.Duration.Round(10*time.Microsecond), b.Hz, b.PPM, (b.Hz-k.Hz)/k.Hz*1e6, fb.Duration.Round(time.Millisecond)))
	return fb, nil
}

// choose returns, when the kernel's figure k and the bracket b agree within
// the sum of their bounds, the one with the smaller bound (k with b as its
// cross-check; b gets k from addCrossChecks), and whether they agreed; b
// when they do not.
func choose(k, b Frequency) (f Frequency, agree bool) {
	diff := (b.Hz - k.Hz) / k.Hz * 1e6
	if math.Abs(diff) > k.PPM+b.PPM {
		return b, false
	}
	if b.PPM < k.PPM {
		return b, true
	}
	k.Duration = b.Duration
	k.CrossChecks = append(k.CrossChecks, CrossCheck{
		Source:  fmt.Sprintf("bracket against the monotonic clock (%v)", b.Duration.Round(10*time.Microsecond)),
		Hz:      b.Hz,
		DiffPPM: diff,
		PPM:     b.PPM,
	})
	return k, true
}

// Refine returns a copy of c whose frequency comes from the bracket opened
// when c was measured, closed now: over a longer interval its bound is
// smaller (0.5 ppm after 100 ms, 0.05 ppm after 1 s on the machines
// seen). The kernel's figure and the new bracket are weighed as in
// [MethodAuto]: the more precise of the two when they agree, the bracket
// with an [ErrDisagree] warning when they do not. Without a kernel figure,
// the bracket is used when it is more precise than c's figure. c itself is
// not changed. When c kept no bracket (the sleep method, a calibration not
// made by [Measure]) or its frequency is architected, Refine returns c. It
// costs about 0.2 ms and locks the calling goroutine's OS thread meanwhile;
// call it on the CPU the calibration ran on (the counters of different CPUs
// are assumed synchronised, as Linux checks at boot).
func (c *Calibration) Refine() (*Calibration, error) {
	if c.open == nil || c.Frequency.Method == MethodCNTFRQ || c.Frequency.Method == MethodExact {
		return c, nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	end, err := tightestBracket(bracketAttempts)
	if err != nil {
		return nil, err
	}
	b, err := bracketFrequency(c.open.start, end, c.open.followsCounter, tsc.Step(), time.Since(c.open.t0))
	if err != nil {
		return nil, err
	}
	f := b
	if k, err := c.kernel.frequency(c.CPU.Counter); err == nil {
		var agree bool
		if f, agree = choose(k, b); !agree {
			f.Warnings = append(f.Warnings, fmt.Errorf("%w: the kernel's %.0f Hz (±%.2g ppm) and a %v bracket's %.0f Hz (±%.2g ppm) differ by %+.3g ppm, more than both bounds; the bracket is used",
				ErrDisagree, k.Hz, k.PPM, b.Duration.Round(time.Millisecond), b.Hz, b.PPM, (b.Hz-k.Hz)/k.Hz*1e6))
		}
	} else if b.PPM >= c.Frequency.PPM {
		return c, nil
	}
	addCrossChecks(&f, c.CPU, c.kernel)
	r := *c
	r.Frequency = f
	r.Warnings = r.warnings()
	return &r, nil
}

// warnings gathers c's soft problems from its figures.
func (c *Calibration) warnings() []error {
	var w []error
	if c.CPU.Emulated != "" {
		w = append(w, fmt.Errorf("%w: %s; ticks, nanoseconds and cycles describe the emulator, not any hardware", ErrEmulated, c.CPU.Emulated))
	}
	if !tsc.HasAux() {
		w = append(w, noMigrationCheck(c.CPU.Counter))
	}
	if c.CPU.Virtual {
		name := c.CPU.Hypervisor
		if name == "" {
			name = "unknown"
		}
		w = append(w, fmt.Errorf("%w (%s): the counter may be virtualised and other guests share the host", ErrVirtual, name))
	}
	if c.CPU.Counter == tsc.CounterRDTSC && !c.CPU.InvariantTSC {
		w = append(w, fmt.Errorf("%w: CPUID 0x80000007 EDX[8] is clear; the tick rate may change with power states", ErrNotInvariant))
	}
	if c.Frequency.PPM > MaxFrequencyPPM {
		w = append(w, fmt.Errorf("%w: ±%.3g ppm by the %s method (more than %g ppm): nanoseconds carry that error; cycles do not depend on it", ErrImprecise, c.Frequency.PPM, c.Frequency.Method, float64(MaxFrequencyPPM)))
	}
	w = append(w, c.Frequency.Warnings...)
	return append(w, c.Core.Warnings...)
}

var (
	cacheMu sync.Mutex
	cached  *Calibration
)

// Pending reports whether c's frequency is a kernel figure whose
// confirming bracket is still open ([Options.DeferConfirm]).
func (c *Calibration) Pending() bool { return c.Frequency.Pending && c.open != nil }

// Confirmed returns c with its frequency confirmed: c itself when it is
// not pending, else c refined ([Calibration.Refine]: the bracket opened
// when c was measured, closed now, confirms the kernel's figure or, when
// they disagree, replaces it with a warning). When c is the calibration
// [Get] caches, the cache is replaced too, so that the confirmation is
// made once. It costs about 0.2 ms when c is pending; call it on the CPU
// the calibration ran on.
func Confirmed(c *Calibration) (*Calibration, error) {
	if !c.Pending() {
		return c, nil
	}
	r, err := c.Refine()
	if err != nil {
		return c, err
	}
	cacheMu.Lock()
	if cached == c {
		cached = r
	}
	cacheMu.Unlock()
	return r, nil
}

// Get returns the calibration measured with [FastOptions] on the first
// call (about 6 ms on a KVM guest whose kernel states the TSC rate, where
// it was 107 ms with [DefaultOptions]) and cached after that; [Refine]
// makes its frequency precise later. Callers must not modify the result.
func Get() (*Calibration, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cached != nil {
		return cached, nil
	}
	c, err := Measure(FastOptions)
	if err != nil {
		return nil, err
	}
	cached = c
	return c, nil
}

// Refine replaces the cached calibration that [Get] returns by its
// [Calibration.Refine] and returns it: call it when a long run ends, so
// that the figures it reports carry the frequency measured over the whole
// run. Before any Get it calibrates as Get does.
func Refine() (*Calibration, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cached == nil {
		c, err := Measure(FastOptions)
		if err != nil {
			return nil, err
		}
		cached = c
		return c, nil
	}
	r, err := cached.Refine()
	if err != nil {
		return nil, err
	}
	cached = r
	return r, nil
}

// Refresh measures again with o, replaces the cached calibration that
// [Get] returns, and returns it.
func Refresh(o Options) (*Calibration, error) {
	c, err := Measure(o)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	cached = c
	cacheMu.Unlock()
	return c, nil
}

// Seconds converts ticks to seconds with c's frequency.
func (c *Calibration) Seconds(ticks float64) float64 { return ticks / c.Frequency.Hz }

// Nanoseconds converts ticks to nanoseconds with c's frequency.
func (c *Calibration) Nanoseconds(ticks float64) float64 { return ticks / c.Frequency.Hz * 1e9 }

// Cycles converts ticks to estimated core cycles with c's core-clock ratio
// (0 when there is none).
func (c *Calibration) Cycles(ticks float64) float64 { return ticks * c.Core.CyclesPerTick }
