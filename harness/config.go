package harness

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/perfevent"
)

// AnyCPU as Config.CPU lets Measure pick a CPU from the allowed set (the
// highest-numbered one: CPU 0 takes most interrupts).
const AnyCPU = -1

// Defaults behind the zero values of Config's fields; [DefaultConfig] is
// how they are read outside this package.
const (
	defaultK              = 3
	defaultEpsilon        = 0.01
	defaultMaxSamples     = 1000
	defaultMaxTime        = 10 * time.Second
	defaultWarmup         = 200 * time.Microsecond
	defaultMinRegionSteps = 4000
	defaultAbsSteps       = 2
	// maxRepeat bounds R, chosen or given.
	maxRepeat = 1 << 24
)

// Mode says what "per call" means in a figure (see the package doc's
// "Latency and throughput").
type Mode int

const (
	// Throughput times calls back to back: the figure is the cost of a call
	// among many, with consecutive calls free to overlap in the
	// out-of-order core, as they do in a program's loop. The zero value.
	Throughput Mode = iota
	// Latency separates calls by a serializing fence (LFENCE on amd64, ISB
	// on arm64) and subtracts a fenced empty call: the figure is the time
	// from a call's first instruction to its last result, with nothing to
	// overlap with, as llvm-exegesis's latency mode measures it.
	Latency
)

