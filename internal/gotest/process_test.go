package gotest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/results"
)

// sample is a measurement with warnings, a ruler's error and a NaN, as a
// child hands them back.
func sample(name string, pid int) results.Measurement {
	m := results.Measurement{Kernel: name, N: 10, Check: "ok", Bench: name + "/n=10", PID: pid}
	m.Name, m.Ticks, m.Cycles, m.Converged = name+"/n=10", 700.5, 1000.25, true
	m.HalvesApart, m.Best = math.NaN(), []float64{1, 2, 3}
	m.Warnings = []error{fmt.Errorf("%w: 5 of 32 samples", harness.ErrNotConverged)}
	m.Ruler.Err = errors.New("calibrate: the chains disagree")
	return m
}

// TestProcessRunRoundTrip writes and reads a ProcessRun: the figures
// (NaN too), the warnings' and the ruler's texts come back; what was
// written is left as it was.
func TestProcessRunRoundTrip(t *testing.T) {
	m := sample("AddChain", 42)
	pr := gotest.ProcessRun{PID: 42, Header: results.Header{Command: "run", Warnings: []string{"calibrate: hypervisor"}}, Measurements: []results.Measurement{m}}
	var b bytes.Buffer
	if err := gotest.WriteProcessRun(&b, pr); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(m.Warnings[0], harness.ErrNotConverged) {
		t.Errorf("WriteProcessRun changed the caller's warning: %#v", m.Warnings[0])
	}
	got, err := gotest.ReadProcessRun(&b)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Measurements[0]
	if got.PID != 42 || got.Header.Command != "run" || !slices.Equal(got.Header.Warnings, pr.Header.Warnings) || len(got.Measurements) != 1 {
		t.Fatalf("read %+v", got)
	}
	if g.Name != m.Name || g.Cycles != m.Cycles || g.Ticks != m.Ticks || !math.IsNaN(g.HalvesApart) || !slices.Equal(g.Best, m.Best) || g.PID != 42 || !g.Converged {
		t.Errorf("figures: read %+v, wrote %+v", g, m)
	}
	if len(g.Warnings) != 1 || g.Warnings[0].Error() != m.Warnings[0].Error() || g.Ruler.Err == nil || g.Ruler.Err.Error() != m.Ruler.Err.Error() {
		t.Errorf("errors: read %v and %v", g.Warnings, g.Ruler.Err)
	}
	if _, err := gotest.ReadProcessRun(bytes.NewReader([]byte("not gob"))); !errors.Is(err, gotest.ErrProcess) {
		t.Errorf("ReadProcessRun(garbage) = %v, want ErrProcess", err)
	}
}

// TestMergeProcessRuns merges runs in order, the header's warnings once.
func TestMergeProcessRuns(t *testing.T) {
	runs := []gotest.ProcessRun{
		{PID: 1, Header: results.Header{CPU: "first", Warnings: []string{"a", "b"}}, Measurements: []results.Measurement{sample("X", 1), sample("Y", 1)}},
		{PID: 2, Header: results.Header{CPU: "second", Warnings: []string{"b", "c"}, Partial: "interrupted"}, Measurements: []results.Measurement{sample("X", 2)}},
	}
	h, ms := gotest.MergeProcessRuns(runs)
	if h.CPU != "first" || !slices.Equal(h.Warnings, []string{"a", "b", "c"}) || h.Partial != "interrupted" {
		t.Errorf("header %+v", h)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Kernel+strconv.Itoa(m.PID))
	}
	if !slices.Equal(got, []string{"X1", "Y1", "X2"}) {
		t.Errorf("measurements %q, want X1 Y1 X2", got)
	}
	if h, ms := gotest.MergeProcessRuns(nil); h.CPU != "" || ms != nil {
		t.Errorf("no runs: %+v, %v", h, ms)
	}
}

// helperEnv makes the test binary a child of TestProcesses: its value is
// what TestHelperProcess does.
const helperEnv = "RESULTS_TEST_HELPER"

// TestHelperProcess is not a test: it is the child TestProcesses starts.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "fail":
		fmt.Fprintln(os.Stderr, "child: cannot measure")
		os.Exit(3)
	case "garbage":
		fmt.Print("not a run")
		os.Exit(0)
	case "interrupted": // hands back what it had, then the signal's status
		if err := gotest.WriteProcessRun(os.Stdout, gotest.ProcessRun{PID: os.Getpid(), Measurements: []results.Measurement{sample("cut", os.Getpid())}}); err != nil {
			os.Exit(1)
		}
		os.Exit(130)
	}
	i, _ := strconv.Atoi(os.Getenv(helperEnv))
	pr := gotest.ProcessRun{PID: os.Getpid(), Header: results.Header{Warnings: []string{"w"}}, Measurements: []results.Measurement{sample("K"+strconv.Itoa(i), os.Getpid())}}
	if err := gotest.WriteProcessRun(os.Stdout, pr); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestProcesses runs the test binary as the children: their runs in
