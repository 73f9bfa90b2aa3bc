package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
)

// method builds a Method from readings in µs.
func method(c cputime.Clock, res time.Duration, us ...float64) Method {
	r := make([]time.Duration, len(us))
	for i, v := range us {
		r[i] = time.Duration(v * 1e3)
	}
	return newMethod(ClockInfo{Clock: c, Resolution: res}, r)
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		name    string
		methods []Method
		want    []string // substrings, one per verdict line, in order
		kbest   *harness.Result
	}{
		{
			"bubble sort",
			[]Method{
				method(cputime.ClockWallMs, time.Millisecond, 0, 0, 0, 0, 0),
				method(cputime.ClockMonotonic, time.Nanosecond, 551, 552, 553, 551, 560),
				method(cputime.ClockTSC, time.Nanosecond, 550, 551, 552, 550, 559),
			},
			[]string{
				"cannot resolve the interval: wall-ms (read 0 in 5 of 5 repetitions; resolution 1ms > 1% of the tsc median 551µs)",
				"differ from tsc by more than 1%: wall-ms (-100%)",
				"agree with tsc within 1%: monotonic (+0.181%)",
			},
			nil,
		},
		{
			"everything resolves",
			[]Method{
				method(cputime.ClockWallUs, time.Microsecond, 9000, 9010, 9020),
				method(cputime.ClockTSC, time.Nanosecond, 9000, 9010, 9020),
				method(cputime.ClockThread, time.Nanosecond, 9500, 9600, 9700),
			},
			[]string{"every clock resolves", "agree with tsc within 1%: wall-us (+0%)", "differ from tsc by more than 1%: thread (+6.55%)", "spread by 0.222%"},
			nil,
		},
		{
			"preempted",
			[]Method{
				method(cputime.ClockTSC, time.Nanosecond, 9000, 18000, 9000, 27000),
				method(cputime.ClockThread, time.Nanosecond, 9001, 9000, 9002, 9000),
			},
			[]string{"in repetitions 2, 4 the thread ran for only 50%, 33.3% of the tsc interval"},
			nil,
		},
		{
			"coarse resolution, no zero",
			[]Method{
				method(cputime.ClockWallMs, time.Millisecond, 9000, 9000, 10000),
				method(cputime.ClockMonotonic, time.Nanosecond, 9200, 9210, 9220),
			},
			[]string{"wall-ms (resolution 1ms > 1% of the monotonic median 9.21ms)", "differ from monotonic"},
			nil,
		},
		{
			"nesting cost",
			[]Method{
				{ClockInfo: ClockInfo{Clock: cputime.ClockProcess, Resolution: time.Nanosecond, Empty: 6 * time.Microsecond}, Readings: []time.Duration{506 * time.Microsecond}, Median: 506 * time.Microsecond},
				method(cputime.ClockTSC, time.Nanosecond, 500),
			},
			[]string{"differ from tsc by more than 1%: process (+1.2%; it reads 6µs around nothing)"},
			nil,
		},
		{
			"no reference",
			[]Method{method(cputime.ClockThread, time.Nanosecond, 5, 6, 7)},
			[]string{"every clock resolves"},
			nil,
		},
		{
			"unknown resolution",
			[]Method{method(cputime.ClockProcess, 0, 5, 6, 7)},
			[]string{"process (resolution unknown)"},
			nil,
		},
		{
			"K-best figure",
			[]Method{
				method(cputime.ClockWallMs, time.Millisecond, 0, 0, 0),
				method(cputime.ClockTSC, time.Nanosecond, 550, 551, 552),
				method(cputime.ClockThread, time.Nanosecond, 556, 557, 558),
			},
			[]string{"cyclebench's K-best figure is 549µs per call (converged); the median reading is within 1% of it for tsc (+0.364%); more than 1% off for wall-ms (-100%), thread (+1.46%)"},
			&harness.Result{Nanoseconds: 549e3, Converged: true},
		},
		{
			"K-best figure not converged",
			[]Method{method(cputime.ClockTSC, time.Nanosecond, 550, 551, 552)},
			[]string{"cyclebench's K-best figure is 549µs per call (not converged: its 3 best samples spread by 1.3%, a rough figure); the median reading is within 1% of it for tsc (+0.364%)"},
			&harness.Result{Nanoseconds: 549e3, Best: []float64{1, 2, 3}, Spread: 0.013},
		},
		{
			"K-best figure as the scale",
			[]Method{
				method(cputime.ClockWallMs, time.Millisecond, 5000, 5000, 6000),
				method(cputime.ClockThread, time.Nanosecond, 5001, 5002, 5003),
			},
			[]string{"wall-ms (resolution 1ms > 1% of the K-best figure 5ms)", "K-best figure is 5ms per call (not converged: a rough figure)", "within 1% of it for wall-ms (+0%), thread (+0.04%)"},
			&harness.Result{Nanoseconds: 5e6},
		},
		{
			"K-best figure of 0",
			[]Method{method(cputime.ClockTSC, time.Nanosecond, 0.01, 0.01, 0.01)},
			[]string{"cannot resolve the interval: tsc (resolution 1ns > 1% of the tsc median 10ns)"},
			&harness.Result{Nanoseconds: 0, Converged: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := KernelResult{Name: tt.name, Methods: tt.methods, Tolerance: DefaultTolerance, KBest: tt.kbest}
			k.judge()
			v := k.Verdict()
			joined := strings.Join(v, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, w) {
					t.Errorf("verdict does not say %q:\n%s", w, joined)
				}
			}
			if _, ok := k.kbestNs(); !ok && strings.Contains(joined, "K-best figure is") {
				t.Errorf("verdict speaks of a K-best figure %v:\n%s", k.KBest, joined)
			}
		})
	}
}
