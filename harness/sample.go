package harness

// The sampling primitives: one timed region of R calls, a K-best stream of
// such samples, and the hooks through which tests see or replace what the
// engine samples.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// empty is the function whose timing loop is subtracted as overhead.
func empty() {}

// sample times r calls of f back to back in one region (throughput mode).
// It is not inlined, so f stays an opaque func value and the target and
// the empty function run the very same machine code. ok is false when the
// region straddled CPUs or ran on a CPU other than cpu (when checkCPU).
//
//go:noinline
func sample(f func(), r int, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	a, auxA := tsc.StartCPU()
	// Unrolled by four: Go keeps no register across a call, so the loop
	// counter is spilled and reloaded around every call; one update per
	// four calls keeps that store-to-load chain off the critical path.
	for i := r >> 2; i > 0; i-- {
		f()
		f()
		f()
		f()
	}
	for i := r & 3; i > 0; i-- {
		f()
	}
	b, auxB := tsc.StopCPU()
	if auxA != auxB || b < a || (checkCPU && tsc.AuxCPU(auxB) != cpu) {
		return 0, false
	}
	return b - a, true
}

// sampleFenced times r calls of f, each after a serializing fence, in one
// region (latency mode): a call cannot begin before the previous one has
// completed, so nothing overlaps.
//
//go:noinline
func sampleFenced(f func(), r int, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	a, auxA := tsc.StartCPU()
	for i := r; i > 0; i-- {
		tsc.Fence()
		f()
	}
	b, auxB := tsc.StopCPU()
	if auxA != auxB || b < a || (checkCPU && tsc.AuxCPU(auxB) != cpu) {
		return 0, false
	}
	return b - a, true
}

// counter is where and how the engine takes its samples: the pinned CPU
// (checked through RDTSCP where it can be), the counter's step and
// frequency, and the timed region of the Config's mode.
type counter struct {
	cpu      int
	checkCPU bool
	step, hz float64 // the counter's step in ticks and its frequency in Hz
	sampler  func(f func(), r int, cpu int, checkCPU bool) (uint64, bool)
}

// take times r calls of f (sample or sampleFenced).
func (c counter) take(f func(), r int) (uint64, bool) { return c.sampler(f, r, c.cpu, c.checkCPU) }

// stream is one K-best series of samples.
type stream struct {
	kb        *stats.KBest
	discarded int
	taken     int
	hw        hwCounts // the best sample's hardware counts (Config.Events)
}

func newStream(k int, eps, absTol float64, maxSamples int) (*stream, error) {
	kb, err := stats.NewKBest(k, eps, absTol, maxSamples)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return &stream{kb: kb}, nil
}

func (s *stream) add(v float64, ok bool) {
	s.taken++
	if !ok {
		s.discarded++
		return
	}
	s.kb.Add(v)
}

// done reports whether s needs no more samples.
func (s *stream) done(maxSamples int) bool {
	return s.kb.Converged() || s.taken >= maxSamples
}

// maxRecorded bounds the per-sample record kept for the summary, the
// two-cluster check and the quantum re-check.
const maxRecorded = 100_000

// rawSample is one accepted target sample: its ticks, the index of the
// R variant it timed, its round and the core-state probe's sample of that
// round in ticks (NaN without one).
type rawSample struct {
	ticks   uint64
	variant int
	round   int
	probe   float64
}

// asideSample is a sample a host probe set aside: by the calls probe, or
// else by the room probe.
type asideSample struct {
	s     rawSample
	calls bool
}

// overhead returns the best overhead sample subtracted from t's variant j
// (overheadRepeat), in ticks.
func (t *target) overhead(j int) float64 { return t.overs[j].kb.Min() }

// net converts a raw sample of t to ticks per call, overhead subtracted.
func (t *target) net(s rawSample) float64 {
	return (float64(s.ticks) - t.overhead(s.variant)) / float64(t.rs[s.variant])
}

// tracer, when set (by the recording test, see trace_test.go), receives
// every sample the engine takes, for estimators to be replayed offline.
var tracer func(traceSample)

// traceSample is one sample of a measurement: its round, its kind (T a
// target's, O the overhead's, R the ruler's), which target (T) or ruler
// stream (R) it belongs to, its length N (R calls, or the chain's links),
// its ticks and whether it was kept (false: a migration or a disturbance).
type traceSample struct {
	Round int
	Kind  byte
	Index int
	N     int
	Ticks uint64
	OK    bool
}

// rulerChains, when set (by tests), replaces the ruler's ADD and IMUL
// chains: a ruler that lies must be refused.
var rulerChains struct{ add, imul func(uint64, int) uint64 }
