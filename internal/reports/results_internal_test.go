package reports

import (
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
)

// TestEventsAndModes: every event and mode once, in the order first seen.
func TestEventsAndModes(t *testing.T) {
	m := func(mode harness.Mode, events ...string) results.Measurement {
		r := results.Measurement{}
		r.Mode = mode
		for _, e := range events {
			r.Counters = append(r.Counters, harness.Counter{Event: e})
		}
		return r
	}
	tests := []struct {
		name   string
		ms     []results.Measurement
		events string
		modes  []harness.Mode
	}{
		{"none", nil, "", nil},
		{"one mode, no events", []results.Measurement{m(harness.Latency), m(harness.Latency)}, "", []harness.Mode{harness.Latency}},
		{"both modes", []results.Measurement{m(harness.Throughput, "instructions"), m(harness.Latency, "cache-misses", "instructions")},
			"instructions,cache-misses", []harness.Mode{harness.Throughput, harness.Latency}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(events(tt.ms), ","); got != tt.events {
				t.Errorf("Events: %q, want %q", got, tt.events)
			}
			if got := modes(tt.ms); !slices.Equal(got, tt.modes) {
				t.Errorf("Modes: %v, want %v", got, tt.modes)
			}
		})
	}
}

// TestCyclesCellMarks: every mark a figure earns is shown, in the legend's
// order; one does not hide another (a shared figure whose ruler did not
// converge was shown "~" alone, its shared label lost).
func TestCyclesCellMarks(t *testing.T) {
	base := harness.Result{Cycles: 40111.8, CyclesPerTick: 1.24, ReferenceConverged: true}
	for _, tt := range []struct {
		name string
		set  func(*harness.Result)
		want string
	}{
		{"none", func(*harness.Result) {}, ""},
		{"shared", func(r *harness.Result) { r.Shared = true }, "!"},
		{"shared, ruler not converged", func(r *harness.Result) { r.Shared, r.ReferenceConverged = true, false }, "!~"},
		{"room, quantile", func(r *harness.Result) { r.Room, r.Quantile = true, harness.Quantile }, "<*"},
	} {
		r := base
		tt.set(&r)
		got := CyclesCell(r, r.Cycles, 6)
		if tt.want == "" {
			if got != any(r.Cycles) {
				t.Errorf("%s: cell %#v, want the bare figure", tt.name, got)
			}
			continue
		}
		if sh, ok := got.(tab.Shown); !ok || sh.Text != tt.want+"40111.8" {
			t.Errorf("%s: cell %#v, want %q", tt.name, got, tt.want+"40111.8")
		}
	}
}
