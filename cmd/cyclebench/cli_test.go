package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/perfevent"
	"github.com/cyclebench/cyclebench/tsc"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// runCLI runs the command line args through run and returns its outputs.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(args, &out, &errb)
	return out.String(), errb.String(), err
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

var (
	hexRE = regexp.MustCompile(`0x[0-9a-fA-F]+`)
	// A number may carry the marks of a shared core ("!"), a less certain
	// ("~") or unchecked ("?") cycle figure: the machine's state, not the
	// output's shape.
	numberRE = regexp.MustCompile(`[!~?]{0,3}[-+±]?[0-9]+(\.[0-9]+)?`)
	spacesRE = regexp.MustCompile(` {2,}`)
)

// mask replaces every number (with its sign) by N and every run of two or
// more spaces by two spaces, so that output measured on different runs and
// machines keeps one shape whatever the widths of its figures.
func mask(s string) string {
	s = hexRE.ReplaceAllString(s, "N")
	s = numberRE.ReplaceAllString(s, "N")
	return spacesRE.ReplaceAllString(s, "  ")
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tsc_hz      2445431941 Hz (2445.431941 MHz)", "tsc_hz  N Hz (N MHz)"},
		{"cross_check  -237 ppm: 2445432000 Hz", "cross_check  N ppm: N Hz"},
		{"tsc_hz_ppm  ±0.0821", "tsc_hz_ppm  N"},
		{"family  25/1/1 (0x19/0x1/0x1)", "family  N/N/N (N/N/N)"},
		{"no numbers here", "no numbers here"},
		{"AddChain  ~?1003.2  ?1.0032  750  (virtualised?)", "AddChain  N  N  N  (virtualised?)"},
		{"SumLoop  !1234  !~2.5", "SumLoop  N  N"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := mask(tt.in); got != tt.want {
				t.Errorf("mask(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Recorded figures from the KVM guest this was written on (AMD EPYC, Zen 3).
var (
	fakeCPU = calibrate.CPU{
		Vendor: "AuthenticAMD", Brand: "AMD EPYC 7B13 64-Core Processor",
		Family: 25, Model: 1, Stepping: 1,
		Hypervisor: "KVMKVMKVM", Virtual: true,
		Counter: tsc.CounterRDTSC, RDTSCP: true, InvariantTSC: true,
		LogicalCPUs: 2, GOOS: "linux", GOARCH: "amd64",
	}
	fakeKernelHz = 2445432000.0
	fakeBracket  = calibrate.Frequency{
		Hz: 2445431941.5, PPM: 0.629, Method: calibrate.MethodBracket,
		Source:   "monotonic clock (CLOCK_MONOTONIC via the Go runtime)",
		Duration: 101 * time.Millisecond, Ticks: 246988626, Brackets: [2]uint64{147, 149},
	}
	fakeSleep = calibrate.Frequency{
		Hz: 2446010521, PPM: 238, Method: calibrate.MethodSleep,
		Source:   "time.Sleep(100ms)",
		Duration: 100023800 * time.Nanosecond, Ticks: 244601052,
		Warnings: []error{fmt.Errorf("%w: the sleep lasted 100.0238ms for 100ms asked (+238 ppm); the textbook method counts that overshoot as ticks", calibrate.ErrSleepBias)},
	}
)

// fakeCrossChecks adds the kernel's figure, as AddCrossChecks does on the
// machine the figures were recorded on.
func fakeCrossChecks(f *calibrate.Frequency, _ calibrate.CPU) {
	f.CrossChecks = append(f.CrossChecks, calibrate.CrossCheck{
		Source: "kernel: /proc/cpuinfo (cpu MHz, tsc_known_freq)",
		Hz:     fakeKernelHz, DiffPPM: ppmDiff(fakeKernelHz, f.Hz),
	})
}

// fakeSys is a system that replays recorded figures, and counts pins.
type fakeSys struct {
	pins, restores int
	pinErr         error // returned by pin when set
	measureErr     error // returned by measure when set
}

// useFake replaces sys with recorded figures until the test ends.
func useFake(t *testing.T) *fakeSys {
	t.Helper()
	old := sys
	t.Cleanup(func() { sys = old })
	f := &fakeSys{}
	sys = system{
		onPinned: func(o pinned.Options, body func(*pinned.Thread) error) error {
			if errors.Is(f.pinErr, errors.ErrUnsupported) {
				// What pinned.Run does where the OS cannot pin.
				return body(&pinned.Thread{CPU: -1, Warnings: []error{fmt.Errorf("%w: %v", pinned.ErrUnpinned, f.pinErr)}})
			}
			if f.pinErr != nil {
				return f.pinErr
			}
			f.pins++
			defer func() { f.restores++ }()
			cpu := o.CPU
			if cpu == -1 {
				cpu = 1
			}
			return body(&pinned.Thread{CPU: cpu})
		},
		allowed: func() ([]int, error) { return []int{0, 1}, nil },
		events: func() []perfevent.Status {
			// As recorded on a KVM guest without a PMU.
			noPMU := fmt.Errorf("%w: cycles: no hardware PMU (virtualised?): ENOENT", perfevent.ErrNoPMU)
			return []perfevent.Status{
				{Event: perfevent.Cycles, Err: noPMU, RDPMC: perfevent.ErrNoRDPMC},
				{Event: perfevent.ContextSwitches, Available: true, RDPMC: perfevent.ErrNoRDPMC},
				{Event: perfevent.PageFaults, Available: true, RDPMC: perfevent.ErrNoRDPMC},
			}
		},
		probe: func() affinity.Capabilities {
			return affinity.Capabilities{Pin: true, High: true, Notes: []string{"high: nice -20 permitted", "realtime: SCHED_FIFO refused"}}
		},
		detectCPU: func() calibrate.CPU { return fakeCPU },
		measure: func(o calibrate.Options) (*calibrate.Calibration, error) {
			if f.measureErr != nil {
				return nil, f.measureErr
			}
			fr := fakeBracket
			fakeCrossChecks(&fr, fakeCPU)
			return &calibrate.Calibration{
				CPU:       fakeCPU,
				Frequency: fr,
				Step:      tsc.StepInfo{Step: 2, GCD: 1, MinDelta: 2, Quantized: true, Deltas: 4000},
				Overhead:  calibrate.Overhead{Min: 54, Median: 56, AsmMin: 40, AsmMedian: 42, Pairs: 20000},
				Core: calibrate.CoreClock{CyclesPerTick: 1.3123, Checked: true, CoreHz: 1.3123 * fakeKernelHz, AddTicksPerOp: 0.762, ImulTicksPerOp: 2.27, ImulAddRatio: 2.977, ImulLatency: 3,
					Imm: calibrate.Folding{TicksPerOp: 0.763, CyclesPerOp: 1.0013}, Short: 2000, Long: 100000, Reps: 30, Tries: 1, Exact: true},
				Took:     113 * time.Millisecond,
				Warnings: []error{fmt.Errorf("%w (KVMKVMKVM): the counter may be virtualised and other guests share the host", calibrate.ErrVirtual)},
			}, nil
		},
		begin: func() {},
		soFar: func() (*calibrate.Calibration, error) {
			fr := fakeBracket
			fr.Duration = 2 * time.Second
			return &calibrate.Calibration{CPU: fakeCPU, Frequency: fr}, nil
		},
		bracket:     func(time.Duration) (calibrate.Frequency, error) { return fakeBracket, nil },
		sleep:       func(time.Duration) (calibrate.Frequency, error) { return fakeSleep, nil },
		crossChecks: fakeCrossChecks,
		goVersion:   "go1.26.0",
		goos:        "linux",
		goarch:      "amd64",
	}
	return f
}

// TestGolden runs each subcommand on recorded figures and compares the whole
// output with testdata/*.golden.
func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		args []string
	}{
		{"info.golden", []string{"info"}},
		{"info.json.golden", []string{"info", "-json"}},
		{"info_cpu0.golden", []string{"info", "-cpu", "0", "-duration", "10ms"}},
		{"calibrate.golden", []string{"calibrate"}},
		{"calibrate.json.golden", []string{"calibrate", "-json"}},
		{"calibrate_sleep.golden", []string{"calibrate", "-method", "sleep", "-duration", "10ms"}},
		{"calibrate_both.golden", []string{"calibrate", "-method", "both"}},
		{"calibrate_both.json.golden", []string{"calibrate", "-method", "both", "-json"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f := useFake(t)
			out, errOut, err := runCLI(t, tt.args...)
			if err != nil {
				t.Fatalf("run: %v (stderr %q)", err, errOut)
			}
			checkOnlyWarnings(t, errOut)
			if f.pins != 1 || f.restores != 1 {
				t.Errorf("pinned %d times and restored %d times, want once each", f.pins, f.restores)
			}
			if strings.HasSuffix(tt.file, ".json.golden") && !json.Valid([]byte(out)) {
				t.Errorf("output is not one valid JSON value:\n%s", out)
			}
			golden(t, tt.file, out)
		})
	}
}

// checkOnlyWarnings fails unless every line of stderr is a warning.
func checkOnlyWarnings(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "warning: ") {
			t.Errorf("stderr line %q is not a warning", l)
		}
	}
}

