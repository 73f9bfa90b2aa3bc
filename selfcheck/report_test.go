package selfcheck

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/stats"
)

func fakeValidation() *Validation {
	return &Validation{
		Calibration: &calibrate.Calibration{Frequency: calibrate.Frequency{Hz: 2596141819}},
		AddTicks:    stats.Fit{Slope: 0.71, R2: 0.9999999}, ImulAddRatio: math.NaN(),
		LatencyAdd:  stats.Fit{N: 6, Slope: 0.9999, SlopeCI: 0.001, Intercept: 1.3, InterceptCI: math.Inf(1), R2: 0.9999999},
		RulerRatios: []float64{2.998, math.NaN()}, SpeedWalls: []time.Duration{8 * time.Millisecond},
		State: MachineState{Detectable: math.NaN()},
		Checks: []Check{
			{Name: "cycles per register ADD", Value: 1.0003, Truth: 1, Tolerance: 0.03, Pass: true},
			{Name: "R² of the fits", Value: math.NaN(), Truth: 0.9999, Bound: "≥"},
			{Name: "CV of Cycles, 1000-ADD kernel, throughput", Value: 0.25, Truth: 0.2, State: true},
			{Name: "disturbed samples", Value: 3, Truth: 1, State: true},
		},
	}
}

// TestReport: the report has every figure, 0 for NaN and
// infinite ones, so that it is JSON, and names each check's kind.
func TestReport(t *testing.T) {
	r := fakeValidation().Report()
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	if r.TSCHz != 2596141819 || r.AddTicksPerOp != 0.71 || r.ImulAddRatio != 0 || r.LatencyAdd.InterceptCI != 0 || r.LatencyAdd.Slope != 0.9999 ||
		!slices.Equal(r.RulerRatios, []float64{2.998, 0}) || len(r.SpeedWalls) != 1 || r.BenchNs == nil || r.State.Detectable != 0 {
		t.Errorf("report %+v", r)
	}
	kinds := []string{"correctness", "correctness", "machine state", "machine state"}
	for i, c := range r.Checks {
		if c.Kind != kinds[i] || math.IsNaN(c.Value) {
			t.Errorf("check %+v: want kind %q", c, kinds[i])
		}
	}
}

// TestFailures: correctness checks decide the exit status; the
// spread checks too with a bound on it; other state checks never.
func TestFailures(t *testing.T) {
	tests := []struct {
		maxCV    float64
		failed   []string
		deciding int
	}{
		{0, []string{"R² of the fits"}, 2},
		{0.001, []string{"R² of the fits", "CV of Cycles, 1000-ADD kernel, throughput"}, 3},
	}
	for _, tt := range tests {
		failed, deciding := fakeValidation().Failures(tt.maxCV)
		if !slices.Equal(failed, tt.failed) || deciding != tt.deciding {
			t.Errorf("maxCV %v: failed %q of %d, want %q of %d", tt.maxCV, failed, deciding, tt.failed, tt.deciding)
		}
	}
}

// TestReportOfNothing: the report of a nil Validation is an empty report,
// not a panic.
func TestReportOfNothing(t *testing.T) {
	var v *Validation
	if r := v.Report(); r.Pass || len(r.Checks) != 0 {
		t.Errorf("nil Report() = %+v", r)
	}
	if f, n := v.Failures(0); f != nil || n != 0 {
		t.Errorf("nil Failures(0) = %v, %d", f, n)
	}
}
