package reports

import (
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
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
