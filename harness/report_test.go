package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// fakeB records what the Report helpers do to a benchmark.
type fakeB struct {
	name     string
	ctx      context.Context
	n        int
	metrics  map[string]float64
	logs     []string
	fatals   []string
	timerOn  bool
	cleanups []func()
	subs     []*fakeB
	elapsed  time.Duration // what Elapsed returns
}

func newFakeB(name string) *fakeB {
	return &fakeB{name: name, ctx: context.Background(), n: 1, metrics: map[string]float64{}, timerOn: true}
}

func (b *fakeB) Helper()                  {}
func (b *fakeB) Name() string             { return b.name }
func (b *fakeB) Context() context.Context { return b.ctx }
func (b *fakeB) Fatal(args ...any)        { b.fatals = append(b.fatals, fmt.Sprint(args...)) }
func (b *fakeB) Log(args ...any)          { b.logs = append(b.logs, fmt.Sprint(args...)) }
func (b *fakeB) StopTimer()               { b.timerOn = false }
func (b *fakeB) StartTimer()              { b.timerOn = true }
func (b *fakeB) Cleanup(f func())         { b.cleanups = append(b.cleanups, f) }
func (b *fakeB) Elapsed() time.Duration   { return b.elapsed }
func (b *fakeB) iters() int               { return b.n }
func (b *fakeB) setIters(n int)           { b.n = n }
func (b *fakeB) ReportMetric(n float64, unit string) {
	b.metrics[unit] = n
}

// call is one call of a benchmark function with b.N = n, as the testing
// package makes it: metrics cleared first, cleanups run last.
func (b *fakeB) call(n int, body func(bench)) {
	clear(b.metrics)
	b.n = n
	body(b)
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
	b.cleanups = nil
}

// run is a benchmark function calling Report once, called with b.N = n.
func (b *fakeB) run(n int, cfg Config, f func()) {
	b.runTarget(n, cfg, Target{Run: f})
}

// runTarget is run with a whole Target.
func (b *fakeB) runTarget(n int, cfg Config, t Target) {
	b.call(n, func(b bench) { report(b, cfg, t) })
}

// measureCall is one call of the faked Measure: its Config and Target
// (their fields promoted) and its context.
type measureCall struct {
	Config
	Target
	Ctx context.Context
}

// runSub is b.Run: the sub-benchmark's function is called with b.N = 1 and,
// unless it failed or ran sub-benchmarks of its own, once more with b.N =
// 100.
func (b *fakeB) runSub(name string, f func(bench)) bool {
	sub := newFakeB(b.name + "/" + name)
	sub.ctx = b.ctx
	b.subs = append(b.subs, sub)
	sub.call(1, f)
	if len(sub.fatals) == 0 && len(sub.subs) == 0 {
		sub.call(100, f)
	}
	return len(sub.fatals) == 0
}

// fakes replaces the helpers' measuring, comparing and calibration and
// -benchtime for the test, restores them and the helpers' state in
// t.Cleanup, and returns the calls of Measure. res is what
// every measurement returns; cal is the calibration; -benchtime reads as
// not given.
func fakes(t *testing.T, res Result, measureErr error, cal *calibrate.Calibration, calErr error) *[]measureCall {
	t.Helper()
	oldMeasure, oldCompare, oldCal, oldBT, oldEnv := measure, compare, getCalibration, benchtimeFlag, getenv
	getenv = func(string) string { return "" } // no settings from the environment
	oldByName, oldLogged := reports.byName, reports.calLogged
	reports.byName, reports.calLogged = nil, nil
	calls := new([]measureCall)
	measure = func(ctx context.Context, cfg Config, tg Target) (Result, error) {
		*calls = append(*calls, measureCall{cfg, tg, ctx})
		return res, measureErr
	}
	compare = func(context.Context, Config, Target, Target, CompareOptions) (Comparison, error) {
		t.Error("Compare called in a test that fakes only Measure")
		return Comparison{}, errors.New("unexpected Compare")
	}
	getCalibration = func() (*calibrate.Calibration, error) { return cal, calErr }
	benchtimeFlag = func() (benchtime, error) { return benchtime{d: time.Second}, nil }
	t.Cleanup(func() {
		measure, compare, getCalibration, benchtimeFlag, getenv = oldMeasure, oldCompare, oldCal, oldBT, oldEnv
		reports.byName, reports.calLogged = oldByName, oldLogged
	})
	return calls
}

