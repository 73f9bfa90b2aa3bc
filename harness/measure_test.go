package harness

import (
	"context"
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

var testSink uint64

// addKernel returns a kernel of n dependent ADDs that continues the previous
// call's chain, so that repeated calls cannot overlap (see chain.AddFrom).
func addKernel(n int) func() { return func() { testSink = chain.AddFrom(testSink, n) } }

func TestBadConfig(t *testing.T) {
	ok := func() {}
	tests := []struct {
		name string
		cfg  Config
		tg   Target
		want error
		text string
	}{
		{"nil func", DefaultConfig(), Target{}, ErrBadConfig, "Run is nil"},
		{"K negative", Config{K: -1, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "K -1"},
		{"K huge", Config{K: 5000, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "K 5000"},
		{"eps NaN", Config{Epsilon: math.NaN(), CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "Epsilon NaN"},
		{"eps negative", Config{Epsilon: -0.1, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "Epsilon -0.1"},
		{"eps Inf", Config{Epsilon: math.Inf(1), CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "Epsilon +Inf"},
		{"M below K", Config{K: 10, MaxSamples: 5, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "MaxSamples 5"},
		{"CPU -2", Config{CPU: -2}, Target{Run: ok}, ErrBadConfig, "CPU -2"},
		{"Repeat negative", Config{Repeat: -1, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "Repeat -1"},
		{"Elements NaN", DefaultConfig(), Target{Run: ok, Elements: math.NaN()}, ErrBadConfig, "Elements NaN"},
		{"AbsSteps Inf", Config{AbsSteps: math.Inf(-1), CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "AbsSteps -Inf"},
		{"MaxTime negative", Config{MaxTime: -time.Second, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "MaxTime -1s"},
		{"Setup with Repeat", Config{Repeat: 5, CPU: AnyCPU}, Target{Run: ok, Setup: ok}, ErrBadConfig, "Repeat 5"},
		{"MinRegionSteps", Config{MinRegionSteps: -3, CPU: AnyCPU}, Target{Run: ok}, ErrBadConfig, "MinRegionSteps -3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Measure(context.Background(), tt.cfg, tt.tg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("error %q does not name %q", err, tt.text)
			}
		})
	}
}

func TestCPUOutsideAllowedSet(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU validation against the allowed set is exercised on Linux")
	}
	_, err := Measure(context.Background(), Config{CPU: 9999}, Target{Run: func() {}})
	if err == nil || !strings.Contains(err.Error(), "9999") {
		t.Fatalf("CPU 9999: err = %v, want an error naming 9999", err)
	}
}

func TestMeasureInvariants(t *testing.T) {
	cfg := DefaultConfig()
	r, err := Measure(context.Background(), cfg, Target{Name: "add1000", Run: addKernel(1000), Elements: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "add1000" || r.Repeat < 1 || r.Samples < r.Config.K || r.Ticks <= 0 {
		t.Fatalf("result %+v", r)
	}
	if len(r.Best) != r.Config.K && r.Converged {
		t.Fatalf("converged with %d best values, K = %d", len(r.Best), r.Config.K)
	}
	for i := 1; i < len(r.Best); i++ {
		if r.Best[i] < r.Best[i-1] {
			t.Fatalf("Best not ascending: %v", r.Best)
		}
	}
	if d := math.Abs(r.Nanoseconds - r.Ticks/r.TicksPerSecond*1e9); d > 1e-9*r.Nanoseconds {
		t.Fatalf("Nanoseconds %v inconsistent with Ticks %v at %v Hz", r.Nanoseconds, r.Ticks, r.TicksPerSecond)
	}
	if r.CyclesPerTick <= 0 || math.Abs(r.Cycles-r.Ticks*r.CyclesPerTick) > 1e-9*r.Cycles {
		t.Fatalf("Cycles %v inconsistent with Ticks %v × %v", r.Cycles, r.Ticks, r.CyclesPerTick)
	}
	if math.Abs(r.CyclesPerElement-r.Cycles/1000) > 1e-9 || math.Abs(r.TicksPerElement-r.Ticks/1000) > 1e-9 {
		t.Fatalf("per-element figures wrong: %+v", r)
	}
	// With a ruler, converged means the cycle figures of the even and the
	// odd rounds agree within ε of the sample per call as timed, or within
	// the absolute floor: AbsSteps quanta of a sample of Repeat calls
	// (engine.converged). The K best ticks may spread wider (a core clock
	// moving under them). A figure from the samples' low quantile (no
	// floor: a CI run met one for this chain, the core busy with the
	// other packages' tests) converges when the halves' quantiles agree,
	// which HalvesApart does not measure.
	floor := math.Max(r.Config.AbsSteps, 0) * r.Quantum / float64(r.Repeat)
	if r.Converged && r.Quantile == 0 && !(r.HalvesApart <= math.Max(r.Config.Epsilon, floor/r.Best[0])*(1+1e-9)) {
		t.Fatalf("Converged, but the halves are %v apart (ε %v, floor %v ticks per call of %v)", r.HalvesApart, r.Config.Epsilon, floor, r.Best[0])
	}
	floorJudged := r.Quantile == 0 && !slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, ErrFloorUnjudged) })
	if !r.Converged && floorJudged && r.HalvesApart <= r.Config.Epsilon/2 && r.Samples >= 2*r.Config.K && r.Discarded == 0 {
		t.Fatalf("not converged, with the halves %v apart and %d samples (ε %v)", r.HalvesApart, r.Samples, r.Config.Epsilon)
	}
	// The cycle figure stands on two independent chains: where this core's
	// multiply latency is documented, the IMUL chain measured beside the
	// ADD chain must have agreed with it (the precision target is checked
	// by cyclebench validate). Agreed means within the ruler's tolerance,
	// which widens with its chains' spread on a busy host (DecideRuler);
	// an ADD chain that lagged its IMUL chain by more than the plain
	// tolerance makes every figure read low, and the result must say so
	// (ErrRulerLag): a CI run on the Intel guest met IMUL/ADD 2.64, the
	// core shared, accepted with the spread's tolerance.
	if cal, err := calibrate.Get(); err == nil {
		if _, known := cal.CPU.ImulLatency(); known && r.CyclesPerTick > 0 {
			off := r.Ruler.ImulAddRatio/r.Ruler.ImulLatency - 1
			if !r.CyclesChecked || !r.Ruler.Checked || math.Abs(off) > calibrate.DefaultRulerThresholds.MaxAgree {
				t.Fatalf("cycles from a ruler that was not checked: %+v", r.Ruler)
			}
			if off < -calibrate.DefaultRulerThresholds.Agree && !slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, ErrRulerLag) }) {
				t.Fatalf("the ADD chain lagged its IMUL chain (IMUL/ADD %.4f), but no warning says the figures read low: %v", r.Ruler.ImulAddRatio, r.Warnings)
			}
		}
	}
}

// fakeRulerAdd replaces the ruler's ADD chain by add for the rest of the
// test, after skipping it (saying why: without) where no multiply latency is
// documented, since then no IMUL chain checks the ADD chain.
func fakeRulerAdd(t *testing.T, without string, add func(uint64, int) uint64) {
	t.Helper()
	cal, err := calibrate.Get()
	if err != nil {
		t.Fatal(err)
	}
	if _, known := cal.CPU.ImulLatency(); !known {
		t.Skip("the multiply latency of this processor is not documented (or the chains are pure Go / emulated): " + without)
	}
	rulerChains.add = add
	t.Cleanup(func() { rulerChains.add = nil })
}

// TestFoldedRulerGivesNoCycles measures through the whole engine with a
// ruler whose ADD chain lies as a folding renamer makes a small-immediate
// chain lie (a fifth of the links executed, so about 0.2 cycles each): the
// result must carry no cycle figure, and a warning naming both chains.
func TestFoldedRulerGivesNoCycles(t *testing.T) {
	fakeRulerAdd(t, "no second chain to refuse the folded one", func(x uint64, n int) uint64 { return chain.AddFrom(x, n/5) })
	cfg := DefaultConfig()
	r, err := Measure(context.Background(), cfg, Target{Name: "AddChain(1000)", Run: addKernel(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cycles != 0 || r.CyclesPerTick != 0 || r.CyclesSource != "" || r.CyclesChecked || r.CyclesPerElement != 0 {
		t.Fatalf("a folded ruler gave cycles %v (%v per tick, source %q); want no figure", r.Cycles, r.CyclesPerTick, r.CyclesSource)
	}
	if r.Ticks <= 0 || r.Nanoseconds <= 0 {
		t.Fatalf("ticks %v, ns %v: the other figures must stand", r.Ticks, r.Nanoseconds)
	}
	var found error
	for _, w := range r.Warnings {
		if errors.Is(w, ErrNoCycles) && (errors.Is(w, calibrate.ErrRulersDisagree) || errors.Is(w, calibrate.ErrImplausibleClock)) {
			found = w
		}
	}
	if found == nil || !strings.Contains(found.Error(), "register ADD chain") || (errors.Is(found, calibrate.ErrRulersDisagree) && !strings.Contains(found.Error(), "IMUL chain")) {
		t.Fatalf("warnings %v: want one that the rulers were refused, naming both chains", r.Warnings)
	}
	if !r.Ruler.Refused() || r.Ruler.AddTicksPerOp <= 0 {
		t.Fatalf("Ruler = %+v, want the refused verdict with the chains' figures", r.Ruler)
	}
	t.Logf("refused, as it must be: %v", found)
}

// TestLaggingRulerWaitsThenWarns measures through the whole engine with a
// ruler whose ADD chain runs 2% more links than it claims, as an ADD chain
// delayed by a busy SMT sibling runs slower than its IMUL chain implies
// (within the 10% that refuses a ruler): a measurement waits the whole
// budget (calibrate.DefaultRulerThresholds.Wait) for the chains to agree,
// then warns (ErrRulerLag) and keeps its figure. Every Measure waits: no
// state in the process carries one measurement's wait over to the next.
// The measurements of one run that share a ledger (a CPE call's sweeps)
// stop waiting after GiveUp waits in vain, and still warn.
func TestLaggingRulerWaitsThenWarns(t *testing.T) {
	fakeRulerAdd(t, "no IMUL chain to show the lag", func(x uint64, n int) uint64 { return chain.AddFrom(x, n+n/50) })
	th := calibrate.DefaultRulerThresholds
	lagOf := func(t *testing.T, i int, r Result) error {
		t.Helper()
		var lag error
		for _, w := range r.Warnings {
			if errors.Is(w, ErrRulerLag) {
				lag = w
			}
		}
		if lag == nil || r.Cycles <= 0 || !r.CyclesChecked {
			t.Fatalf("measurement %d: warnings %v, cycles %v (checked %v): want the figure, with a warning that the ADD chain lagged", i, r.Warnings, r.Cycles, r.CyclesChecked)
		}
		return lag
	}
	// A measurement the host's own shared core labelled (the probe slow:
	// ErrSharedCore; the shared-core verdict then stands for the ruler's)
	// or that never converged and so never came to the wait says nothing
	// of the fake ruler's lag: it is set aside, and logged. A local run
	// met one in a stretch with the probe 123% slow.
	hostShared := func(t *testing.T, i int, r Result) bool {
		t.Helper()
		if (r.RulerWait == 0 && !r.Converged) || slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, ErrSharedCore) }) {
			t.Logf("measurement %d: the host shared the core (converged %v, shared %v): set aside", i, r.Converged, r.Shared)
			return true
		}
		return false
	}
	waited := func(t *testing.T, i int, r Result, lag error) {
		t.Helper()
		// A measurement may run out of its MaxTime while it waits (a slow
		// moment of the host before it converged): it still waited, which
		// is what this test is about (one that never came to the wait is
		// hostShared's).
		ranOut := r.RulerWait > 0 && strings.Contains(lag.Error(), "the measurement's time ran out")
		if (r.RulerWait < th.Wait || !strings.Contains(lag.Error(), "after waiting")) && !ranOut {
			t.Fatalf("measurement %d: waited %v (%v); want the whole %v, and the warning saying so", i, r.RulerWait, lag, th.Wait)
		}
	}
	judged := 0
	for i := range th.GiveUp + 1 {
		r, err := Measure(context.Background(), DefaultConfig(), Target{Name: "AddChain(1000)", Run: addKernel(1000)})
		if err != nil {
			t.Fatal(err)
		}
		if !hostShared(t, i, r) {
			waited(t, i, r, lagOf(t, i, r))
			judged++
		}
		t.Logf("Measure %d: waited %v", i, r.RulerWait)
	}
	if judged == 0 {
		t.Skipf("none of %d measurements converged: the host shared the core throughout; the wait is not judged", th.GiveUp+1)
	}
	// One run's measurements sharing a ledger give up after GiveUp waits
	// in vain. A measurement whose MaxTime ran out while it waited (the
	// host slow, the probe too on a shared core) neither counts as a wait
	// in vain nor clears the count, so the ledger is filled until it holds
	// GiveUp, each measurement having waited, for at most 4×GiveUp
	// measurements (skipped, with the count, if the host's state never
	// let one wait its whole budget); then the next must not wait.
	giveUp := func(t *testing.T, what string, waits *Waits, measure func() Result) {
		t.Helper()
		i := 0
		for ; waits.get() < th.GiveUp; i++ {
			if i == 4*th.GiveUp {
				t.Skipf("%s: %d measurements, %d of which waited the whole %v: the rest ran out of their time while they waited (a slow host); the give-up is not judged", what, i, waits.get(), th.Wait)
			}
			r := measure()
			if !hostShared(t, i, r) {
				waited(t, i, r, lagOf(t, i, r))
			}
			t.Logf("%s %d: waited %v", what, i, r.RulerWait)
		}
		r := measure()
		if r.RulerWait != 0 {
			t.Fatalf("%s %d, after %d waits in vain: waited %v; want no wait", what, i, th.GiveUp, r.RulerWait)
		}
		if hostShared(t, i, r) {
			return
		}
		if lag := lagOf(t, i, r); !strings.Contains(lag.Error(), "not waited for") {
			t.Fatalf("%s %d, after %d waits in vain: waited %v (%v); want no wait, and the warning saying why", what, i, th.GiveUp, r.RulerWait, lag)
		}
	}
	var waits Waits
	giveUp(t, "run measurement", &waits, func() Result {
		e, _, err := measureTargets(context.Background(), DefaultConfig(), runSpec{name: "AddChain(1000)", targets: []Target{{Name: "AddChain(1000)", Run: addKernel(1000)}}, waits: &waits})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.result(e.targets[0])
		if err != nil {
			t.Fatal(err)
		}
		r.Warnings = append(r.Warnings, e.warnings...)
		return r
	})
	// Measures that share Config.Waits (a CLI run, a validation) give up
	// as well, and their results do not keep the ledger.
	shared := DefaultConfig()
	shared.Waits = &Waits{}
	giveUp(t, "Measure sharing Config.Waits", shared.Waits, func() Result {
		r, err := Measure(context.Background(), shared, Target{Name: "AddChain(1000)", Run: addKernel(1000)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Config.Waits != nil {
			t.Fatalf("Result.Config keeps the run's Waits; want it dropped")
		}
		return r
	})
	// NoSettle: no wait, and the warning says why.
	cfg := DefaultConfig()
	cfg.NoSettle = true
	r, err := Measure(context.Background(), cfg, Target{Name: "AddChain(1000)", Run: addKernel(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if r.RulerWait != 0 || !slices.ContainsFunc(r.Warnings, func(w error) bool {
		return errors.Is(w, ErrRulerLag) && strings.Contains(w.Error(), "NoSettle")
	}) {
		t.Fatalf("NoSettle: waited %v, warnings %v; want no wait and a lag warning naming NoSettle", r.RulerWait, r.Warnings)
	}
}

// TestEmptyFunction: in latency mode the fenced empty call is what is
// subtracted, so the empty function nets about 0; in throughput mode only
// the empty region is, so the empty function costs what a call costs back
// to back, more than nothing.
func TestEmptyFunction(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Mode = Latency
	r, err := Measure(context.Background(), cfg, Target{Run: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	perCall := r.OverheadTicks / float64(r.Repeat)
	if math.Abs(r.Ticks) > math.Max(perCall, 2*r.Step/float64(r.Repeat)) {
		t.Fatalf("latency: empty function = %v ticks/call; the fenced loop's overhead itself is %v ticks/call", r.Ticks, perCall)
	}
	cfg.Mode = Throughput
	if r, err = Measure(context.Background(), cfg, Target{Run: func() {}}); err != nil {
		t.Fatal(err)
	}
	best := r.Best[0] * float64(r.Repeat) // the best sample's ticks, in the first variant or another
	if !(r.Ticks > 0) || r.OverheadTicks >= best {
		t.Fatalf("throughput: empty function = %v ticks/call with an empty region of %v ticks under samples of %v ticks; want a call to cost more than nothing", r.Ticks, r.OverheadTicks, best)
	}
	t.Logf("a call back to back: %.3g ticks (%.3g cycles); the empty region %.0f ticks", r.Ticks, r.Cycles, r.OverheadTicks)
}

func TestPanicAndGoexitRestoreState(t *testing.T) {
	before := debug.SetGCPercent(77)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	callerBefore, stateErr := affinity.ThreadState()

	tests := []struct {
		name string
		f    func()
		want error
		text string
	}{
		{"panic", func() { panic("boom 42") }, ErrPanic, "boom 42"},
		{"goexit", func() { runtime.Goexit() }, ErrPanic, "Goexit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Measure(context.Background(), DefaultConfig(), Target{Run: tt.f})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.want, tt.text)
			}
			if got := debug.SetGCPercent(77); got != 77 {
				t.Fatalf("GC percent after %s = %d, want 77", tt.name, got)
			}
			if stateErr == nil {
				after, err := affinity.ThreadState()
				if err != nil || !after.Equal(callerBefore) {
					t.Fatalf("caller's thread state changed: %+v → %+v (%v)", callerBefore, after, err)
				}
			}
			if _, err := Measure(context.Background(), Config{CPU: AnyCPU, MaxSamples: 20}, Target{Run: addKernel(100)}); err != nil {
				t.Fatalf("Measure after %s: %v", tt.name, err)
			}
		})
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := DefaultConfig()
	_, err := Measure(ctx, cfg, Target{Run: addKernel(100)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestSetupRunsBeforeEverySample(t *testing.T) {
	setups, runs := 0, 0
	cfg := DefaultConfig()
	cfg.MaxSamples = 30
	cfg.Warmup = -1
	r, err := Measure(context.Background(), cfg, Target{Setup: func() { setups++ }, Run: func() { runs++; testSink += chain.Add(2000) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Repeat != 1 {
		t.Fatalf("Repeat = %d with Setup, want 1", r.Repeat)
	}
	if setups < r.Samples || setups != runs {
		t.Fatalf("setups %d, runs %d, samples %d: Setup must precede every call", setups, runs, r.Samples)
	}
}

func TestProgressAndNonConvergence(t *testing.T) {
	var calls int
	cfg := DefaultConfig()
	cfg.Epsilon = 1e-12
	cfg.AbsSteps = -1
	cfg.K = 50
	cfg.MaxSamples = 1_000_000
	cfg.MaxTime = 150 * time.Millisecond
	ctx := WithProgress(context.Background(), func(p Progress) {
		calls++
		if p.Max != cfg.MaxSamples || p.Samples <= 0 {
			t.Errorf("progress %+v", p)
		}
	})
	r, err := Measure(ctx, cfg, Target{Run: addKernel(5000)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Converged {
		t.Skip("converged with ε 1e-12 and K 50: a coarse, perfectly quantized counter; nothing to check")
	}
	if calls == 0 {
		t.Fatalf("Progress never called in a %v measurement", r.Wall)
	}
	var found bool
	for _, w := range r.Warnings {
		found = found || errors.Is(w, ErrNotConverged)
	}
	if !found {
		t.Fatalf("not converged but no ErrNotConverged warning: %v", r.Warnings)
	}
}

func BenchmarkSampleLoop(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := newStream(3, 0.01, 0, 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	f := addKernel(10)
	b.ReportAllocs()
	for b.Loop() {
		v, ok := sample(f, 4, -1, false)
		s.add(float64(v), ok)
	}
}

// TestMeasureConfirmsTheFrequency: where the calibration took the kernel's
// frequency at once (calibrate.Options.DeferConfirm), the measurement
// confirms it after its loop, and the cached calibration is confirmed too.
func TestMeasureConfirmsTheFrequency(t *testing.T) {
	pending, err := calibrate.Refresh(calibrate.FastOptions)
	if err != nil {
		t.Fatal(err)
	}
	if !pending.Pending() {
		t.Skipf("the frequency here is %s, not a kernel figure taken at once", pending.Frequency.Method)
	}
	r, err := Measure(context.Background(), DefaultConfig(), Target{Run: addKernel(1000)})
	if err != nil {
		t.Fatal(err)
	}
	now, err := calibrate.Get()
	if err != nil {
		t.Fatal(err)
	}
	if now.Pending() || len(now.Frequency.CrossChecks) == 0 {
		t.Fatalf("after a measurement the cached calibration is still pending (%v) or unconfirmed: %+v", now.Pending(), now.Frequency)
	}
	if r.TicksPerSecond != now.Frequency.Hz || !strings.HasPrefix(r.FrequencySource, now.Frequency.Method) {
		t.Fatalf("result at %v Hz from %q, confirmed calibration %v Hz by %s", r.TicksPerSecond, r.FrequencySource, now.Frequency.Hz, now.Frequency.Method)
	}
}
