package harness

import (
	"errors"
	"strings"
	"testing"
)

// TestRemedyNamesTheLimit: a measurement that did not converge says which
// limit stopped it (Result.StoppedBy, and its warning), and the remedy
// names that limit: -benchtime 10000x when samples ran out (-benchtime 3s
// would not help), more time when time ran out.
func TestRemedyNamesTheLimit(t *testing.T) {
	tests := []struct {
		stop       stopReason
		want, not  string
		stoppedBy  string
		inWarning  string
		remedyHits []string
	}{
		{stopSamples, "-benchtime 10000x", "-benchtime 3s", "MaxSamples", "stopped by MaxSamples", []string{"Config.MaxSamples", "cyclebench -m 10000"}},
		{stopMaxTime, "-benchtime 3s", "-benchtime 10000x", "MaxTime", "stopped by MaxTime", []string{"Config.MaxTime", "-max-time 30s"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.stop), func(t *testing.T) {
			m := cleanMeasured()
			m.converged, m.spread, m.stoppedBy = false, 0.034, limitName[tt.stop]
			r, err := buildResult(m)
			if err != nil {
				t.Fatal(err)
			}
			if r.StoppedBy != tt.stoppedBy {
				t.Errorf("StoppedBy %q, want %q", r.StoppedBy, tt.stoppedBy)
			}
			var w string
			for _, e := range r.Warnings {
				if errors.Is(e, ErrNotConverged) {
					w = e.Error()
				}
			}
			if !strings.Contains(w, tt.inWarning) {
				t.Fatalf("warning %q lacks %q", w, tt.inWarning)
			}
			got := Remedy(w)
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("Remedy(%q) = %q: want %q, not %q", w, got, tt.want, tt.not)
			}
			for _, h := range tt.remedyHits {
				if !strings.Contains(got, h) {
					t.Errorf("Remedy = %q, lacks %q", got, h)
				}
			}
		})
	}
	// A warning read back from an older file names no limit: both remedies.
	if got := Remedy(ErrNotConverged.Error() + ": sum: spread of the 3 best is 3.4% after 1000 samples in 101ms (ε 1%)"); !strings.Contains(got, "10000x") || !strings.Contains(got, "-max-time") {
		t.Errorf("Remedy of a warning without its limit = %q: want both limits", got)
	}
}
