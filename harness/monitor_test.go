package harness

import (
	"testing"

	"github.com/cyclebench/cyclebench/perfevent"
)

// TestClassify: a switch or a fault discards a sample only while it is the
// exception and some sample has been kept; a migration always does.
func TestClassify(t *testing.T) {
	type step struct {
		cause       perfevent.Event
		taken, kept int
		discard     bool
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"the first sample is kept whatever moved", []step{{perfevent.ContextSwitches, 1, 0, false}, {perfevent.PageFaults, 2, 0, false}}},
		{"a rare switch after a kept sample is discarded", []step{{perfevent.ContextSwitches, 5, 4, true}}},
		{"a rare fault after a kept sample is discarded", []step{{perfevent.PageFaults, 5, 4, true}}},
		{"a migration always is", []step{{perfevent.CPUMigrations, 1, 0, true}}},
		{"switches in most samples are the kernel's own, and kept from then on", []step{
			{perfevent.ContextSwitches, 2, 1, true}, {perfevent.ContextSwitches, 3, 1, true}, {perfevent.ContextSwitches, 4, 1, true},
			{perfevent.ContextSwitches, 5, 1, true}, {perfevent.ContextSwitches, 6, 1, false}, {perfevent.ContextSwitches, 40, 30, false},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &monitor{}
			var d Disturbances
			for i, s := range c.steps {
				if got := m.classify(s.cause, &d, s.taken, s.kept); got != s.discard {
					t.Fatalf("step %d (%v, taken %d, kept %d): discard %v, want %v (%+v)", i, s.cause, s.taken, s.kept, got, s.discard, d)
				}
			}
		})
	}
}
