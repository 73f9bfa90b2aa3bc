package harness

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzConfig checks Config.WithDefaults, which every Measure, CPE and
// comparison goes through, on arbitrary field values: it must never panic;
// an error wraps ErrBadConfig on one line; an accepted configuration lies
// inside the documented ranges (so nothing downstream, gonum included, sees
// a NaN or a K of 0) and is a fixed point (filling defaults twice changes
// nothing, so a Result.Config fed back reproduces the run; a negative
// AbsSteps stays as given and disables the floor).
func FuzzConfig(f *testing.F) {
	f.Add(0, 0.0, 0.0, 0, int64(0), -1, int64(0), 0, 0.0, 0.0)
	f.Add(3, 0.01, 2.0, 1000, int64(time.Second), 1, int64(time.Hour), 8, 4000.0, 1000.0)
	f.Add(-1, math.NaN(), math.Inf(-1), 2, int64(-1), -2, int64(-1), -1, math.NaN(), math.Inf(1))
	f.Add(1001, 1.0, -3.0, 1, int64(1), 4095, int64(2*time.Hour), maxRepeat+1, 1e10, -1.0)
	f.Fuzz(func(t *testing.T, k int, eps, abs float64, m int, maxTime int64, cpu int, rt int64, repeat int, minRegion, elements float64) {
		in := Config{K: k, Epsilon: eps, AbsSteps: abs, MaxSamples: m, MaxTime: time.Duration(maxTime), CPU: cpu,
			RTTimeLimit: time.Duration(rt), Repeat: repeat, MinRegionSteps: minRegion}
		c, err := in.WithDefaults()
		if err != nil {
			if !errors.Is(err, ErrBadConfig) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%+v: error %q", in, err)
			}
			return
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		switch {
		case c.K < 1 || c.K > 1000:
			t.Fatalf("%+v: accepted K %d", in, c.K)
		case !finite(c.Epsilon) || c.Epsilon < 0 || c.Epsilon >= 1:
			t.Fatalf("%+v: accepted epsilon %v", in, c.Epsilon)
		case !finite(c.AbsSteps):
			t.Fatalf("%+v: accepted AbsSteps %v", in, c.AbsSteps)
		case c.MaxSamples < c.K:
			t.Fatalf("%+v: accepted MaxSamples %d < K %d", in, c.MaxSamples, c.K)
		case c.MaxTime <= 0:
			t.Fatalf("%+v: accepted MaxTime %v", in, c.MaxTime)
		case c.CPU < AnyCPU:
			t.Fatalf("%+v: accepted CPU %d", in, c.CPU)
		case c.RTTimeLimit < 0:
			t.Fatalf("%+v: accepted RTTimeLimit %v", in, c.RTTimeLimit)
		case c.Repeat < 0 || c.Repeat > maxRepeat:
			t.Fatalf("%+v: accepted Repeat %d", in, c.Repeat)
		case !finite(c.MinRegionSteps) || c.MinRegionSteps < 1:
			t.Fatalf("%+v: accepted MinRegionSteps %v", in, c.MinRegionSteps)
		case (Target{Run: func() {}, Elements: elements}).validate(c, "") == nil && (!finite(elements) || elements < 0):
			t.Fatalf("%+v: accepted Elements %v", in, elements)
		}
		again, err := c.WithDefaults()
		if err != nil {
			t.Fatalf("%+v: defaults filled in are rejected the second time: %v", in, err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("%+v: WithDefaults is not a fixed point:\n%+v\n%+v", in, c, again)
		}
	})
}
