package harness

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
)

// Report measures f with [Measure] from inside a benchmark function and
// reports the result as the benchmark's figures, so that go test -bench
// prints core cycles and benchstat compares them:
//
//	func BenchmarkSum(b *testing.B) {
//		harness.Report(b, harness.DefaultConfig(), sum)
//	}
//
// prints a line such as
//
//	BenchmarkSum-2  1000000000  412.3 ns/op  1316 cycles/op  1008 ticks/op
//
// The units are those of cyclebench run -format bench: cycles/op
// (estimated core cycles, left out when there is no estimate, as with
// Config.NoCycles), ticks/op (counter ticks) and ns/op, which replaces the
// testing package's own ns/op (that would time Report, not f). When
// cfg.Elements > 0 the per-element units cycles/elem, ticks/elem and
// ns/elem follow.
//
// # Once per run of the benchmark function
//
// The testing package calls a benchmark function with b.N = 1 and then
// with larger b.N until the timed part lasts -benchtime (default 1 s). A
// K-best measurement already repeats f until its best samples agree, so
// Report measures only in the first call of the function on a given b and,
// in the later calls, reports the same figures again without calling f.
// Those calls take microseconds, so the framework's N climbs to its 1e9
// cap in a few steps and a benchmark finishes in the time one Measure
// takes (milliseconds for a microsecond kernel, plus a one-time
// calibration of about 0.1 s per process), whatever -benchtime asks. The
// iteration count on the output line is therefore the framework's, not a
// count of calls of f (with -benchtime=Nx it is N). Each -count repetition
// and each -cpu value gets a new b, so -count 6 gives six independent
// measurements: what benchstat needs.
//
// Call Report once per benchmark function, with no loop around it: not in
// a for b.Loop() loop (which would also reset the reported metrics) and
// not in a loop to b.N. It may follow a b.Loop loop, whose ns/op it then
// replaces. The testing package's MB/s (b.SetBytes) and -benchmem figures
// are computed from the framework's own iterations and do not describe f;
// use cfg.Elements for per-element figures.
//
// # Configuration and failures
//
// cfg is a [Config] as for Measure; start from [DefaultConfig]. An empty
// cfg.Name becomes b.Name(), and a nil cfg.Context becomes b.Context(), so
// an interrupted benchmark stops measuring. Report stops the benchmark
// timer while it measures and restarts it afterwards.
//
// A nil f, a bad Config, Report inside a b.Loop loop or called twice in
// one run, a failed calibration, and a panic in f fail the benchmark with
// b.Fatal and a message naming the problem; Report never panics. Soft
// problems (not converged, not pinned, many discards, ...) are written
// with b.Log, which go test prints under the benchmark's result line
// ("--- BENCH:"); benchstat skips those lines. Warnings of the calibration
// itself (running under a hypervisor, say) are logged once per process.
// A nil b does nothing. In a program that is not a test binary and has not
// called testing.Init, the testing package cannot log (its B.Log and
// B.Fatal panic there): Report then drops its warnings and fails the
// benchmark without a message, and testing.Benchmark returns a zero
// BenchmarkResult.
func Report(b *testing.B, cfg Config, f func()) {
	if b == nil {
		return
	}
	b.Helper()
	var rb bench = b
	if flag.Lookup("test.v") == nil {
		rb = quietB{b}
	}
	report(rb, b.N, cfg, f)
}

// quietB is a *testing.B in a program that is not a test binary and has
// not called testing.Init (a program running testing.Benchmark itself).
// There the testing package's flags are not registered, and B.Log and
// B.Fatal panic reading them (-test.fullpath, Go 1.26); so Log drops the
// message and Fatal fails the benchmark without one.
type quietB struct{ *testing.B }

func (q quietB) Log(...any)   {}
func (q quietB) Fatal(...any) { q.FailNow() }

// bench is the part of *testing.B that Report uses, so that tests can
// watch what it reports and how it fails.
type bench interface {
	Helper()
	Name() string
	Context() context.Context
	Fatal(args ...any)
	Log(args ...any)
	ReportMetric(n float64, unit string)
	StopTimer()
	StartTimer()
}

// Seams replaced by tests.
var (
	measure        = Measure
	getCalibration = calibrate.Get
)

// metric is one figure Report passes to b.ReportMetric.
type metric struct {
	value float64
	unit  string
}