// recorded is a plausible result: 1000 ticks, 400 ns and 1300 cycles per
// call of a function over 100 elements, recordedCalls calls timed.
func recorded() Result {
	return Result{
		Ticks: 1000, Nanoseconds: 400, Cycles: 1300, CyclesPerTick: 1.3, Converged: true,
		Elements: 100, TicksPerElement: 10, NsPerElement: 4, CyclesPerElement: 13,
		Calls: recordedCalls,
	}
}

const recordedCalls = 31744

var errWarn = fmt.Errorf("%w: spread of the 3 best is 2%%", ErrNotConverged)

func TestReportBadInput(t *testing.T) {
	cal := &calibrate.Calibration{}
	tests := []struct {
		name       string
		n          int
		cfg        Config
		f          func()
		measureErr error
		calErr     error
		want       string
	}{
		{"nil func", 1, DefaultConfig(), nil, nil, nil, "harness.Report: nil Run function"},
		{"bad K", 1, Config{K: -1, CPU: AnyCPU}, func() {}, nil, nil, "harness.Report: bad config: K -1 (allowed: 1 to 1000)"},
		{"bad epsilon", 1, Config{Epsilon: math.NaN(), CPU: AnyCPU}, func() {}, nil, nil, "Epsilon NaN"},
		{"bad CPU", 1, Config{CPU: -7}, func() {}, nil, nil, "CPU -7"},
		{"inside b.Loop", 0, DefaultConfig(), func() {}, nil, nil, "inside a for b.Loop() loop"},
		{"panic", 1, DefaultConfig(), func() {}, fmt.Errorf("%w: boom", ErrPanic), nil, "harness.Report: measured function panicked: boom"},
		{"calibration", 1, DefaultConfig(), func() {}, nil, errors.New("calibrate: no counter"), "harness.Report: calibrate: no counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakes(t, recorded(), tt.measureErr, cal, tt.calErr)
			b := newFakeB("BenchmarkBad")
			b.run(tt.n, tt.cfg, tt.f)
			if len(b.fatals) != 1 || !strings.Contains(b.fatals[0], tt.want) {
				t.Fatalf("Fatal calls = %q, want one containing %q", b.fatals, tt.want)
			}
			if len(b.metrics) != 0 {
				t.Errorf("metrics reported after Fatal: %v", b.metrics)
			}
			if !b.timerOn {
				t.Error("the timer was left stopped")
			}
		})
	}
}

func TestReportNilB(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	Report(nil, DefaultConfig(), Target{Run: func() {}}) // must not panic
	if len(*calls) != 0 {
		t.Errorf("Report(nil, ...) measured %d times, want 0", len(*calls))
	}
}