// String returns "throughput" or "latency".
func (m Mode) String() string {
	switch m {
	case Throughput:
		return "throughput"
	case Latency:
		return "latency"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// parseMode parses "throughput" or "latency" (the words [Mode.String]
// prints); an error wraps ErrBadConfig.
func parseMode(s string) (Mode, error) {
	for _, m := range []Mode{Throughput, Latency} {
		if strings.EqualFold(strings.TrimSpace(s), m.String()) {
			return m, nil
		}
	}
	return Throughput, fmt.Errorf("%w: mode %q (allowed: throughput, latency)", ErrBadConfig, s)
}

// MarshalText encodes m as its name, so JSON results say "latency".
func (m Mode) MarshalText() ([]byte, error) {
	if m != Throughput && m != Latency {
		return nil, fmt.Errorf("%w: mode %d (allowed: throughput, latency)", ErrBadConfig, int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText decodes "throughput" or "latency" (any case), as
// MarshalText writes them, so that flag.TextVar binds a flag to a Mode; an
// empty text is Throughput (results written before modes existed). An
// error wraps ErrBadConfig and names what is allowed.
func (m *Mode) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*m = Throughput
		return nil
	}
	v, err := parseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Config says how [Measure], [CPE], [Compare] and the Report helpers
// measure: policy only. What to time is a [Target] (or a [Sweep]); the
// context that cancels a measurement and carries its progress hook
// ([WithProgress]) is their first argument.
//
// # Zero values
//
// A Config made by [DefaultConfig], or returned in Result.Config, is
// explicit: every field means what it holds, so Epsilon 0 is exactly 0 and
// AbsSteps 0 disables the absolute floor; change the fields you want and
// pass it on. In a Config literal (Config{K: 5}), a zero field takes its
// default as documented below, except CPU, whose zero is CPU 0 (start from
// DefaultConfig to let the measurement pick).
type Config struct {
	// Mode is Throughput (calls back to back; the zero value) or Latency
	// (calls fenced apart).
	Mode Mode
	// K is the number of smallest samples that must agree; default 3 (1 to 1000).
	K int
	// Epsilon is the relative tolerance: converged when (1+Epsilon)·v1 ≥ vK;
	// default 0.01. Must be finite and in [0, 1).
	Epsilon float64
	// AbsSteps is an absolute tolerance in counter steps: also converged when
	// vK − v1 ≤ AbsSteps × step, so that a kernel near the counter's
	// resolution can converge; default 2; 0 (explicit) or negative disables it.
	AbsSteps float64
	// MaxSamples is M: give up after this many samples of a target; default
	// 1000. Must be ≥ K. A measurement whose streams have all converged may
	// go past it while it waits for a shared core (see NoSettle).
	MaxSamples int
	// MaxTime bounds the measuring loop's wall time; default 10 s; must be > 0.
	MaxTime time.Duration
	// MinTime is the least wall time the measuring loop samples for, even
	// when every stream has converged sooner; 0 means none.
	MinTime time.Duration
	// CPU is the CPU to pin the measuring thread to; AnyCPU (-1) picks one
	// from the allowed set.
	CPU int
	// KeepPriority leaves the thread's priority alone. By default the
	// measurement raises it (nice −20 on Linux, HIGH on Windows) where
	// permitted; a refusal is a warning.
	KeepPriority bool
	// Realtime asks for SCHED_FIFO (Linux, bounded by RLIMIT_RTTIME and a
	// guard) or the REALTIME class (Windows). Only when asked: a runaway
	// kernel at realtime priority can starve the machine until the limit
	// stops it.
	Realtime bool
	// RTTimeLimit bounds a Realtime measurement's CPU time without a
	// blocking call (RLIMIT_RTTIME); 0 means affinity.DefaultRTTimeLimit.
	// The guard stops the measurement with ErrRealtimeLimit at 75% of it;
	// if the guard cannot get a CPU in the last 25% (the other CPUs held by
	// realtime threads), the kernel kills the process at the limit.
	RTTimeLimit time.Duration
	// KeepGC leaves the garbage collector running during the loop.
	KeepGC bool
	// Warmup is how long the function is called before sampling (at least
	// once); default 0.2 ms, enough to page in code and data (the ruler
	// beside the target follows the core clock, so the warm-up need not
	// wait for it); negative (or explicit 0) means a single call.
	Warmup time.Duration
	// Repeat is R, the calls per sample; 0 chooses it from the samples so
	// that one counter quantum is small against a sample (see
	// MinRegionSteps); 1 times each call alone.
	Repeat int
	// MinRegionSteps is the least length of a sample in counter quanta when
	// Repeat is chosen automatically (also at least 10/Epsilon quanta);
	// default 4000; 1 to 1e9.
	MinRegionSteps float64
	// NoCycles skips the core-clock reference chain: Result.Cycles is 0
	// (unless Events counts "cycles" on a machine with a PMU).
	NoCycles bool
	// NoSettle skips the wait for a shared core: by default a measurement
	// whose streams have converged goes on, for at most 250 ms and past
	// MaxSamples, while its ruler's register ADD chain lags its IMUL chain
	// (Result.RulerWait; a busy SMT sibling delays the ADD chain and would
	// make every cycle figure read low). With NoSettle it stops at once and
	// a lag is only a warning (ErrRulerLag). A count budget (go test
	// -benchtime Nx) sets it, so that N samples are the most a target
	// takes.
	NoSettle bool
	// RefuseShared gives no cycle figure for a measurement whose core was
	// shared to its end (Result.Shared): its ticks and ns stay, marked.
	// By default such a figure is given, labelled (Result.Shared and an
	// ErrSharedCore warning).
	RefuseShared bool
	// Waits, when not nil, is shared by the measurements of one run (a
	// validation, a CLI run): after calibrate.DefaultRulerThresholds.GiveUp
	// of them in a row waited in vain for a shared core, the rest do not
	// wait. nil: each measurement waits on its own.
	Waits *Waits
	// NoDisturbances skips the thread's context switches and page faults
	// (Linux getrusage) read around each target sample to discard
	// disturbed ones (Result.Disturbed). Reading them costs two system
	// calls per sample, outside the timed region.
	NoDisturbances bool
	// Events names extra performance-counter events to count per call
	// (perf names: "cycles", "instructions", "branch-misses", ...; see
	// package perfevent), read around each sample outside the timed region
	// (Result.Counters). With "cycles" on a machine with a PMU, Cycles comes
	// from it (Result.CyclesSource "pmu") and the ruler cross-checks it.
	// Events the machine cannot count are a warning.
	Events []string
	// Calibration is the counter's calibration the figures are converted
	// with (its frequency turns ticks into nanoseconds; its core-clock
	// figures size the ruler); nil means calibrate.Get(), measured once
	// per process. Set it to convert several measurements with one
	// calibration, or to use one made with other calibrate.Options.
	Calibration *calibrate.Calibration

	// explicit marks a Config from DefaultConfig or WithDefaults: its zero
	// fields are meant, not defaults.
	explicit bool
}

// DefaultConfig returns the explicit Config with every default filled in
// and CPU set to AnyCPU: the starting point for a measurement and for
// flags bound to its fields (cyclebench does exactly that).
func DefaultConfig() Config {
	return Config{
		K: defaultK, Epsilon: defaultEpsilon, AbsSteps: defaultAbsSteps,
		MaxSamples: defaultMaxSamples, MaxTime: defaultMaxTime, CPU: AnyCPU,
		Warmup: defaultWarmup, MinRegionSteps: defaultMinRegionSteps, explicit: true,
	}
}

// WithDefaults returns c with the defaults of its zero fields filled in
// (for a Config literal; see "Zero values" in [Config]) and checked: the
// one place a Config's ranges are checked, for Measure, CPE, Compare,
// Report and the cyclebench command. An error wraps ErrBadConfig and names
// the first bad field, its value and what is allowed. The Config returned
// is explicit: passed back, it means the same.
func (c Config) WithDefaults() (Config, error) {
	if !c.explicit {
		if c.K == 0 {
			c.K = defaultK
		}
		if c.Epsilon == 0 {
			c.Epsilon = defaultEpsilon
		}
		if c.AbsSteps == 0 {
			c.AbsSteps = defaultAbsSteps
		}
		if c.MaxSamples == 0 {
			c.MaxSamples = max(defaultMaxSamples, c.K)
		}
		if c.MaxTime == 0 {
			c.MaxTime = defaultMaxTime
		}
		if c.Warmup == 0 {
			c.Warmup = defaultWarmup
		}
		if c.MinRegionSteps == 0 {
			c.MinRegionSteps = defaultMinRegionSteps
		}
	}
	c.explicit = true
	bad := func(field string, value any, allowed string) (Config, error) {
		return c, &ConfigError{Field: field, Value: value, Allowed: allowed}
	}
	switch {
	case c.Mode != Throughput && c.Mode != Latency:
		return bad("Mode", int(c.Mode), "Throughput or Latency")
	case c.K < 1 || c.K > 1000:
		return bad("K", c.K, "1 to 1000")
	case math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) || c.Epsilon < 0 || c.Epsilon >= 1:
		return bad("Epsilon", c.Epsilon, "0 ≤ ε < 1")
	case math.IsNaN(c.AbsSteps) || math.IsInf(c.AbsSteps, 0):
		return bad("AbsSteps", c.AbsSteps, "finite; 0 or negative disables")
	case c.MaxSamples < c.K:
		return bad("MaxSamples", c.MaxSamples, fmt.Sprintf("at least K = %d", c.K))
	case c.MaxTime <= 0:
		return bad("MaxTime", c.MaxTime, "> 0")
	case c.MinTime < 0 || c.MinTime > c.MaxTime:
		return bad("MinTime", c.MinTime, fmt.Sprintf("0 to MaxTime (%v)", c.MaxTime))
	case c.CPU < AnyCPU:
		return bad("CPU", c.CPU, fmt.Sprintf("%d for any, or a CPU number ≥ 0", AnyCPU))
	case c.RTTimeLimit < 0 || c.RTTimeLimit > affinity.MaxRTTimeLimit:
		return bad("RTTimeLimit", c.RTTimeLimit, fmt.Sprintf("0 to %v", affinity.MaxRTTimeLimit))
	case c.Repeat < 0 || c.Repeat > maxRepeat:
		return bad("Repeat", c.Repeat, fmt.Sprintf("0 for automatic, 1 to %d", maxRepeat))
	case math.IsNaN(c.MinRegionSteps) || c.MinRegionSteps < 1 || c.MinRegionSteps > 1e9:
		return bad("MinRegionSteps", c.MinRegionSteps, "1 to 1e9")
	case badEvents(c.Events) != nil:
		return bad("Events", c.Events, badEvents(c.Events).Error())
	}
	return c, nil
}

// badEvents checks event names without opening anything.
func badEvents(evs []string) error {
	if len(evs) == 0 {
		return nil
	}
	_, err := perfevent.Parse(strings.Join(evs, ","))
	return err
}

// ConfigError is the error [Config.WithDefaults] returns for a field out
// of range; it wraps ErrBadConfig. The cyclebench command maps Field to the
// flag that set it.
type ConfigError struct {
	Field   string // the Config field, as spelled in Go
	Value   any    // its value
	Allowed string // what is allowed
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: %s %v (allowed: %s)", ErrBadConfig, e.Field, e.Value, e.Allowed)
}

// Unwrap returns ErrBadConfig.
func (e *ConfigError) Unwrap() error { return ErrBadConfig }

// absTicks is the absolute K-best tolerance in ticks for a counter whose
// quantum is q ticks: 0 when AbsSteps disables it.
func (c Config) absTicks(q float64) float64 {
	return math.Max(c.AbsSteps, 0) * q
}

// priority is the affinity priority c asks for.
func (c Config) priority() affinity.Priority {
	switch {
	case c.Realtime:
		return affinity.PriorityRealtime
	case c.KeepPriority:
		return affinity.PriorityNormal
	}
	return affinity.PriorityHigh
}

// forResult is c as a Result records it: the calibration dropped (the
// Result has its figures).
func (c Config) forResult() Config {
	c.Calibration, c.Waits = nil, nil
	return c
}
