package calibrate

import (
	"fmt"
	"math"
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
	// frequency sources, IMUL/ADD off, inexact chains.
	Warnings []error
}

// MaxFrequencyPPM is the frequency uncertainty above which a calibration
// warns ([ErrImprecise]). The bracket method reaches about 1 ppm in 100 ms;
// 10 ppm means a short interval, a busy machine, or the sleep method.
const MaxFrequencyPPM = 10

// Options sets what [Measure] does; the zero value gives the defaults.
type Options struct {
	// Duration is the frequency calibration interval; 0 means 100 ms.
	// Ignored where the frequency is architected (arm64, the monotonic
	// fallback), except for the cross-check, which then uses 20 ms.
	Duration time.Duration
	// Method is MethodBracket or MethodSleep; "" means MethodBracket.
	Method string
	// Pairs is the number of empty start/stop pairs for the overhead; 0 means 20,000.
	Pairs int
	// Core sets the core-clock measurement.
	Core CoreOptions
}

// DefaultOptions holds the defaults behind a zero [Options].
var DefaultOptions = Options{Duration: 100 * time.Millisecond, Method: MethodBracket, Pairs: 20_000, Core: DefaultCoreOptions}

// Measure calibrates now. It locks the calling goroutine's OS thread while
// it runs but does not pin it: pin first (package affinity) for figures
// that match a pinned measurement.
func Measure(o Options) (*Calibration, error) {
	if o.Duration == 0 {
		o.Duration = DefaultOptions.Duration
	}
	if o.Method == "" {
		o.Method = DefaultOptions.Method
	}
	if o.Pairs == 0 {
		o.Pairs = DefaultOptions.Pairs
	}
	if err := checkDuration(o.Duration); err != nil {
		return nil, err
	}
	if o.Method != MethodBracket && o.Method != MethodSleep {
		return nil, fmt.Errorf("%w: method %q (allowed: %q, %q)", ErrBadMethod, o.Method, MethodBracket, MethodSleep)
	}
	t0 := time.Now()
	c := &Calibration{CPU: DetectCPU()}
	var err error
	if c.Frequency, err = measureFrequency(o); err != nil {
		return nil, err
	}
	AddCrossChecks(&c.Frequency, c.CPU)
	c.Step = tsc.Steps()
	if c.CPU.Emulated == "" {
		c.CPU.Emulated = coarseCounterReason(c.CPU.Counter, c.Step, c.Frequency.Hz)
	}
	if c.Overhead, err = MeasureOverhead(o.Pairs); err != nil {
		return nil, err
	}
	lat, known := c.CPU.ImulLatency()
	if c.Core, err = measureCoreClock(o.Core, lat, known); err != nil {
		return nil, err
	}
	if c.CPU.Emulated != "" {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: %s; ticks, nanoseconds and cycles describe the emulator, not any hardware", ErrEmulated, c.CPU.Emulated))
	}
	if !tsc.HasAux() {
		c.Warnings = append(c.Warnings, noMigrationCheck(c.CPU.Counter))
	}
	if c.CPU.Virtual {
		name := c.CPU.Hypervisor
		if name == "" {
			name = "unknown"
		}
		c.Warnings = append(c.Warnings, fmt.Errorf("%w (%s): the counter may be virtualised and other guests share the host", ErrVirtual, name))
	}
	if c.CPU.Counter == tsc.CounterRDTSC && !c.CPU.InvariantTSC {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: CPUID 0x80000007 EDX[8] is clear; the tick rate may change with power states", ErrNotInvariant))
	}
	if c.Frequency.PPM > MaxFrequencyPPM {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: ±%.3g ppm by the %s method (more than %g ppm): nanoseconds carry that error; cycles do not depend on it", ErrImprecise, c.Frequency.PPM, c.Frequency.Method, float64(MaxFrequencyPPM)))
	}
	c.Warnings = append(c.Warnings, c.Frequency.Warnings...)
	c.Warnings = append(c.Warnings, c.Core.Warnings...)
	c.At = time.Now()
	c.Took = c.At.Sub(t0)
	return c, nil
}

// measureFrequency returns the architected frequency with a short bracket
// as its cross-check where the platform defines one, else the measured
// frequency by o.Method.
func measureFrequency(o Options) (Frequency, error) {
	if a, ok := Architected(); ok {
		if b, err := Bracket(20 * time.Millisecond); err == nil {
			cc := CrossCheck{
				Source:  "bracket against the monotonic clock (20ms)",
				Hz:      b.Hz,
				DiffPPM: (b.Hz - a.Hz) / a.Hz * 1e6,
			}
			a.CrossChecks = append(a.CrossChecks, cc)
			// The architected figure is exact only if the firmware set
			// CNTFRQ_EL0 right; a bracket that disagrees beyond its own
			// uncertainty says it did not.
			if tol := b.PPM + 1; math.Abs(cc.DiffPPM) > tol {
				a.Warnings = append(a.Warnings, fmt.Errorf("%w: %s says %.0f Hz, %+.1f ppm from %s (tolerance %.1f ppm)", ErrDisagree, cc.Source, cc.Hz, cc.DiffPPM, a.Source, tol))
			}
		}
		return a, nil
	}
	if o.Method == MethodSleep {
		return Sleep(o.Duration)
	}
	return Bracket(o.Duration)
}

var (
	cacheMu sync.Mutex
	cached  *Calibration
)

// Get returns the calibration measured with [DefaultOptions] on the first
// call and cached after that. Callers must not modify the result.
func Get() (*Calibration, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if cached != nil {
		return cached, nil
	}
	c, err := Measure(Options{})
	if err != nil {
		return nil, err
	}
	cached = c
	return c, nil
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
