package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/internal/sigfig"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/selfcheck"
)

func runValidate(args []string, stdout, stderr io.Writer) error {
	s := newSession("validate", "[-quick] [-reps N] [-max-cv PCT] [-format table|json|csv] [flags]",
		"Check the tool on this machine against kernels whose cost is known, and\n"+
			"measure how noisy the machine is now.\n\n"+
			"Correctness (decides the exit status): cycles per op of dependent register ADD\n"+
			"and IMUL chains (1 and 3 on Intel's big cores and AMD Zen), fitted over several\n"+
			"lengths calls back to back and calls fenced apart, each chain judged by the\n"+
			"ruler made of the other; an immediate ADD chain, whose cycles must follow its\n"+
			"ticks (about 0.2 per op where the core folds it at rename, 1 elsewhere); the\n"+
			"fits' linearity; the empty function (0 after overhead subtraction); every\n"+
			"measurement's two rulers agreeing.\n\n"+
			"Machine state (reported with a verdict; it decides the exit status only with\n"+
			"-max-cv): the spread of ten results in each mode, testing.Benchmark's beside it,\n"+
			"the smallest difference an A/A comparison resolves now, how far the core clock\n"+
			"moved, disturbed samples, and the wall time to a result. About 15 s; 3 s with\n"+
			"-quick.", stdout)
	fs := s.fs
	reps := fs.Int("reps", 10, "repetitions `N` of the 1000-ADD kernel for the spread of results (3 to 1000)")
	quick := fs.Bool("quick", false, "skip the testing.Benchmark side (it takes about a second per repetition)")
	maxCV := fs.String("max-cv", "", "also fail when the spread (CV) of the results in either mode exceeds `PCT` (0.1% or\n0.001): for a CI job that needs a quiet runner")
	s.o = addOutputFlags(fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	s.mf = addMeasureFlags(fs, false)
	fs.exits = "0 every correctness check passed (and, with -max-cv, the spreads were within it);\n1 a check failed (the failed checks are named); 2 a usage error; 130 or 143\nafter SIGINT or SIGTERM (the checks that finished are written first)."
	fs.example("cyclebench validate", "every check, with testing.Benchmark alongside")
	fs.example("cyclebench validate -quick -format json -o validate.json", "without testing.Benchmark, as JSON")
	fs.example("cyclebench validate -quick -max-cv 0.1%", "fail also when this moment is too noisy for 0.1%")
	var cv float64
	if err := s.open(args, false, func() (err error) {
		if *reps < 3 || *reps > 1000 {
			return usageErrorf("-reps %d: out of range (allowed: 3 to 1000)", *reps)
		}
		cv, err = parseMaxCV(*maxCV)
		return err
	}); err != nil {
		return err
	}
	defer s.close()
	if err := s.calibrate("validate"); err != nil {
		return err
	}
	o, in := s.o, s.in
	prog := newProgress(o)
	steps := 0
	ctx := harness.WithProgress(in.ctx, func(p harness.Progress) {
		steps++
		prog.set(step{what: "validate: " + p.Name, detail: fmt.Sprintf("step %d", steps)})
	})
	v, err := selfcheck.Validate(ctx, selfcheck.Options{
		Config: s.cfg, Reps: *reps, SkipBenchmark: *quick, MaxCV: cv,
	})
	prog.done()
	if v == nil || err != nil && in.exitCode() == 0 {
		return err
	}
	v.Warnings = append(s.calWarnings, v.Warnings...)
	if in.exitCode() != 0 {
		v.Warnings = append(v.Warnings, fmt.Errorf("interrupted by a signal: %d checks finished", len(v.Checks)))
	}
	if err := o.emit(func(w io.Writer) error {
		switch o.format {
		case formatJSON:
			return writeJSON(w, v.Report())
		case formatCSV:
			return checksTable(v).WriteCSV(w)
		}
		return validationTable(v).WriteText(w)
	}); err != nil {
		return err
	}
	o.warnAll(results.ErrorStrings(v.Warnings))
	failed, gating := v.Failures(cv)
	summary := ""
	if len(failed) > 0 {
		summary = fmt.Sprintf("%d of %d checks failed: %s", len(failed), gating, strings.Join(failed, "; "))
	}
	return o.status(in, summary)
}

// parseMaxCV reads -max-cv: a percentage ("0.1%") or a fraction ("0.001");
// "" is 0, no bound.
func parseMaxCV(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	num, scale := strings.TrimSuffix(s, "%"), 1.0
	if num != s {
		scale = 0.01
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || v*scale <= 0 || v*scale >= 1 {
		return 0, usageErrorf("-max-cv %q: not a spread (allowed: a percentage above 0%% and below 100%%, as 0.1%%, or a fraction, as 0.001)", s)
	}
	return v * scale, nil
}

func checkTruth(c selfcheck.Check) string {
	if c.Tolerance > 0 || c.Bound == "" {
		return fmt.Sprintf("%s ± %s", sig(c.Truth, 4), sig(c.Tolerance, 3))
	}
	return c.Bound + " " + sig(c.Truth, 5)
}

// validationTable lays v out as a key/value table: the calibration, what
// was measured (as far as the validation got), a PASS or FAIL line per
// correctness check, and the machine's state with its verdict.
func validationTable(v *selfcheck.Validation) *table {
	cal := v.Calibration
	t := kvTable()
	t.KV("cpu", "%s (%s), counter %s", orDash(cal.CPU.Brand), orDash(cal.CPU.Hypervisor), cal.CPU.Counter)
	t.KV("tsc_hz", "%s ± %s ppm (%s)", sigfig.Hz(cal.Frequency.Hz), sig(cal.Frequency.PPM, 3), cal.Frequency.Method)
	for _, cc := range cal.Frequency.CrossChecks {
		t.KV("cross_check", "%s ppm: %s", sigfig.Signed(cc.DiffPPM, 3), cc.Source)
	}
	t.KV("tsc_step", "%s ticks", sig(cal.Step.Step, 4))
	t.KV("core_cycles_per_tick", "%s", withoutPackages.Replace(reports.CoreClockText(cal)))
	t.Blank()
	if v.AddCycles.N > 0 {
		t.KV("ADD chain", "%s ticks/op, %s cycles/op ± %s, R² %s", sig(v.AddTicks.Slope, 5), sig(v.AddCycles.Slope, 5), sig(v.AddCycles.SlopeCI, 2), sig(v.AddCycles.R2, 8))
		t.KV("IMUL chain", "%s ticks/op, %s cycles/op ± %s, R² %s", sig(v.ImulTicks.Slope, 5), sig(v.ImulCycles.Slope, 5), sig(v.ImulCycles.SlopeCI, 2), sig(v.ImulCycles.R2, 8))
		folded := "not folded"
		if v.ImmFolded {
			folded = "folded at rename"
		}
		t.KV("immediate ADD chain", "%s ticks/op, %s cycles/op ± %s, R² %s (%s)", sig(v.ImmTicks.Slope, 5), sig(v.ImmCycles.Slope, 5), sig(v.ImmCycles.SlopeCI, 2), sig(v.ImmCycles.R2, 8), folded)
	}
	if v.LatencyAdd.N > 0 {
		for _, l := range []struct {
			name string
			f    results.FitLine
		}{{"latency, ADD", results.LineOf(v.LatencyAdd)}, {"latency, IMUL", results.LineOf(v.LatencyImul)}} {
			t.KV(l.name, "%s cycles/op ± %s + %s ± %s cycles per call (the fenced call beyond the fenced empty one), R² %s; 1000 ops: %s cycles",
				sig(l.f.PerElement, 5), sig(l.f.PerElementCI, 2), sig(l.f.Intercept, 3), sig(l.f.InterceptCI, 2), sig(l.f.R2, 8), sig(l.f.PerElement*1000+l.f.Intercept, 6))
		}
		if len(v.LatencyCycles) > 0 {
			t.KV("", "1000 ADDs, fenced, measured alone %d times: median %s cycles", len(v.LatencyCycles), sig(results.StatOf(v.LatencyCycles, results.SpreadRange).Median, 6))
		}
	}
	if n := len(v.RulerRatios); n > 0 {
		r := results.StatOf(v.RulerRatios, results.SpreadRange) // the finite ones
		t.KV("rulers", "%d of %d checked (IMUL/ADD %s to %s), %d refused", v.RulersChecked, n, sig(nanIfNone(r, r.Lo), 4), sig(nanIfNone(r, r.Hi), 4), v.RulersRefused)
	}
	if v.EmptyThroughput.Samples > 0 {
		t.KV("empty function", "%s ticks/call latency (R %d, overhead %s ticks/sample); %s ticks/call throughput, what a call costs back to back (R %d, overhead %s ticks/sample)",
			sig(v.Empty.Ticks, 3), v.Empty.Repeat, sig(v.Empty.OverheadTicks, 6), sig(v.EmptyThroughput.Ticks, 3), v.EmptyThroughput.Repeat, sig(v.EmptyThroughput.OverheadTicks, 6))
	}
	t.Blank()
	checkLines(t, v, false)
	t.Blank()
	if len(v.HarnessCycles) > 0 {
		t.KV("1000-ADD kernel", "cyclebench CV %s%% (throughput), %s%% (latency), over %d each in %v", sig(v.HarnessCV*100, 3), sig(v.LatencyCV*100, 3), len(v.HarnessCycles), (v.HarnessWall + v.LatencyWall).Round(time.Millisecond))
	}
	if len(v.BenchNs) > 0 {
		t.KV("", "testing.B CV %s%% over %d in %v", sig(v.BenchCV*100, 3), len(v.BenchNs), v.BenchWall.Round(time.Millisecond))
	}
	if s := v.State; !math.IsNaN(s.Detectable) {
		t.KV("A/A comparison", "resolves %s now (a difference detected in 80%% of such runs); %d pairs in %v", pct(s.Detectable, 2), len(v.AA.TicksA), v.AA.Wall.Round(time.Millisecond))
	}
	if s := v.State; s.Samples > 0 {
		t.KV("core clock", "moved by %s over the validation (cycles per tick of every ruler)", pct(s.ClockSpread, 2))
		t.KV("disturbed", "%d of %d samples discarded (migrations, context switches, page faults)", s.Discarded, s.Samples)
	}
	if s := v.State; s.Measurements > 0 {
		t.KV("shared core", "%d of %d measurements waited for the core to be free (%v in all); %d still lagged at the end (the ruler's ADD chain behind its IMUL chain); %d still shared (the probe slow)",
			s.SharedWaits, s.Measurements, s.SharedWait.Round(time.Millisecond), s.SharedLagging, len(s.CoreShared))
	}
	if s := v.State; s.SiblingCPU >= 0 && s.SiblingSlowdown > 0 {
		shares := "a separate core"
		if s.SiblingSlowdown > 1.25 {
			shares = "the same physical core: keep it idle while measuring"
		}
		t.KV("sibling CPU", "CPU %d: the probe ran %s× as long while it spun: %s", s.SiblingCPU, sig(s.SiblingSlowdown, 3), shares)
	}
	if s := v.State; s.CoreJudged > 0 {
		t.KV("core-state probe", "at most %s slower than its best on this machine, over %d measurements", pct(s.ProbeMaxExcess, 2), s.CoreJudged)
	}
	if v.SpeedKernel.Samples > 0 {
		t.KV("~1 µs kernel", "%s: %s cycles, %s ns, converged %s in %v (median of %d; slowest %v)", v.SpeedKernel.Name, sig(v.SpeedKernel.Cycles, 5), sig(v.SpeedKernel.Nanoseconds, 5), yesNo(v.SpeedKernel.Converged), v.SpeedWall.Round(10*time.Microsecond), len(v.SpeedWalls), slices.Max(v.SpeedWalls).Round(10*time.Microsecond))
	}
	if v.SpeedBenchWall > 0 {
		t.KV("", "testing.Benchmark: %v (%s× longer)", v.SpeedBenchWall.Round(time.Millisecond), sig(v.SpeedBenchWall.Seconds()/v.SpeedWall.Seconds(), 3))
	}
	checkLines(t, v, true)
	t.KV("machine", "%s", v.State.Verdict)
	return t
}

// checkLines adds a line per check of one kind: correctness checks PASS or
// FAIL; the machine's state OK or NOISY (FAIL when it gates the exit
// status, under -max-cv, and failed).
func checkLines(t *table, v *selfcheck.Validation, state bool) {
	for _, c := range v.Checks {
		if c.State != state {
			continue
		}
		mark := "PASS"
		switch {
		case state && c.Pass:
			mark = "OK"
		case state:
			mark = "NOISY"
		case !c.Pass:
			mark = "FAIL"
		}
		unit := ""
		if c.Unit != "" {
			unit = " " + c.Unit
		}
		digits := 5
		if strings.HasPrefix(c.Name, "R²") {
			digits = 8 // R² is read by its nines
		}
		t.KV(mark, "%s: %s%s (want %s%s) — %s", c.Name, sig(c.Value, digits), unit, checkTruth(c), unit, c.Detail)
	}
}

// checksTable is one row per check, for CSV.
func checksTable(v *selfcheck.Validation) *table {
	t := &table{}
	for _, n := range []string{"check", "kind", "value", "truth", "tolerance", "bound", "unit", "pass", "detail"} {
		t.Cols = append(t.Cols, col{Name: n})
	}
	for _, c := range v.Checks {
		t.Add(c.Name, c.Kind(), c.Value, c.Truth, c.Tolerance, c.Bound, c.Unit, c.Pass, c.Detail)
	}
	return t
}

// nanIfNone is v, or NaN when st has no value (every one was NaN or
// infinite).
func nanIfNone(st results.Stat, v float64) float64 {
	if st.N == 0 {
		return math.NaN()
	}
	return v
}
