package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
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
		},
		{
			"everything resolves",
			[]Method{
				method(cputime.ClockWallUs, time.Microsecond, 9000, 9010, 9020),
				method(cputime.ClockTSC, time.Nanosecond, 9000, 9010, 9020),
				method(cputime.ClockThread, time.Nanosecond, 9500, 9600, 9700),
			},
			[]string{"every clock resolves", "agree with tsc within 1%: wall-us (+0%)", "differ from tsc by more than 1%: thread (+6.55%)", "spread by 0.222%"},
		},
		{
			"preempted",
			[]Method{
				method(cputime.ClockTSC, time.Nanosecond, 9000, 18000, 9000, 27000),
				method(cputime.ClockThread, time.Nanosecond, 9001, 9000, 9002, 9000),
			},
			[]string{"in repetitions 2, 4 the thread ran for only 50%, 33.3% of the tsc interval"},
		},
		{
			"coarse resolution, no zero",
			[]Method{
				method(cputime.ClockWallMs, time.Millisecond, 9000, 9000, 10000),
				method(cputime.ClockMonotonic, time.Nanosecond, 9200, 9210, 9220),
			},
			[]string{"wall-ms (resolution 1ms > 1% of the monotonic median 9.21ms)", "differ from monotonic"},
		},
		{
			"nesting cost",
			[]Method{
				{ClockInfo: ClockInfo{Clock: cputime.ClockProcess, Resolution: time.Nanosecond, Empty: 6 * time.Microsecond}, Readings: []time.Duration{506 * time.Microsecond}, Median: 506 * time.Microsecond},
				method(cputime.ClockTSC, time.Nanosecond, 500),
			},
			[]string{"differ from tsc by more than 1%: process (+1.2%; it reads 6µs around nothing)"},
		},
		{
			"no reference",
			[]Method{method(cputime.ClockThread, time.Nanosecond, 5, 6, 7)},
			[]string{"every clock resolves"},
		},
		{
			"unknown resolution",
			[]Method{method(cputime.ClockProcess, 0, 5, 6, 7)},
			[]string{"process (resolution unknown)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := KernelResult{Name: tt.name, Methods: tt.methods, Tolerance: DefaultTolerance}
			k.judge()
			v := k.Verdict()
			joined := strings.Join(v, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, w) {
					t.Errorf("verdict does not say %q:\n%s", w, joined)
				}
			}
		})
	}
}
