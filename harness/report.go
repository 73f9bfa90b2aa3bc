package harness

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// Report measures t with [Measure] from inside a benchmark function and
// reports the result as the benchmark's figures, so that go test -bench
// prints core cycles and benchstat compares them:
//
//	func BenchmarkSum(b *testing.B) {
//		harness.Report(b, harness.DefaultConfig(), harness.Target{Run: sum})
//	}
//
// prints a line such as
//
//	BenchmarkSum-2  31744  412.3 ns/op  1316 cycles/op  1008 ticks/op
//
// The units are those of cyclebench run -format bench: cycles/op
// (estimated core cycles, left out when there is no estimate, as with
// Config.NoCycles), ticks/op (counter ticks) and ns/op, which replaces the
// testing package's own ns/op (that would time Report, not t). When
// t.Elements > 0 the per-element units cycles/elem, ticks/elem and
// ns/elem follow. [ReportSweep] does the same for each size of a sweep and
// [ReportCompare] reports an interleaved comparison of two functions.
//
// # Latency mode in the name
//
// With cfg.Mode Latency, Report (and ReportSweep and ReportCompare)
// measures in a sub-benchmark of b named mode=latency, so that go test
// prints BenchmarkSum/mode=latency and the output says which mode produced
// the figures (cyclebench reads the key; benchstat -col /mode compares the
// modes). A benchmark whose name already has a mode=latency key gets no
// second one; a name with mode=throughput and cfg.Mode Latency (or the
// reverse) fails the benchmark. Throughput, the default, adds nothing.
//
// # The testing package's conventions
//
// The iteration column (31744 above) is the number of calls of t.Run the
// measurement timed (Result.Calls), not a count the testing package chose.
//
// With -benchmem (or b.ReportAllocs), B/op and allocs/op are those of one
// call of t.Run: after the measurement, t.Run is called again on the benchmark's
// goroutine, untimed (after Setup, when there is one, whose allocations
// are not counted), and runtime.MemStats counts what those calls allocated,
// as testing.AllocsPerRun does (GOMAXPROCS is 1 meanwhile). Up to 1000
// calls are counted (100 with a Setup, each call read alone), fewer for a
// slow t.Run (about a millisecond's worth, at least one), and the figures are
// their average.
//
// -benchtime sets the measurement's budget when it is given on the command
// line (the testing package's default of 1s does not):
//
//	-benchtime=D    Config.MaxTime = D: give up after D if the K best samples
//	                have not agreed by then (a converging measurement stops
//	                sooner)
//	-benchtime=Nx   Config.MaxSamples = max(N, K): take at most N samples;
//	                -benchtime=1x is a quick smoke run (K samples, usually
//	                not converged, with a warning)
//
// The command line wins over the cfg given. -count and -cpu repeat the
// whole measurement: each repetition gets a new b, so -count 6 gives six
// independent measurements, which is what benchstat needs.
//
// # Once per run of the benchmark function
//
// The testing package calls a benchmark function with b.N = 1 and then,
// until its timed part lasts -benchtime, with larger b.N. A K-best
// measurement already repeats t.Run until its best samples agree, so Report
// measures only in the first call of the function on a given b and, in the
// later calls, reports the same figures again without calling t.Run. Those
// calls take microseconds (the timer is stopped while Report measures), so
// the framework ends its ramp within a few calls, and a benchmark takes the
// time one Measure takes (milliseconds for a microsecond kernel, plus a
// one-time calibration per process). Report sets b.N to the calls timed in
// the last of those calls, which the testing package prints as the
// iteration count: when b.N is the testing package's cap of 1e9, when the
// timed part has reached -benchtime, or always with -benchtime=Nx. (In the
// earlier calls the testing package predicts its next b.N from b.N, so
// Report leaves it alone there.)
//
// Call Report once per benchmark function, with no loop around it: not in
// a for b.Loop() loop (which would also reset the reported metrics) and
// not in a loop to b.N. It may follow a b.Loop loop, whose figures it then
// replaces. The testing package's MB/s (b.SetBytes) is computed from its
// own timing and the iteration count, so it does not describe t: use
// t.Elements for per-element figures.
//
// # Configuration and failures
//
// cfg is a [Config] as for Measure; start from [DefaultConfig]. The
// environment variables [ApplyEnv] reads (CYCLEBENCH_MODE, CYCLEBENCH_K,
// CYCLEBENCH_EPS, CYCLEBENCH_MIN_TIME, CYCLEBENCH_MAX_TIME, CYCLEBENCH_GC;
// cyclebench run ./PKG -mode latency sets them) win over cfg, as
// -benchtime does; a bad value fails the benchmark naming it. A function
// that allocates is measured with the GC on (Config.KeepGC), as it runs:
// with the GC off every call would take fresh memory and a page fault a
// program does not pay; CYCLEBENCH_GC=off keeps it off. An empty
// t.Name becomes b.Name(); the measurement's context is b.Context(), so
// an interrupted benchmark stops measuring. t.Check, when set, runs after
// the measurement; its error fails the benchmark. Report stops the benchmark
// timer while it calibrates, measures and counts allocations, and
// restarts it afterwards.
//
// A nil t.Run, a bad Config, Report inside a b.Loop loop or called twice in
// one run, a failed calibration, and a panic in t fail the benchmark with
// b.Fatal and a one-line message naming the problem; Report never panics.
// Soft problems (not converged, not pinned, many discards, ...) are written
// with b.Log, which go test prints under the benchmark's result line
// ("--- BENCH:"); benchstat skips those lines. Warnings of the calibration
// itself (running under a hypervisor, say) are logged once per process.
// A nil b does nothing. In a program that is not a test binary and has not
// called testing.Init, the testing package cannot log (its B.Log and
// B.Fatal panic there): Report then drops its warnings and fails the
// benchmark without a message, and testing.Benchmark returns a zero
// BenchmarkResult.
func Report(b *testing.B, cfg Config, t Target) {
	if b == nil {
		return
	}
	b.Helper()
	report(wrapB(b), cfg, t)
}