// TestHelpGolden checks the -h text of some subcommands.
func TestHelpGolden(t *testing.T) {
	for _, name := range []string{"info", "calibrate"} {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := runCLI(t, name, "-h")
			if err != nil || errOut != "" {
				t.Fatalf("run(%s -h) = %v, stderr %q; want nil and nothing on stderr", name, err, errOut)
			}
			golden(t, name+"_help.golden", out)
		})
	}
}

// TestHelp checks that every subcommand in the table answers -h on stdout
// with its usage, every flag with a placeholder for its value and no empty
// default, 2 to 4 examples, the exit statuses, and success; and that the
// text never speaks of "seeds".
func TestHelp(t *testing.T) {
	flagsOf := map[string][]string{
		"info":      {"-format table|json|csv", "-json", "-cpu N", "-duration DURATION", "-o FILE", "-q"},
		"calibrate": {"-json", "-cpu N", "-duration DURATION", "-method bracket|sleep|both"},
		"run":       {"-format table|bench|json|csv|md", "-strict", "-q", "-o FILE", "-bench REGEXP", "-max-time DURATION"},
		"cpe":       {"-format table|bench|json|csv|md", "-strict", "-plot FILE", "-plot-size WxH"},
		"compare":   {"-format table|bench|json|csv|md", "-strict", "-plot FILE", "-plot-size WxH", "-noise BAND"},
		"validate":  {"-format table|json|csv", "-json", "-quick"},
		"clocks":    {"-format table|json|csv", "-json", "-demo none|utilisation"},
		"version":   {"-format table|json|csv", "-json", "-deps"},
	}
	for _, c := range commands {
		for _, h := range []string{"-h", "-help", "--help"} {
			t.Run(c.name+" "+h, func(t *testing.T) {
				out, errOut, err := runCLI(t, c.name, h)
				if err != nil || errOut != "" {
					t.Fatalf("run(%s %s) = %v, stderr %q; want nil and nothing on stderr", c.name, h, err, errOut)
				}
				if !strings.HasPrefix(out, "usage: cyclebench "+c.name) {
					t.Errorf("usage does not start with %q:\n%s", "usage: cyclebench "+c.name, out)
				}
				for _, bad := range []string{`(default "")`, "(default false)", " value\n", "seed"} {
					if strings.Contains(strings.ToLower(out), bad) {
						t.Errorf("help holds %q:\n%s", bad, out)
					}
				}
				_, examples, _ := strings.Cut(out, "\nexamples:\n")
				if n := strings.Count("\n"+examples, "\n  cyclebench "+c.name); n < 2 || n > 4 {
					t.Errorf("%d examples, want 2 to 4:\n%s", n, out)
				}
				if !strings.Contains(out, "\nexit status: 0 ") {
					t.Errorf("help does not state the exit statuses:\n%s", out)
				}
				for _, f := range flagsOf[c.name] {
					if !strings.Contains(out, "\n  "+f+"\n") {
						t.Errorf("usage does not list %s:\n%s", f, out)
					}
				}
			})
		}
	}
}

