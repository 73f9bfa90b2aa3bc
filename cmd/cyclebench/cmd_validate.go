package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/harness"
)

func runValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate", "[-quick] [-reps N] [-format table|json|csv] [flags]",
		"Check the harness on this machine against kernels whose cost is known:\n"+
			"dependent register ADD and IMUL chains at several lengths (1 and 3 core cycles\n"+
			"per op), each judged by the ruler made of the other chain; an immediate ADD\n"+
			"chain, whose cycles must follow its ticks (about 0.2 per op where the core folds\n"+
			"it at rename, 1 elsewhere); every measurement's two rulers agreeing; 1000 ADDs\n"+
			"and 1000 IMULs one call at a time (latency mode), the empty function (0 after\n"+
			"overhead subtraction), and repeatability and speed against testing.Benchmark on\n"+
			"the same kernel in the same run (about 15 s; 3 s with -quick). Each check prints\n"+
			"PASS or FAIL with what it measured and wanted.", stdout)
	reps := fs.Int("reps", 10, "repetitions `N` of the 1000-ADD kernel for the repeatability checks (3 to 1000)")
	quick := fs.Bool("quick", false, "skip the testing.Benchmark side (it takes about a second per repetition)")
	o := addOutputFlags(fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	mf := addMeasureFlags(fs, false)
	fs.exits = "0 every check passed; 1 a check failed (the failed checks are named); 2 a usage\nerror; 130 or 143 after SIGINT or SIGTERM (the checks that finished are written first)."
	fs.example("cyclebench validate", "every check, with testing.Benchmark alongside")
	fs.example("cyclebench validate -quick -format json -o validate.json", "without testing.Benchmark, as JSON")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	if *reps < 3 || *reps > 1000 {
		return usageErrorf("-reps %d: out of range (allowed: 3 to 1000)", *reps)
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	in := catchInterrupts()
	defer in.stop()
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	cfg.Calibration, cfg.Context = cal, in.ctx
	prog := newProgress(o)
	steps := 0
	v, err := harness.Validate(harness.ValidateOptions{
		Config: cfg, Reps: *reps, SkipBenchmark: *quick,
		Progress: func(s string) {
			steps++
			prog.set(step{what: "validate: " + s, detail: fmt.Sprintf("step %d", steps)})
		},
	})
	prog.done()
	if v == nil || err != nil && in.exitCode() == 0 {
		return err
	}
	v.Warnings = append(warns, v.Warnings...)
	if in.exitCode() != 0 {
		v.Warnings = append(v.Warnings, fmt.Errorf("interrupted by a signal: %d checks finished", len(v.Checks)))
	}
	if err := o.emit(func(w io.Writer) error {
		switch o.format {
		case formatJSON:
			return writeValidationJSON(w, v)
		case formatCSV:
			return checksTable(v).writeCSV(w)
		}
		return validationTable(v).writeText(w)
	}); err != nil {
		return err
	}
	o.warnAll(errorStrings(v.Warnings))
	var failed []string
	for _, c := range v.Checks {
		if !c.Pass {
			failed = append(failed, c.Name)
		}
	}
	summary := ""
	if len(failed) > 0 {
		summary = fmt.Sprintf("%d of %d checks failed: %s", len(failed), len(v.Checks), strings.Join(failed, "; "))
	}
	return o.status(in, summary)
}

func checkTruth(c harness.Check) string {
	switch {
	case c.Tolerance > 0:
		return fmt.Sprintf("%s ± %s", sig(c.Truth, 4), sig(c.Tolerance, 3))
	case strings.HasPrefix(c.Name, "R²"), strings.HasPrefix(c.Name, "testing.B"):
		return "≥ " + sig(c.Truth, 5)
	default:
		return "≤ " + sig(c.Truth, 4)
	}
}

// validationTable lays v out as a key/value table: the calibration, what
// was measured (as far as the validation got), and a PASS or FAIL line per
// check.
func validationTable(v *harness.Validation) *table {
	cal := v.Calibration
	t := kvTable()
	t.kv("cpu", "%s (%s), counter %s", orDash(cal.CPU.Brand), orDash(cal.CPU.Hypervisor), cal.CPU.Counter)
	t.kv("tsc_hz", "%s ± %s ppm (%s)", formatHz(cal.Frequency.Hz), sig(cal.Frequency.PPM, 3), cal.Frequency.Method)
	for _, cc := range cal.Frequency.CrossChecks {
		t.kv("cross_check", "%s ppm: %s", signedSig(cc.DiffPPM, 3), cc.Source)
	}
	t.kv("tsc_step", "%s ticks", sig(cal.Step.Step, 4))
	t.kv("core_cycles_per_tick", "%s", coreClockText(cal))
	t.blank()
	if v.AddCycles.N > 0 {
		t.kv("ADD chain", "%s ticks/op, %s cycles/op ± %s, R² %s", sig(v.AddTicks.Slope, 5), sig(v.AddCycles.Slope, 5), sig(v.AddCycles.SlopeCI, 2), sig(v.AddCycles.R2, 8))
		t.kv("IMUL chain", "%s ticks/op, %s cycles/op ± %s, R² %s", sig(v.ImulTicks.Slope, 5), sig(v.ImulCycles.Slope, 5), sig(v.ImulCycles.SlopeCI, 2), sig(v.ImulCycles.R2, 8))
		folded := "not folded"
		if v.ImmFolded {
			folded = "folded at rename"
		}
		t.kv("immediate ADD chain", "%s ticks/op, %s cycles/op ± %s, R² %s (%s)", sig(v.ImmTicks.Slope, 5), sig(v.ImmCycles.Slope, 5), sig(v.ImmCycles.SlopeCI, 2), sig(v.ImmCycles.R2, 8), folded)
	}
	if n := len(v.RulerRatios); n > 0 {
		t.kv("rulers", "%d of %d checked (IMUL/ADD %s to %s), %d refused", v.RulersChecked, n, sig(minFinite(v.RulerRatios), 4), sig(maxFinite(v.RulerRatios), 4), v.RulersRefused)
	}
	if v.EmptyThroughput.Samples > 0 {
		t.kv("empty function", "%s ticks/call latency (R %d, overhead %s ticks/sample); %s ticks/call throughput (R %d, overhead %s ticks/sample)",
			sig(v.Empty.Ticks, 3), v.Empty.Repeat, sig(v.Empty.OverheadTicks, 6), sig(v.EmptyThroughput.Ticks, 3), v.EmptyThroughput.Repeat, sig(v.EmptyThroughput.OverheadTicks, 6))
	}
	if len(v.LatencyCycles) > 0 {
		t.kv("latency", "1000 ADDs %s cycles (CV %s%% over %d), 1000 IMULs %s cycles", sig(v.LatencyAdd.Cycles, 6), sig(v.LatencyCV*100, 3), len(v.LatencyCycles), sig(v.LatencyImul.Cycles, 6))
		if len(v.LatencyByImul) > 0 {
			t.kv("", "1000 ADDs by the IMUL ruler: %s to %s cycles", sig(minFinite(v.LatencyByImul), 6), sig(maxFinite(v.LatencyByImul), 6))
		}
	}
	if len(v.HarnessCycles) > 0 {
		t.kv("1000-ADD kernel", "cyclebench CV %s%% over %d in %v", sig(v.HarnessCV*100, 3), len(v.HarnessCycles), v.HarnessWall.Round(time.Millisecond))
	}
	if len(v.BenchNs) > 0 {
		t.kv("", "testing.B CV %s%% over %d in %v", sig(v.BenchCV*100, 3), len(v.BenchNs), v.BenchWall.Round(time.Millisecond))
	}
	if v.SpeedKernel.Samples > 0 {
		t.kv("~1 µs kernel", "%s: %s cycles, %s ns, converged %s in %v (median of %d; slowest %v)", v.SpeedKernel.Name, sig(v.SpeedKernel.Cycles, 5), sig(v.SpeedKernel.Nanoseconds, 5), yesNo(v.SpeedKernel.Converged), v.SpeedWall.Round(10*time.Microsecond), len(v.SpeedWalls), slices.Max(v.SpeedWalls).Round(10*time.Microsecond))
	}
	if v.SpeedBenchWall > 0 {
		t.kv("", "testing.Benchmark: %v (%s× longer)", v.SpeedBenchWall.Round(time.Millisecond), sig(v.SpeedBenchWall.Seconds()/v.SpeedWall.Seconds(), 3))
	}
	t.blank()
	for _, c := range v.Checks {
		mark := "PASS"
		if !c.Pass {
			mark = "FAIL"
		}
		unit := ""
		if c.Unit != "" {
			unit = " " + c.Unit
		}
		t.kv(mark, "%s: %s%s (want %s%s) — %s", c.Name, sig(c.Value, 5), unit, checkTruth(c), unit, c.Detail)
	}
	return t
}

// checksTable is one row per check, for CSV.
func checksTable(v *harness.Validation) *table {
	t := &table{}
	for _, n := range []string{"check", "value", "truth", "tolerance", "unit", "pass", "detail"} {
		t.cols = append(t.cols, col{name: n})
	}
	for _, c := range v.Checks {
		t.add(c.Name, c.Value, c.Truth, c.Tolerance, c.Unit, c.Pass, c.Detail)
	}
	return t
}

func writeValidationJSON(w io.Writer, v *harness.Validation) error {
	type check struct {
		Name      string  `json:"name"`
		Value     float64 `json:"value"`
		Truth     float64 `json:"truth"`
		Tolerance float64 `json:"tolerance"`
		Unit      string  `json:"unit"`
		Pass      bool    `json:"pass"`
		Detail    string  `json:"detail"`
	}
	out := struct {
		Pass             bool      `json:"pass"`
		TSCHz            float64   `json:"tsc_hz"`
		TSCHzPPM         float64   `json:"tsc_hz_ppm"`
		TSCStep          float64   `json:"tsc_step"`
		AddTicksPerOp    float64   `json:"add_ticks_per_op"`
		ImulTicksPerOp   float64   `json:"imul_ticks_per_op"`
		ImulAddRatio     float64   `json:"imul_add_ratio"`
		AddCyclesPerOp   float64   `json:"add_cycles_per_op"`
		AddCyclesByImul  float64   `json:"add_cycles_per_op_by_imul"`
		ImulCyclesPerOp  float64   `json:"imul_cycles_per_op"`
		ImmTicksPerOp    float64   `json:"imm_ticks_per_op"`
		ImmCyclesPerOp   float64   `json:"imm_cycles_per_op"`
		ImmFolded        bool      `json:"imm_folded"`
		AddR2            float64   `json:"add_r2"`
		ImulR2           float64   `json:"imul_r2"`
		RulerRatios      []float64 `json:"ruler_imul_add_ratios"`
		RulersChecked    int       `json:"rulers_checked"`
		RulersRefused    int       `json:"rulers_refused"`
		LatencyByImul    []float64 `json:"latency_add_cycles_by_imul"`
		EmptyTicks       float64   `json:"empty_ticks"`
		HarnessCV        float64   `json:"harness_cv"`
		HarnessCycles    []float64 `json:"harness_cycles"`
		HarnessWall      float64   `json:"harness_wall_seconds"`
		BenchCV          float64   `json:"testing_b_cv"`
		BenchNs          []float64 `json:"testing_b_ns"`
		BenchWall        float64   `json:"testing_b_wall_seconds"`
		SpeedWall        float64   `json:"speed_wall_seconds"`
		SpeedWalls       []float64 `json:"speed_walls_seconds"`
		SpeedBenchWall   float64   `json:"speed_testing_b_wall_seconds"`
		SpeedKernelNs    float64   `json:"speed_kernel_ns"`
		SpeedKernelCycle float64   `json:"speed_kernel_cycles"`
		Checks           []check   `json:"checks"`
		Warnings         []string  `json:"warnings"`
	}{
		Pass: v.Pass, TSCHz: v.Calibration.Frequency.Hz, TSCHzPPM: v.Calibration.Frequency.PPM, TSCStep: v.Calibration.Step.Step,
		AddTicksPerOp: v.AddTicks.Slope, ImulTicksPerOp: v.ImulTicks.Slope, ImulAddRatio: v.ImulAddRatio,
		AddCyclesPerOp: v.AddCycles.Slope, AddCyclesByImul: v.AddCyclesByImul.Slope, ImulCyclesPerOp: v.ImulCycles.Slope,
		ImmTicksPerOp: v.ImmTicks.Slope, ImmCyclesPerOp: v.ImmCycles.Slope, ImmFolded: v.ImmFolded,
		AddR2: v.AddTicks.R2, ImulR2: v.ImulTicks.R2,
		RulerRatios: finiteOrZero(v.RulerRatios), RulersChecked: v.RulersChecked, RulersRefused: v.RulersRefused, LatencyByImul: append([]float64{}, v.LatencyByImul...),
		EmptyTicks: v.Empty.Ticks, HarnessCV: v.HarnessCV, HarnessCycles: v.HarnessCycles, HarnessWall: v.HarnessWall.Seconds(),
		BenchCV: v.BenchCV, BenchNs: v.BenchNs, BenchWall: v.BenchWall.Seconds(),
		SpeedWall: v.SpeedWall.Seconds(), SpeedWalls: []float64{}, SpeedBenchWall: v.SpeedBenchWall.Seconds(),
		SpeedKernelNs: v.SpeedKernel.Nanoseconds, SpeedKernelCycle: v.SpeedKernel.Cycles,
		Warnings: errorStrings(v.Warnings),
	}
	for _, w := range v.SpeedWalls {
		out.SpeedWalls = append(out.SpeedWalls, w.Seconds())
	}
	if out.BenchNs == nil {
		out.BenchNs = []float64{}
	}
	out.Checks = []check{}
	for _, c := range v.Checks {
		out.Checks = append(out.Checks, check(c))
	}
	return writeJSON(w, out)
}

// minFinite and maxFinite return the smallest and largest finite value of
// xs (NaN when there is none).
func minFinite(xs []float64) float64 { return extremeFinite(xs, -1) }
func maxFinite(xs []float64) float64 { return extremeFinite(xs, 1) }

func extremeFinite(xs []float64, sign float64) float64 {
	m := math.NaN()
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) && (math.IsNaN(m) || sign*(x-m) > 0) {
			m = x
		}
	}
	return m
}

// finiteOrZero returns a copy of xs with NaN and ±Inf as 0, for JSON.
func finiteOrZero(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = nanToZero(x)
	}
	return out
}