// report is Report on the bench interface.
func report(b bench, cfg Config, t Target) {
	b.Helper()
	cfg, ok := envConfig(b, "harness.Report", cfg)
	if !ok {
		return
	}
	inMode(b, "harness.Report", cfg.Mode, func(b bench) {
		b.Helper()
		reportCall(b, "harness.Report", func(b bench, bt benchtime) (outcome, bool) {
			b.Helper()
			if t.Run == nil {
				b.Fatal("harness.Report: nil Run function: pass the function to measure in Target.Run")
				return outcome{}, false
			}
			return measureFunc(b, "harness.Report", bt, cfg, t)
		})
	})
}

// inMode runs body on b, or, in latency mode when b's name does not say
// it, on a sub-benchmark of b named mode=latency, so that go test's output
// says which mode produced the figures: cyclebench reads the name key, and
// benchstat -col /mode puts the two modes of a benchmark side by side. A
// name whose mode key names the other mode fails the benchmark. A call
// inside a b.Loop loop (b.N 0) goes straight to body, which fails it.
func inMode(b bench, who string, mode Mode, body func(bench)) {
	b.Helper()
	named := nameMode(b.Name())
	switch {
	case b.iters() == 0 || named == mode:
		body(b)
	case named >= 0:
		b.Fatal(fmt.Sprintf("%s: the benchmark's name says mode=%v and cfg.Mode is %v: name it for the mode it measures", who, named, mode))
	case mode == Latency:
		b.runSub("mode="+mode.String(), body)
	default:
		body(b)
	}
}

// nameMode is the mode a benchmark name's mode=VALUE key names (the first
// such key of its /-separated parts, VALUE throughput or latency, any
// case), or -1 when it names none.
func nameMode(name string) Mode {
	for _, part := range strings.Split(name, "/") {
		if k, v, ok := strings.Cut(part, "="); ok && strings.EqualFold(k, "mode") {
			if m, err := parseMode(v); err == nil {
				return m
			}
		}
	}
	return -1
}

