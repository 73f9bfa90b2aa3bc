package harness

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
)

// cpuTimeAvailable reports whether this platform reads thread CPU time.
func cpuTimeAvailable() bool {
	_, err := cputime.Thread()
	return err == nil
}

// utilisationAvailable reports whether this platform measures utilisation.
func utilisationAvailable() bool {
	s, err := cputime.StartUtilisation()
	if err != nil {
		return false
	}
	_, err = s.Stop()
	return err == nil
}

// hasWarning reports whether ws holds an error wrapping target.
func hasWarning(ws []error, target error) bool {
	return slices.ContainsFunc(ws, func(w error) bool { return errors.Is(w, target) })
}

// checkCPUFigures checks the invariants that tie a Result's CPU-time,
// per-call and utilisation figures together.
func checkCPUFigures(t *testing.T, r Result) {
	t.Helper()
	// Samples take the R variants in turn: Calls lies between Samples
	// times the smallest and times the largest (exactly Samples × Repeat
	// with one variant).
	lo, hi := int64(r.Samples)*int64(slices.Min(r.Repeats)), int64(r.Samples)*int64(slices.Max(r.Repeats))
	if r.Retunes == 0 && (r.Calls < lo || r.Calls > hi) {
		t.Errorf("Calls = %d, want Samples × Repeats = %d × %v: %d to %d", r.Calls, r.Samples, r.Repeats, lo, hi)
	}
	if r.Calls == 0 {
		t.Fatalf("no calls in the sampling loop: %+v", r)
	}
	if want := float64(r.Wall.Nanoseconds()) / float64(r.Calls); math.Abs(r.WallNsPerCall-want) > 1e-9*want {
		t.Errorf("WallNsPerCall = %v, want Wall / Calls = %v", r.WallNsPerCall, want)
	}
	if !cpuTimeAvailable() {
		if r.ThreadCPU != 0 || r.ThreadCPUSource != "" || !slices.ContainsFunc(r.Warnings, func(w error) bool { return strings.Contains(w.Error(), "no thread cpu time") }) {
			t.Errorf("thread cpu time unavailable but ThreadCPU %v from %q, warnings %v", r.ThreadCPU, r.ThreadCPUSource, r.Warnings)
		}
		return
	}
	if r.ThreadCPU <= 0 || r.ThreadCPUSource == "" {
		t.Fatalf("ThreadCPU = %v from %q, want a positive figure and its source (warnings %v)", r.ThreadCPU, r.ThreadCPUSource, r.Warnings)
	}
	res, _ := cputime.ClockThread.Resolution()
	// The thread-CPU interval lies inside the wall interval.
	if slack := 2*res + time.Microsecond; r.ThreadCPU > r.Wall+slack {
		t.Errorf("ThreadCPU %v > Wall %v (+%v)", r.ThreadCPU, r.Wall, slack)
	}
	if want := float64(r.ThreadCPU.Nanoseconds()) / float64(r.Calls); math.Abs(r.ThreadCPUNsPerCall-want) > 1e-9*want {
		t.Errorf("ThreadCPUNsPerCall = %v, want ThreadCPU / Calls = %v", r.ThreadCPUNsPerCall, want)
	}
	blocked := r.ThreadCPUNsPerCall < minCPUShare*r.WallNsPerCall
	if got := hasWarning(r.Warnings, ErrBlocks); got != blocked {
		t.Errorf("ErrBlocks warning %v, but thread cpu %v ns/call over wall %v ns/call", got, r.ThreadCPUNsPerCall, r.WallNsPerCall)
	}
	if utilisationAvailable() {
		u := r.Utilisation
		// The wall interval lies inside the utilisation interval.
		if u.Wall < r.Wall-time.Microsecond || u.ProcessCPU < 0 || u.OfOneCPU < 0 || u.OfAllCPUs < 0 || u.NumCPU < 1 {
			t.Errorf("Utilisation %+v inconsistent with Wall %v", u, r.Wall)
		}
	}
}

func TestMeasureCPUFigures(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		f       func()
		blocked bool // the kernel sleeps: ErrBlocks must appear
	}{
		{"spinning", Config{CPU: AnyCPU, MaxSamples: 50, NoCycles: true}, addKernel(2000), false},
		{"sleeping 2ms", Config{CPU: AnyCPU, Repeat: 1, MaxSamples: 5, Warmup: -1, NoCycles: true}, func() { time.Sleep(2 * time.Millisecond) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Measure(context.Background(), tt.cfg, Target{Run: tt.f})
			if err != nil {
				t.Fatal(err)
			}
			checkCPUFigures(t, r)
			if tt.blocked && cpuTimeAvailable() && !hasWarning(r.Warnings, ErrBlocks) {
				t.Errorf("no ErrBlocks warning for a sleeping kernel: thread cpu %v ns/call, wall %v ns/call, warnings %v", r.ThreadCPUNsPerCall, r.WallNsPerCall, r.Warnings)
			}
			if tt.blocked && utilisationAvailable() && r.Utilisation.OfOneCPU >= 100*minCPUShare {
				t.Errorf("a sleeping kernel used %.3g%% of one CPU", r.Utilisation.OfOneCPU)
			}
		})
	}
}
