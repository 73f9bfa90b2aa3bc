package results_test

import (
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// TestPairedOf: a ReportCompare line reads with its figures and verdict,
// refined by its log line; one whose verdict is inconclusive reads as
// such, from its log line or, without one, from its inconclusive metric,
// and its summary says so instead of "faster".
func TestPairedOf(t *testing.T) {
	metrics := []results.Value{{Value: 0.55517, Unit: "ratio"}, {Value: 0.55126, Unit: "ratio-lo"}, {Value: 0.559, Unit: "ratio-hi"},
		{Value: 0, Unit: "p-value"}, {Value: 0.128, Unit: "noise-band"}, {Value: 0, Unit: "significant"}, {Value: 1, Unit: "inconclusive"},
		{Value: 19844, Unit: "A-cycles/op"}, {Value: 8068, Unit: "B-cycles/op"}}
	faster := []results.Value{{Value: 0.777, Unit: "ratio"}, {Value: 0.775, Unit: "ratio-lo"}, {Value: 0.779, Unit: "ratio-hi"},
		{Value: 1e-13, Unit: "p-value"}, {Value: 0.002, Unit: "noise-band"}, {Value: 1, Unit: "significant"}, {Value: 0, Unit: "inconclusive"}}
	logLine := "harness.ReportCompare: Sum4/Sum = 0.55517 [0.55126, 0.559], p = 0, 60 pairs: inconclusive (Sum4 did not converge (its 3 best samples spread 12.8%, ε 1%))"
	e := results.Entry{Name: "Sum4vsSum"}
	tests := []struct {
		name    string
		run     results.Run
		verdict string
		a, b    string
		pairs   int
		summary string
	}{
		{"inconclusive, log line", results.Run{Other: metrics, Warnings: []string{logLine, "another warning"}}, stats.VerdictInconclusive, "Sum", "Sum4", 60, "inconclusive"},
		{"inconclusive, metric", results.Run{Other: metrics}, stats.VerdictInconclusive, "A", "B", 0, "inconclusive"},
		{"faster, metric", results.Run{Other: faster, Iters: 120}, stats.VerdictFaster, "A", "B", 0, "B ran 1.287 ± 0.004 times faster than A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !(results.Entry{Runs: []results.Run{tt.run}}).IsPaired() {
				t.Error("IsPaired = false for a run with a ratio")
			}
			c := results.PairedOf(e, tt.run)
			if c.Verdict != tt.verdict || c.Significant != (tt.verdict == stats.VerdictFaster) || c.A != tt.a || c.B != tt.b || c.Pairs != tt.pairs {
				t.Errorf("%+v: want verdict %q, sides %s/%s, %d pairs", c, tt.verdict, tt.b, tt.a, tt.pairs)
			}
			if !strings.HasPrefix(c.Summary, tt.summary) {
				t.Errorf("summary %q, want it to start %q", c.Summary, tt.summary)
			}
		})
	}
	if c := results.PairedOf(e, tests[0].run); !strings.Contains(c.Reason, "did not converge") || len(c.Warnings) != 1 {
		t.Errorf("reason %q, warnings %q: want the log line's reason, and the other warning kept", c.Reason, c.Warnings)
	}
	if (results.Entry{Runs: []results.Run{{Other: []results.Value{{Value: 1, Unit: "ns/op"}}}}}).IsPaired() {
		t.Error("IsPaired = true for a run without a ratio")
	}
}

func TestPairedBars(t *testing.T) {
	cs := []results.Paired{
		{Name: "X", A: "Sum1", B: "Sum4", Ratio: 0.8, Lo: 0.79, Hi: 0.81, NoiseBand: 0.002, Verdict: stats.VerdictFaster},
		{Name: "X", A: "Sum1", B: "Sum4", Ratio: 0.82, Lo: 0.83, Hi: 0.84, Verdict: stats.VerdictFaster},
		{Name: "Y", A: "a", B: "b", Ratio: 1, Lo: 0.99, Hi: 1.01, Verdict: stats.VerdictSame},
	}
	bars, err := results.PairedBars(cs)
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []string{"X: Sum4/Sum1 #1", "X: Sum4/Sum1 #2", "Y: b/a"}
	if strings.Join(bars.Groups, "|") != strings.Join(wantGroups, "|") || bars.NoiseBand != 0.002 || len(bars.Series[0].Bars) != 3 {
		t.Errorf("bars %+v, want groups %q and the first noise band", bars, wantGroups)
	}
	if b := bars.Series[0].Bars[1]; b.Lo != 0.82 || b.Hi != 0.84 {
		t.Errorf("bar %+v: want the interval widened to hold the ratio", b)
	}
	if got := results.PairedTitle(cs); got != "Sum4 vs Sum1, b vs a" {
		t.Errorf("PairedTitle = %q", got)
	}
	if _, err := results.PairedBars(nil); err == nil {
		t.Error("PairedBars(nil): no error")
	}
}

func TestWritePairedBench(t *testing.T) {
	cs := []results.Paired{{Name: "Sum4vsSum1", A: "Sum1", B: "Sum4", Ratio: 0.77698, Lo: 0.77524, Hi: 0.77937, PValue: 1.4e-13, Verdict: stats.VerdictFaster, Calls: 120,
		Run: results.Run{Other: []results.Value{{Value: 0.776981234, Unit: "ratio"}, {Value: 1419.5, Unit: "A-cycles/op"}}}}}
	var b strings.Builder
	if err := results.WritePairedBench(&b, results.Header{GOOS: "linux", CPU: "EPYC", Partial: "interrupted"}, cs); err != nil {
		t.Fatal(err)
	}
	want := "goos: linux\ncpu: EPYC\n# partial: interrupted\nBenchmarkSum4vsSum1\t120\t0.776981 ratio\t1419.5 A-cycles/op\n" +
		"# compare Sum4vsSum1: Sum4/Sum1 = 0.77698 [0.77524, 0.77937], p = 1.4e-13: faster\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
