package reports

import (
	"slices"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// TestPooledVerdicts: compare ./pkg -count N gets one verdict per
// comparison over its runs: a direction only when every run found it.
func TestPooledVerdicts(t *testing.T) {
	p := func(name string, ratio float64, verdict string) results.Paired {
		return results.Paired{Name: name, Ratio: ratio, Verdict: verdict}
	}
	cs := []results.Paired{
		p("Sum4vsSum1", 0.781, stats.VerdictFaster), p("Once", 1.2, stats.VerdictSlower), p("Sum4vsSum1", 0.779, stats.VerdictFaster),
		p("Flip", 0.95, stats.VerdictFaster), p("Flip", 1.05, stats.VerdictSlower), p("Flip", 1.0, stats.VerdictSame),
		p("Sum4vsSum1", 0.790, stats.VerdictFaster),
	}
	want := []string{
		"Sum4vsSum1 over 3 runs: B/A 0.781 (runs 0.779 to 0.79): B faster in every run",
		"Flip over 3 runs: B/A 1 (runs 0.95 to 1.05): no pooled verdict: the runs disagree (1 faster, 1 slower, 1 no significant difference)",
	}
	if got := PooledVerdicts(cs); !slices.Equal(got, want) {
		t.Errorf("PooledVerdicts =\n%q\nwant\n%q", got, want)
	}
}
