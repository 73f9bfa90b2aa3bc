package harness

import (
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
)

var gcSink []byte

// The helpers measure a function that allocates with the GC on, as it
// runs in a program, and one that does not with the GC off; CYCLEBENCH_GC
// decides over both.
func TestReportGCForAllocatingCode(t *testing.T) {
	alloc := func() { gcSink = make([]byte, 64) }
	noAlloc := func() { gcSink = gcSink[:0] }
	for _, tc := range []struct {
		name, env string
		run       func()
		keepGC    bool
	}{
		{"allocates", "", alloc, true},
		{"does not allocate", "", noAlloc, false},
		{"allocates, CYCLEBENCH_GC=off", "off", alloc, false},
		{"does not allocate, CYCLEBENCH_GC=on", "on", noAlloc, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
			getenv = envOf(map[string]string{EnvGC: tc.env})
			b := newFakeB("BenchmarkGC")
			b.run(1, DefaultConfig(), tc.run)
			if len(b.fatals) != 0 || len(*calls) != 1 {
				t.Fatalf("Fatal %q, %d measurements; want none and 1", b.fatals, len(*calls))
			}
			if got := (*calls)[0].KeepGC; got != tc.keepGC {
				t.Errorf("Measure got KeepGC %v, want %v", got, tc.keepGC)
			}
		})
	}
}

// A panic in the allocation probe fails the benchmark with one line, as
// one in the measurement does.
func TestReportGCProbePanics(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	b := newFakeB("BenchmarkPanic")
	b.run(1, DefaultConfig(), func() { panic("boom") })
	if len(b.fatals) != 1 || len(*calls) != 0 {
		t.Errorf("Fatal %q, %d measurements; want one line and none", b.fatals, len(*calls))
	}
}
