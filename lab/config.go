package lab

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/pinned"
)

// Defaults and limits of [Config].
const (
	// DefaultReps is the number of repetitions of each kernel: the
	// fewest whose spread says something.
	DefaultReps = 5
	// MaxReps bounds Config.Reps.
	MaxReps = 1000
	// DefaultTolerance is the relative tolerance of the verdict.
	DefaultTolerance = 0.01
)

// Config says how [Clocks] and [Utilisation] run. Its zero value is valid
// and gives the documented defaults, except CPU, which as in
// harness.Config means CPU 0: start from [DefaultConfig] to let the lab
// pick.
type Config struct {
	// Reps is the number of timed repetitions of each kernel; 0 means
	// DefaultReps (5), at most MaxReps. Fewer than 5 is allowed with a
	// warning. Utilisation runs each kernel once and ignores it.
	Reps int
	// Methods selects the clocks Clocks reads; nil means every clock
	// (cputime.Clocks), each at most once. Whatever the order given, they
	// are nested in the fixed order of [Nesting] and reported in the
	// order of [Methods].
	Methods []cputime.Clock
	// Tolerance is the relative tolerance of the verdict: a clock resolves
	// the interval when its resolution is at most Tolerance × the
	// reference's median, and agrees with the reference when its median is
	// within Tolerance of the reference's. 0 means 0.01; must be in (0, 1).
	Tolerance float64
	// CPU is the CPU to pin the measuring thread to; harness.AnyCPU (-1)
	// picks one.
	CPU int
	// KeepPriority leaves the thread's priority alone; by default it is
	// raised (nice −20 on Linux, HIGH on Windows) where permitted.
	KeepPriority bool
	// NoWarmup skips Clocks' untimed warm-up run of each kernel (Setup,
	// Run) before its repetitions. Utilisation never warms up.
	NoWarmup bool
	// KeepGC leaves the garbage collector running during the lab.
	KeepGC bool
	// NoKBest skips Clocks' K-best measurement of each kernel
	// (KernelResult.KBest stays nil): for a kernel slow or noisy enough
	// that harness.Measure's bound, harness.DefaultConfig().MaxTime, matters.
	NoKBest bool
	// Calibration supplies the counter frequency that turns TSC ticks into
	// time; nil means calibrate.Get() (when the tsc method is read, and
	// for the K-best measurement).
	Calibration *calibrate.Calibration

	// ctx and progress are the context of the call running the lab and
	// its progress hook (harness.WithProgress), set by validate.
	ctx      context.Context
	progress func(harness.Progress)
}

// DefaultConfig returns the zero Config with CPU set to harness.AnyCPU.
func DefaultConfig() Config { return Config{CPU: harness.AnyCPU} }

// validate fills in the defaults of c and checks it and the kernels.
func (c Config) validate(ctx context.Context, kernels []harness.Target) (Config, error) {
	if c.Reps == 0 {
		c.Reps = DefaultReps
	}
	if c.Tolerance == 0 {
		c.Tolerance = DefaultTolerance
	}
	if ctx == nil {
		return c, fmt.Errorf("%w: nil context (allowed: any context, such as context.Background())", ErrBadConfig)
	}
	c.ctx, c.progress = ctx, harness.ProgressOf(ctx)
	switch {
	case c.Reps < 1 || c.Reps > MaxReps:
		return c, fmt.Errorf("%w: Reps %d (allowed: 1 to %d, or 0 for %d)", ErrBadConfig, c.Reps, MaxReps, DefaultReps)
	case math.IsNaN(c.Tolerance) || c.Tolerance <= 0 || c.Tolerance >= 1:
		return c, fmt.Errorf("%w: Tolerance %v (allowed: 0 < tolerance < 1, or 0 for %v)", ErrBadConfig, c.Tolerance, DefaultTolerance)
	case c.CPU < harness.AnyCPU:
		return c, fmt.Errorf("%w: CPU %d (allowed: %d for any, or a CPU number ≥ 0)", ErrBadConfig, c.CPU, harness.AnyCPU)
	case len(kernels) == 0:
		return c, fmt.Errorf("%w: no kernel given to the lab", ErrBadConfig)
	}
	if c.Methods == nil {
		c.Methods = Methods()
	}
	if len(c.Methods) == 0 {
		return c, fmt.Errorf("%w: no clock selected (allowed: %s)", ErrBadConfig, clockNames(Methods()))
	}
	seen := map[cputime.Clock]bool{}
	for _, m := range c.Methods {
		if !slices.Contains(Methods(), m) {
			return c, fmt.Errorf("%w: unknown clock %s (allowed: %s)", ErrBadConfig, m, clockNames(Methods()))
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
			return c, fmt.Errorf("%w: kernel %q has no Run (allowed: a function to time)", ErrBadConfig, k.Name)
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

// env is the pinned thread a lab runs on.
type env struct {
	cfg      Config
	cpu      int
	priority string
	warnings []error
}

// onPinnedThread runs body on a thread pinned as cfg says (the one
// pinning path, internal/pinned), with the GC off unless cfg.KeepGC;
// everything is restored afterwards, also when body panics or calls
// runtime.Goexit.
func onPinnedThread(cfg Config, body func(e *env) error) (*env, error) {
	e := &env{cfg: cfg, cpu: -1, priority: affinity.PriorityNormal.String()}
	prio := affinity.PriorityHigh
	if cfg.KeepPriority {
		prio = affinity.PriorityNormal
	}
	_, err := pinned.Run(pinned.Options{CPU: cfg.CPU, Priority: prio, KeepGC: cfg.KeepGC}, func(th *pinned.Thread) error {
		e.cpu, e.priority = th.CPU, th.Priority.String()
		e.warnings = append(e.warnings, th.Warnings...)
		return body(e)
	})
	return e, panicOrGoexit(err)
}