func TestReportOncePerB(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	cfg := DefaultConfig()
	b := newFakeB("BenchmarkOnce")
	// The testing package's sequence for one b: N = 1, then larger N.
	for _, n := range []int{1, 100, 10_000, 1_000_000, 100_000_000, 1_000_000_000} {
		b.run(n, cfg, func() {})
		if len(b.fatals) > 0 {
			t.Fatalf("N = %d: Fatal %q", n, b.fatals)
		}
		if got := b.metrics["cycles/op"]; got != 1300 {
			t.Fatalf("N = %d: cycles/op = %v, want 1300 (reported again in every call)", n, got)
		}
	}
	if len(*calls) != 1 {
		t.Fatalf("measured %d times for one b, want 1", len(*calls))
	}

	// -count and -cpu give a new b of the same name: a new measurement.
	b2 := newFakeB("BenchmarkOnce")
	b2.run(1, cfg, func() {})
	b2.run(100, cfg, func() {})
	if len(*calls) != 2 {
		t.Fatalf("measured %d times for two b's, want 2", len(*calls))
	}

	// Two calls in one run of the function are a loop around Report.
	b2.call(1000, func(b bench) {
		report(b, cfg, Target{Run: func() {}})
		report(b, cfg, Target{Run: func() {}})
	})
	if len(b2.fatals) != 1 || !strings.Contains(b2.fatals[0], "called more than once in one run of BenchmarkOnce;") {
		t.Fatalf("Fatal calls = %q, want one about calling Report twice", b2.fatals)
	}
	// The next run is fine again.
	b2.fatals = nil
	b2.run(10_000, cfg, func() {})
	if len(b2.fatals) != 0 {
		t.Fatalf("a run after a failed one: Fatal %q", b2.fatals)
	}
}

func TestReportUnits(t *testing.T) {
	tests := []struct {
		name     string
		elements float64
		perTick  float64
		want     map[string]float64
	}{
		{"per call", 0, 1.3, map[string]float64{"ticks/op": 1000, "ns/op": 400, "cycles/op": 1300, "B/op": 0, "allocs/op": 0}},
		{"per element", 100, 1.3, map[string]float64{"ticks/op": 1000, "ns/op": 400, "cycles/op": 1300,
			"ticks/elem": 10, "ns/elem": 4, "cycles/elem": 13, "B/op": 0, "allocs/op": 0}},
		{"no cycle estimate", 0, 0, map[string]float64{"ticks/op": 1000, "ns/op": 400, "B/op": 0, "allocs/op": 0}},
		{"per element, no cycle estimate", 100, 0, map[string]float64{"ticks/op": 1000, "ns/op": 400,
			"ticks/elem": 10, "ns/elem": 4, "B/op": 0, "allocs/op": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := recorded()
			res.Elements, res.CyclesPerTick = tt.elements, tt.perTick
			if tt.elements == 0 {
				res.TicksPerElement, res.NsPerElement, res.CyclesPerElement = 0, 0, 0
			}
			if tt.perTick == 0 {
				res.Cycles, res.CyclesPerElement = 0, 0
			}
			fakes(t, res, nil, &calibrate.Calibration{}, nil)
			b := newFakeB("BenchmarkUnits")
			b.run(1, DefaultConfig(), func() {})
			// The function allocates nothing; other goroutines may
			// allocate a little during the allocation pass.
			if by, n := b.metrics["B/op"], b.metrics["allocs/op"]; by > 1 || n > 0.01 {
				t.Errorf("%v B/op, %v allocs/op for a function that allocates nothing", by, n)
			}
			b.metrics["B/op"], b.metrics["allocs/op"] = 0, 0
			if !maps.Equal(b.metrics, tt.want) {
				t.Errorf("metrics = %v, want %v", b.metrics, tt.want)
			}
		})
	}
}

func TestReportFillsConfig(t *testing.T) {
	cal := &calibrate.Calibration{}
	calls := fakes(t, recorded(), nil, cal, nil)
	b := newFakeB("BenchmarkFill")
	type key struct{}
	b.ctx = context.WithValue(context.Background(), key{}, "b's")
	var timerDuring bool
	measure = func(ctx context.Context, cfg Config, tg Target) (Result, error) {
		*calls = append(*calls, measureCall{cfg, tg, ctx})
		timerDuring = b.timerOn
		return recorded(), nil
	}
	cfg := DefaultConfig()
	cfg.K = 5
	b.run(1, cfg, func() {})
	if len(*calls) != 1 {
		t.Fatalf("measured %d times, want 1", len(*calls))
	}
	got := (*calls)[0]
	if got.Name != "BenchmarkFill" || got.Ctx != b.ctx || got.Calibration != cal || got.K != 5 {
		t.Errorf("Measure got Name %q, Context %v, Calibration %p, K %d; want the benchmark's name and context, the calibration %p and K 5",
			got.Name, got.Ctx, got.Calibration, got.K, cal)
	}
	if timerDuring {
		t.Error("the timer ran during the measurement")
	}
	if !b.timerOn {
		t.Error("the timer was left stopped")
	}

	// A target's name and a caller's calibration are kept.
	own := &calibrate.Calibration{}
	cfg.Calibration = own
	newFakeB("BenchmarkFill2").runTarget(1, cfg, Target{Name: "mine", Run: func() {}})
	got = (*calls)[1]
	if got.Name != "mine" || got.Calibration != own {
		t.Errorf("the target's Name or the caller's Calibration was replaced: %q %p", got.Name, got.Calibration)
	}
}

