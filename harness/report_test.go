package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// fakeB records what report does to a benchmark.
type fakeB struct {
	name    string
	ctx     context.Context
	metrics map[string]float64
	logs    []string
	fatals  []string
	timerOn bool
}

func newFakeB(name string) *fakeB {
	return &fakeB{name: name, ctx: context.Background(), metrics: map[string]float64{}, timerOn: true}
}

func (b *fakeB) Helper()                  {}
func (b *fakeB) Name() string             { return b.name }
func (b *fakeB) Context() context.Context { return b.ctx }
func (b *fakeB) Fatal(args ...any)        { b.fatals = append(b.fatals, fmt.Sprint(args...)) }
func (b *fakeB) Log(args ...any)          { b.logs = append(b.logs, fmt.Sprint(args...)) }
func (b *fakeB) StopTimer()               { b.timerOn = false }
func (b *fakeB) StartTimer()              { b.timerOn = true }
func (b *fakeB) ReportMetric(n float64, unit string) {
	b.metrics[unit] = n
}

// run is one call of the benchmark function with b.N = n: like the testing
// package, it clears the metrics first.
func (b *fakeB) run(n int, cfg Config, f func()) {
	clear(b.metrics)
	report(b, n, cfg, f)
}

// fakes replaces Report's measuring and calibration for the test, restores
// them and Report's state in t.Cleanup, and returns a counter of Measure
// calls. res is what every measurement returns; cal is the calibration.
func fakes(t *testing.T, res Result, measureErr error, cal *calibrate.Calibration, calErr error) *[]Config {
	t.Helper()
	oldMeasure, oldCal := measure, getCalibration
	oldByName, oldLogged := reports.byName, reports.calLogged
	reports.byName, reports.calLogged = nil, nil
	calls := new([]Config)
	measure = func(cfg Config, f func()) (Result, error) {
		*calls = append(*calls, cfg)
		return res, measureErr
	}
	getCalibration = func() (*calibrate.Calibration, error) { return cal, calErr }
	t.Cleanup(func() {
		measure, getCalibration = oldMeasure, oldCal
		reports.byName, reports.calLogged = oldByName, oldLogged
	})
	return calls
}

// recorded is a plausible result: 1000 ticks, 400 ns and 1300 cycles per
// call of a function over 100 elements.
func recorded() Result {
	return Result{
		Ticks: 1000, Nanoseconds: 400, Cycles: 1300, CyclesPerTick: 1.3, Converged: true,
		Elements: 100, TicksPerElement: 10, NsPerElement: 4, CyclesPerElement: 13,
	}
}

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
		{"nil func", 1, DefaultConfig(), nil, nil, nil, "harness.Report: nil function"},
		{"bad K", 1, Config{K: -1, CPU: AnyCPU}, func() {}, nil, nil, "harness.Report: bad config: K -1 (allowed: 1 to 1000)"},
		{"bad epsilon", 1, Config{Epsilon: math.NaN(), CPU: AnyCPU}, func() {}, nil, nil, "epsilon NaN"},
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
	Report(nil, DefaultConfig(), func() {}) // must not panic
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

	// A second call with the same N is a loop around Report.
	b2.run(100, cfg, func() {})
	if len(b2.fatals) != 1 || !strings.Contains(b2.fatals[0], "called more than once in one run of BenchmarkOnce (b.N = 100)") {
		t.Fatalf("Fatal calls = %q, want one about calling Report twice", b2.fatals)
	}
}

func TestReportUnits(t *testing.T) {
	tests := []struct {
		name     string
		elements float64
		perTick  float64
		want     map[string]float64
	}{
		{"per call", 0, 1.3, map[string]float64{"ticks/op": 1000, "ns/op": 400, "cycles/op": 1300}},
		{"per element", 100, 1.3, map[string]float64{"ticks/op": 1000, "ns/op": 400, "cycles/op": 1300,
			"ticks/elem": 10, "ns/elem": 4, "cycles/elem": 13}},
		{"no cycle estimate", 0, 0, map[string]float64{"ticks/op": 1000, "ns/op": 400}},
		{"per element, no cycle estimate", 100, 0, map[string]float64{"ticks/op": 1000, "ns/op": 400,
			"ticks/elem": 10, "ns/elem": 4}},
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
	measure = func(cfg Config, f func()) (Result, error) {
		*calls = append(*calls, cfg)
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
	if got.Name != "BenchmarkFill" || got.Context != b.ctx || got.Calibration != cal || got.K != 5 {
		t.Errorf("Measure got Name %q, Context %v, Calibration %p, K %d; want the benchmark's name and context, the calibration %p and K 5",
			got.Name, got.Context, got.Calibration, got.K, cal)
	}
	if timerDuring {
		t.Error("the timer ran during the measurement")
	}
	if !b.timerOn {
		t.Error("the timer was left stopped")
	}

	// A caller's name, context and calibration are kept.
	own := &calibrate.Calibration{}
	cfg.Name, cfg.Context, cfg.Calibration = "mine", context.Background(), own
	newFakeB("BenchmarkFill2").run(1, cfg, func() {})
	got = (*calls)[1]
	if got.Name != "mine" || got.Context != cfg.Context || got.Calibration != own {
		t.Errorf("the caller's Name, Context or Calibration was replaced: %q %v %p", got.Name, got.Context, got.Calibration)
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
	want := []string{"harness.Report: warning: " + calWarn.Error(), "harness.Report: warning: " + errWarn.Error()}
	if !slices.Equal(first.logs, want) {
		t.Fatalf("logs = %q, want %q (each once, though the function ran twice)", first.logs, want)
	}
	second := newFakeB("BenchmarkWarn")
	second.run(1, DefaultConfig(), func() {})
	want = []string{"harness.Report: warning: " + errWarn.Error()}
	if !slices.Equal(second.logs, want) {
		t.Fatalf("logs of a second measurement = %q, want %q (calibration warnings once per process)", second.logs, want)
	}
}

func TestReportThroughTestingBenchmark(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	r := testing.Benchmark(func(b *testing.B) { Report(b, DefaultConfig(), func() {}) })
	if len(*calls) != 1 {
		t.Fatalf("measured %d times in one testing.Benchmark, want 1", len(*calls))
	}
	if r.N < 1 {
		t.Fatalf("N = %d: the benchmark failed", r.N)
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
	if r := testing.Benchmark(func(b *testing.B) { Report(b, DefaultConfig(), nil) }); r.N != 0 {
		t.Errorf("nil function: N = %d, want 0 (a failed benchmark)", r.N)
	}
	if r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			Report(b, DefaultConfig(), func() {})
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
	cfg.Elements = 1000
	r := testing.Benchmark(func(b *testing.B) { Report(b, cfg, addKernel(1000)) })
	if r.N < 1 {
		// testing.Benchmark discards the benchmark's messages: measure
		// directly for the reason.
		_, err := Measure(cfg, addKernel(1000))
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
