package gotest

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/results"
)

// Two runs of one package's test binary, each with a plain benchmark and
// a harness.Report one: the plain lines get cycles from the bracket of the
// run that wrote them, the Report lines keep their own.
func TestApplyClock(t *testing.T) {
	run := func(ns string) []byte {
		return []byte("goos: linux\ncpu: X\nBenchmarkPlain-2   1000   " + ns + " ns/op   16 B/op   1 allocs/op   3.000 widgets/op\n" +
			"BenchmarkReport-2   1000   100.0 ns/op   300.0 cycles/op   250.0 ticks/op\nPASS\n")
	}
	joined, ends := joinRunsLines([][]byte{run("200.0"), run("400.0")}, "example.com/x", time.Second)
	if len(ends) != 2 || ends[0] != 4 || ends[1] != 6 {
		t.Fatalf("ends %v, want [4 6] (the config lines of the second run left out)", ends)
	}
	f, err := results.Parse("go test output", strings.NewReader(string(joined)))
	if err != nil {
		t.Fatal(err)
	}
	clk := &CoreClock{CPU: 1, CounterHz: 2e9}
	applyClock(&f, clk, []bracket{{before: 1.2, after: 1.3, from: 1, to: 4, share: 0.99}, {before: 1.5, after: 1.5, from: 5, to: 6, share: 0.5}})
	ms, _, _, _ := f.Split()
	var plain []results.Measurement
	for _, m := range ms {
		switch m.Kernel {
		case "Plain":
			plain = append(plain, m)
		case "Report":
			if m.CyclesSource == SourceNsRuler || m.Cycles != 300 {
				t.Errorf("a Report line got cycles %v from %q, want its own 300", m.Cycles, m.CyclesSource)
			}
		}
	}
	if len(plain) != 2 {
		t.Fatalf("%d plain results, want 2", len(plain))
	}
	// 200 ns × 2 ticks/ns × 1.25 cycles/tick; 400 ns × 2 × 1.5.
	for i, want := range []struct{ cycles, unc float64 }{{500, 0.1 / 2.5}, {1200, 0}} {
		m := plain[i]
		if math.Abs(m.Cycles-want.cycles) > 1e-9 || m.CyclesSource != SourceNsRuler || math.Abs(m.CyclesUncertainty-want.unc) > 1e-12 || !(m.CyclesPerTick > 0) {
			t.Errorf("run %d: %v cycles from %q ± %v (cycles per tick %v), want %v from %q ± %v", i, m.Cycles, m.CyclesSource, m.CyclesUncertainty, m.CyclesPerTick, want.cycles, SourceNsRuler, want.unc)
		}
		if !m.TestingB() {
			t.Errorf("run %d: not marked as timed by testing.B", i)
		}
		// The second run's process had half its CPU: its figures are
		// flagged, the first's are not.
		if flagged := slices.ContainsFunc(m.Warnings, func(w error) bool { return strings.Contains(w.Error(), "for 50% of its run") }); flagged != (i == 1) {
			t.Errorf("run %d: warnings %v; want the 50%% share flagged in run 2 only", i, m.Warnings)
		}
		if len(m.Other) != 3 {
			t.Errorf("run %d: other units %v, want B/op, allocs/op and widgets/op", i, m.Other)
		}
	}
}

// A bracket without a reading gives no cycles and one warning.
func TestApplyClockNoReading(t *testing.T) {
	f, err := results.Parse("go test output", strings.NewReader("BenchmarkPlain-2 10 5.0 ns/op\nBenchmarkPlain-2 10 5.0 ns/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	applyClock(&f, &CoreClock{CPU: 0, CounterHz: 1e9}, []bracket{{from: 1, to: 2, err: errTest}})
	if r := f.Entries[0].Runs[0]; r.NoCycles != results.NotReported || r.Cycles != 0 {
		t.Errorf("run %+v, want no cycles", r)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Error(), "no cycles/op for plain testing.B benchmarks") {
		t.Errorf("warnings %v, want one saying there are no cycles", f.Warnings)
	}
}

var errTest = &exec.Error{Name: "ruler", Err: exec.ErrNotFound}

// run starts the process pinned, between two readings of the clock.
func TestCoreClockRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a shell")
	}
	reads := 0
	clk := &CoreClock{CPU: -1, CounterHz: 1e9, Read: func() (float64, error) { reads++; return float64(reads), nil }}
	br, err := clk.run(exec.Command("sh", "-c", "exit 0"))
	if err != nil || br.before != 1 || br.after != 2 {
		t.Errorf("run = %+v, %v; want readings 1 and 2 and no error", br, err)
	}
	var nilClock *CoreClock
	if _, err := nilClock.run(exec.Command("sh", "-c", "exit 0")); err != nil {
		t.Errorf("without a clock: %v", err)
	}
	// The process runs pinned to the clock's CPU (Linux says so in
	// /proc/self/status).
	if runtime.GOOS == "linux" {
		allowed, err := affinity.Allowed()
		if err != nil || len(allowed) < 2 {
			t.Skipf("allowed CPUs %v (%v): nothing to pin apart", allowed, err)
		}
		cpu := allowed[len(allowed)-1]
		var out strings.Builder
		cmd := exec.Command("sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo GOMAXPROCS=$GOMAXPROCS")
		cmd.Stdout = &out
		clk := &CoreClock{CPU: cpu, Read: func() (float64, error) { return 1, nil }}
		if _, err := clk.run(cmd); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if got := strings.TrimSpace(strings.TrimPrefix(lines[0], "Cpus_allowed_list:")); got != strconv.Itoa(cpu) {
			t.Errorf("the process may run on CPUs %q, want %d alone", got, cpu)
		}
		// Its GOMAXPROCS stays this process's, so go test's -N suffix
		// and b.RunParallel are as without the pin.
		if want := "GOMAXPROCS=" + strconv.Itoa(runtime.GOMAXPROCS(0)); len(lines) < 2 || lines[1] != want && os.Getenv("GOMAXPROCS") == "" {
			t.Errorf("the process's environment says %q, want %s", lines[1:], want)
		}
	}
}