func TestReportWarnings(t *testing.T) {
	calWarn := errors.New("calibrate: running under a hypervisor")
	cal := &calibrate.Calibration{Warnings: []error{calWarn}}
	res := recorded()
	res.Warnings = []error{calWarn, errWarn}
	fakes(t, res, nil, cal, nil)

	first := newFakeB("BenchmarkWarn")
	first.run(1, DefaultConfig(), func() {})
	first.run(100, DefaultConfig(), func() {})
	withRemedy := errWarn.Error() + "; remedy: " + Remedy(errWarn.Error())
	want := []string{calWarn.Error(), withRemedy}
	if !slices.Equal(first.logs, want) {
		t.Fatalf("logs = %q, want %q (each once, though the function ran twice)", first.logs, want)
	}
	second := newFakeB("BenchmarkWarn")
	second.run(1, DefaultConfig(), func() {})
	want = []string{withRemedy}
	if !slices.Equal(second.logs, want) {
		t.Fatalf("logs of a second measurement = %q, want %q (calibration warnings once per process)", second.logs, want)
	}
}

func TestReportThroughTestingBenchmark(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	r := testing.Benchmark(func(b *testing.B) { Report(b, DefaultConfig(), Target{Run: func() {}}) })
	if len(*calls) != 1 {
		t.Fatalf("measured %d times in one testing.Benchmark, want 1", len(*calls))
	}
	if r.N != recordedCalls {
		t.Fatalf("N = %d, want the %d calls the measurement timed (0: the benchmark failed)", r.N, recordedCalls)
	}
	if got := r.NsPerOp(); got != 400 {
		t.Errorf("NsPerOp = %d, want 400 (Report's ns/op replaces the framework's)", got)
	}
	for unit, want := range map[string]float64{"ticks/op": 1000, "cycles/op": 1300, "ns/elem": 4} {
		if got := r.Extra[unit]; got != want {
			t.Errorf("%s = %v, want %v", unit, got, want)
		}
	}

	// Bad input fails the benchmark (N = 0) without panicking the binary.
	if r := testing.Benchmark(func(b *testing.B) { Report(b, DefaultConfig(), Target{}) }); r.N != 0 {
		t.Errorf("nil function: N = %d, want 0 (a failed benchmark)", r.N)
	}
	if r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			Report(b, DefaultConfig(), Target{Run: func() {}})
		}
	}); r.N != 0 {
		t.Errorf("inside b.Loop: N = %d, want 0 (a failed benchmark)", r.N)
	}
}

