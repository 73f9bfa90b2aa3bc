package harness

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// latencyState is the bundled AddChain kernel's shape: the running value
// in a struct, the chain called through a func value, calls counted.
type latencyState struct {
	acc, runs uint64
	run       func(uint64, int) uint64
	n         int
}

func (s *latencyState) step() { s.acc = s.run(s.acc, s.n); s.runs++ }

// TestLatencyIntercepts sweeps the register ADD chain in latency mode
// through four wrappers and reports each one's slope and intercept: the
// slope is the chain's latency (one cycle per ADD on every core, asserted
// within 3%), the intercept what the wrapper's fenced call costs beyond
// the fenced empty call, which depends on the wrapper and the core (logged
// only: docs/how-it-measures.md explains it, and docs/measurements keeps
// the table of each machine kind: go test -run TestLatencyIntercepts -v
// ./harness). A sweep whose slope misses is measured again, up to three
// times (a busy moment can bend one sweep).
func TestLatencyIntercepts(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps four kernels")
	}
	cal, err := calibrate.Get()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case cal.CPU.Emulated != "":
		t.Skipf("the processor is emulated (%s): latencies in cycles mean nothing here", cal.CPU.Emulated)
	case !chain.Exact():
		t.Skip("the chains are compiled Go here (noasm or no assembly for this GOARCH): one ADD per link is not guaranteed")
	}
	var sink, state uint64
	wrappers := []struct {
		name  string
		build func(n int) func()
	}{
		{"sink += chain.Add(n): starts from a constant, result added to a global", func(n int) func() { return func() { sink += chain.Add(n) } }},
		{"state = chain.AddFrom(state, n): the running value loaded and stored", func(n int) func() { return func() { state = chain.AddFrom(state, n) } }},
		{"s.acc = s.run(s.acc, s.n); s.runs++: a struct and a func value, as AddChain", func(n int) func() {
			s := &latencyState{run: chain.AddFrom, n: n}
			return s.step
		}},
		{"sink += uint64(n): no chain (the wrapper alone)", func(n int) func() { return func() { sink += uint64(n) } }},
	}
	sizes := []int{250, 500, 1000, 2000, 4000}
	var table strings.Builder
	fmt.Fprintf(&table, "%-80s %8s %10s %12s\n", "wrapper (latency mode, 1000 ADDs)", "slope", "intercept", "1000 ADDs")
	for i, w := range wrappers {
		retry(t, func() string {
			cfg := DefaultConfig()
			cfg.Mode, cfg.Calibration = Latency, cal
			r, err := CPE(context.Background(), cfg, Sweep{Name: w.name, Sizes: sizes, Build: func(n int) (Target, error) {
				return Target{Run: w.build(n), Elements: float64(n)}, nil
			}})
			if err != nil {
				return err.Error()
			}
			f, unit := r.Primary()
			if unit != "cycles" {
				t.Skipf("no cycle figure here (%s): %v", unit, r.Warnings)
			}
			want := 1.0
			if i == len(wrappers)-1 {
				want = 0
			}
			if math.Abs(f.Slope-want) > 0.03 {
				return fmt.Sprintf("%s: slope %.4f cycles per ADD, want %v ± 0.03", w.name, f.Slope, want)
			}
			fmt.Fprintf(&table, "%-80s %8.4f %+10.2f %12.1f\n", w.name, f.Slope, f.Intercept, 1000*f.Slope+f.Intercept)
			return ""
		})
	}
	t.Logf("%s family %d model %d (%s), %.4g cycles per tick:\n%s", cal.CPU.Brand, cal.CPU.Family, cal.CPU.Model, cal.CPU.Hypervisor, cal.Core.CyclesPerTick, table.String())
}
