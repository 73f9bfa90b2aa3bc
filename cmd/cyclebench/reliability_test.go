package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/lab"
	"github.com/cyclebench/cyclebench/selfcheck"
	"github.com/cyclebench/cyclebench/stats"
)

// badInput is one invalid input to the library or the command line.
type badInput struct {
	name string
	// lib calls the library with the bad input; nil for a command line.
	lib func() error
	// args is the command line (without "cyclebench"); used when lib is nil.
	args []string
	// is is the sentinel the library error must wrap (nil: not checked).
	is error
	// want are substrings the message must hold: the bad value, and what
	// is allowed.
	want []string
	// exit is the CLI's exit status: 2 for usage errors, 1 for failures.
	exit int
	// linuxOnly marks inputs whose check needs thread pinning (Linux).
	linuxOnly bool
	// needs names the subcommand a command line needs; the case is skipped
	// while this build has no such subcommand.
	needs string
}

// measureErr runs harness.Measure with cfg on an empty function.
func measureErr(cfg harness.Config) func() error {
	return measureTargetErr(cfg, harness.Target{Run: func() {}})
}

// measureTargetErr runs harness.Measure with cfg on t.
func measureTargetErr(cfg harness.Config, t harness.Target) func() error {
	return func() error { _, err := harness.Measure(context.Background(), cfg, t); return err }
}

// labErr runs lab.Clocks with cfg on k.
func labErr(cfg lab.Config, k harness.Target) func() error {
	return func() error { _, err := lab.Clocks(context.Background(), cfg, k); return err }
}

// labKernelOK is a valid lab kernel, for the entries whose Config is bad.
var labKernelOK = harness.Target{Name: "ok", Run: func() {}}

func cfgWith(edit func(*harness.Config)) harness.Config {
	c := harness.DefaultConfig()
	edit(&c)
	return c
}

// pinErr runs affinity.Pin with o on a throwaway goroutine and restores
// what it pinned, should it succeed.
func pinErr(o affinity.Options) func() error {
	return func() error {
		ch := make(chan error, 1)
		go func() {
			p, err := affinity.Pin(o)
			if err == nil {
				p.Restore()
			}
			ch <- err
		}()
		return <-ch
	}
}

