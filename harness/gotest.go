package harness

// The testing package's conventions, kept by Report, ReportSweep and
// ReportCompare: what -benchtime means to a measurement, the iteration
// count left in b.N, and B/op and allocs/op counted in an untimed pass.

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// benchtime is the -test.benchtime flag of a test binary.
type benchtime struct {
	d   time.Duration // the duration (the testing package's 1s when not given)
	n   int           // N of -benchtime=Nx; 0 for a duration
	set bool          // given on the command line
}

// readBenchtime reads the -test.benchtime flag of a test binary.
func readBenchtime() (benchtime, error) { return benchtimeOf(flag.CommandLine) }

// benchtimeOf reads the flag test.benchtime of fs, as the testing package
// registers it: the zero benchtime with d = 1s when fs has no such flag (a
// program that is not a test binary).
func benchtimeOf(fs *flag.FlagSet) (benchtime, error) {
	bt := benchtime{d: time.Second}
	f := fs.Lookup("test.benchtime")
	if f == nil {
		return bt, nil
	}
	fs.Visit(func(g *flag.Flag) {
		if g.Name == f.Name {
			bt.set = true
		}
	})
	s := f.Value.String()
	if c, ok := strings.CutSuffix(s, "x"); ok {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 {
			return bt, fmt.Errorf("-test.benchtime %q: cannot read the count", s)
		}
		bt.n = n
		return bt, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return bt, fmt.Errorf("-test.benchtime %q: cannot read the duration", s)
	}
	bt.d = d
	return bt, nil
}

// apply returns cfg with -benchtime, when given, as its budget: a duration
// D is MaxTime, a count N is MaxSamples (at least K, the fewest samples
// that can agree) with NoSettle, so that no wait takes more. A benchtime
// not given leaves cfg as it is.
func (bt benchtime) apply(cfg Config) Config {
	switch {
	case !bt.set:
	case bt.n > 0:
		k := cfg.K
		if k == 0 && !cfg.explicit {
			k = defaultK
		}
		cfg.MaxSamples, cfg.NoSettle = max(bt.n, k), true
	default:
		cfg.MaxTime = bt.d
	}
	return cfg
}

// applyPairs returns opt with -benchtime=Nx, when given, as the number of
// pairs of a comparison, within minPairs to maxPairs, and no more blocks
// than asked (MaxBlocks = Blocks), so that N pairs are the most it takes.
func (bt benchtime) applyPairs(opt CompareOptions) CompareOptions {
	if bt.set && bt.n > 0 {
		opt.Pairs = min(max(bt.n, minPairs), maxPairs)
		opt.MaxBlocks = opt.Blocks
		if opt.Blocks == 0 {
			opt.MaxBlocks = defaultBlocks
		}
	}
	return opt
}

// maxFrameworkN is the testing package's cap on b.N (maxBenchPredictIters
// in testing/benchmark.go): its ramp of b.N ends at the call with this N.
const maxFrameworkN = 1_000_000_000

// leaveN returns the b.N a helper leaves at the end of a call of the
// benchmark function that began with b.N = entry and whose timed part has
// lasted elapsed so far. The testing package prints the b.N of the
// function's last call as the iteration count, and the helpers want calls
// (the calls the measurement timed) there; but before each call but the
// last it predicts the next b.N from b.N (predictN: about d·b.N/elapsed,
// at least one more than before), and a b.N that stopped growing would
// make its ramp crawl up by one. So calls goes into b.N only in a call
// that must be the last.
func leaveN(calls int64, entry int, bt benchtime, elapsed time.Duration) int {
	c := int(min(calls, math.MaxInt))
	switch {
	case calls < 1:
		// Nothing was timed (a stand-in measurement).
		return entry
	case bt.n > 0:
		// -benchtime=Nx: the testing package calls the function once or
		// twice and predicts nothing from b.N.
		return c
	case entry >= maxFrameworkN:
		// The ramp stops at its cap.
		return c
	case elapsed >= bt.d:
		// The ramp stops once the timed part has lasted -benchtime (after
		// a b.Loop loop, say).
		return c
	}
	return entry
}

// allocs is what one call of a function allocates, on average.
type allocs struct {
	bytes, count float64
}

// allocBudget is about how long the allocation pass may call f for.
const allocBudget = time.Millisecond

// allocRuns returns the number of calls the allocation pass averages over,
// for a function taking ns nanoseconds a call: about allocBudget's worth,
// at least 1 (a slow function is counted once), at most 1000 (enough to
// make a stray allocation of another goroutine 0.001 per call), or 100 when
// each call is counted alone (after a Setup: two stops of the world a
// call).
func allocRuns(ns float64, alone bool) int {
	most := 1000
	if alone {
		most = 100
	}
	if !(ns > 0) {
		return most
	}
	return int(min(max(float64(allocBudget.Nanoseconds())/ns, 1), float64(most)))
}

// countAllocs calls f runs times on the calling goroutine and returns what
// one call allocated on average, from runtime.MemStats (TotalAlloc and
// Mallocs) read around the calls, with GOMAXPROCS set to 1 meanwhile as
// testing.AllocsPerRun does so that other goroutines allocate less. With a
// setup, each call follows a call of setup and is counted alone, so that
// setup's allocations are not counted. A panic in f or setup is returned
// as an error wrapping ErrPanic.
func countAllocs(f, setup func(), runs int) (a allocs, err error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer func() {
		if r := recover(); r != nil {
			a, err = allocs{}, fmt.Errorf("%w: %v (while counting its allocations)", ErrPanic, r)
		}
	}()
	before, after := new(runtime.MemStats), new(runtime.MemStats)
	var bytes, count uint64
	if setup == nil {
		runtime.ReadMemStats(before)
		for i := 0; i < runs; i++ {
			f()
		}
		runtime.ReadMemStats(after)
		bytes, count = after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs
	} else {
		for i := 0; i < runs; i++ {
			setup()
			runtime.ReadMemStats(before)
			f()
			runtime.ReadMemStats(after)
			bytes += after.TotalAlloc - before.TotalAlloc
			count += after.Mallocs - before.Mallocs
		}
	}
	return allocs{float64(bytes) / float64(runs), float64(count) / float64(runs)}, nil
}