// TestReportLive measures a real function through testing.Benchmark.
func TestReportLive(t *testing.T) {
	cal, err := calibrate.Get()
	if err != nil {
		t.Skipf("no calibration on this machine: %v", err)
	}
	cfg := DefaultConfig()
	tg := Target{Run: addKernel(1000), Elements: 1000}
	r := testing.Benchmark(func(b *testing.B) { Report(b, cfg, tg) })
	if r.N < 1 {
		// testing.Benchmark discards the benchmark's messages: measure
		// directly for the reason.
		_, err := Measure(context.Background(), cfg, tg)
		t.Fatalf("the benchmark failed; Measure says: %v", err)
	}
	ticks, ns := r.Extra["ticks/op"], r.Extra["ns/op"]
	if ticks <= 0 || ns <= 0 {
		t.Fatalf("ticks/op %v, ns/op %v: want both > 0 for a 1000-ADD chain", ticks, ns)
	}
	if hz := ticks / ns * 1e9; math.Abs(hz/cal.Frequency.Hz-1) > 1e-6 {
		t.Errorf("ticks/op ÷ ns/op = %.0f Hz, calibration %.0f Hz", hz, cal.Frequency.Hz)
	}
	if got := r.Extra["ticks/elem"] * 1000; math.Abs(got/ticks-1) > 1e-9 {
		t.Errorf("ticks/elem × 1000 = %v, ticks/op %v", got, ticks)
	}
	if c, ok := r.Extra["cycles/op"]; ok && chain.Exact() && c < 1000*0.9 {
		t.Errorf("cycles/op = %v for 1000 dependent ADDs, want ≥ 900 (one cycle each, 10%% slack)", c)
	}
}

// goTool returns the go command for the round-trip tests, or skips the
// test: under -short, without a go command, or when this test binary runs
// emulated (its GOOS/GOARCH differ from the go command's host, so the
// benchmarks it would build could not run natively).
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: builds a module with the go command and runs its benchmarks (a few seconds)")
	}
	// go test puts $GOROOT/bin first in the test binary's PATH (Go ≥ 1.19),
	// so this is the go command that built the test; runtime.GOROOT is
	// deprecated for finding it.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	out, err := exec.Command(goBin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	host := strings.Join(strings.Fields(string(out)), "/")
	if self := runtime.GOOS + "/" + runtime.GOARCH; host != self {
		t.Skipf("this test binary is %s but the go command's host is %s (an emulated run): the child benchmarks could not run natively", self, host)
	}
	return goBin
}

// childModule writes the module in testdata/roundtrip to a temporary
// directory with a go.mod that replaces this module by the repository the
// test runs in, and this repository's go.sum, and returns the directory.
func childModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := "go 1.24" // the oldest Go with every API the module uses
	for _, line := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(line, "go ") {
			goLine = strings.TrimSpace(line)
		}
	}
	goMod := "module example.com/roundtrip\n\n" + goLine + "\n\n" +
		"require github.com/cyclebench/cyclebench v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/cyclebench/cyclebench => " + strconv.Quote(root) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	err = os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "roundtrip")))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goIn runs the go command with args in dir and returns its standard
