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

func (c *counted) kernel(name string) Kernel {
	return Kernel{
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
	ok := Kernel{Name: "ok", Run: func() {}}
	tests := []struct {
		name    string
		cfg     Config
		kernels []Kernel
		want    error
		text    string
	}{
		{"reps negative", Config{Reps: -1, CPU: harness.AnyCPU}, []Kernel{ok}, ErrBadConfig, "Reps -1"},
		{"reps huge", Config{Reps: MaxReps + 1, CPU: harness.AnyCPU}, []Kernel{ok}, ErrBadConfig, fmt.Sprintf("Reps %d", MaxReps+1)},
		{"tolerance 1", Config{Tolerance: 1, CPU: harness.AnyCPU}, []Kernel{ok}, ErrBadConfig, "Tolerance 1"},
		{"tolerance NaN", Config{Tolerance: math.NaN(), CPU: harness.AnyCPU}, []Kernel{ok}, ErrBadConfig, "Tolerance NaN"},
		{"tolerance negative", Config{Tolerance: -0.5, CPU: harness.AnyCPU}, []Kernel{ok}, ErrBadConfig, "Tolerance -0.5"},
		{"cpu -2", Config{CPU: -2}, []Kernel{ok}, ErrBadConfig, "CPU -2"},
		{"unknown clock", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{cputime.Clock(42)}}, []Kernel{ok}, ErrBadConfig, "Clock(42)"},
		{"clock twice", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{cputime.ClockTSC, cputime.ClockTSC}}, []Kernel{ok}, ErrBadConfig, "tsc selected twice"},
		{"no clock", Config{CPU: harness.AnyCPU, Methods: []cputime.Clock{}}, []Kernel{ok}, ErrBadConfig, "no clock"},
		{"no kernel", DefaultConfig(), nil, ErrBadConfig, "no kernel"},
		{"nil run", DefaultConfig(), []Kernel{{Name: "broken"}}, ErrNilFunc, `"broken"`},
		{"no name", DefaultConfig(), []Kernel{{Run: func() {}}}, ErrBadConfig, "kernel 0 has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Clocks(tt.cfg, tt.kernels...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Clocks: err = %v, want %v naming %q", err, tt.want, tt.text)
			}
			if tt.name == "unknown clock" || tt.name == "clock twice" || tt.name == "no clock" || strings.HasPrefix(tt.name, "reps") {
				return // Utilisation ignores Methods and Reps
			}
			_, err = Utilisation(tt.cfg, tt.kernels...)
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
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: methods %v, want %v", k.Name, got, want)
		}
		if len(k.Verdict()) == 0 {
			t.Errorf("%s: empty verdict", k.Name)
		}
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

func TestClocks(t *testing.T) {
	tests := []struct {
		name    string
		reps    int
		methods []cputime.Clock // nil: all
	}{
		{"all clocks, default reps", 0, nil},
		{"two clocks, 7 reps", 7, []cputime.Clock{cputime.ClockThread, cputime.ClockMonotonic}},
		{"tsc only, 5 reps", 5, []cputime.Clock{cputime.ClockTSC}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &counted{work: spin(300_000)} // ~100 µs
			b := &counted{work: func() {}}
			cfg := DefaultConfig()
			cfg.Reps, cfg.Methods = tt.reps, tt.methods
			res, err := Clocks(cfg, a.kernel("spin"), b.kernel("empty"))
			if err != nil {
				t.Fatal(err)
			}
			reps := cmp(tt.reps, DefaultReps)
			methods := cmpSlice(tt.methods, Methods())
			checkLab(t, res, reps, methods)
			for _, c := range []*counted{a, b} {
				if c.runs != reps+1 || c.setups != c.runs || c.checks != reps || c.outOfOrder {
					t.Errorf("runs %d, setups %d, checks %d, out of order %v; want %d runs (with the warm-up), a Setup before each, %d checks",
						c.runs, c.setups, c.checks, c.outOfOrder, reps+1, reps)
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
		res, err := Clocks(DefaultConfig(), c.kernel("bad"))
		if err != nil {
			t.Fatal(err)
		}
		if e := res.Kernels[0].CheckError; e == nil || e.Error() != "wrong output" {
			t.Errorf("CheckError %v, want the Check's error", e)
		}
	})
	t.Run("few reps", func(t *testing.T) {
		res, err := Clocks(Config{CPU: harness.AnyCPU, Reps: 2, Methods: []cputime.Clock{cputime.ClockMonotonic}}, Kernel{Name: "k", Run: func() {}})
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
		_, err := Clocks(DefaultConfig(), Kernel{Name: "boom", Run: func() { panic("boom") }})
		if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("err = %v, want ErrPanic naming boom", err)
		}
		if got := debug.SetGCPercent(77); got != 77 {
			t.Errorf("GC percent %d after the panic, want 77 restored", got)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cfg := DefaultConfig()
		cfg.Context = ctx
		_, err := Clocks(cfg, Kernel{Name: "k", Run: func() {}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}
