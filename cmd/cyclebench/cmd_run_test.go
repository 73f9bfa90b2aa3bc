package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
	"golang.org/x/perf/benchfmt"
)

// benchFile writes what cyclebench run -format bench writes for two
// kernels measured with calibration cal.
func benchFile(t *testing.T, path string, cal *calibrate.Calibration, cycles ...float64) {
	t.Helper()
	h := newHeader("run", cal, harness.DefaultConfig(), nil)
	var rs []results.Measurement
	for i, name := range []string{"AddChain/n=1000", "Psum1/n=1000"} {
		for rep := range 6 {
			c := cycles[i] * (1 + 0.001*float64(rep%3))
			r := harness.Result{Name: name, Cycles: c, Ticks: c / cal.Core.CyclesPerTick, Nanoseconds: c / cal.Core.CyclesPerTick / cal.Frequency.Hz * 1e9,
				CyclesPerTick: cal.Core.CyclesPerTick, ReferenceConverged: true, Converged: true, Samples: 10, Repeat: 100, Elements: 1000}
			r.CyclesPerElement, r.TicksPerElement, r.NsPerElement = r.Cycles/1000, r.Ticks/1000, r.Nanoseconds/1000
			rs = append(rs, results.Measurement{Result: r, Kernel: name, N: 1000, Check: "ok", Bench: name, PerElement: true})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeResults(f, formatBench, h, rs); err != nil {
		t.Fatal(err)
	}
}

// TestBenchFilesOneTable: two -format bench files of one machine whose
// measured calibration differs (the counter frequency in its last digits,
// core cycles per tick from 1.4 to 1.5, as an hour apart) give benchstat
// one table with a comparison column, and every value has at most 6
// significant digits and no exponent.
func TestBenchFilesOneTable(t *testing.T) {
	dir := t.TempDir()
	calA, calB := fakeCalibration(1.4, 2596141000), fakeCalibration(1.5, 2596143000)
	a, b := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	benchFile(t, a, calA, 1003.1234567, 11749.87654321)
	benchFile(t, b, calB, 1004.7654321, 11851.1234567)
	for _, path := range []string{a, b} {
		data, _ := os.ReadFile(path)
		rd := benchfmt.NewReader(strings.NewReader(string(data)), path)
		n := 0
		for rd.Scan() {
			switch r := rd.Result().(type) {
			case *benchfmt.SyntaxError:
				t.Fatal(r)
			case *benchfmt.Result:
				n++
				for _, c := range r.Config {
					if c.File && (c.Key == "tsc-hz" || c.Key == "core-cycles-per-tick") {
						t.Errorf("%s: measured figure %s: %s in the configuration", path, c.Key, c.Value)
					}
				}
			}
		}
		if n != 12 {
			t.Errorf("%s: %d results, want 12", path, n)
		}
		for _, v := range regexp.MustCompile(`\t([0-9.e+-]+) [a-z]+/(op|elem)`).FindAllStringSubmatch(string(data), -1) {
			if digits := len(strings.TrimLeft(strings.ReplaceAll(v[1], ".", ""), "0")); digits > 6 || strings.Contains(v[1], "e") {
				t.Errorf("%s: value %s: more than 6 significant digits or an exponent", path, v[1])
			}
		}
	}
	bin := buildBenchstat(t)
	out, err := exec.Command(bin, a, b).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	t.Logf("benchstat old.txt new.txt:\n%s", out)
	// One table per unit, each with the two files and "vs base"; a second
	// table per unit (split by configuration) would repeat the unit header.
	for _, unit := range []string{"cycles/op", "ticks/op"} {
		if n := regexp.MustCompile(`(?m)^\s+│\s+`+regexp.QuoteMeta(unit)+`\s+│`).FindAllIndex(out, -1); len(n) != 1 {
			t.Errorf("benchstat shows %d tables of %s, want 1", len(n), unit)
		}
	}
	if !strings.Contains(string(out), "vs base") {
		t.Errorf("benchstat output has no comparison column")
	}
}

// buildBenchstat builds benchstat from the module's golang.org/x/perf (the
// version in go.mod), or skips when it cannot.
func buildBenchstat(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build benchstat with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "benchstat")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Skipf("cannot build benchstat (offline, or module cache incomplete): %v\n%s", err, out)
	}
	if _, err := exec.Command(bin, "-h").CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Skipf("cannot run the built benchstat (an emulated test run?): %v", err)
		}
	}
	return bin
}

// fakeCalibration is the recorded calibration with core cycles per tick
// and the counter frequency replaced.
func fakeCalibration(cyclesPerTick, hz float64) *calibrate.Calibration {
	c := &calibrate.Calibration{CPU: fakeCPU, Frequency: fakeBracket}
	c.Frequency.Hz = hz
	c.Core.CyclesPerTick = cyclesPerTick
	return c
}

// TestUsable: a result is usable (marked nearly) when it converged or its
// K best agree within 2ε. The exit status does not follow convergence,
// which changes from run to run: the summary counts results without a
// figure and failed checks, and with -strict every non-converged result
// and every result from a shared core.
func TestUsable(t *testing.T) {
	cfg := harness.DefaultConfig() // ε 0.01
	r := func(conv bool, spread float64, check string) results.Measurement {
		return results.Measurement{Result: harness.Result{Converged: conv, Spread: spread, Samples: 100, Ticks: 1000, Config: cfg}, Check: check}
	}
	shared := r(true, 0.002, "ok")
	shared.Shared = true
	rs := []results.Measurement{r(true, 0.005, "ok"), r(false, 0.0106, "ok"), r(false, 0.025, "ok"), r(true, 0.001, "wrong sum"), {Result: harness.Result{Config: cfg}, Check: "ok"}, shared}
	for i, want := range []bool{true, true, false, true, false, true} {
		if got := results.Usable(rs[i].Result); got != want {
			t.Errorf("result %d: usable %v, want %v", i, got, want)
		}
	}
	for _, tt := range []struct {
		strict bool
		want   string
	}{
		{false, "1 of 6 sizes have no figure; 1 of 6 sizes failed their output check"},
		{true, "3 of 6 sizes did not converge; 1 of 6 sizes were measured on a shared core; 1 of 6 sizes failed their output check"},
	} {
		if got := results.Failure(rs, tt.strict, cfg.MaxTime, "sizes"); got != tt.want {
			t.Errorf("strict %v: %q, want %q", tt.strict, got, tt.want)
		}
	}
	// A result that missed ε by far is not a failure without -strict.
	if got := results.Failure(rs[:3], false, cfg.MaxTime, "results"); got != "" {
		t.Errorf("results with figures: summary %q, want none", got)
	}
}
