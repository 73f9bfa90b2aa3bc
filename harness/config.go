package harness

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
)

// AnyCPU as Config.CPU lets Measure pick a CPU from the allowed set (the
// highest-numbered one: CPU 0 takes most interrupts).
const AnyCPU = -1

// Defaults behind the zero values of Config's fields.
const (
	DefaultK              = 3
	DefaultEpsilon        = 0.01
	DefaultMaxSamples     = 1000
	DefaultMaxTime        = 10 * time.Second
	DefaultWarmup         = 2 * time.Millisecond
	DefaultMinRegionSteps = 4000
	DefaultAbsSteps       = 2
	// MaxRepeat bounds the automatic choice of R.
	MaxRepeat = 1 << 24
)

// Config says how [Measure] measures. Its zero value is valid and gives
// the documented defaults, except CPU: see its doc.
type Config struct {
	// Name labels the result.
	Name string
	// K is the number of smallest samples that must agree; 0 means 3 (1 to 1000).
	K int
	// Epsilon is the relative tolerance: converged when (1+Epsilon)·v1 ≥ vK;
	// 0 means 0.01. Must be finite and in [0, 1).
	Epsilon float64
	// AbsSteps is an absolute tolerance in counter steps: also converged when
	// vK − v1 ≤ AbsSteps × step, so that a kernel near the counter's
	// resolution can converge; 0 means 2, a negative value disables it
	// (the effective Config then holds -1).
	AbsSteps float64
	// MaxSamples is M: give up after this many target samples; 0 means
	// 1000. Must be ≥ K.
	MaxSamples int
	// MaxTime bounds the measuring loop's wall time; 0 means 10 s.
	MaxTime time.Duration
	// CPU is the CPU to pin the measuring thread to; AnyCPU (-1) picks one
	// from the allowed set. Because CPU 0 is a real CPU, the zero Config pins
	// to CPU 0; start from [DefaultConfig] to let Measure pick.
	CPU int
	// KeepPriority leaves the thread's priority alone. By default Measure
	// raises it (nice −20 on Linux, HIGH on Windows) where permitted; a
	// refusal is a warning.
	KeepPriority bool
	// Realtime asks for SCHED_FIFO (Linux, bounded by RLIMIT_RTTIME) or the
	// REALTIME class (Windows). Only when asked: a runaway kernel at
	// realtime priority can starve the machine until the limit stops it.
	Realtime bool
	// RTTimeLimit bounds a Realtime measurement's CPU time without a
	// blocking call (RLIMIT_RTTIME); 0 means affinity.DefaultRTTimeLimit.
	RTTimeLimit time.Duration
	// KeepGC leaves the garbage collector running during the loop.
	KeepGC bool
	// Warmup is how long f is called before sampling (at least once); 0
	// means 2 ms, a negative value means a single call.
	Warmup time.Duration
	// Repeat is R, the calls per sample; 0 chooses it so a sample spans at
	// least MinRegionSteps counter steps; 1 times each call alone.
	Repeat int
	// MinRegionSteps is the target length of a sample in counter steps when
	// Repeat is chosen automatically; 0 means 4000.
	MinRegionSteps float64
	// NoCycles skips the core-clock reference chain: Result.Cycles is 0.
	NoCycles bool
	// Elements, when > 0, is the number of elements one call processes:
	// the result then has per-element figures.
	Elements float64
	// Setup, when not nil, is called before every sample, untimed (to
	// restore an input the function consumes). It forces Repeat to 1.
	Setup func()
	// Context cancels the measurement; nil means context.Background().
	Context context.Context
	// Progress, when not nil, is called from the measuring goroutine
	// between samples, at most every 50 ms.
	Progress func(Progress)
	// Calibration supplies the counter frequency; nil means calibrate.Get().
	Calibration *calibrate.Calibration
}

// DefaultConfig returns the zero Config with CPU set to AnyCPU.
func DefaultConfig() Config { return Config{CPU: AnyCPU} }

// Progress reports the state of a running measurement.
type Progress struct {
	Name      string
	Samples   int           // target samples taken
	Max       int           // MaxSamples
	Spread    float64       // (vK − v1)/v1 of the target so far, NaN before K samples
	Elapsed   time.Duration // since sampling began
	Converged bool
}