// reported is what Report knows about the benchmark of one name: the b it
// last measured on, the b.N of the last call, and the figures to report.
type reported struct {
	b       bench
	n       int
	metrics []metric
}

// reports is the state behind Report, made on first use. byName holds one
// entry per benchmark name (the latest b of that name), so a long run of
// benchmarks keeps one small record each; calLogged holds the calibration
// warnings already logged by this process.
var reports struct {
	mu        sync.Mutex
	byName    map[string]*reported
	calLogged map[string]bool
}

// report is Report with b.N passed apart, since a field cannot be part of
// the bench interface. After each b.Fatal it returns: the real Fatal never
// comes back, a test's stand-in does.
func report(b bench, n int, cfg Config, f func()) {
	b.Helper()
	if f == nil {
		b.Fatal("harness.Report: nil function: pass the function to measure")
		return
	}
	if n == 0 {
		// The testing package sets b.N to 0 while a b.Loop loop runs.
		b.Fatal("harness.Report: called inside a for b.Loop() loop; call it once in the benchmark function, with no loop around it")
		return
	}
	if _, err := cfg.WithDefaults(); err != nil {
		b.Fatal("harness.Report: " + strings.TrimPrefix(err.Error(), "harness: "))
		return
	}
	name := b.Name()
	reports.mu.Lock()
	if reports.byName == nil {
		reports.byName = make(map[string]*reported)
		reports.calLogged = make(map[string]bool)
	}
	st := reports.byName[name]
	if st != nil && st.b == b && st.n == n {
		// The testing package raises b.N between calls of a benchmark
		// function on one b: an equal N means one call reached Report twice.
		reports.mu.Unlock()
		b.Fatal(fmt.Sprintf("harness.Report: called more than once in one run of %s (b.N = %d); call it once in the benchmark function, with no loop around it", name, n))
		return
	}
	if st == nil || st.b != b {
		st = &reported{b: b}
		reports.byName[name] = st
	}
	st.n = n
	metrics := st.metrics
	reports.mu.Unlock()

	if metrics == nil {
		var ok bool
		if metrics, ok = measureOnce(b, cfg, f); !ok {
			return
		}
		reports.mu.Lock()
		st.metrics = metrics
		reports.mu.Unlock()
	}
	for _, m := range metrics {
		b.ReportMetric(m.value, m.unit)
	}
}

// measureOnce measures f for b, logs the warnings and returns the figures
// to report; ok is false after b.Fatal.
func measureOnce(b bench, cfg Config, f func()) (metrics []metric, ok bool) {
	b.Helper()
	if cfg.Name == "" {
		cfg.Name = b.Name()
	}
	if cfg.Context == nil {
		cfg.Context = b.Context()
	}
	if cfg.Calibration == nil {
		cal, err := getCalibration()
		if err != nil {
			b.Fatal(fmt.Sprintf("harness.Report: %v", err))
			return nil, false
		}
		cfg.Calibration = cal
	}
	calWarnings := make(map[string]bool, len(cfg.Calibration.Warnings))
	for _, w := range cfg.Calibration.Warnings {
		calWarnings[w.Error()] = true
	}

	b.StopTimer()
	res, err := measure(cfg, f)
	b.StartTimer()
	if err != nil {
		b.Fatal("harness.Report: " + strings.TrimPrefix(err.Error(), "harness: "))
		return nil, false
	}

	for _, w := range res.Warnings {
		msg := w.Error()
		if calWarnings[msg] {
			reports.mu.Lock()
			seen := reports.calLogged[msg]
			reports.calLogged[msg] = true
			reports.mu.Unlock()
			if seen {
				continue
			}
		}
		b.Log("harness.Report: warning: " + msg)
	}
	return resultMetrics(res), true
}

// resultMetrics returns the figures of res in the units of cyclebench run
// -format bench: per call always, per element when res.Elements > 0;
// cycles only when there is a core-clock estimate.
func resultMetrics(res Result) []metric {
	cycles := res.CyclesPerTick > 0
	m := []metric{{res.Ticks, "ticks/op"}, {res.Nanoseconds, "ns/op"}}
	if cycles {
		m = append(m, metric{res.Cycles, "cycles/op"})
	}
	if res.Elements > 0 {
		m = append(m, metric{res.TicksPerElement, "ticks/elem"}, metric{res.NsPerElement, "ns/elem"})
		if cycles {
			m = append(m, metric{res.CyclesPerElement, "cycles/elem"})
		}
	}
	return m
}
