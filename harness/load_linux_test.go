//go:build linux

package harness

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// chainKernel returns a kernel of n dependent ADDs that continues the
// previous call's chain (chain.AddFrom), so that consecutive calls cannot
// overlap in the out-of-order core and each call costs exactly n cycles.
func chainKernel(n int) func() {
	return func() { testSink = chain.AddFrom(testSink, n) }
}

// TestLoad measures a 1000-ADD chain idle, then with a CPU burner (a helper
// process spinning at normal priority) pinned to the other CPU, then to the
// measuring CPU itself, with the measuring thread at raised and then at
// normal priority. K-best keeps the samples the burner did not
// interrupt, and the core-clock ruler measured in the same rounds turns
// ticks into core cycles whatever the clock does, so both measurements
// must converge and the cycle figure stay within 2% of idle (with the retry
// rule below).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts CPU burners; skipped with -short")
	}
	if !chain.Exact() {
		t.Skip("the reference chains are the pure-Go fallback on this build: no exact cycle figure to hold to 2%")
	}
	cal, err := calibrate.Get()
	if err != nil {
		t.Fatal(err)
	}
	if cal.CPU.Emulated != "" {
		t.Skipf("the processor is emulated (%s): cycle figures mean nothing here", cal.CPU.Emulated)
	}
	allowed, err := affinity.Allowed()
	if err != nil {
		t.Fatal(err)
	}
	if len(allowed) < 2 {
		t.Skipf("only CPU %v allowed: no other CPU for the burner", allowed)
	}
	x, other := allowed[len(allowed)-1], allowed[0]
	cfg := DefaultConfig()
	cfg.CPU = x
	measure := func(t *testing.T, what string, keepPriority bool) Result {
		t.Helper()
		c := cfg
		c.KeepPriority = keepPriority
		r, err := Measure(context.Background(), c, Target{Run: chainKernel(1000)})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%-40s %8.2f cycles  %8.2f ticks  %.4f cycles/tick  %4d samples  %2d discarded  converged %v  priority %s  spread %.3g%%",
			what+":", r.Cycles, r.Ticks, r.CyclesPerTick, r.Samples, r.Discarded, r.Converged, r.Priority, 100*r.Spread)
		return r
	}
	for _, tt := range []struct {
		name         string
		cpu          int
		keepPriority bool
	}{
		{"burner on the other cpu", other, false},
		{"burner on the same cpu", x, false},
		// At normal priority the burner gets half the CPU: many samples
		// are interrupted, and K-best must still find clean ones.
		{"burner on the same cpu, normal priority", x, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Retry rule: an idle measurement, then one with the burner,
			// until one pair has both converged within 2% of each other.
			// A failed pair either of whose measurements the probe found on a
			// shared core (Result.Shared: another guest's thread on the
			// physical core, which this test neither causes nor controls,
			// seen for whole CI runs) is set aside; the test fails when
			// three pairs on a core alone fail, and is skipped, with the
			// count, when eight pairs leave fewer than three to judge.
			// Other guests can still slow one measurement of a pair by a
			// few percent below the probe's threshold, or keep it from
			// converging in M samples, hence three; a harness that cannot
			// keep the burner out fails every pair it is judged on.
			var last string
			failed, shared := 0, 0
			for attempt := 1; attempt <= 8 && failed < 3; attempt++ {
				idle := measure(t, "idle", false)
				stop := startBurner(t, tt.cpu)
				r := measure(t, tt.name, tt.keepPriority)
				stop()
				d := math.Abs(r.Cycles-idle.Cycles) / idle.Cycles
				switch {
				case !idle.Converged || !r.Converged:
					last = fmt.Sprintf("did not converge (idle %v, %s %v): %v %v", idle.Converged, tt.name, r.Converged, idle.Warnings, r.Warnings)
				case d > 0.02:
					last = fmt.Sprintf("%.2f cycles, idle %.2f: %.2f%% apart", r.Cycles, idle.Cycles, 100*d)
				default:
					return
				}
				if idle.Shared || r.Shared {
					shared++
					t.Logf("attempt %d: set aside, the core was shared (idle %v, %s %v): %s", attempt, idle.Shared, tt.name, r.Shared, last)
					continue
				}
				failed++
				t.Logf("attempt %d: %s", attempt, last)
			}
			if failed < 3 {
				t.Skipf("%s: the host shared the core in %d of %d pairs, leaving %d failed pair(s) on a core alone: too few to judge the harness (the last: %s)", tt.name, shared, shared+failed, failed, last)
			}
			t.Errorf("%s: three pairs on a core alone did not converge within 2%% of idle (%d more set aside as shared); the last: %s", tt.name, shared, last)
		})
	}
}
