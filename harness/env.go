package harness

// Settings from outside a benchmark: the environment variables through
// which cyclebench run ./PKG (and a user of go test) sets how the Report
// helpers measure, over the Config the benchmark passes.
//
// Environment variables, not flags: a test binary parses its flags in
// testing.Init/flag.Parse before any benchmark runs, so a flag the harness
// registered lazily would be refused ("flag provided but not defined"),
// and one registered at init would be work in init and a name clash with
// a user's own flags. The environment reaches the test binary through go
// test and through every process of -count unchanged, and a benchmark
// that does not call the helpers ignores it.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The environment variables [ApplyEnv] reads.
const (
	EnvMode    = "CYCLEBENCH_MODE"     // Config.Mode: throughput or latency
	EnvK       = "CYCLEBENCH_K"        // Config.K: 1 to 1000
	EnvEpsilon = "CYCLEBENCH_EPS"      // Config.Epsilon: a fraction, 0 ≤ ε < 1
	EnvMinTime = "CYCLEBENCH_MIN_TIME" // Config.MinTime: a duration such as 50ms
	EnvMaxTime = "CYCLEBENCH_MAX_TIME" // Config.MaxTime: a duration such as 2s
	EnvGC      = "CYCLEBENCH_GC"       // Config.KeepGC: on (true) or off (false)
)

// EnvNames lists the variables [ApplyEnv] reads, in the order it applies
// them.
var EnvNames = []string{EnvMode, EnvK, EnvEpsilon, EnvMinTime, EnvMaxTime, EnvGC}

// ApplyEnv returns cfg with the settings of the environment variables
// EnvMode, EnvK, EnvEpsilon, EnvMinTime, EnvMaxTime and EnvGC that getenv gives
// (a value "" is not given): they win over cfg's own, as go test's
// -benchtime does ([Report]). getenv is os.Getenv in a test binary. A
// value that cannot be read, or is out of range, is an error wrapping
// ErrBadConfig that names the variable, its value and what is allowed;
// the ranges are those of [Config.WithDefaults]. An EnvMinTime beyond
// cfg's own MaxTime raises MaxTime to it when EnvMaxTime is not given (a
// MinTime beyond an EnvMaxTime is left to WithDefaults to refuse).
func ApplyEnv(cfg Config, getenv func(string) string) (Config, error) {
	if getenv == nil {
		return cfg, nil
	}
	bad := func(name, value, allowed string) (Config, error) {
		return cfg, fmt.Errorf("%w: %s=%q (allowed: %s)", ErrBadConfig, name, value, allowed)
	}
	if v := strings.TrimSpace(getenv(EnvMode)); v != "" {
		m, err := parseMode(v)
		if err != nil {
			return bad(EnvMode, v, "throughput or latency")
		}
		cfg.Mode = m
	}
	if v := strings.TrimSpace(getenv(EnvK)); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 || k > 1000 {
			return bad(EnvK, v, "a whole number, 1 to 1000")
		}
		cfg.K = k
		if cfg.MaxSamples != 0 && cfg.MaxSamples < k {
			cfg.MaxSamples = k // the fewest samples that can agree
		}
	}
	if v := strings.TrimSpace(getenv(EnvEpsilon)); v != "" {
		e, err := strconv.ParseFloat(v, 64)
		if err != nil || !(e >= 0 && e < 1) {
			return bad(EnvEpsilon, v, "a fraction 0 ≤ ε < 1, such as 0.01 for 1%")
		}
		cfg.Epsilon = e
		if e == 0 && !cfg.explicit {
			// A literal Config reads Epsilon 0 as the default; asked for
			// exactly 0, fill the rest so that 0 means 0.
			d, err := cfg.WithDefaults()
			if err != nil {
				return cfg, err
			}
			cfg, cfg.Epsilon = d, 0
		}
	}
	for _, d := range []struct {
		name string
		into *time.Duration
	}{{EnvMinTime, &cfg.MinTime}, {EnvMaxTime, &cfg.MaxTime}} {
		v := strings.TrimSpace(getenv(d.name))
		if v == "" {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t < 0 || d.name == EnvMaxTime && t == 0 {
			allowed := "a duration ≥ 0 with a unit, such as 50ms"
			if d.name == EnvMaxTime {
				allowed = "a duration > 0 with a unit, such as 2s"
			}
			return bad(d.name, v, allowed)
		}
		*d.into = t
	}
	if strings.TrimSpace(getenv(EnvMaxTime)) == "" && cfg.MaxTime != 0 && cfg.MinTime > cfg.MaxTime {
		// A least time asked for from outside outlasts the benchmark's
		// own budget: the budget stretches to it rather than failing.
		cfg.MaxTime = cfg.MinTime
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvGC))); v {
	case "":
	case "on", "true", "1":
		cfg.KeepGC = true
	case "off", "false", "0":
		cfg.KeepGC = false
	default:
		return bad(EnvGC, getenv(EnvGC), "on or off")
	}
	return cfg, nil
}
