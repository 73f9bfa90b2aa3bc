package selfcheck

// The core's state over a validation. Every measurement samples the
// core-state probe beside its target (harness.Result.Shared): a loop of
// one taken branch per iteration, which runs slower while another hardware
// thread has part of the core, when loops bound by the front end or by
// branches slow by a quarter to a half, while the register ADD and IMUL
// chains that every other check of a validation measures barely move. A
// validation that saw the core shared cannot call the machine quiet for
// such loops, however well its chains agreed.

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// coreState follows the probe over a validation's measurements.
type coreState struct {
	start     time.Time
	judged    int             // measurements whose probe was judged
	shared    []time.Duration // when each shared one ended, since the start
	maxExcess float64         // the largest excess of the probe over its best
}

// note records one measurement's probe, at now.
func (c *coreState) note(r harness.Result, now time.Time) {
	if math.IsNaN(r.ProbeExcess) {
		return
	}
	c.judged++
	c.maxExcess = math.Max(c.maxExcess, r.ProbeExcess)
	if r.Shared {
		c.shared = append(c.shared, now.Sub(c.start))
	}
}

// spans says when the shared measurements were, as runs of measurements
// less than gap apart: "0.2–0.9 s, 3.1 s".
func spans(at []time.Duration, gap time.Duration) string {
	var parts []string
	for i := 0; i < len(at); {
		j := i
		for j+1 < len(at) && at[j+1]-at[j] <= gap {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("%.1f s", at[i].Seconds()))
		} else {
			parts = append(parts, fmt.Sprintf("%.1f–%.1f s", at[i].Seconds(), at[j].Seconds()))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// sharedGap joins shared measurements into one stretch in the report.
const sharedGap = 500 * time.Millisecond

// secondsOf returns ds in seconds (an empty slice, never nil: JSON []).
func secondsOf(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// siblingShares is how much slower the probe must run while another
// allowed CPU spins for the two to count as one physical core: a busy
// sibling hardware thread doubles the taken-branch loop's cost (2.0
// against 1.02 cycles per iteration on the Intel guest, in the host's
// stretches), while a separate core leaves it within its own spread of a
// few percent (0.999 to 1.003 times on that guest's two vCPUs).
const siblingShares = 0.25

// sibling measures whether another allowed CPU shares the measuring CPU's
// physical core, as the guest's topology may not say: the probe alone,
// with that CPU spinning, and alone again. It records the first such CPU
// (or the last one tried) in the machine's state.
func (vr *validator) sibling() error {
	s := &vr.v.State
	s.SiblingCPU, s.SiblingSlowdown = -1, math.NaN()
	allowed, err := affinity.Allowed()
	if err != nil || len(allowed) < 2 {
		return nil // nothing to share the core with, or no way to know
	}
	vr.say("sibling CPUs")
	cfg := vr.base
	cfg.NoSettle = true
	var sink uint64
	probe := func(name string) (harness.Result, error) {
		return harness.Measure(vr.ctx, cfg, harness.Target{Name: name, Run: func() { sink = chain.Branch(sink, calibrate.ProbeIters) }, Elements: calibrate.ProbeIters})
	}
	alone, err := probe("probe, the other CPUs idle")
	if err != nil {
		return err
	}
	for _, other := range allowed {
		if other == alone.CPU || alone.CPU < 0 {
			continue
		}
		if len(allowed) > 8 && other != (alone.CPU^1) && other != alone.CPU-1 {
			continue // on a large machine, the likely siblings only
		}
		stop := spin(other)
		loaded, err := probe(fmt.Sprintf("probe, CPU %d spinning", other))
		stop()
		if err != nil {
			return err
		}
		again, err := probe("probe, the other CPUs idle again")
		if err != nil {
			return err
		}
		base := math.Min(alone.CyclesPerElement, again.CyclesPerElement)
		if !(base > 0) || !(loaded.CyclesPerElement > 0) {
			continue
		}
		s.SiblingCPU, s.SiblingSlowdown = other, loaded.CyclesPerElement/base
		if s.SiblingSlowdown > 1+siblingShares {
			break
		}
	}
	if sink == 1 {
		vr.v.Warnings = append(vr.v.Warnings, fmt.Errorf("selfcheck: the probe's sum was 1")) // keeps sink live
	}
	return nil
}

// sinkSpin keeps the spinning loop's work.
var sinkSpin atomic.Uint64

// spin keeps CPU cpu busy with a loop on a thread of its own until the
// returned function is called (which waits for the loop to end).
func spin(cpu int) (stop func()) {
	var halt atomic.Bool
	done := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(done)
		// At the measuring thread's priority, so that the loop, not the
		// CPU's other work, is what shares the core.
		p, err := affinity.Pin(affinity.Options{CPU: cpu, Priority: affinity.PriorityHigh})
		close(ready)
		if err != nil {
			return
		}
		defer p.Restore()
		// The probe's own loop: a sibling thread running it would take
		// half of the core's taken branches.
		var x uint64
		for !halt.Load() {
			x = chain.Branch(x, 10000)
		}
		sinkSpin.Add(x)
	}()
	<-ready
	time.Sleep(2 * time.Millisecond) // let the loop start on its CPU
	return func() {
		halt.Store(true)
		<-done
	}
}
