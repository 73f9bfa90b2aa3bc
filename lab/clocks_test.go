package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// testSink keeps the kernels' results alive.
var testSink uint64

// spin returns a kernel of about n ADD cycles.
func spin(n int) func() { return func() { testSink += chain.Add(n) } }

// counted is a lab kernel that counts its calls and checks that every Run
// follows a Setup.
type counted struct {
	setups, runs, checks int
	ready                bool
	outOfOrder           bool
	work                 func()
	checkErr             error
}

func (c *counted) kernel(name string) harness.Target {
	return harness.Target{
		Name:  name,
		Setup: func() { c.setups++; c.ready = true },
		Run: func() {
			c.runs++
			if !c.ready {
				c.outOfOrder = true
			}
			c.ready = false
			c.work()
		},
		Check: func() error { c.checks++; return c.checkErr },
	}
}

func TestBadInput(t *testing.T) {
	ok := harness.Target{Name: "ok", Run: func() {}}
	tests := []struct {
		name    string
		cfg     Config
		kernels []harness.Target
		want    error
		text    string
	}{
		{"reps negative", Config{Reps: -1, CPU: harness.AnyCPU}, []harness.Target{ok}, ErrBadConfig, "Reps -1"},
		{"reps huge", Config{Reps: MaxReps + 1, CPU: harness.AnyCPU}, []harness.Target{ok}, ErrBadConfig, fmt.Sprintf("Reps %d", MaxReps+1)},
		{"tolerance 1", Config{Tolerance: 1, CPU: harness.AnyCPU}, []harness.Target{ok}, ErrBadConfig, "Tolerance 1"},
		{"tolerance NaN", Config{Tolerance: math.NaN(), CPU: harness.AnyCPU}, []harness.Target{ok}, ErrBadConfig, "Tolerance NaN"},
		{"tolerance negative", Config{Tolerance: -0.5, CPU: harness.AnyCPU}, []harness.Target{ok}, ErrBadConfig, "Tolerance -0.5"},
		{"cpu -2", Config{CPU: -2}, []harness.Target{ok}, ErrBadConfig, "CPU -2"},
		{"unknown clock", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{cputime.Clock(42)}}, []harness.Target{ok}, ErrBadConfig, "Clock(42)"},
		{"clock twice", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{cputime.ClockTSC, cputime.ClockTSC}}, []harness.Target{ok}, ErrBadConfig, "tsc selected twice"},
		{"no clock", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{}}, []harness.Target{ok}, ErrBadConfig, "no clock"},
		{"no kernel", DefaultConfig(), nil, ErrBadConfig, "no kernel"},
		{"nil run", DefaultConfig(), []harness.Target{{Name: "broken"}}, ErrBadConfig, `"broken"`},
		{"no name", DefaultConfig(), []harness.Target{{Run: func() {}}}, ErrBadConfig, "kernel 0 has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Clocks(context.Background(), tt.cfg, tt.kernels...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Clocks: err = %v, want %v naming %q", err, tt.want, tt.text)
			}
			// The lab's sentinels are also harness's, for callers that test
			// both at once.
			twin := map[error]error{ErrBadConfig: harness.ErrBadConfig}[tt.want]
			if !errors.Is(err, twin) || !strings.HasPrefix(err.Error(), "lab: ") {
				t.Errorf("Clocks: err = %v, want it to match %v too and to say lab:", err, twin)
			}
			if tt.name == "unknown clock" || tt.name == "clock twice" || tt.name == "no clock" || strings.HasPrefix(tt.name, "reps") {
				return // Utilisation ignores Methods and Reps
			}
			_, err = Utilisation(context.Background(), tt.cfg, tt.kernels...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Utilisation: err = %v, want %v naming %q", err, tt.want, tt.text)
			}
		})
	}
}

