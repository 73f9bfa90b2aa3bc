package main

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/selfcheck"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// fakeValidation is a validation as selfcheck.Validate returns it on a Zen 3
// guest whose moment is noisy: every correctness check passed, one state
// figure is beyond its quiet bound.
func fakeValidation() *selfcheck.Validation {
	fr := fakeBracket
	cal := &calibrate.Calibration{CPU: fakeCPU, Frequency: fr, Step: tsc.StepInfo{Step: 24.5},
		Core: calibrate.CoreClock{CyclesPerTick: 1.2531, Checked: true, CoreHz: 1.2531 * fakeKernelHz, AddTicksPerOp: 0.798, ImulTicksPerOp: 2.394, ImulAddRatio: 3, ImulLatency: 3, Exact: true}}
	fit := func(slope, icpt float64) stats.Fit {
		return stats.Fit{N: 7, Slope: slope, SlopeCI: 0.0004, Intercept: icpt, InterceptCI: 0.5, R2: 0.9999999}
	}
	v := &selfcheck.Validation{
		Calibration: cal, Lengths: []int{1000, 2000, 5000, 10000, 20000, 50000, 100000}, LatencyLengths: []int{100, 200, 500, 1000, 2000, 5000},
		AddTicks: fit(0.798, 20), ImulTicks: fit(2.394, 25), ImmTicks: fit(0.7981, 20), AddCycles: fit(1.0001, 25), ImulCycles: fit(3.0002, 31),
		ImmCycles: fit(1.0002, 25), AddCyclesByImul: fit(1.0003, 25), ImulAddRatio: 3.0, TickRatio: 3.0001,
		LatencyAdd: fit(0.9999, 1.3), LatencyImul: fit(3.0001, 0.4), LatencyAddByImul: fit(1.0001, 1.2),
		RulerRatios: []float64{2.998, 3.001, 3.004}, RulersChecked: 3,
		Empty:           harness.Result{Ticks: 0.01, Repeat: 5000, OverheadTicks: 98000, Samples: 300},
		EmptyThroughput: harness.Result{Ticks: 3.2, Repeat: 30000, OverheadTicks: 52, Samples: 300},
		HarnessCycles:   []float64{1002.1, 1002.3, 1001.9}, HarnessCV: 0.0025, HarnessWall: 90 * time.Millisecond,
		LatencyCycles: []float64{1003.8, 1003.7, 1003.9}, LatencyCV: 0.0001, LatencyWall: 60 * time.Millisecond,
		AA:          harness.Comparison{TicksA: make([]float64, 1000), Wall: 280 * time.Millisecond},
		SpeedKernel: harness.Result{Name: "AddChain(3070)", Cycles: 3072, Nanoseconds: 1003, Converged: true, Samples: 40},
		SpeedWall:   8 * time.Millisecond, SpeedWalls: []time.Duration{8 * time.Millisecond, 7 * time.Millisecond, 9 * time.Millisecond},
		State: selfcheck.MachineState{ThroughputCV: 0.0025, LatencyCV: 0.0001, Detectable: 0.00012, ClockSpread: 0.02, Discarded: 12, Samples: 9000, Measurements: 30, SharedWaits: 2, SharedLagging: 1, SharedWait: 290 * time.Millisecond,
			Resolves: 0.007, Verdict: "noisy: differences below 0.7% are not resolvable now (…)"},
		Checks: []selfcheck.Check{
			{Name: "cycles per register ADD, throughput, by the IMUL ruler", Value: 1.0003, Truth: 1, Tolerance: 0.03, Unit: "cycles/op", Pass: true, Detail: "slope"},
			{Name: "R² of the fits of cycles against length, the least", Value: 0.9999999, Truth: 0.9999, Bound: "≥", Pass: true, Detail: "fits"},
			{Name: "CV of Cycles, 1000-ADD kernel, throughput", Value: 0.25, Truth: 0.2, Unit: "%", Bound: "≤", State: true, Detail: "10 measurements"},
			{Name: "CV of Cycles, 1000-ADD kernel, latency", Value: 0.01, Truth: 0.1, Unit: "%", Bound: "≤", State: true, Pass: true, Detail: "10 measurements"},
		},
		Pass: true,
	}
	return v
}

// TestValidationOutputs renders a validation in each format: correctness
// checks PASS or FAIL, the machine's state OK or NOISY with its verdict.
func TestValidationOutputs(t *testing.T) {
	v := fakeValidation()
	var b bytes.Buffer
	if err := validationTable(v).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "validate.golden", b.String())
	b.Reset()
	if err := writeJSON(&b, v.Report()); err != nil {
		t.Fatal(err)
	}
	golden(t, "validate.json.golden", b.String())
	b.Reset()
	if err := checksTable(v).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "validate.csv.golden", b.String())
	v.State.Detectable = math.NaN() // the A/A comparison failed: no line, no NaN in JSON
	b.Reset()
	if err := writeJSON(&b, v.Report()); err != nil {
		t.Fatal(err)
	}
}
