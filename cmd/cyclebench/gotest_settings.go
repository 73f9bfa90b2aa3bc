package main

// The measuring flags of a package pattern: -mode, -k, -eps, -min-time
// and -max-time reach harness.Report, ReportSweep and ReportCompare in the
// test binary as the environment variables harness.ApplyEnv reads, and
// win over the Config in the benchmark, as -benchtime does.

import (
	"fmt"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/gotest"
)

// packageSettings are the measuring flags a package pattern takes, each
// with the environment variable that carries it to the test binary.
var packageSettings = []struct{ flag, env, usage string }{
	{"mode", harness.EnvMode, "`MODE` throughput or latency: what a call's cost means in the benchmarks' harness helpers\n(overrides the benchmark's Config.Mode; latency results are named .../mode=latency)"},
	{"k", harness.EnvK, "the `K` smallest samples must agree (1 to 1000; overrides the benchmark's Config.K)"},
	{"eps", harness.EnvEpsilon, "relative tolerance `ε` within which the K best samples must agree (0 ≤ ε < 1;\noverrides the benchmark's Config.Epsilon)"},
	{"min-time", harness.EnvMinTime, "sample each measurement for at least `D`, a duration such as 50ms (overrides Config.MinTime)"},
	{"gc", harness.EnvGC, "`on` leaves the garbage collector running while the helpers sample (Config.KeepGC), off\nturns it off (the default); see docs/go-test.md on allocating code"},
	{"max-time", harness.EnvMaxTime, "give up on a measurement after `D`, a duration such as 2s (overrides Config.MaxTime; -benchtime D wins)"},
}

// addPackageSettings defines the measuring flags of a package pattern on
// fs: each value is checked as the test binary would (harness.ApplyEnv)
// and added to g.Env.
func addPackageSettings(fs *flagSet, g *gotest.GoTest) {
	for _, s := range packageSettings {
		fs.Func(s.flag, s.usage, func(v string) error {
			kv := s.env + "=" + v
			if _, err := harness.ApplyEnv(harness.DefaultConfig(), func(k string) string {
				if k == s.env {
					return v
				}
				return ""
			}); err != nil {
				_, allowed, _ := strings.Cut(err.Error(), "(allowed: ")
				return fmt.Errorf("allowed: %s", strings.TrimSuffix(allowed, ")"))
			}
			g.Env = append(g.Env, kv)
			return nil
		})
	}
}

// settingsExtra records the settings g passed to the test binary in a
// header's Extra, under the flags' names, so that the report says which
// configuration the benchmarks measured with.
func settingsExtra(extra map[string]string, g *gotest.GoTest) map[string]string {
	for _, kv := range g.Env {
		k, v, _ := strings.Cut(kv, "=")
		for _, s := range packageSettings {
			if s.env == k {
				if extra == nil {
					extra = map[string]string{}
				}
				extra[s.flag] = v
			}
		}
	}
	return extra
}