// wrapB adapts b to the bench interface; see quietB.
func wrapB(b *testing.B) bench {
	if flag.Lookup("test.v") == nil {
		return quietB{testingB{b}}
	}
	return testingB{b}
}

// testingB is a *testing.B as the bench interface sees it.
type testingB struct{ *testing.B }

func (t testingB) iters() int { return t.B.N }

// setIters sets b.N, which the testing package prints as the iteration
// count, to the calls the measurement timed (see leaveN).
//
//lint:ignore SA3001 the helpers time f themselves; b.N carries their call count to the output
func (t testingB) setIters(n int) { t.B.N = n }
func (t testingB) runSub(name string, f func(bench)) bool {
	return t.B.Run(name, func(sb *testing.B) {
		sb.Helper()
		f(wrapB(sb))
	})
}

// quietB is a *testing.B in a program that is not a test binary and has
// not called testing.Init (a program running testing.Benchmark itself).
// There the testing package's flags are not registered, and B.Log and
// B.Fatal panic reading them (-test.fullpath, Go 1.26); so Log drops the
// message and Fatal fails the benchmark without one.
type quietB struct{ testingB }

func (q quietB) Log(...any)   {}
func (q quietB) Fatal(...any) { q.FailNow() }

// bench is the part of *testing.B that the Report helpers use, so that
// tests can watch what they report and how they fail. iters and setIters
// read and set b.N; runSub is b.Run.
type bench interface {
	Helper()
	Name() string
	Context() context.Context
	Fatal(args ...any)
	Log(args ...any)
	ReportMetric(n float64, unit string)
	StopTimer()
	StartTimer()
	Elapsed() time.Duration
	Cleanup(func())
	iters() int
	setIters(n int)
	runSub(name string, f func(bench)) bool
}

// Seams replaced by tests.
var (
	measure        = Measure
	compare        = Compare
	getCalibration = calibrate.Get
	benchtimeFlag  = readBenchtime
	getenv         = os.Getenv
)

// envConfig is cfg with the settings of the environment ([ApplyEnv]),
// which win over cfg's own; ok is false after b.Fatal.
func envConfig(b bench, who string, cfg Config) (Config, bool) {
	b.Helper()
	cfg, err := ApplyEnv(cfg, getenv)
	if err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return cfg, false
	}
	return cfg, true
}

// metric is one figure a helper passes to b.ReportMetric.
type metric struct {
	value float64
	unit  string
}

// outcome is what one measurement for a benchmark gives: the figures to
// report and the number of calls it timed (the iteration column).
type outcome struct {
	metrics []metric
	calls   int64
}

// reported is what the helpers know about the benchmark of one name: the b
// it last measured on, whether a call of the benchmark function on b is
// under way (set by a helper, cleared by the b.Cleanup it registers), and
// the outcome to report.
type reported struct {
	b     bench
	inRun bool
	out   *outcome
}

// reports is the state behind the helpers, made on first use. byName holds
// one entry per benchmark name (the latest b of that name), so a long run
// of benchmarks keeps one small record each; calLogged holds the
// calibration warnings already logged by this process.
var reports struct {
	mu        sync.Mutex
	byName    map[string]*reported
	calLogged map[string]bool
}

