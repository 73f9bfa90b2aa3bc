package reports_test

import (
	"errors"
	"testing"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// TestReportsOfNothing: the reports of nil inputs are empty reports, not
// a panic.
func TestReportsOfNothing(t *testing.T) {
	if r := reports.NewInfoReport(nil, nil, -1, affinity.Capabilities{}); r.TSCHz != 0 || r.CrossChecks == nil {
		t.Errorf("NewInfoReport(nil) = %+v", r)
	}
	if s := reports.CoreClockText(nil); s != "unknown" {
		t.Errorf("CoreClockText(nil) = %q", s)
	}
	if r := reports.NewSlopesReport(results.Header{}, nil, nil, harness.CPEComparison{}, false); r.Verdict != stats.VerdictNoTest {
		t.Errorf("NewSlopesReport(nil, nil) = %+v", r)
	}
	if _, _, err := results.FitFiles(nil, nil, false); !errors.Is(err, results.ErrBadInput) {
		t.Errorf("FitFiles(nil) = %v, want ErrBadInput", err)
	}
}