// badInputs is every invalid input the reliability table covers. Library
// entries must return an error wrapping is whose message names the value
// and what is allowed; command lines must fail with exit status exit and a
// one-line message doing the same.
func badInputs(t *testing.T) []badInput {
	dir := t.TempDir()
	kernel, err := benchexamples.Lookup("SortInts")
	if err != nil {
		t.Fatal(err)
	}
	in := []badInput{
		// harness.Config fields
		{name: "harness K", lib: measureErr(cfgWith(func(c *harness.Config) { c.K = -1 })), is: harness.ErrBadConfig, want: []string{"K -1", "1 to 1000"}},
		{name: "harness Epsilon", lib: measureErr(cfgWith(func(c *harness.Config) { c.Epsilon = 1.5 })), is: harness.ErrBadConfig, want: []string{"1.5", "< 1"}},
		{name: "harness MaxSamples < K", lib: measureErr(cfgWith(func(c *harness.Config) { c.K, c.MaxSamples = 5, 2 })), is: harness.ErrBadConfig, want: []string{"MaxSamples 2", "at least K = 5"}},
		{name: "harness MaxTime", lib: measureErr(cfgWith(func(c *harness.Config) { c.MaxTime = -time.Second })), is: harness.ErrBadConfig, want: []string{"MaxTime -1s", "> 0"}},
		{name: "harness CPU -7", lib: measureErr(cfgWith(func(c *harness.Config) { c.CPU = -7 })), is: harness.ErrBadConfig, want: []string{"CPU -7", "-1 for any"}},
		{name: "harness CPU outside the allowed set", lib: measureErr(cfgWith(func(c *harness.Config) { c.CPU = 4095 })), is: affinity.ErrInvalidCPU, want: []string{"4095", "allowed set ["}, linuxOnly: true},
		{name: "harness RTTimeLimit", lib: measureErr(cfgWith(func(c *harness.Config) { c.Realtime, c.RTTimeLimit = true, 2*time.Hour })), is: harness.ErrBadConfig, want: []string{"RTTimeLimit 2h0m0s", "0 to 1h0m0s"}},
		{name: "harness Repeat", lib: measureErr(cfgWith(func(c *harness.Config) { c.Repeat = 1<<24 + 1 })), is: harness.ErrBadConfig, want: []string{fmt.Sprint("Repeat ", 1<<24+1), fmt.Sprint("1 to ", 1<<24)}},
		{name: "harness MinRegionSteps NaN", lib: measureErr(cfgWith(func(c *harness.Config) { c.MinRegionSteps = math.NaN() })), is: harness.ErrBadConfig, want: []string{"MinRegionSteps NaN", "1 to 1e9"}},
		{name: "harness Elements", lib: measureTargetErr(harness.DefaultConfig(), harness.Target{Run: func() {}, Elements: -3}), is: harness.ErrBadConfig, want: []string{"Elements -3", "≥ 0"}},
		{name: "harness Setup with Repeat", lib: measureTargetErr(cfgWith(func(c *harness.Config) { c.Repeat = 4 }), harness.Target{Run: func() {}, Setup: func() {}}), is: harness.ErrBadConfig, want: []string{"Repeat 4", "0 or 1"}},
		{name: "harness nil function", lib: measureTargetErr(harness.DefaultConfig(), harness.Target{}), is: harness.ErrBadConfig, want: []string{"Run is nil"}},
		{name: "selfcheck Validate lengths", lib: func() error {
			_, err := selfcheck.Validate(context.Background(), selfcheck.Options{Lengths: []int{10, 20}})
			return err
		}, is: harness.ErrBadConfig, want: []string{"2 chain lengths", "at least 3"}},
		// lab.Config and kernels: lab's sentinels, which are also harness's
		{name: "lab Reps", lib: labErr(lab.Config{CPU: -1, Reps: lab.MaxReps + 1}, labKernelOK), is: harness.ErrBadConfig, want: []string{fmt.Sprint("Reps ", lab.MaxReps+1), fmt.Sprint("1 to ", lab.MaxReps)}},
		{name: "lab Tolerance", lib: labErr(lab.Config{CPU: -1, Tolerance: 2}, labKernelOK), is: lab.ErrBadConfig, want: []string{"Tolerance 2", "0 < tolerance < 1"}},
		{name: "lab CPU -4", lib: labErr(lab.Config{CPU: -4}, labKernelOK), is: harness.ErrBadConfig, want: []string{"CPU -4", "-1 for any"}},
		{name: "lab unknown clock", lib: labErr(lab.Config{CPU: -1, Methods: []cputime.Clock{cputime.Clock(42)}}, labKernelOK), is: lab.ErrBadConfig, want: []string{"Clock(42)", "wall-ms"}},
		{name: "lab nil Run", lib: labErr(lab.DefaultConfig(), harness.Target{Name: "broken"}), is: harness.ErrBadConfig, want: []string{`"broken"`, "no Run"}},
		{name: "lab utilisation nil Run", lib: func() error {
			_, err := lab.Utilisation(context.Background(), lab.DefaultConfig(), harness.Target{Name: "broken"})
			return err
		}, is: lab.ErrBadConfig, want: []string{`"broken"`, "no Run"}},
		// affinity
		{name: "affinity Pin CPU -3", lib: pinErr(affinity.Options{CPU: -3}), is: affinity.ErrInvalidCPU, want: []string{"cpu -3", "-1"}},
		{name: "affinity Pin priority 9", lib: pinErr(affinity.Options{CPU: -1, Priority: 9}), is: affinity.ErrInvalidOption, want: []string{"priority 9", "(realtime)"}},
		{name: "affinity Pin RTTimeLimit", lib: pinErr(affinity.Options{CPU: -1, Priority: affinity.PriorityRealtime, RTTimeLimit: -time.Second}), is: affinity.ErrInvalidOption, want: []string{"-1s", "<= 1h0m0s"}},
		{name: "affinity ParsePriority", lib: func() error { _, err := affinity.ParsePriority("turbo"); return err }, is: affinity.ErrInvalidOption, want: []string{`"turbo"`, "normal, high, realtime"}},
		{name: "affinity SetThreadCPU tid 0", lib: func() error { return affinity.SetThreadCPU(0, 0) }, is: affinity.ErrInvalidOption, want: []string{"thread id 0", "> 0"}, linuxOnly: true},
		{name: "affinity SetThreadCPU cpu -1", lib: func() error { return affinity.SetThreadCPU(affinity.ThreadID(), -1) }, is: affinity.ErrInvalidCPU, want: []string{"cpu -1", ">= 0"}, linuxOnly: true},
		// calibrate
		{name: "calibrate Bracket 0", lib: func() error { _, err := calibrate.Bracket(0); return err }, is: calibrate.ErrBadDuration, want: []string{"0s", calibrate.MinDuration.String()}},
		{name: "calibrate Sleep 2h", lib: func() error { _, err := calibrate.Sleep(2 * time.Hour); return err }, is: calibrate.ErrBadDuration, want: []string{"2h0m0s", calibrate.MaxDuration.String()}},
		{name: "calibrate method", lib: func() error { _, err := calibrate.Measure(calibrate.Options{Method: "guess"}); return err }, is: calibrate.ErrBadMethod, want: []string{`"guess"`, calibrate.MethodBracket}},
		{name: "calibrate overhead pairs", lib: func() error { _, err := calibrate.MeasureOverhead(1); return err }, is: calibrate.ErrBadCount, want: []string{"1", fmt.Sprint(calibrate.MinPairs)}},
		{name: "calibrate core chain lengths", lib: func() error {
			_, err := calibrate.MeasureCoreClock(calibrate.CoreOptions{Short: 5000, Long: 5500})
			return err
		}, is: calibrate.ErrBadCount, want: []string{"5500", "1000"}},
		// stats
		{name: "stats K-best k 0", lib: func() error { _, err := stats.NewKBest(0, 0.01, 0, 10); return err }, is: stats.ErrBadParam, want: []string{"k = 0", "k >= 1"}},
		{name: "stats K-best eps NaN", lib: func() error { _, err := stats.NewKBest(3, math.NaN(), 0, 10); return err }, is: stats.ErrBadParam, want: []string{"NaN", "finite"}},
		{name: "stats summary NaN sample", lib: func() error { _, err := stats.Summarize([]float64{1, math.NaN(), 3}); return err }, is: stats.ErrBadValue, want: []string{"NaN"}},
		{name: "stats quantile 1.5", lib: func() error { _, err := stats.Summarize([]float64{1, 2, 3}, 1.5); return err }, is: stats.ErrBadParam, want: []string{"1.5", "0 <= p <= 1"}},
		{name: "stats fit length mismatch", lib: func() error { _, err := stats.LinearFit([]float64{1, 2, 3}, []float64{1, 2}); return err }, is: stats.ErrLengthMismatch, want: []string{"3", "2"}},
		{name: "stats compare alpha", lib: func() error {
			_, err := stats.ComparePaired([]float64{1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 4, 5, 6}, stats.CompareOptions{Alpha: 2})
			return err
		}, is: stats.ErrBadParam, want: []string{"Alpha = 2", "0 < Alpha < 1"}},
		// cputime
		{name: "cputime clock name", lib: func() error { _, err := cputime.ParseClock("sundial"); return err }, want: []string{`"sundial"`, "monotonic"}},
		{name: "cputime clock number", lib: func() error { _, err := cputime.NewStopwatch(cputime.Clock(99)); return err }, want: []string{"99"}},
		{name: "cputime /proc/stat", lib: func() error { _, err := cputime.ParseProcStat("garbage\n"); return err }, want: []string{"cpu"}},
		{name: "cputime /proc/self/stat", lib: func() error { _, err := cputime.ParseProcSelfStat("1 (x"); return err }, want: []string{")"}},
		// bench_examples
		{name: "benchexamples Lookup", lib: func() error { _, err := benchexamples.Lookup("Nope"); return err }, is: benchexamples.ErrUnknown, want: []string{`"Nope"`, "SortInts"}},
		{name: "benchexamples Select regexp", lib: func() error { _, err := benchexamples.Select("("); return err }, is: benchexamples.ErrBadPattern, want: []string{`"("`}},
		{name: "benchexamples Select no match", lib: func() error { _, err := benchexamples.Select("zzz"); return err }, is: benchexamples.ErrNoMatch, want: []string{`"zzz"`, "SortInts"}},
		{name: "benchexamples size", lib: func() error { _, err := kernel.New(-1); return err }, is: benchexamples.ErrBadSize, want: []string{"-1", fmt.Sprint(kernel.MaxN)}},

		// command lines: usage errors, exit status 2
		{name: "cli unknown subcommand", args: []string{"frobnicate"}, want: []string{`"frobnicate"`, "run"}, exit: 2},
		{name: "cli no subcommand", args: []string{}, want: []string{"no subcommand"}, exit: 2},
		{name: "cli run unknown flag", args: []string{"run", "-bogus"}, want: []string{"-bogus", "run -h"}, exit: 2},
		{name: "cli run positional", args: []string{"run", "extra"}, want: []string{`"extra"`, "only flags"}, exit: 2},
		{name: "cli run bad regexp", args: []string{"run", "-bench", "("}, want: []string{`-bench "("`}, exit: 2},
		{name: "cli run regexp matching nothing", args: []string{"run", "-bench", "zzz"}, want: []string{`"zzz"`, "SortInts"}, exit: 2},
		{name: "cli run -n negative", args: []string{"run", "-n", "-1"}, want: []string{"-n -1", "positive"}, exit: 2},
		{name: "cli run -n too big", args: []string{"run", "-bench", "^SortInts$", "-n", "99999999"}, want: []string{"99999999", fmt.Sprint(kernel.MaxN)}, exit: 2},
		{name: "cli run -n not a number", args: []string{"run", "-n", "many"}, want: []string{`"many"`, "-n"}, exit: 2},
		{name: "cli run -count 0", args: []string{"run", "-count", "0"}, want: []string{"-count 0", "1 to 10000"}, exit: 2},
		{name: "cli run -k 0", args: []string{"run", "-k", "0"}, want: []string{"-k 0", "1 to 1000"}, exit: 2},
		{name: "cli run -eps 1", args: []string{"run", "-eps", "1"}, want: []string{"-eps 1", "< 1"}, exit: 2},
		{name: "cli run -eps NaN", args: []string{"run", "-eps", "NaN"}, want: []string{"-eps NaN", "< 1"}, exit: 2},
		{name: "cli run -m below -k", args: []string{"run", "-k", "5", "-m", "2"}, want: []string{"-m 2", "K = 5"}, exit: 2},
		{name: "cli run -max-time 0", args: []string{"run", "-max-time", "0s"}, want: []string{"-max-time 0s", "> 0"}, exit: 2},
		{name: "cli run -max-time soon", args: []string{"run", "-max-time", "soon"}, want: []string{`"soon"`, "max-time"}, exit: 2},
		{name: "cli run -min-time past -max-time", args: []string{"run", "-min-time", "20s"}, want: []string{"-min-time 20s", "0 to MaxTime (10s)"}, exit: 2},
		{name: "cli run -min-time soon", args: []string{"run", "-min-time", "soon"}, want: []string{`"soon"`, "min-time"}, exit: 2},
		{name: "cli run -cpu -2", args: []string{"run", "-cpu", "-2"}, want: []string{"-cpu -2", "-1"}, exit: 2},
		{name: "cli run -cpu 4095", args: []string{"run", "-cpu", "4095"}, want: []string{"-cpu 4095", "allowed set"}, exit: 2, linuxOnly: true},
		{name: "cli run -priority", args: []string{"run", "-priority", "turbo"}, want: []string{`"turbo"`, "normal, high, realtime"}, exit: 2},
		{name: "cli run -format", args: []string{"run", "-format", "xml"}, want: []string{`"xml"`, "table, bench, json, csv"}, exit: 2},
		{name: "cli run -o missing directory", args: []string{"run", "-bench", "^SortInts$", "-o", filepath.Join(dir, "missing", "out.json")}, want: []string{filepath.Join(dir, "missing", "out.json"), "does not exist"}, exit: 2},
		{name: "cli run -o a directory", args: []string{"run", "-bench", "^SortInts$", "-o", dir}, want: []string{dir, "is a directory"}, exit: 2},
		{name: "cli validate -reps", args: []string{"validate", "-reps", "2"}, want: []string{"-reps 2", "3 to 1000"}, exit: 2},
		{name: "cli validate -max-cv word", args: []string{"validate", "-max-cv", "tight"}, want: []string{`-max-cv "tight"`, "0.1%", "0.001"}, exit: 2},
		{name: "cli validate -max-cv 100%", args: []string{"validate", "-max-cv", "100%"}, want: []string{`-max-cv "100%"`, "below 100%"}, exit: 2},
		{name: "cli validate -max-cv 0", args: []string{"validate", "-max-cv", "0"}, want: []string{`-max-cv "0"`, "above 0%"}, exit: 2},
		{name: "selfcheck Validate MaxCV", lib: func() error {
			_, err := selfcheck.Validate(context.Background(), selfcheck.Options{MaxCV: -1})
			return err
		}, is: harness.ErrBadConfig, want: []string{"MaxCV -1", "below 1"}},
		{name: "selfcheck Validate latency lengths", lib: func() error {
			_, err := selfcheck.Validate(context.Background(), selfcheck.Options{LatencyLengths: []int{0, 10, 20}})
			return err
		}, is: harness.ErrBadConfig, want: []string{"latency chain length 0", "1 to 1e9"}},
		{name: "cli calibrate -duration", args: []string{"calibrate", "-duration", "2h"}, want: []string{"2h0m0s", calibrate.MaxDuration.String()}, exit: 2},
		{name: "cli calibrate -method", args: []string{"calibrate", "-method", "guess"}, want: []string{`"guess"`, "bracket, sleep, both"}, exit: 2},
		{name: "cli info -cpu", args: []string{"info", "-cpu", "4095"}, want: []string{"4095", "allowed set"}, exit: 2, linuxOnly: true},

		{name: "cli cpe size list", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-sizes", "1,x"}, want: []string{`"x"`, "integer"}, exit: 2},
		{name: "cli cpe size too big", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-sizes", "100,200,99999999999"}, want: []string{"99999999999", "allowed"}, exit: 2},
		{name: "cli cpe range backwards", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-range", "10:5:1"}, want: []string{"10:5:1", "allowed"}, exit: 2},
		{name: "cli cpe log count", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-log", "64:65536:1"}, want: []string{"count 1", "3 to 1000"}, exit: 2},
		{name: "cli cpe sizes two ways", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-sizes", "100,200,300", "-range", "1:20:1"}, want: []string{"-sizes and -range", "one way"}, exit: 2},
		{name: "cli cpe no kernel", needs: "cpe", args: []string{"cpe", "-sizes", "100,200,300"}, want: []string{"-bench", "missing"}, exit: 2},
		{name: "cli cpe plot format", needs: "cpe", args: []string{"cpe", "-bench", "AddChain", "-sizes", "100,200,300", "-plot", "out.gif"}, want: []string{"out.gif", ".svg, .png or .pdf"}, exit: 2},

		// command lines: a measurement that fails, exit status 1
		{name: "cli run not converged", args: []string{"run", "-strict", "-bench", "^AddChain$", "-k", "1000", "-m", "1000", "-max-time", "1ms", "-format", "csv"}, exit: 1},
	}
	// Every subcommand this build has, present now or added later (cpe,
	// compare, ...), rejects an unknown flag.
	for _, c := range commands {
		in = append(in, badInput{name: "cli " + c.name + " unknown flag", args: []string{c.name, "-no-such-flag"}, want: []string{"-no-such-flag", c.name + " -h"}, exit: 2})
	}
	return in
}

// TestBadInputs feeds every entry of badInputs to the library or the CLI:
// none may panic; each must fail with a clear one-line message naming the
// bad value and what is allowed, and the CLI with the right exit status.
func TestBadInputs(t *testing.T) {
	inputs := badInputs(t)
	lib, cli := 0, 0
	for _, in := range inputs {
		if in.lib != nil {
			lib++
		} else {
			cli++
		}
	}
	t.Logf("%d bad inputs: %d to the library, %d command lines", len(inputs), lib, cli)
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			if in.linuxOnly && runtime.GOOS != "linux" {
				t.Skip("needs thread pinning, which this table checks on Linux")
			}
			if _, ok := lookup(in.needs); in.needs != "" && !ok {
				t.Skipf("this build has no %q subcommand yet", in.needs)
			}
			var err error
			var stdout, stderr bytes.Buffer
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				if in.lib != nil {
					err = in.lib()
				} else {
					err = run(in.args, &stdout, &stderr)
				}
			}()
			if in.lib == nil {
				checkCLIFailure(t, in, err, stdout.String())
				return
			}
			if err == nil {
				t.Fatalf("no error")
			}
			if in.is != nil && !errors.Is(err, in.is) {
				t.Errorf("error %q does not wrap %v", err, in.is)
			}
			checkMessage(t, err.Error(), in.want)
			if pkg, _, ok := strings.Cut(err.Error(), ":"); !ok || strings.ContainsAny(pkg, " \"") {
				t.Errorf("error %q is not prefixed with its package name", err)
			}
		})
	}
}

func checkMessage(t *testing.T, msg string, want []string) {
	t.Helper()
	t.Logf("message: %s", msg)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not name %q", msg, w)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is more than one line", msg)
	}
}

