package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// envOf is a getenv over vars.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// The measuring settings given in the environment (cyclebench run ./PKG
// -mode latency -k 5 ...) reach Measure, over the benchmark's Config.
func TestReportAppliesEnvironment(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	getenv = envOf(map[string]string{EnvMode: "latency", EnvK: "5", EnvEpsilon: "0.02", EnvMinTime: "50ms", EnvMaxTime: "2s", EnvGC: "on"})
	b := newFakeB("BenchmarkEnv")
	cfg := DefaultConfig()
	cfg.K, cfg.Epsilon = 7, 0.5
	b.run(1, cfg, func() {})
	if len(b.fatals) != 0 {
		t.Fatalf("Fatal %q", b.fatals)
	}
	if len(b.subs) != 1 || b.subs[0].name != "BenchmarkEnv/mode=latency" {
		t.Fatalf("sub-benchmarks %v, want one named mode=latency", b.subs)
	}
	if len(*calls) != 1 {
		t.Fatalf("measured %d times, want 1", len(*calls))
	}
	got := (*calls)[0]
	if got.Mode != Latency || got.K != 5 || got.Epsilon != 0.02 || got.MinTime != 50*time.Millisecond || got.MaxTime != 2*time.Second || !got.KeepGC {
		t.Errorf("Measure got mode %v, K %d, ε %v, MinTime %v, MaxTime %v, KeepGC %v; want latency, 5, 0.02, 50ms, 2s, true", got.Mode, got.K, got.Epsilon, got.MinTime, got.MaxTime, got.KeepGC)
	}
}

// A bad value in the environment fails the benchmark with one line naming
// the variable, its value and what is allowed; nothing is measured.
func TestReportBadEnvironment(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{EnvMode, "both", `CYCLEBENCH_MODE="both" (allowed: throughput or latency)`},
		{EnvK, "0", `CYCLEBENCH_K="0" (allowed: a whole number, 1 to 1000)`},
		{EnvEpsilon, "5%", `CYCLEBENCH_EPS="5%" (allowed: a fraction`},
		{EnvMinTime, "50", `CYCLEBENCH_MIN_TIME="50" (allowed: a duration`},
		{EnvMaxTime, "0s", `CYCLEBENCH_MAX_TIME="0s" (allowed: a duration > 0`},
		{EnvGC, "maybe", `CYCLEBENCH_GC="maybe" (allowed: on or off)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
			getenv = envOf(map[string]string{tc.name: tc.value})
			b := newFakeB("BenchmarkBad")
			b.run(1, DefaultConfig(), func() {})
			if len(b.fatals) != 1 || !strings.Contains(b.fatals[0], tc.want) || !strings.HasPrefix(b.fatals[0], "harness.Report: ") {
				t.Errorf("Fatal %q, want one line with %q", b.fatals, tc.want)
			}
			if len(*calls) != 0 {
				t.Errorf("measured %d times after a bad setting", len(*calls))
			}
		})
	}
}

// ApplyEnv leaves what is not given as it was, and its errors wrap
// ErrBadConfig.
func TestApplyEnv(t *testing.T) {
	cfg := DefaultConfig()
	got, err := ApplyEnv(cfg, envOf(nil))
	if err != nil || got.K != cfg.K || got.Epsilon != cfg.Epsilon || got.Mode != cfg.Mode || got.MaxTime != cfg.MaxTime {
		t.Errorf("no variables: %+v, %v; want the Config unchanged", got, err)
	}
	if _, err := ApplyEnv(cfg, envOf(map[string]string{EnvK: "x"})); !errors.Is(err, ErrBadConfig) {
		t.Errorf("K x: %v, want ErrBadConfig", err)
	}
	// A least time beyond the benchmark's own budget stretches the budget.
	short := DefaultConfig()
	short.MaxTime = 30 * time.Millisecond
	got, err = ApplyEnv(short, envOf(map[string]string{EnvMinTime: "50ms"}))
	if err != nil || got.MinTime != 50*time.Millisecond || got.MaxTime != 50*time.Millisecond {
		t.Errorf("MinTime 50ms over MaxTime 30ms: MinTime %v, MaxTime %v (%v); want both 50ms", got.MinTime, got.MaxTime, err)
	}
	// A literal Config asked for ε = 0 exactly keeps 0, not the default.
	got, err = ApplyEnv(Config{}, envOf(map[string]string{EnvEpsilon: "0"}))
	if d, derr := got.WithDefaults(); err != nil || derr != nil || d.Epsilon != 0 {
		t.Errorf("ε 0 on a literal Config: ε %v after defaults (%v, %v), want 0", d.Epsilon, err, derr)
	}
}

// ReportCompare keeps its own MinTime: a comparison's MaxTime is shared
// out among its blocks, which a least time from outside would outlast.
func TestReportCompareKeepsItsMinTime(t *testing.T) {
	fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	getenv = envOf(map[string]string{EnvMinTime: "50ms", EnvK: "5"})
	var got Config
	compare = func(_ context.Context, cfg Config, a, b Target, _ CompareOptions) (Comparison, error) {
		got = cfg
		return Comparison{}, errors.New("stop here")
	}
	b := newFakeB("BenchmarkAvsB")
	b.call(1, func(b bench) {
		reportCompare(b, DefaultConfig(), Target{Run: func() {}}, Target{Run: func() {}}, CompareOptions{})
	})
	if got.MinTime != 0 || got.K != 5 {
		t.Errorf("Compare got MinTime %v, K %d; want 0 (its own) and 5", got.MinTime, got.K)
	}
}