// order from different processes, a failing child's status and stderr,
// output that is not a run.
func TestProcesses(t *testing.T) {
	canStartItself(t)
	p := func(env func(i int) string) *gotest.Processes {
		return &gotest.Processes{Path: os.Args[0], Args: []string{"-test.run=^TestHelperProcess$"}, Count: 3,
			Env: func(i int) []string { return []string{helperEnv + "=" + env(i)} }}
	}
	var done []int
	ok := p(strconv.Itoa)
	ok.Done = func(i int, _ gotest.ProcessRun) { done = append(done, i) }
	runs, err := ok.Run(context.Background())
	if err != nil || len(runs) != 3 {
		t.Fatalf("Run = %d runs, %v", len(runs), err)
	}
	for i, r := range runs {
		if r.Measurements[0].Kernel != "K"+strconv.Itoa(i) || r.PID == os.Getpid() || i > 0 && r.PID == runs[i-1].PID {
			t.Errorf("run %d: %s from pid %d", i, r.Measurements[0].Kernel, r.PID)
		}
	}
	if !slices.Equal(done, []int{0, 1, 2}) {
		t.Errorf("Done called for %v", done)
	}

	var stderr bytes.Buffer
	fail := p(func(i int) string {
		if i == 1 {
			return "fail"
		}
		return strconv.Itoa(i)
	})
	fail.Stderr = &stderr
	runs, err = fail.Run(context.Background())
	var pe *gotest.ProcessError
	if len(runs) != 1 || !errors.As(err, &pe) || pe.ExitCode != 3 || pe.Index != 1 || !errors.Is(err, gotest.ErrProcess) {
		t.Errorf("a failing child: %d runs, %v", len(runs), err)
	}
	if stderr.String() != "child: cannot measure\n" {
		t.Errorf("stderr %q", stderr.String())
	}

	cut := p(func(i int) string {
		if i == 1 {
			return "interrupted"
		}
		return strconv.Itoa(i)
	})
	if runs, err := cut.Run(context.Background()); len(runs) != 2 || runs[1].Measurements[0].Kernel != "cut" || !errors.As(err, &pe) || pe.ExitCode != 130 {
		t.Errorf("an interrupted child: %d runs, %v; want its run handed back and its status", len(runs), err)
	}
	if _, err := p(func(int) string { return "garbage" }).Run(context.Background()); !errors.Is(err, gotest.ErrProcess) || errors.As(err, &pe) {
		t.Errorf("garbage: %v, want ErrProcess", err)
	}
	if _, err := (&gotest.Processes{Path: os.Args[0]}).Run(context.Background()); !errors.Is(err, results.ErrBadInput) {
		t.Errorf("Count 0: %v", err)
	}
}

// TestFileSplit separates go test's comparisons from its measurements.
func TestFileSplit(t *testing.T) {
	f, err := results.Read("../../results/testdata/kvm-amd-gotest-sums.txt")
	if err != nil {
		t.Fatal(err)
	}
	ms, msNames, cs, csNames := f.Split()
	if len(cs) == 0 || !slices.Equal(csNames, []string{"Sum4vsSum1", "Sum1AA"}) || cs[0].Name != "Sum4vsSum1" {
		t.Errorf("comparisons %q (%d runs), want those of Sum4vsSum1 and Sum1AA", csNames, len(cs))
	}
	runs := 0
	for _, e := range f.Entries {
		if !e.IsPaired() {
			runs += len(e.Runs)
		}
	}
	if len(ms) != runs || len(msNames) != len(f.Entries)-len(csNames) || slices.Contains(msNames, "Sum4vsSum1") {
		t.Errorf("%d measurements of %d entries, want %d runs of the %d others", len(ms), len(msNames), runs, len(f.Entries)-len(csNames))
	}
}

// canStartItself skips the test where this test binary cannot start a
// process of itself: under user-mode emulation (qemu-user without
// binfmt_misc, as CI runs the arm64 tests) exec of a binary of this
// architecture fails with "exec format error".
func canStartItself(t *testing.T) {
	t.Helper()
	if err := exec.Command(os.Args[0], "-test.run=^$").Run(); err != nil && (errors.Is(err, syscall.ENOEXEC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)) {
		t.Skipf("this binary cannot start itself here (%v): user-mode emulation, or a sandbox that forbids exec", err)
	}
}

// TestCannotStart: only errors of starting a process say to take the runs
// in one's own; a process that ran and failed does not.
func TestCannotStart(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("%w: starting x: %w", gotest.ErrProcess, &os.PathError{Op: "fork/exec", Path: "x", Err: syscall.ENOEXEC}), true},
		{fmt.Errorf("%w: starting x: %w", gotest.ErrProcess, &os.PathError{Op: "fork/exec", Path: "x", Err: syscall.EACCES}), true},
		{&gotest.ProcessError{Index: 0, Count: 2, Command: "x", ExitCode: 1}, false},
		{errors.New("reading a process's results: EOF"), false},
		{nil, false},
	} {
		if got := gotest.CannotStart(c.err); got != c.want {
			t.Errorf("CannotStart(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	if w := gotest.SharedProcessWarning(syscall.ENOEXEC); !strings.Contains(w, "exec format error") || !strings.Contains(w, "every run was taken in this process") {
		t.Errorf("SharedProcessWarning = %q", w)
	}
}