// reportCall is one call of a benchmark function reaching a helper (who
// names it in messages): it checks the call, measures with do in the first
// call on b, reports the outcome in every call and leaves b.N at the calls
// timed. After each b.Fatal it returns: the real Fatal never comes back, a
// test's stand-in does.
func reportCall(b bench, who string, do func(bench, benchtime) (outcome, bool)) {
	b.Helper()
	n := b.iters()
	if n == 0 {
		// The testing package sets b.N to 0 while a b.Loop loop runs.
		b.Fatal(who + ": called inside a for b.Loop() loop; call it once in the benchmark function, with no loop around it")
		return
	}
	bt, err := benchtimeFlag()
	if err != nil {
		b.Fatal(fmt.Sprintf("%s: %v", who, err))
		return
	}
	name := b.Name()
	reports.mu.Lock()
	if reports.byName == nil {
		reports.byName = make(map[string]*reported)
		reports.calLogged = make(map[string]bool)
	}
	st := reports.byName[name]
	if st != nil && st.b == b && st.inRun {
		reports.mu.Unlock()
		b.Fatal(fmt.Sprintf("%s: called more than once in one run of %s; call it once in the benchmark function, with no loop around it", who, name))
		return
	}
	if st == nil || st.b != b {
		st = &reported{b: b}
		reports.byName[name] = st
	}
	st.inRun = true
	out := st.out
	reports.mu.Unlock()
	// The testing package runs a benchmark's cleanups at the end of each
	// call of its function (each b.N).
	b.Cleanup(func() {
		reports.mu.Lock()
		st.inRun = false
		reports.mu.Unlock()
	})

	if out == nil {
		// Everything but reporting happens with the timer stopped, so that
		// the testing package's ramp of b.N runs through in a few calls.
		b.StopTimer()
		o, ok := do(b, bt)
		b.StartTimer()
		if !ok {
			return
		}
		out = &o
		reports.mu.Lock()
		st.out = out
		reports.mu.Unlock()
	}
	for _, m := range out.metrics {
		b.ReportMetric(m.value, m.unit)
	}
	b.setIters(leaveN(out.calls, n, bt, b.Elapsed()))
}

// fillConfig gives cfg a calibration; ok is false after b.Fatal.
func fillConfig(b bench, who string, cfg Config) (Config, bool) {
	b.Helper()
	if cfg.Calibration == nil {
		cal, err := getCalibration()
		if err != nil {
			b.Fatal(fmt.Sprintf("%s: %v", who, err))
			return cfg, false
		}
		cfg.Calibration = cal
	}
	return cfg, true
}

// measureFunc measures in for b (named b.Name() when it has no name)
// with -benchtime applied, counts its allocations, logs the warnings and
// returns the figures to report; ok is false after b.Fatal.
func measureFunc(b bench, who string, bt benchtime, cfg Config, in Target) (outcome, bool) {
	b.Helper()
	if in.Name == "" {
		in.Name = b.Name()
	}
	cfg = bt.apply(cfg)
	if _, err := cfg.WithDefaults(); err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return outcome{}, false
	}
	if err := in.validate(cfg, ""); err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return outcome{}, false
	}
	cfg, ok := fillConfig(b, who, cfg)
	if !ok {
		return outcome{}, false
	}

	cfg, err := withGCFor(cfg, in)
	var res Result
	if err == nil {
		res, err = measure(b.Context(), cfg, in)
	}
	var al allocs
	if err == nil {
		al, err = countAllocs(in.Run, in.Setup, allocRuns(res.Nanoseconds, in.Setup != nil))
	}
	if err != nil {
		b.Fatal(who + ": " + strings.TrimPrefix(err.Error(), "harness: "))
		return outcome{}, false
	}
	logWarnings(b, cfg.Calibration, res.Warnings)
	m := append(resultMetrics(res), metric{al.bytes, "B/op"}, metric{al.count, "allocs/op"})
	return outcome{metrics: m, calls: res.Calls}, true
}

// logWarnings logs each warning with b.Log, once per distinct text, those
// of the calibration cal once per process: the warning's own text (which
// names its package, "harness: did not converge: ..."), followed by what
// may cure it ([Remedy]) when something may. The helper's name is not in
// the line: "harness.ReportSweep: warning: harness: ..." said the same
// thing three times.
func logWarnings(b bench, cal *calibrate.Calibration, warnings []error) {
	b.Helper()
	calWarnings := make(map[string]bool)
	if cal != nil {
		for _, w := range cal.Warnings {
			calWarnings[w.Error()] = true
		}
	}
	logged := map[string]bool{}
	for _, w := range warnings {
		msg := w.Error()
		if logged[msg] {
			continue
		}
		logged[msg] = true
		if calWarnings[msg] {
			reports.mu.Lock()
			seen := reports.calLogged[msg]
			reports.calLogged[msg] = true
			reports.mu.Unlock()
			if seen {
				continue
			}
		}
		if r := Remedy(msg); r != "" {
			msg += "; remedy: " + r
		}
		b.Log(msg)
	}
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
