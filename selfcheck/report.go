package selfcheck

// A Validation as a JSON document (what cyclebench validate -format json
// writes), and which of its checks decide the exit status: beside the
// Validation, so that its shape changes with it.

import (
	"math"
	"strings"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/stats"
)

// Report is a [Validation] as cyclebench validate writes it (-format
// json); NaN and infinite figures are 0.
type Report struct {
	Pass             bool             `json:"pass"`
	TSCHz            float64          `json:"tsc_hz"`
	TSCHzPPM         float64          `json:"tsc_hz_ppm"`
	TSCStep          float64          `json:"tsc_step"`
	AddTicksPerOp    float64          `json:"add_ticks_per_op"`
	ImulTicksPerOp   float64          `json:"imul_ticks_per_op"`
	ImulAddRatio     float64          `json:"imul_add_ratio"`
	AddCyclesPerOp   float64          `json:"add_cycles_per_op"`
	AddCyclesByImul  float64          `json:"add_cycles_per_op_by_imul"`
	ImulCyclesPerOp  float64          `json:"imul_cycles_per_op"`
	ImmTicksPerOp    float64          `json:"imm_ticks_per_op"`
	ImmCyclesPerOp   float64          `json:"imm_cycles_per_op"`
	ImmRatio         float64          `json:"imm_over_add_ticks"`
	ImmFolded        bool             `json:"imm_folded"`
	AddR2            float64          `json:"add_r2"`
	ImulR2           float64          `json:"imul_r2"`
	LatencyAdd       FitJSON          `json:"latency_add"`
	LatencyAddByImul FitJSON          `json:"latency_add_by_imul"`
	LatencyImul      FitJSON          `json:"latency_imul"`
	RulerRatios      []float64        `json:"ruler_imul_add_ratios"`
	RulersChecked    int              `json:"rulers_checked"`
	RulersRefused    int              `json:"rulers_refused"`
	EmptyTicks       float64          `json:"empty_ticks"`
	HarnessCV        float64          `json:"harness_cv"`
	HarnessCycles    []float64        `json:"harness_cycles"`
	HarnessWall      float64          `json:"harness_wall_seconds"`
	LatencyCV        float64          `json:"latency_cv"`
	LatencyCycles    []float64        `json:"latency_cycles"`
	BenchCV          float64          `json:"testing_b_cv"`
	BenchNs          []float64        `json:"testing_b_ns"`
	BenchWall        float64          `json:"testing_b_wall_seconds"`
	SpeedWall        float64          `json:"speed_wall_seconds"`
	SpeedWalls       []float64        `json:"speed_walls_seconds"`
	SpeedBenchWall   float64          `json:"speed_testing_b_wall_seconds"`
	SpeedKernelNs    float64          `json:"speed_kernel_ns"`
	SpeedKernelCycle float64          `json:"speed_kernel_cycles"`
	State            MachineStateJSON `json:"machine_state"`
	Checks           []CheckJSON      `json:"checks"`
	Warnings         []string         `json:"warnings"`
}

// FitJSON is a fit of cycles (or ticks) per call against chain length.
type FitJSON struct {
	Slope       float64 `json:"slope"`
	SlopeCI     float64 `json:"slope_ci"`
	Intercept   float64 `json:"intercept"`
	InterceptCI float64 `json:"intercept_ci"`
	R2          float64 `json:"r2"`
}

// MachineStateJSON is the machine's state during a validation.
type MachineStateJSON struct {
	ThroughputCV float64 `json:"throughput_cv"`
	LatencyCV    float64 `json:"latency_cv"`
	BenchCV      float64 `json:"testing_b_cv"`
	Detectable   float64 `json:"aa_detectable"`
	ClockSpread  float64 `json:"core_clock_spread"`
	Discarded    int     `json:"discarded"`
	Samples      int     `json:"samples"`
	// Measurements, SharedWaits, SharedLagging and SharedWaitSeconds are
	// MachineState's (the shared-core waits of the ruler).
	Measurements      int     `json:"measurements"`
	SharedWaits       int     `json:"shared_core_waits"`
	SharedLagging     int     `json:"shared_core_lagging"`
	SharedWaitSeconds float64 `json:"shared_core_wait_seconds"`
	// CoreJudged, CoreSharedSeconds and ProbeMaxExcess are MachineState's
	// CoreJudged, CoreShared and ProbeMaxExcess (the core-state probe).
	CoreJudged        int       `json:"core_judged"`
	CoreSharedSeconds []float64 `json:"core_shared_at_seconds"`
	ProbeMaxExcess    float64   `json:"probe_max_excess"`
	// SiblingCPU and SiblingSlowdown are MachineState's (−1 and 0: not
	// measured).
	SiblingCPU      int     `json:"sibling_cpu"`
	SiblingSlowdown float64 `json:"sibling_slowdown"`
	Resolves        float64 `json:"resolves"`
	Quiet           bool    `json:"quiet"`
	Verdict         string  `json:"verdict"`
}

// CheckJSON is one check of a validation.
type CheckJSON struct {
	Name      string  `json:"name"`
	Kind      string  `json:"kind"` // Check.Kind
	Value     float64 `json:"value"`
	Truth     float64 `json:"truth"`
	Tolerance float64 `json:"tolerance"`
	Bound     string  `json:"bound"`
	Unit      string  `json:"unit"`
	Pass      bool    `json:"pass"`
	Detail    string  `json:"detail"`
}