// TestTopLevelHelp checks that cyclebench -h lists every subcommand in the
// table, and that help NAME gives that subcommand's usage.
func TestTopLevelHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, _, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("run(%q) = %v, want nil", args, err)
			}
			for _, c := range commands {
				if !strings.Contains(out, "  "+c.name+"  ") || !strings.Contains(out, c.summary) {
					t.Errorf("help does not list %s with its summary:\n%s", c.name, out)
				}
			}
		})
	}
	t.Run("help calibrate", func(t *testing.T) {
		out, _, err := runCLI(t, "help", "calibrate")
		if err != nil || !strings.HasPrefix(out, "usage: cyclebench calibrate") {
			t.Errorf("run(help calibrate) = %v, stdout %q; want nil and the calibrate usage", err, out)
		}
	})
	for _, v := range []string{"--version", "-version"} {
		t.Run(v, func(t *testing.T) {
			out, _, err := runCLI(t, v)
			if err != nil || !strings.HasPrefix(out, "cyclebench ") {
				t.Errorf("run(%s) = %v, stdout %q; want the version", v, err, out)
			}
		})
	}
}

// pinningSupported reports whether this OS can pin threads, so that a -cpu
// outside the allowed set is an error rather than a warning.
func pinningSupported() bool {
	_, err := affinity.CurrentCPU()
	return !errors.Is(err, errors.ErrUnsupported)
}

