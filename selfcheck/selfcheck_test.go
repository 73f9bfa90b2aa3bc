package selfcheck

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/harness"
)

func TestStateVerdict(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		s        MachineState
		measured bool
		quiet    bool
		resolves float64
		text     []string
	}{
		{"quiet", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.00008, Detectable: 0.00012, ClockSpread: 0.0075}, true, true, 0.00012,
			[]string{"quiet enough to resolve 0.1%", "resolves 0.012% now", "0.01% (throughput)", "0.008% (latency)", "up to about 0.028%", "moved by 0.75%"}},
		{"separate results spread too far", MachineState{ThroughputCV: 0.0025, LatencyCV: 0.0002, Detectable: 0.00012}, true, false, 0.00012,
			[]string{"noisy: compare (A and B interleaved) resolves 0.012% now", "up to about 0.7%", "quieter moment"}},
		{"latency spread too wide", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.0015, Detectable: 0.0001}, true, false, 0.0001,
			[]string{"noisy"}},
		{"the comparison resolves too little", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.0001, Detectable: 0.004}, true, false, 0.004,
			[]string{"resolves 0.4% now"}},
		{"no A/A figure", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.0001, Detectable: nan}, true, true, 0.00028,
			[]string{"quiet"}},
		{"no A/A figure, noisy", MachineState{ThroughputCV: 0.001, LatencyCV: 0.0001, Detectable: nan}, true, false, 0.0028,
			[]string{"differences below 0.28% are not resolvable now"}},
		{"not measured", MachineState{Detectable: nan}, false, false, nan, []string{"not measured"}},
		// The chains agree to 0.01%, but the probe saw the core shared:
		// loops bound by the front end ran slow then, and the machine is
		// not quiet for them.
		{"the core was shared", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.00008, Detectable: 0.00012, CoreJudged: 93, ProbeMaxExcess: 0.93,
			CoreShared: []time.Duration{200 * time.Millisecond, 500 * time.Millisecond, 900 * time.Millisecond, 3100 * time.Millisecond}}, true, false, 0.00012,
			[]string{"noisy", "shared in 4 of 93 measurements (at 0.2–0.9 s, 3.1 s)", "up to 93% slower"}},
		{"a sibling CPU shares the core", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.00008, Detectable: 0.00012, SiblingCPU: 0, SiblingSlowdown: 1.97}, true, true, 0.00012,
			[]string{"quiet enough", "CPU 0 shares the measuring CPU's physical core (the probe ran 1.97× slower while it spun): keep it idle"}},
		{"separate cores", MachineState{ThroughputCV: 0.0001, LatencyCV: 0.00008, Detectable: 0.00012, SiblingCPU: 0, SiblingSlowdown: 1.01}, true, true, 0.00012,
			[]string{"quiet enough"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quiet, resolves, verdict := stateVerdict(tt.s, tt.measured)
			if quiet != tt.quiet || !(math.Abs(resolves-tt.resolves) < 1e-12 || math.IsNaN(resolves) && math.IsNaN(tt.resolves)) {
				t.Fatalf("stateVerdict = %v, %v, %q; want quiet %v, resolves %v", quiet, resolves, verdict, tt.quiet, tt.resolves)
			}
			for _, s := range tt.text {
				if !strings.Contains(verdict, s) {
					t.Errorf("verdict %q does not say %q", verdict, s)
				}
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want []string
	}{
		{"lengths", Options{Lengths: []int{10, 20}}, []string{"2 chain lengths", "at least 3"}},
		{"latency length", Options{LatencyLengths: []int{0, 10, 20}}, []string{"latency chain length 0", "1 to 1e9"}},
		{"reps", Options{Reps: 2}, []string{"reps 2", "3 to 1000"}},
		{"MaxCV", Options{MaxCV: -1}, []string{"MaxCV -1", "below 1"}},
		{"config", Options{Config: harness.Config{K: -1}}, []string{"K -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Validate(context.Background(), tt.o)
			if v != nil || !errors.Is(err, harness.ErrBadConfig) {
				t.Fatalf("Validate = %v, %v; want no validation and an error wrapping harness.ErrBadConfig", v, err)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}
