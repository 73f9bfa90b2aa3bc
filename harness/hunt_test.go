package harness

// Hunting wrong cycle figures: measurements of kernels whose cost is known
// exactly (dependent chains, called back to back) repeated for a while on
// a busy host, keeping the sample streams of those whose figure came out
// wrong, with the counter's time of each sample, so that what made them
// wrong can be read off. Record with
//
//	CYCLEBENCH_HUNT=testdata/hunts/<vendor>-<core>.txt.gz CYCLEBENCH_HUNT_FOR=10m go test -run TestRecordWrongFigures -timeout 0 ./harness
//
// The file holds the result of every wrong measurement and of one right
// one in a hundred, and the samples of the first short wrong one (a
// measurement of 100 ms holds about 15,000), in the format of
// trace_test.go with a sixth column, the counter's reading when the sample
// ended, relative to the measurement's first sample.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/tsc"
)

// huntKernels are continued chains: calls back to back cost n links, and
// a figure off by more than the call's share (about 1%) is wrong.
func huntKernels() []streamKernel {
	var sink uint64
	return []streamKernel{
		{"imul1000", Throughput, 3000, func() { sink = chain.ImulFrom(sink, 1000) }},
		{"add10000", Throughput, 10000, func() { sink = chain.AddFrom(sink, 10000) }},
	}
}

// huntStreamsKept wrong measurements of at most huntStreamBytes of samples
// keep their samples: enough to read what happened, small enough to keep.
const huntStreamsKept, huntStreamBytes = 1, 200_000

func TestRecordWrongFigures(t *testing.T) {
	path := os.Getenv("CYCLEBENCH_HUNT")
	if path == "" {
		t.Skip("records only when CYCLEBENCH_HUNT names the file to write (see hunt_test.go)")
	}
	dur := 10 * time.Minute
	if s := os.Getenv("CYCLEBENCH_HUNT_FOR"); s != "" {
		var err error
		if dur, err = time.ParseDuration(s); err != nil {
			t.Fatalf("CYCLEBENCH_HUNT_FOR %q: %v (allowed: a duration such as 10m)", s, err)
		}
	}
	var b bytes.Buffer
	cal := recordingHeader(t, &b, "wrong-figure hunt: round kind index n ticks at (ticks -1: discarded; at: counter ticks since the measurement's first sample); M starts a measurement")
	t.Cleanup(func() { tracer = nil })
	ks := huntKernels()
	var n, wrong, kept int
	for start := time.Now(); time.Since(start) < dur; {
		for _, k := range ks {
			var rec bytes.Buffer
			var t0 uint64
			tracer = func(s traceSample) {
				now := tsc.Read()
				if t0 == 0 {
					t0 = now
				}
				ticks := int64(s.Ticks)
				if !s.OK {
					ticks = -1
				}
				fmt.Fprintf(&rec, "%d %c %d %d %d %d\n", s.Round, s.Kind, s.Index, s.N, ticks, now-t0)
			}
			cfg := DefaultConfig()
			cfg.Mode, cfg.Calibration = k.mode, cal
			r, err := Measure(context.Background(), cfg, Target{Name: k.name, Run: k.run})
			tracer = nil
			if err != nil {
				t.Fatal(err)
			}
			n++
			off := r.Cycles/k.truth - 1
			bad := r.Cycles > 0 && (off < -0.002 || off > 0.02)
			if bad {
				wrong++
			}
			if !bad && n%100 != 0 {
				continue
			}
			fmt.Fprintf(&b, "M %s-%d %s %s %g\n", k.name, n, k.name, k.mode, k.truth)
			if bad && kept < huntStreamsKept && rec.Len() <= huntStreamBytes {
				kept++
				b.Write(rec.Bytes())
			}
			fmt.Fprintf(&b, "# result %.6g cycles (%+.2f%%), cpt %.6g, imul/add %.4f, converged %v, shared %v, probe %.3f (%+.1f%%), waited %v, warnings %q\n",
				r.Cycles, 100*off, r.CyclesPerTick, r.Ruler.ImulAddRatio, r.Converged, r.Shared, r.Probe, 100*r.ProbeExcess, r.RulerWait, r.Warnings)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "# load after: %s# %d measurements, %d wrong, the samples of %d kept\n", load, n, wrong, kept)
	t.Logf("%d measurements, %d wrong, the samples of %d kept", n, wrong, kept)
	writeGzip(t, path, b.String())
}
