package results_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

func TestPairedReport(t *testing.T) {
	a := results.Measurement{Result: harness.Result{Name: "Sum1/n=1000", Cycles: 1000, CyclesPerTick: 1.4}, Bench: "A/Sum1/n=1000"}
	b := results.Measurement{Result: harness.Result{Name: "Sum4/n=1000", Cycles: 770, CyclesPerTick: 1.4}, Bench: "B/Sum4/n=1000"}
	done := harness.Comparison{A: a.Result, B: b.Result, Stats: stats.Comparison{N: 200, Ratio: 0.77, Lo: 0.769, Hi: 0.771, Verdict: stats.VerdictFaster},
		Verdict: stats.VerdictFaster, Reason: "p < α", Significant: true, Lo: 0.769, Hi: 0.771, TicksA: []float64{714}, TicksB: []float64{550}}
	tests := []struct {
		name    string
		c       harness.Comparison
		verdict string
		reason  string
	}{
		{"compared", done, stats.VerdictFaster, "p < α"},
		{"no pairs", harness.Comparison{A: a.Result, B: b.Result}, results.VerdictNoTest, "interrupted before 6 pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := results.NewPairedReport(results.Header{Command: "compare"}, tt.c, a, b)
			if r.Verdict != tt.verdict || r.Reason != tt.reason || r.Command != "compare" || r.A.Name != a.Name || r.B.Name != b.Name || r.Ratio != tt.c.Stats.Ratio {
				t.Errorf("report %+v", r)
			}
			if data, err := json.Marshal(r); err != nil || !strings.Contains(string(data), `"paired_verdict"`) {
				t.Errorf("JSON %s, %v", data, err)
			}
		})
	}
}

func TestSlopesReport(t *testing.T) {
	a := &results.Sweep{CPEResult: harness.CPEResult{Name: "Psum1"}, Unit: "elements", Check: "ok"}
	b := &results.Sweep{CPEResult: harness.CPEResult{Name: "Psum2"}, Unit: "elements", Check: "ok"}
	c := harness.CPEComparison{Unit: "cycles", Slopes: stats.SlopeComparison{Ratio: 0.75, Diff: -2.5, Verdict: stats.VerdictFaster, Significant: true}}
	tests := []struct {
		name     string
		b        *results.Sweep
		compared bool
		verdict  string
		bName    string
	}{
		{"compared", b, true, stats.VerdictFaster, "Psum2"},
		{"interrupted in B", nil, false, results.VerdictNoTest, ""},
	}
	for _, tt := range tests {
		r := results.NewSlopesReport(results.Header{}, a, tt.b, c, tt.compared)
		if r.Verdict != tt.verdict || r.A.Name != "Psum1" || r.B.Name != tt.bName || r.Unit != "cycles" || (r.Ratio == 0.75) != tt.compared {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}
