package main

import (
	"errors"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
)

// FuzzMeasureFlags parses arbitrary values of the flags every measuring
// subcommand shares (-k, -eps, -m, -max-time, -cpu, -priority) as the CLI
// does: it must never panic; a value it rejects is a one-line usage error
// (exit status 2) naming the flag; a set it accepts is a configuration
// inside the ranges harness.Config documents. Seeds: testdata/fuzz.
func FuzzMeasureFlags(f *testing.F) {
	f.Add("3", "0.01", "1000", "10s", "-1", "high")
	f.Add("0", "1", "2", "0s", "-2", "turbo")
	f.Add("1000", "0", "1000", "1ns", "0", "realtime")
	f.Add("5", "NaN", "4", "-1m", "4095", "normal")
	f.Fuzz(func(t *testing.T, k, eps, m, maxTime, cpu, prio string) {
		fs := newFlagSet("run", "[flags]", "", io.Discard)
		mf := addMeasureFlags(fs, true)
		args := []string{"-k=" + k, "-eps=" + eps, "-m=" + m, "-max-time=" + maxTime, "-cpu=" + cpu, "-priority=" + prio}
		err := fs.parse(args)
		if err == nil {
			var cfg harness.Config
			if cfg, err = mf.config(); err == nil {
				switch {
				case cfg.K < 1 || cfg.K > 1000:
					t.Fatalf("%q: accepted K %d", args, cfg.K)
				case math.IsNaN(cfg.Epsilon) || math.IsInf(cfg.Epsilon, 0) || cfg.Epsilon < 0 || cfg.Epsilon >= 1:
					t.Fatalf("%q: accepted epsilon %v", args, cfg.Epsilon)
				case cfg.MaxSamples < cfg.K:
					t.Fatalf("%q: accepted M %d < K %d", args, cfg.MaxSamples, cfg.K)
				case cfg.MaxTime <= 0:
					t.Fatalf("%q: accepted max time %v", args, cfg.MaxTime)
				case cfg.CPU < -1:
					t.Fatalf("%q: accepted cpu %d", args, cfg.CPU)
				case cfg.Realtime && cfg.KeepPriority:
					t.Fatalf("%q: realtime and normal priority at once", args)
				}
				return
			}
		}
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Fatalf("%q: error %v (%T) is not a usage error", args, err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("%q: error %q is more than one line", args, err)
		}
		if !strings.Contains(err.Error(), "-") {
			t.Fatalf("%q: error %q names no flag", args, err)
		}
	})
}

// FuzzBenchPattern feeds arbitrary -bench patterns to benchexamples.Select,
// which run and cpe use: it must never panic; an invalid regexp wraps
// ErrBadPattern, a pattern that matches nothing ErrNoMatch, and every
// kernel it returns has a name the pattern matches (all default kernels
// for the empty pattern).
func FuzzBenchPattern(f *testing.F) {
	for _, s := range []string{"", "AddChain", "^(AddChain|ImulChain)$", "Combine[1-6]", "(", "zzz", `\p{Greek}`, "a{1001}", "(?i)sortints"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		ks, err := benchexamples.Select(pattern)
		if err != nil {
			if !errors.Is(err, benchexamples.ErrBadPattern) && !errors.Is(err, benchexamples.ErrNoMatch) {
				t.Fatalf("Select(%q): error %v wraps neither ErrBadPattern nor ErrNoMatch", pattern, err)
			}
			return
		}
		if len(ks) == 0 {
			t.Fatalf("Select(%q) returned no kernel and no error", pattern)
		}
		if pattern == "" {
			for _, k := range ks {
				if !k.Default {
					t.Fatalf("Select(\"\") returned %s, which is not a default kernel", k.Name)
				}
			}
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("Select(%q) accepted a pattern regexp rejects: %v", pattern, err)
		}
		for _, k := range ks {
			if !re.MatchString(k.Name) {
				t.Fatalf("Select(%q) returned %s, which it does not match", pattern, k.Name)
			}
		}
	})
}