// withDefaults returns c with defaults filled in, or an error naming the
// first bad field.
func (c Config) withDefaults() (Config, error) {
	if c.K == 0 {
		c.K = DefaultK
	}
	if c.Epsilon == 0 {
		c.Epsilon = DefaultEpsilon
	}
	if c.AbsSteps == 0 {
		c.AbsSteps = DefaultAbsSteps
	}
	if c.MaxSamples == 0 {
		c.MaxSamples = DefaultMaxSamples
		if c.MaxSamples < c.K {
			c.MaxSamples = c.K
		}
	}
	if c.MaxTime == 0 {
		c.MaxTime = DefaultMaxTime
	}
	if c.Warmup == 0 {
		c.Warmup = DefaultWarmup
	}
	if c.MinRegionSteps == 0 {
		c.MinRegionSteps = DefaultMinRegionSteps
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	switch {
	case c.K < 1 || c.K > 1000:
		return c, fmt.Errorf("%w: K %d (allowed: 1 to 1000)", ErrBadConfig, c.K)
	case math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) || c.Epsilon < 0 || c.Epsilon >= 1:
		return c, fmt.Errorf("%w: epsilon %v (allowed: 0 ≤ ε < 1, finite)", ErrBadConfig, c.Epsilon)
	case math.IsNaN(c.AbsSteps) || math.IsInf(c.AbsSteps, 0):
		return c, fmt.Errorf("%w: AbsSteps %v (allowed: finite; negative disables)", ErrBadConfig, c.AbsSteps)
	case c.MaxSamples < c.K:
		return c, fmt.Errorf("%w: MaxSamples %d (allowed: ≥ K = %d)", ErrBadConfig, c.MaxSamples, c.K)
	case c.MaxTime < 0:
		return c, fmt.Errorf("%w: MaxTime %v (allowed: > 0, or 0 for %v)", ErrBadConfig, c.MaxTime, DefaultMaxTime)
	case c.CPU < AnyCPU:
		return c, fmt.Errorf("%w: CPU %d (allowed: %d for any, or a CPU number ≥ 0)", ErrBadConfig, c.CPU, AnyCPU)
	case c.RTTimeLimit < 0 || c.RTTimeLimit > affinity.MaxRTTimeLimit:
		return c, fmt.Errorf("%w: RTTimeLimit %v (allowed: 0 to %v)", ErrBadConfig, c.RTTimeLimit, affinity.MaxRTTimeLimit)
	case c.Repeat < 0 || c.Repeat > MaxRepeat:
		return c, fmt.Errorf("%w: Repeat %d (allowed: 0 for automatic, 1 to %d)", ErrBadConfig, c.Repeat, MaxRepeat)
	case math.IsNaN(c.MinRegionSteps) || c.MinRegionSteps < 1 || c.MinRegionSteps > 1e9:
		return c, fmt.Errorf("%w: MinRegionSteps %v (allowed: 1 to 1e9)", ErrBadConfig, c.MinRegionSteps)
	case math.IsNaN(c.Elements) || math.IsInf(c.Elements, 0) || c.Elements < 0:
		return c, fmt.Errorf("%w: Elements %v (allowed: ≥ 0, finite)", ErrBadConfig, c.Elements)
	}
	if c.AbsSteps < 0 {
		// Disabled. Kept negative (not 0, which means "the default"), so a
		// Result.Config fed back to Measure reproduces the run.
		c.AbsSteps = -1
	}
	if c.Setup != nil {
		if c.Repeat > 1 {
			return c, fmt.Errorf("%w: Repeat %d with a Setup function (Setup runs once per sample, so Repeat must be 0 or 1)", ErrBadConfig, c.Repeat)
		}
		c.Repeat = 1
	}
	return c, nil
}

// absTicks is the absolute K-best tolerance in ticks for a counter whose
// step is step ticks: 0 when AbsSteps disables it.
func (c Config) absTicks(step float64) float64 {
	if c.AbsSteps < 0 {
		return 0
	}
	return c.AbsSteps * step
}