func checkCLIFailure(t *testing.T, in badInput, err error, stdout string) {
	t.Helper()
	if err == nil {
		t.Fatalf("cyclebench %q succeeded", in.args)
	}
	var msg bytes.Buffer
	st := exitStatus(err, &msg)
	if st != in.exit {
		t.Errorf("cyclebench %q: exit status %d, want %d (err %v)", in.args, st, in.exit, err)
	}
	if in.exit == exitUsage {
		if stdout != "" {
			t.Errorf("a usage error printed results: %q", stdout)
		}
		prefix := "cyclebench: "
		if len(in.args) > 1 {
			prefix = "cyclebench " + in.args[0] + ": "
		}
		if !strings.HasPrefix(msg.String(), prefix) {
			t.Errorf("message %q does not start with %q", msg.String(), prefix)
		}
		checkMessage(t, strings.TrimSuffix(msg.String(), "\n"), in.want)
		if strings.Contains(msg.String(), "benchexamples:") {
			t.Errorf("message %q names an internal package", msg.String())
		}
		return
	}
	// A failed measurement still writes what it measured, and says it
	// failed there rather than in a message.
	if stdout == "" {
		t.Errorf("cyclebench %q: a failed measurement printed no results", in.args)
	}
	if !strings.Contains(stdout, "false") && !strings.Contains(stdout, "NO") {
		t.Errorf("cyclebench %q: the output does not show the failure:\n%s", in.args, stdout)
	}
}

// TestBadOutputPathKeepsFile: a run whose -o cannot be written leaves no
// temporary file behind, and a good -o replaces an existing file whole.
func TestBadOutputPathKeepsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	const old = "previous results, must be replaced whole\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, "run", "-bench", "^AddChain$", "-m", "20", "-format", "csv", "-o", path)
	if err != nil && exitStatus(err, new(bytes.Buffer)) != exitFailure {
		t.Fatal(err)
	}
	b, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if string(b) == old || !strings.HasPrefix(string(b), "name,mode,kernel,") {
		t.Errorf("-o %s holds %q, want the new CSV", path, b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only out.csv (no temporary file left)", names)
	}
}
