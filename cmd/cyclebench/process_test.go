package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary stand for cyclebench when it starts
// itself as a child of run -count N (childEnv set): then it is the
// command, not the tests.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		main()
	}
	os.Exit(m.Run())
}

// TestChildRun reads childEnv's values.
func TestChildRun(t *testing.T) {
	tests := []struct {
		v    string
		want *child
		bad  bool
	}{
		{"", nil, false},
		{"0/1", &child{0, 1}, false},
		{"2/3", &child{2, 3}, false},
		{"3/3", nil, true},
		{"-1/3", nil, true},
		{"1", nil, true},
		{"a/b", nil, true},
		{"0/0", nil, true},
	}
	for _, tt := range tests {
		c, err := childRun(tt.v)
		if (err != nil) != tt.bad || tt.want == nil && c != nil || tt.want != nil && (c == nil || *c != *tt.want) {
			t.Errorf("childRun(%q) = %v, %v; want %v (error: %v)", tt.v, c, err, tt.want, tt.bad)
		}
		if tt.bad && (err == nil || !strings.Contains(err.Error(), tt.v) || !strings.Contains(err.Error(), "0 ≤ I < N")) {
			t.Errorf("childRun(%q): error %v should name the value and what is allowed", tt.v, err)
		}
	}
}

// TestChildArgs checks the command line of run's children: the flags
// given, but the output's and the number of runs, with -count=1.
func TestChildArgs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"-o", "x.json"}, []string{"run", "-count=1"}},
		{[]string{"-bench", "AddChain", "-n", "1000", "-count", "2", "-format", "json"}, []string{"run", "-bench=AddChain", "-n=1000", "-count=1"}},
		{[]string{"-json", "-q", "-strict", "-in-process=false", "-eps", "0.002", "-max-time", "1.5s", "-mode", "both", "-count=5"},
			[]string{"run", "-eps=0.002", "-max-time=1.5s", "-mode=both", "-q=true", "-count=1"}},
		{[]string{"-k", "5", "-m", "200", "-cpu", "1", "-no-cycles", "-priority", "normal", "-events", "cycles,instructions"},
			[]string{"run", "-cpu=1", "-events=cycles,instructions", "-k=5", "-m=200", "-no-cycles=true", "-priority=normal", "-count=1"}},
	}
	for _, tt := range tests {
		s := newSession("run", "", "", os.Stdout)
		s.o = addOutputFlags(s.fs, os.Stdout, os.Stderr, true, resultFormats...)
		s.mf = addMeasureFlags(s.fs, true)
		s.fs.String("bench", "", "")
		s.fs.Int("n", 0, "")
		s.fs.Int("count", 1, "")
		inProcessFlag(s.fs)
		if err := s.parse(tt.args); err != nil {
			t.Fatalf("parse(%q): %v", tt.args, err)
		}
		if got := childArgs("run", s.fs.FlagSet); !slices.Equal(got, tt.want) {
			t.Errorf("childArgs after %q = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestRunProcesses runs run -count 2 for real: two results from two
// child processes (their pids differ from each other and from this
// process's), and -in-process gives two results of this one process.
// Nothing is timed.
func TestRunProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on the real machine; skipped with -short")
	}
	canStartItself(t)
	pids := func(args ...string) []int {
		t.Helper()
		out, errOut, err := runCLI(t, append([]string{"run", "-count", "2", "-bench", "^AddChain$", "-n", "1000", "-format", "json", "-q"}, args...)...)
		if err != nil && !isExit1(err) { // exit 1: a result did not converge on a busy machine, which is not what this tests
			t.Fatalf("run %q: %v (stderr %q)", args, err, errOut)
		}
		var rep struct {
			Results []struct {
				Name string `json:"name"`
				PID  int    `json:"pid"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("run %q: %v in %q", args, err, out)
		}
		var ps []int
		for _, r := range rep.Results {
			if r.Name != "AddChain/n=1000" {
				t.Errorf("result %q, want AddChain/n=1000", r.Name)
			}
			ps = append(ps, r.PID)
		}
		if len(ps) != 2 {
			t.Fatalf("run %q gave %d results, want 2", args, len(ps))
		}
		return ps
	}
	if ps := pids(); ps[0] == ps[1] || slices.Contains(ps, os.Getpid()) || slices.Contains(ps, 0) {
		t.Errorf("separate processes: pids %v (this process %d), want two different children", ps, os.Getpid())
	}
	if ps := pids("-in-process"); ps[0] != os.Getpid() || ps[1] != os.Getpid() {
		t.Errorf("-in-process: pids %v, want this process's %d twice", ps, os.Getpid())
	}
}

// TestRunProcessesFile checks that -o (3 runs, each a process) writes one
// file of every run, as in one process.
func TestRunProcessesFile(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on the real machine; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if _, errOut, err := runCLI(t, "run", "-bench", "^ImulChain$", "-n", "500", "-q", "-o", path); err != nil && !isExit1(err) {
		t.Fatalf("run -o: %v (stderr %q)", err, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"pid"`); n != 3 {
		t.Errorf("%s has %d results with a pid, want 3", path, n)
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
