package reports_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
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
		{"no pairs", harness.Comparison{A: a.Result, B: b.Result}, stats.VerdictNoTest, "interrupted before 6 pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reports.NewPairedReport(results.Header{Command: "compare"}, tt.c, a, b)
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
		{"interrupted in B", nil, false, stats.VerdictNoTest, ""},
	}
	for _, tt := range tests {
		r := reports.NewSlopesReport(results.Header{}, a, tt.b, c, tt.compared)
		if r.Verdict != tt.verdict || r.A.Name != "Psum1" || r.B.Name != tt.bName || r.Unit != "cycles" || (r.Ratio == 0.75) != tt.compared {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

// TestComparisonLines: the lines of a comparison, in order; an
// interrupted one says so and how long it took.
func TestComparisonLines(t *testing.T) {
	done := harness.Comparison{Stats: stats.Comparison{N: 200, Ratio: 0.77, Lo: 0.769, Hi: 0.771, Exact: true, Blocks: []float64{0.76, 0.78}},
		Verdict: stats.VerdictFaster, Reason: "p < α", Repeat: 10, Rounds: 100, Wall: 42 * time.Millisecond}
	tests := []struct {
		name   string
		c      harness.Comparison
		labels string
		first  string
	}{
		{"compared", done, "B/A|p|best B/A|blocks|verdict|resolution|summary|took",
			"0.77000  (typical pairs, Hodges–Lehmann: 95% CI 0.76900 to 0.77100;"},
		{"interrupted", harness.Comparison{Rounds: 2, Wall: time.Millisecond}, "B/A|took", "no comparison: interrupted before 6 pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := reports.ComparisonLines(tt.c)
			var labels []string
			for _, l := range lines {
				labels = append(labels, l[0])
			}
			if strings.Join(labels, "|") != tt.labels || !strings.HasPrefix(lines[0][1], tt.first) {
				t.Errorf("lines %q; want labels %s, B/A starting %q", lines, tt.labels, tt.first)
			}
			if took := lines[len(lines)-1][1]; !strings.HasSuffix(took, fmt.Sprintf(" ms measuring, %d rounds", tt.c.Rounds)) {
				t.Errorf("took %q", took)
			}
		})
	}
}

// TestComparisonComments: the "#" lines of a comparison in the benchmark
// format, and the one line of an interrupted one.
func TestComparisonComments(t *testing.T) {
	done := harness.Comparison{Stats: stats.Comparison{N: 200, Ratio: 0.77, Lo: 0.769, Hi: 0.771, Test: "wilcoxon"},
		Verdict: stats.VerdictFaster, Reason: "p < α", Repeat: 10}
	c := reports.ComparisonComments(done)
	if len(c) != 2 || !strings.HasPrefix(c[0], "# compare: B/A = 0.77000, 95% CI [0.76900, 0.77100], p = ") ||
		!strings.Contains(c[0], "(wilcoxon, 200 pairs of 10 calls, ABBA interleaved): ") || c[1] != "# compare: "+done.Sentence() {
		t.Errorf("ComparisonComments = %q", c)
	}
	if c := reports.ComparisonComments(harness.Comparison{}); len(c) != 1 || c[0] != "# compare: no comparison: interrupted before 6 pairs" {
		t.Errorf("ComparisonComments of no pairs = %q", c)
	}
}

func TestSlopesSummary(t *testing.T) {
	c := harness.CPEComparison{Unit: "cycles",
		Slopes: stats.SlopeComparison{Ratio: 0.75, Diff: -0.5, DiffCI: 0.01, DoF: 14.2, Verdict: stats.VerdictFaster}}
	got := reports.SlopesSummary(c, "element")
	if !strings.HasPrefix(got, "CPE B/A = 0.75, B − A = -0.5 ± 0.01 cycles/element (95%), p = ") ||
		!strings.HasSuffix(got, "(Welch's t on the slopes, 14.2 dof): "+stats.VerdictFaster) {
		t.Errorf("SlopesSummary = %q", got)
	}
}