// checkLab checks the invariants of a lab result for the given methods.
func checkLab(t *testing.T, res Result, reps int, methods []cputime.Clock) {
	t.Helper()
	want := slices.DeleteFunc(Methods(), func(c cputime.Clock) bool { return !slices.Contains(methods, c) })
	nest := slices.DeleteFunc(Nesting(), func(c cputime.Clock) bool { return !slices.Contains(methods, c) })
	if !slices.Equal(res.Nesting, nest) {
		t.Errorf("Nesting %v, want %v", res.Nesting, nest)
	}
	if res.Reps != reps || len(res.Clocks) != len(want) {
		t.Fatalf("Reps %d, %d clocks; want %d and %d", res.Reps, len(res.Clocks), reps, len(want))
	}
	for _, k := range res.Kernels {
		var got []cputime.Clock
		for _, m := range k.Methods {
			got = append(got, m.Clock)
			if len(m.Readings) != reps {
				t.Errorf("%s/%s: %d readings, want %d", k.Name, m.Clock, len(m.Readings), reps)
			}
			if m.Min > m.Median || m.Median > m.Max || m.Min != slices.Min(m.Readings) || m.Max != slices.Max(m.Readings) {
				t.Errorf("%s/%s: min %v median %v max %v of %v", k.Name, m.Clock, m.Min, m.Median, m.Max, m.Readings)
			}
			if m.Source == "" {
				t.Errorf("%s/%s: no source", k.Name, m.Clock)
			}
			if (m.Clock == cputime.ClockTSC) != (len(m.Ticks) == reps) {
				t.Errorf("%s/%s: %d tick readings", k.Name, m.Clock, len(m.Ticks))
			}
			if m.Resolves && (m.Zeros > 0 || m.Resolution <= 0) {
				t.Errorf("%s/%s resolves with %d zeros and resolution %v", k.Name, m.Clock, m.Zeros, m.Resolution)
			}
			if k.HasReference && m.Agrees != (math.Abs(m.DiffFromReference) <= res.Tolerance) {
				t.Errorf("%s/%s: agrees %v with diff %v", k.Name, m.Clock, m.Agrees, m.DiffFromReference)
			}
			if ns, ok := k.kbestNs(); ok != !math.IsNaN(m.DiffFromKBest) || ok && math.Abs(m.DiffFromKBest-(float64(m.Median)-ns)/ns) > 1e-12 {
				t.Errorf("%s/%s: DiffFromKBest %v with median %v and K-best figure %v ns", k.Name, m.Clock, m.DiffFromKBest, m.Median, ns)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: methods %v, want %v", k.Name, got, want)
		}
		v := k.Verdict()
		if len(v) == 0 {
			t.Errorf("%s: empty verdict", k.Name)
		}
		if _, ok := k.kbestNs(); ok != strings.Contains(strings.Join(v, "\n"), "K-best figure is") {
			t.Errorf("%s: K-best figure %v, verdict %q", k.Name, ok, v)
		}
		checkKBest(t, res, k)
		// Nesting: the monotonic interval holds the TSC interval (slack for
		// the frequency's error and the clocks' steps).
		mono, okM := k.Method(cputime.ClockMonotonic)
		tscM, okT := k.Method(cputime.ClockTSC)
		if okM && okT {
			for i := range mono.Readings {
				if float64(mono.Readings[i]) < float64(tscM.Readings[i])*(1-1e-4)-1000 {
					t.Errorf("%s rep %d: monotonic %v < tsc %v, but it encloses it", k.Name, i, mono.Readings[i], tscM.Readings[i])
				}
			}
		}
	}
}

// checkKBest checks a kernel's K-best figure: absent with NoKBest, else
// measured on the lab's CPU with harness's defaults.
func checkKBest(t *testing.T, res Result, k KernelResult) {
	t.Helper()
	kb := k.KBest
	if kb == nil {
		return
	}
	if kb.Name != k.Name || kb.Samples == 0 || kb.CPU != res.CPU || kb.Config.K != harness.DefaultConfig().K || kb.Config.Epsilon != harness.DefaultConfig().Epsilon || kb.TicksPerSecond <= 0 {
		t.Errorf("%s: K-best %q, %d samples on cpu %d (lab on %d), K %d, ε %v, %v ticks/s; want the kernel, measured with harness's defaults on the lab's CPU",
			k.Name, kb.Name, kb.Samples, kb.CPU, res.CPU, kb.Config.K, kb.Config.Epsilon, kb.TicksPerSecond)
	}
	for _, w := range k.Warnings {
		if slices.ContainsFunc(res.Warnings, func(s error) bool { return strings.HasSuffix(w.Error(), ": "+s.Error()) }) {
			t.Errorf("%s: warning %q repeats one of the lab's own", k.Name, w)
		}
	}
}

func TestClocks(t *testing.T) {
	tests := []struct {
		name    string
		reps    int
		methods []cputime.Clock // nil: all
		noKBest bool
	}{
		{"all clocks, default reps", 0, nil, false},
		{"two clocks, 7 reps, no K-best", 7, []cputime.Clock{cputime.ClockThread, cputime.ClockMonotonic}, true},
		{"tsc only, 5 reps", 5, []cputime.Clock{cputime.ClockTSC}, false},
		{"thread only", 5, []cputime.Clock{cputime.ClockThread}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &counted{work: spin(300_000)} // ~100 µs
			b := &counted{work: func() {}}
			cfg := DefaultConfig()
			cfg.Reps, cfg.Methods, cfg.NoKBest = tt.reps, tt.methods, tt.noKBest
			var prog []harness.Progress
			ctx := harness.WithProgress(context.Background(), func(p harness.Progress) { prog = append(prog, p) })
			res, err := Clocks(ctx, cfg, a.kernel("spin"), b.kernel("empty"))
			if err != nil {
				t.Fatal(err)
			}
			reps := cmp(tt.reps, DefaultReps)
			methods := cmpSlice(tt.methods, Methods())
			checkLab(t, res, reps, methods)
			for _, c := range []*counted{a, b} {
				// The K-best measurement runs the kernel many times, each
				// after a Setup, and never calls Check.
				if tt.noKBest && c.runs != reps+1 || !tt.noKBest && c.runs <= reps+1 || c.setups != c.runs || c.checks != reps || c.outOfOrder {
					t.Errorf("runs %d, setups %d, checks %d, out of order %v; want %d runs (with the warm-up, and more with K-best %v), a Setup before each, %d checks",
						c.runs, c.setups, c.checks, c.outOfOrder, reps+1, !tt.noKBest, reps)
				}
			}
			// Progress: each repetition of each kernel in order, K-best
			// samples (Stage "") after a kernel's repetitions only.
			var reps0 []harness.Progress
			for _, p := range prog {
				if p.Stage == "repetitions" {
					reps0 = append(reps0, p)
				} else if tt.noKBest || p.Stage != "" || len(reps0) == 0 || p.Max < harness.DefaultConfig().MaxSamples || p.Samples > p.Max || p.Name != reps0[len(reps0)-1].Name {
					t.Errorf("K-best progress %+v after %+v (NoKBest %v)", p, reps0, tt.noKBest)
				}
			}
			rep := func(p harness.Progress, name string, done int) bool {
				return p.Name == name && p.Stage == "repetitions" && p.Samples == done && p.Max == reps
			}
			if len(reps0) != 2*reps || !rep(reps0[0], "spin", 0) || !rep(reps0[2*reps-1], "empty", reps-1) {
				t.Errorf("repetition progress %+v, want spin and empty, 0 to %d of %d", reps0, reps-1, reps)
			}
			for _, k := range res.Kernels {
				if (k.KBest == nil) != tt.noKBest {
					t.Errorf("%s: K-best %v with NoKBest %v", k.Name, k.KBest != nil, tt.noKBest)
				}
			}
			if spin := res.Kernels[0]; !tt.noKBest {
				// The same work: the K-best figure is not far above the best
				// single reading (noise only adds time; the core clock may
				// move between them: a factor of 2), and not far below it
				// either: single readings on a busy KVM guest were seen at
				// twice the K-best figure (the guest's clocks count the time
				// its vCPU waited for the host), hence a factor of 10, which
				// still tells 100 µs of work from an empty call.
				ns, _ := spin.kbestNs()
				m := spin.Methods[len(spin.Methods)-1] // tsc or thread
				if lo := float64(m.Min); !(ns > lo/10 && ns < 2*lo) {
					t.Errorf("spin: K-best figure %v ns against a %s minimum of %v ns", ns, m.Clock, lo)
				}
			}
			if len(res.Kernels) != 2 || res.Kernels[0].Name != "spin" || res.Kernels[1].Name != "empty" {
				t.Fatalf("kernels %+v", res.Kernels)
			}
			if slices.Contains(methods, cputime.ClockTSC) && res.TicksPerSecond <= 0 {
				t.Errorf("tsc read but TicksPerSecond %v", res.TicksPerSecond)
			}
			// A 1 ms step cannot resolve a 100 µs interval to 1%.
			if m, ok := res.Kernels[0].Method(cputime.ClockWallMs); ok && (m.Resolves || !strings.Contains(res.Kernels[0].Verdict()[0], "wall-ms")) {
				t.Errorf("wall-ms resolves %v; verdict %q", m.Resolves, res.Kernels[0].Verdict())
			}
		})
	}
}