// TestUsageErrors runs bad command lines on the real machine: each must fail
// before measuring anything, with a *usageError (exit status 2) that names
// the bad value.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args    []string
		want    string // in the message
		needPin bool   // the error comes from affinity, which needs pinning
	}{
		{nil, "no subcommand", false},
		{[]string{"frobnicate"}, `"frobnicate"`, false},
		{[]string{"info", "-bogus"}, "-bogus", false},
		{[]string{"calibrate", "-bogus"}, "-bogus", false},
		{[]string{"info", "extra"}, `"extra"`, false},
		{[]string{"info", "-duration", "0"}, "-duration 0s", false},
		{[]string{"info", "-duration", "2h"}, "-duration 2h0m0s", false},
		{[]string{"calibrate", "-duration", "0"}, "-duration 0s", false},
		{[]string{"calibrate", "-duration", "-1s"}, "-duration -1s", false},
		{[]string{"calibrate", "-duration", "61m"}, "1h0m0s", false},
		{[]string{"calibrate", "-duration", "soon"}, `"soon"`, false},
		{[]string{"calibrate", "-duration", "100"}, "100ms", false},
		{[]string{"calibrate", "-method", "guess"}, `"guess"`, false},
		{[]string{"calibrate", "-method", "guess"}, "bracket, sleep, both", false},
		{[]string{"calibrate", "-json=maybe"}, "maybe", false},
		{[]string{"info", "-cpu", "-5"}, "-5", true},
		{[]string{"calibrate", "-cpu", "-5"}, "-5", true},
		{[]string{"info", "-cpu", "9999"}, "9999", true},
		{[]string{"calibrate", "-cpu", "9999", "-duration", "10ms"}, "9999", true},
		{[]string{"calibrate", "-cpu", "x"}, `"x"`, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if tt.needPin && !pinningSupported() {
				t.Skip("this OS cannot pin threads, so a bad -cpu is only a warning")
			}
			out, errOut, err := runCLI(t, tt.args...)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("run(%q) = %v (%T), want a *usageError", tt.args, err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if len(tt.args) > 0 && errOut != "" {
				t.Errorf("stderr = %q, want nothing (main prints the error)", errOut)
			}
			var msg bytes.Buffer
			if st := exitStatus(err, &msg); st != exitUsage {
				t.Errorf("exit status %d, want %d", st, exitUsage)
			}
			want := "cyclebench: " + err.Error() + "\n"
			if len(tt.args) > 1 {
				want = "cyclebench " + err.Error() + "\n" // cyclebench info: ...
				if !strings.HasPrefix(err.Error(), tt.args[0]+": ") {
					t.Errorf("error %q does not name the subcommand", err)
				}
			}
			if msg.String() != want {
				t.Errorf("main prints %q, want %q", msg.String(), want)
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	plain := errors.New("calibrate: unstable measurement")
	tests := []struct {
		name   string
		err    error
		status int
		msg    string
	}{
		{"success", nil, 0, ""},
		{"help", errHelp, 0, ""},
		{"usage", usageErrorf("bad -x %q", "y"), exitUsage, "cyclebench: bad -x \"y\"\n"},
		{"wrapped usage", fmt.Errorf("info: %w", usageErrorf("bad")), exitUsage, "cyclebench: info: bad\n"},
		{"failure", plain, exitFailure, "cyclebench: calibrate: unstable measurement\n"},
		{"silent 1", &exitError{code: 1}, 1, ""},
		{"silent 3", fmt.Errorf("run: %w", &exitError{code: 3}), 3, ""},
		{"summary", &cmdError{"cpe", &exitError{code: 1, msg: "2 of 20 sizes did not converge; results in x.json"}}, 1, "cyclebench cpe: 2 of 20 sizes did not converge; results in x.json\n"},
		{"subcommand", &cmdError{"run", usageErrorf("-n -1: out of range")}, exitUsage, "cyclebench run: -n -1: out of range\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg bytes.Buffer
			if st := exitStatus(tt.err, &msg); st != tt.status || msg.String() != tt.msg {
				t.Errorf("exitStatus(%v) = %d, printed %q; want %d, %q", tt.err, st, msg.String(), tt.status, tt.msg)
			}
		})
	}
}

// TestFailures: a failed measurement is exit status 1 and the thread is
// still restored; pinning that the OS does not support is a warning.
func TestFailures(t *testing.T) {
	t.Run("measure fails", func(t *testing.T) {
		f := useFake(t)
		f.measureErr = fmt.Errorf("%w: every bracket straddled a CPU migration", calibrate.ErrUnstable)
		_, _, err := runCLI(t, "info")
		if !errors.Is(err, calibrate.ErrUnstable) {
			t.Fatalf("err = %v, want ErrUnstable", err)
		}
		if st := exitStatus(err, new(bytes.Buffer)); st != exitFailure {
			t.Errorf("exit status %d, want %d", st, exitFailure)
		}
		if f.pins != 1 || f.restores != 1 {
			t.Errorf("pinned %d times and restored %d times, want once each", f.pins, f.restores)
		}
	})
	t.Run("pin fails", func(t *testing.T) {
		f := useFake(t)
		f.pinErr = errors.New("affinity: sched_setaffinity: input/output error")
		_, _, err := runCLI(t, "calibrate")
		var ue *usageError
		if err == nil || errors.As(err, &ue) {
			t.Fatalf("err = %v, want a failure that is not a usage error", err)
		}
	})
	t.Run("pin unsupported", func(t *testing.T) {
		for _, args := range [][]string{{"info", "-json"}, {"calibrate", "-json"}} {
			f := useFake(t)
			f.pinErr = fmt.Errorf("affinity: pinning on plan9/amd64: %w", errors.ErrUnsupported)
			out, _, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("run(%q) = %v, want success with a warning", args, err)
			}
			var r struct {
				PinnedCPU int      `json:"pinned_cpu"`
				Warnings  []string `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.PinnedCPU != -1 || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "thread not pinned") {
				t.Errorf("%q: pinned_cpu %d, warnings %q; want -1 and a warning about pinning first", args, r.PinnedCPU, r.Warnings)
			}
		}
	})
}

func TestParseMaxCV(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"", 0, false}, {"0.1%", 0.001, false}, {"0.001", 0.001, false}, {" 2%", 0.02, false},
		{"0", 0, true}, {"-1%", 0, true}, {"100%", 0, true}, {"1", 0, true}, {"NaN", 0, true}, {"x%", 0, true},
	} {
		got, err := parseMaxCV(tt.in)
		if (err != nil) != tt.bad || math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("parseMaxCV(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

// ppmDiff returns (a − b) / b in parts per million.
func ppmDiff(a, b float64) float64 { return (a - b) / b * 1e6 }
