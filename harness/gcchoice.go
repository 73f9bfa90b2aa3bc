package harness

// The garbage collector while the Report helpers sample. Measure turns
// it off by default, so that no collection lands in a sample. For a
// function that allocates, that is not how it runs: with the GC off every
// allocation takes fresh memory, and the first touch of each new page is
// a page fault inside the sample, which a running program, reusing the
// memory the GC freed, does not pay. The helpers therefore leave the GC
// on for a function that allocates; the K best samples are still those
// no collection landed in. examples/plain (BenchmarkFill*,
// BenchmarkFormat*) is the experiment behind this; docs/go-test.md has
// its figures.

import (
	"strings"
	"time"
)

// allocProbeRuns bounds the calls the allocation probe counts: enough
// that a function allocating once in a few calls (a slice that grows) is
// seen, few enough to take microseconds for a short function.
const allocProbeRuns = 16

// allocProbeBudget is about how long the probe may call a slow function
// for after its first call: a function that takes longer than this a
// call is counted once.
const allocProbeBudget = time.Millisecond

// allocates reports whether a call of f (after setup, when not nil)
// allocates: one call not counted (a first call may set up what later
// calls share), then up to allocProbeRuns calls counted. A panic is
// returned as an error wrapping ErrPanic.
func allocates(f, setup func()) (bool, error) {
	start := time.Now()
	if _, err := countAllocs(f, setup, 1); err != nil {
		return false, err
	}
	runs := allocProbeRuns
	if d := time.Since(start); d > 0 {
		runs = int(min(max(int64(allocProbeBudget/d), 1), allocProbeRuns))
	}
	a, err := countAllocs(f, setup, runs)
	return a.count > 0, err
}

// withGCFor returns cfg with the GC left on (KeepGC) when one of the
// targets allocates, unless the environment chose (EnvGC) or cfg keeps it
// on already.
func withGCFor(cfg Config, targets ...Target) (Config, error) {
	if cfg.KeepGC || strings.TrimSpace(getenv(EnvGC)) != "" {
		return cfg, nil
	}
	for _, t := range targets {
		yes, err := allocates(t.Run, t.Setup)
		if err != nil {
			return cfg, err
		}
		if yes {
			cfg.KeepGC = true
			break
		}
	}
	return cfg, nil
}