func cmp(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func cmpSlice(v, def []cputime.Clock) []cputime.Clock {
	if v == nil {
		return def
	}
	return v
}

func TestClocksFailures(t *testing.T) {
	t.Run("check error", func(t *testing.T) {
		c := &counted{work: func() {}, checkErr: errors.New("wrong output")}
		res, err := Clocks(context.Background(), DefaultConfig(), c.kernel("bad"))
		if err != nil {
			t.Fatal(err)
		}
		if e := res.Kernels[0].CheckError; e == nil || e.Error() != "wrong output" {
			t.Errorf("CheckError %v, want the Check's error", e)
		}
	})
	t.Run("few reps", func(t *testing.T) {
		res, err := Clocks(context.Background(), Config{CPU: harness.AnyCPU, Reps: 2, Methods: []cputime.Clock{cputime.ClockMonotonic}}, harness.Target{Name: "k", Run: func() {}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Warnings, func(w error) bool { return strings.Contains(w.Error(), "2 repetitions") }) {
			t.Errorf("no warning about 2 repetitions: %v", res.Warnings)
		}
	})
	t.Run("panic restores GC", func(t *testing.T) {
		before := debug.SetGCPercent(77)
		t.Cleanup(func() { debug.SetGCPercent(before) })
		_, err := Clocks(context.Background(), DefaultConfig(), harness.Target{Name: "boom", Run: func() { panic("boom") }})
		if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("err = %v, want ErrPanic naming boom", err)
		}
		if got := debug.SetGCPercent(77); got != 77 {
			t.Errorf("GC percent %d after the panic, want 77 restored", got)
		}
	})
	t.Run("panic in the K-best measurement", func(t *testing.T) {
		before := debug.SetGCPercent(77)
		t.Cleanup(func() { debug.SetGCPercent(before) })
		runs := 0
		_, err := Clocks(context.Background(), DefaultConfig(), harness.Target{Name: "late boom", Run: func() {
			if runs++; runs > DefaultReps+1 {
				panic("late boom")
			}
		}})
		if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "late boom") || !strings.Contains(err.Error(), "K-best") {
			t.Fatalf("err = %v, want ErrPanic naming late boom in the K-best measurement", err)
		}
		if got := debug.SetGCPercent(77); got != 77 {
			t.Errorf("GC percent %d after the panic, want 77 restored", got)
		}
	})
	t.Run("cancelled during the K-best measurement", func(t *testing.T) {
		// Setup cancels the lab once the K-best measurement has begun (its
		// 2 ms warm-up calls Setup before each of ~20 runs of spin): the
		// kernel's clocks are kept, the next kernel is not run.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a, b := &counted{work: spin(300_000)}, &counted{work: func() {}}
		k := a.kernel("spin")
		setup := k.Setup
		k.Setup = func() {
			if setup(); a.setups == DefaultReps+1+5 {
				cancel()
			}
		}
		cfg := DefaultConfig()
		res, err := Clocks(ctx, cfg, k, b.kernel("never"))
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "K-best") {
			t.Fatalf("err = %v, want context.Canceled in the K-best measurement", err)
		}
		if len(res.Kernels) != 1 || b.runs != 0 {
			t.Fatalf("%d kernels, the second run %d times: want spin alone", len(res.Kernels), b.runs)
		}
		checkLab(t, res, DefaultReps, Methods())
		if kb := res.Kernels[0].KBest; kb != nil && kb.Converged {
			t.Errorf("K-best converged although cancelled: %+v", kb)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cfg := DefaultConfig()
		_, err := Clocks(ctx, cfg, harness.Target{Name: "k", Run: func() {}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}