// Kind names c's kind: "correctness" (it decides the exit status) or
// "machine state" (a fact about the moment).
func (c Check) Kind() string {
	if c.State {
		return "machine state"
	}
	return "correctness"
}

// Report returns v as a report; a nil v gives an empty one.
func (v *Validation) Report() Report {
	if v == nil {
		v = &Validation{}
	}
	if v.Calibration == nil { // a copy, not the caller's, gets one
		c := *v
		c.Calibration = &calibrate.Calibration{}
		v = &c
	}
	s := v.State
	fit := func(f stats.Fit) FitJSON {
		return FitJSON{Slope: finiteOr0(f.Slope), SlopeCI: finiteOr0(f.SlopeCI), Intercept: finiteOr0(f.Intercept), InterceptCI: finiteOr0(f.InterceptCI), R2: finiteOr0(f.R2)}
	}
	r := Report{
		Pass: v.Pass, TSCHz: v.Calibration.Frequency.Hz, TSCHzPPM: v.Calibration.Frequency.PPM, TSCStep: v.Calibration.Step.Step,
		AddTicksPerOp: v.AddTicks.Slope, ImulTicksPerOp: v.ImulTicks.Slope, ImulAddRatio: finiteOr0(v.ImulAddRatio),
		AddCyclesPerOp: v.AddCycles.Slope, AddCyclesByImul: finiteOr0(v.AddCyclesByImul.Slope), ImulCyclesPerOp: v.ImulCycles.Slope,
		ImmTicksPerOp: v.ImmTicks.Slope, ImmCyclesPerOp: v.ImmCycles.Slope, ImmRatio: v.ImmRatio, ImmFolded: v.ImmFolded,
		AddR2: v.AddTicks.R2, ImulR2: v.ImulTicks.R2,
		LatencyAdd: fit(v.LatencyAdd), LatencyAddByImul: fit(v.LatencyAddByImul), LatencyImul: fit(v.LatencyImul),
		RulerRatios: make([]float64, len(v.RulerRatios)), RulersChecked: v.RulersChecked, RulersRefused: v.RulersRefused,
		EmptyTicks: v.Empty.Ticks, HarnessCV: v.HarnessCV, HarnessCycles: append([]float64{}, v.HarnessCycles...), HarnessWall: v.HarnessWall.Seconds(),
		LatencyCV: v.LatencyCV, LatencyCycles: append([]float64{}, v.LatencyCycles...),
		BenchCV: v.BenchCV, BenchNs: append([]float64{}, v.BenchNs...), BenchWall: v.BenchWall.Seconds(),
		SpeedWall: v.SpeedWall.Seconds(), SpeedWalls: []float64{}, SpeedBenchWall: v.SpeedBenchWall.Seconds(),
		SpeedKernelNs: v.SpeedKernel.Nanoseconds, SpeedKernelCycle: v.SpeedKernel.Cycles,
		State: MachineStateJSON{ThroughputCV: s.ThroughputCV, LatencyCV: s.LatencyCV, BenchCV: s.BenchCV, Detectable: finiteOr0(s.Detectable),
			ClockSpread: s.ClockSpread, Discarded: s.Discarded, Samples: s.Samples,
			Measurements: s.Measurements, SharedWaits: s.SharedWaits, SharedLagging: s.SharedLagging, SharedWaitSeconds: s.SharedWait.Seconds(), CoreJudged: s.CoreJudged, CoreSharedSeconds: secondsOf(s.CoreShared), ProbeMaxExcess: s.ProbeMaxExcess, SiblingCPU: s.SiblingCPU, SiblingSlowdown: finiteOr0(s.SiblingSlowdown), Resolves: finiteOr0(s.Resolves), Quiet: s.Quiet, Verdict: s.Verdict},
		Checks: []CheckJSON{}, Warnings: errorStrings(v.Warnings),
	}
	for i, x := range v.RulerRatios {
		r.RulerRatios[i] = finiteOr0(x)
	}
	for _, w := range v.SpeedWalls {
		r.SpeedWalls = append(r.SpeedWalls, w.Seconds())
	}
	for _, c := range v.Checks {
		r.Checks = append(r.Checks, CheckJSON{Name: c.Name, Kind: c.Kind(), Value: finiteOr0(c.Value), Truth: c.Truth, Tolerance: c.Tolerance, Bound: c.Bound, Unit: c.Unit, Pass: c.Pass, Detail: c.Detail})
	}
	return r
}

// Failures lists the checks of v that failed and decide the exit status,
// and how many decide it: every correctness check, and with maxCV > 0 (a
// bound on the spread of results) the machine-state checks of that spread
// ("CV of ...") too.
func (v *Validation) Failures(maxCV float64) (failed []string, deciding int) {
	if v == nil {
		return nil, 0
	}
	for _, c := range v.Checks {
		if c.State && !(maxCV > 0 && strings.HasPrefix(c.Name, "CV of")) {
			continue
		}
		deciding++
		if !c.Pass {
			failed = append(failed, c.Name)
		}
	}
	return failed, deciding
}

// finiteOr0 is v, or 0 for NaN and infinities, which JSON cannot hold.
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// errorStrings returns the messages of errs, never nil (so JSON shows []).
func errorStrings(errs []error) []string {
	s := make([]string, 0, len(errs))
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return s
}