// output and error. -mod=mod lets the go command complete the child's
// go.mod from the module cache (or the proxy, where reachable).
func goIn(t *testing.T, goBin, dir string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	if buildTags != "" {
		// The child must measure with the same counter as this test binary.
		flags = append(flags, "-tags="+buildTags)
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.Join(append(flags, "-mod=mod"), " "), "GOWORK=off", "GOTOOLCHAIN=local")
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// benchValues is what one go test -bench run reported: benchmark name →
// unit → values in the order printed, in the units printed (ns/op, not
// benchfmt's tidied sec/op).
type benchValues map[string]map[string][]float64

// parseBench reads go test -bench output with benchfmt; every syntax
// error fails the test. iters holds each result's iteration count.
func parseBench(t *testing.T, out string) (vals benchValues, iters map[string][]int) {
	t.Helper()
	vals, iters = benchValues{}, map[string][]int{}
	r := benchfmt.NewReader(strings.NewReader(out), "go-test-bench-output")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			name := string(rec.Name.Full())
			if vals[name] == nil {
				vals[name] = map[string][]float64{}
			}
			iters[name] = append(iters[name], rec.Iters)
			for _, v := range rec.Values {
				unit, x := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, x = v.OrigUnit, v.OrigValue
				}
				vals[name][unit] = append(vals[name][unit], x)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("benchfmt: %v", err)
	}
	return vals, iters
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestRoundTrip builds a module whose benchmarks use Report, runs
// go test -bench -count 6 twice, reads the output back with benchfmt and
// compares the two runs the way benchstat does.
func TestRoundTrip(t *testing.T) {
	goBin := goTool(t)
	cal, err := calibrate.Get()
	if err != nil {
		t.Skipf("no calibration on this machine: %v", err)
	}
	dir := childModule(t)
	const count = 6
	const iterations = 1000 // roundtrip.Iterations
	args := []string{"test", "-run", "^$", "-bench", "^BenchmarkKernel", "-count", strconv.Itoa(count)}
	perCPU := "-" + strconv.Itoa(runtime.GOMAXPROCS(0))
	if perCPU == "-1" {
		perCPU = ""
	}
	// With the pure-Go ruler (-tags noasm, or a GOARCH without the
	// assembly chains) cycles are approximate by design and say so: the
	// runs are compared in ticks there.
	unit := "cycles/op"
	if !chain.Exact() {
		unit = "ticks/op"
	}
	// Retry rule: the host's slow stretches move code bound by the front
	// end or by branches (the pure-Go chain is a loop) by 15 to 50%
	// between runs seconds apart (CI, -tags noasm: 1291 and 1488 ticks a
	// call, the second run labelled shared in 2 of 6 results). So two runs
	// whose medians differ by more than 5% are taken again, three times
	// at most; when they still differ and harness labelled a result of
	// them shared, the comparison is skipped with the reason, and with no
	// label it fails below.
	var runs [2]benchValues
	var outputs [2]string
	for attempt := 1; ; attempt++ {
		for i := range runs {
			out, stderr, err := goIn(t, goBin, dir, nil, args...)
			if err != nil {
				t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
			}
			t.Logf("attempt %d, run %d:\n%s", attempt, i+1, out)
			outputs[i] = out
			runs[i], _ = parseBench(t, out)
		}
		apart := false
		for _, name := range []string{"Kernel", "KernelElements"} {
			a, b := median(runs[0][name+perCPU][unit]), median(runs[1][name+perCPU][unit])
			apart = apart || !(math.Abs(b/a-1) <= 0.05)
		}
		if !apart {
			break
		}
		if attempt == 3 {
			if strings.Contains(outputs[0]+outputs[1], ErrSharedCore.Error()) {
				t.Skipf("the medians of two runs of the same code differed by more than 5%% in %d attempts, in runs harness labelled shared (the host's slow stretch): nothing to judge the round trip by", attempt)
			}
			break
		}
	}
	// benchfmt drops the "Benchmark" prefix of names.
	for _, name := range []string{"Kernel", "KernelElements"} {
		t.Run(name, func(t *testing.T) {
			units := []string{"ns/op", "ticks/op", "cycles/op"}
			if name == "KernelElements" {
				units = append(units, "ns/elem", "ticks/elem", "cycles/elem")
			}
			for i, run := range runs {
				got := run[name+perCPU]
				for _, u := range units {
					if len(got[u]) != count {
						t.Fatalf("run %d: %d values of %s, want %d (units: %v)", i+1, len(got[u]), u, count, slices.Sorted(maps.Keys(got)))
					}
				}
				for j, ticks := range got["ticks/op"] {
					// go test prints 4 significant figures at least: 1% is
					// far above rounding, far below any conversion mistake.
					if hz := ticks / got["ns/op"][j] * 1e9; math.Abs(hz/cal.Frequency.Hz-1) > 0.01 {
						t.Errorf("run %d result %d: ticks/op ÷ ns/op = %.4g Hz, calibration %.4g Hz", i+1, j, hz, cal.Frequency.Hz)
					}
					if ratio := got["cycles/op"][j] / ticks; ratio < 0.2 || ratio > 5 {
						t.Errorf("run %d result %d: cycles/op ÷ ticks/op = %.3g, want a core clock within 0.2 to 5 times the counter's rate", i+1, j, ratio)
					}
				}
				if c := median(got["cycles/op"]); c < iterations || c > 50*iterations {
					t.Errorf("run %d: median %.0f cycles/op for a dependent chain of %d steps, want 1 to 50 cycles a step", i+1, c, iterations)
				}
				for _, u := range []string{"ns", "ticks", "cycles"} {
					if perOp, perElem := median(got[u+"/op"]), median(got[u+"/elem"]); perElem != 0 && math.Abs(perElem*iterations/perOp-1) > 0.01 {
						t.Errorf("run %d: median %s/elem × %d = %.4g, %s/op %.4g", i+1, u, iterations, perElem*iterations, u, perOp)
					}
				}
			}
			// benchstat's verdict on the unit: a Mann-Whitney U test on the
			// two samples of 6, "~" when p > α = 0.05.
			a, b := runs[0][name+perCPU][unit], runs[1][name+perCPU][unit]
			sa := benchmath.NewSample(a, &benchmath.DefaultThresholds)
			sb := benchmath.NewSample(b, &benchmath.DefaultThresholds)
			cmp := benchmath.AssumeNothing.Compare(sa, sb)
			ma, mb := benchmath.AssumeNothing.Summary(sa, 0.95), benchmath.AssumeNothing.Summary(sb, 0.95)
			t.Logf("%s: %.4g ± %s vs %.4g ± %s: %s (%s)", unit, ma.Center, ma.PctRangeString(), mb.Center, mb.PctRangeString(), cmp.FormatDelta(ma.Center, mb.Center), cmp)
			// Identical code must give medians that agree; p itself falls
			// below α by chance in 5% of pairs, so it is only logged.
			if d := math.Abs(mb.Center/ma.Center - 1); d > 0.05 {
				t.Errorf("median %s %.4g and %.4g of two runs of the same code differ by %.1f%%, want ≤ 5%%", unit, ma.Center, mb.Center, 100*d)
			}
		})
	}

	t.Run("benchstat", func(t *testing.T) {
		benchstat, err := exec.LookPath("benchstat")
		if err != nil {
			t.Skipf("no benchstat command in PATH (go install golang.org/x/perf/cmd/benchstat@latest): %v", err)
		}
		files := []string{filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")}
		for i, f := range files {
			if err := os.WriteFile(f, []byte(outputs[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(benchstat, files...).CombinedOutput()
		if err != nil {
			t.Fatalf("benchstat: %v\n%s", err, out)
		}
		t.Logf("benchstat old.txt new.txt:\n%s", out)
		for _, want := range []string{"cycles/op", "ticks/op", "sec/op", "cycles/elem", "Kernel"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("benchstat output lacks %q", want)
			}
		}
	})
}

// TestRoundTripFlags runs the child benchmarks with -cpu and with a fixed
// and a long -benchtime.
func TestRoundTripFlags(t *testing.T) {
	goBin := goTool(t)
	dir := childModule(t)
	t.Run("cpu and Nx", func(t *testing.T) {
		args := []string{"test", "-run", "^$", "-bench", "^BenchmarkKernel$", "-count", "2", "-cpu", "1,2", "-benchtime", "100x"}
		out, stderr, err := goIn(t, goBin, dir, nil, args...)
		if err != nil {
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		vals, iters := parseBench(t, out)
		for _, name := range []string{"Kernel", "Kernel-2"} { // benchfmt drops "Benchmark"
			// The iteration count is the calls timed: at least one per
			// sample of the K a measurement needs, and -benchtime 100x
			// allows at most 100 samples of at most maxRepeat calls.
			got := iters[name]
			if len(got) != 2 {
				t.Errorf("%s: iterations %v, want 2 results (-count 2)", name, got)
			}
			for _, it := range got {
				if it < defaultK || it > 100*maxRepeat {
					t.Errorf("%s: iterations %d, want the calls of %d to 100 samples", name, it, defaultK)
				}
			}
			if got := vals[name]["cycles/op"]; len(got) != 2 {
				t.Errorf("%s: cycles/op %v, want 2 values\n%s", name, got, out)
			}
		}
	})
	t.Run("long benchtime", func(t *testing.T) {
		// -benchtime is the measurement's budget: a converging measurement
		// stops well before it.
		const benchtime = 20 * time.Second
		args := []string{"test", "-run", "^$", "-bench", "^BenchmarkKernel$", "-count", "1", "-benchtime", benchtime.String()}
		start := time.Now()
		out, stderr, err := goIn(t, goBin, dir, nil, args...)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		if vals, _ := parseBench(t, out); len(vals) != 1 {
			t.Errorf("results for %d benchmarks, want 1:\n%s", len(vals), out)
		}
		t.Logf("-benchtime %v: go test took %v", benchtime, took.Round(time.Millisecond))
		if took >= benchtime {
			t.Errorf("go test -benchtime %v took %v: Report should stop measuring once converged, not spend its whole budget", benchtime, took)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		args := []string{"test", "-run", "^$", "-bench", "^BenchmarkBad", "-count", "1"}
		out, stderr, err := goIn(t, goBin, dir, nil, args...)
		if err == nil {
			t.Fatalf("go %s succeeded; its benchmarks must fail:\n%s", strings.Join(args, " "), out)
		}
		for _, want := range []string{
			"--- FAIL: BenchmarkBadNil", "harness.Report: nil Run function",
			"--- FAIL: BenchmarkBadConfig", "harness.Report: bad config: K -1 (allowed: 1 to 1000)",
			"--- FAIL: BenchmarkBadLoop", "harness.Report: called inside a for b.Loop() loop",
			"--- FAIL: BenchmarkBadTwice", "harness.Report: called more than once in one run of BenchmarkBadTwice",
			"--- FAIL: BenchmarkBadPanic", "harness.Report: measured function panicked: boom",
			"--- FAIL: BenchmarkBadMode/mode=throughput", "harness.Report: the benchmark's name says mode=throughput and cfg.Mode is latency",
			"--- FAIL: BenchmarkBadSweepSizes", "harness.ReportSweep: bad sizes: size 200 after 300 (sizes must increase)",
			"--- FAIL: BenchmarkBadSweepBuild/n=500", "harness.ReportSweep: n=500: no input for 500",
			"--- FAIL: BenchmarkBadCompareNil", "harness.ReportCompare: nil Run function",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q", want)
			}
		}
		if strings.Contains(out+stderr, "panic:") || strings.Contains(out+stderr, "goroutine ") {
			t.Errorf("the test binary panicked:\n%s%s", out, stderr)
		}
		if t.Failed() {
			t.Logf("output:\n%s%s", out, stderr)
		}
	})
}

// TestImportRegistersNoFlags runs a program that imports harness (and so
// testing) and calls Report through testing.Benchmark without being a test
// binary: no test flag may be registered, Report must not panic although
// the testing package cannot log there, and a bad Config must fail the
// benchmark. GODEBUG=inittrace=1 shows the start-up work of each package.
func TestImportRegistersNoFlags(t *testing.T) {
	goBin := goTool(t)
	dir := childModule(t)
	out, stderr, err := goIn(t, goBin, dir, []string{"GODEBUG=inittrace=1"}, "run", "./flagcheck")
	if err != nil {
		t.Fatalf("go run ./flagcheck: %v\n%s%s", err, out, stderr)
	}
	if !strings.HasSuffix(out, "done\n") {
		t.Fatalf("flagcheck did not finish:\n%s", out)
	}
	for _, want := range []string{"bad config: N 0\n", "kernel: units [B/op allocs/op cycles/op ns/op ticks/op]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(line, "flag "); ok && strings.HasPrefix(name, "test.") {
			t.Errorf("importing harness registered the flag -%s", name)
		}
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "cyclebench") || strings.Contains(line, "init testing") {
			t.Log(line)
		}
	}
}
