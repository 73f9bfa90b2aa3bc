package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/internal/chain"
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
	blocked := r.ThreadCPUNsPerCall < MinCPUShare*r.WallNsPerCall
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
			r, err := Measure(tt.cfg, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			checkCPUFigures(t, r)
			if tt.blocked && cpuTimeAvailable() && !hasWarning(r.Warnings, ErrBlocks) {
				t.Errorf("no ErrBlocks warning for a sleeping kernel: thread cpu %v ns/call, wall %v ns/call, warnings %v", r.ThreadCPUNsPerCall, r.WallNsPerCall, r.Warnings)
			}
			if tt.blocked && utilisationAvailable() && r.Utilisation.OfOneCPU >= 100*MinCPUShare {
				t.Errorf("a sleeping kernel used %.3g%% of one CPU", r.Utilisation.OfOneCPU)
			}
		})
	}
}

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

func (c *counted) kernel(name string) LabKernel {
	return LabKernel{
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

func TestClocksLabBadInput(t *testing.T) {
	ok := LabKernel{Name: "ok", Run: func() {}}
	tests := []struct {
		name    string
		cfg     LabConfig
		kernels []LabKernel
		want    error
		text    string
	}{
		{"reps negative", LabConfig{Reps: -1, CPU: AnyCPU}, []LabKernel{ok}, ErrBadConfig, "Reps -1"},
		{"reps huge", LabConfig{Reps: MaxLabReps + 1, CPU: AnyCPU}, []LabKernel{ok}, ErrBadConfig, fmt.Sprintf("Reps %d", MaxLabReps+1)},
		{"tolerance 1", LabConfig{Tolerance: 1, CPU: AnyCPU}, []LabKernel{ok}, ErrBadConfig, "Tolerance 1"},
		{"tolerance NaN", LabConfig{Tolerance: math.NaN(), CPU: AnyCPU}, []LabKernel{ok}, ErrBadConfig, "Tolerance NaN"},
		{"tolerance negative", LabConfig{Tolerance: -0.5, CPU: AnyCPU}, []LabKernel{ok}, ErrBadConfig, "Tolerance -0.5"},
		{"cpu -2", LabConfig{CPU: -2}, []LabKernel{ok}, ErrBadConfig, "CPU -2"},
		{"unknown clock", LabConfig{CPU: AnyCPU, Methods: []cputime.Clock{cputime.Clock(42)}}, []LabKernel{ok}, ErrBadConfig, "Clock(42)"},
		{"clock twice", LabConfig{CPU: AnyCPU, Methods: []cputime.Clock{cputime.ClockTSC, cputime.ClockTSC}}, []LabKernel{ok}, ErrBadConfig, "tsc selected twice"},
		{"no clock", LabConfig{CPU: AnyCPU, Methods: []cputime.Clock{}}, []LabKernel{ok}, ErrBadConfig, "no clock"},
		{"no kernel", DefaultLabConfig(), nil, ErrBadConfig, "no kernel"},
		{"nil run", DefaultLabConfig(), []LabKernel{{Name: "broken"}}, ErrNilFunc, `"broken"`},
		{"no name", DefaultLabConfig(), []LabKernel{{Run: func() {}}}, ErrBadConfig, "kernel 0 has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ClocksLab(tt.cfg, tt.kernels...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("ClocksLab: err = %v, want %v naming %q", err, tt.want, tt.text)
			}
			if tt.name == "unknown clock" || tt.name == "clock twice" || tt.name == "no clock" || strings.HasPrefix(tt.name, "reps") {
				return // UtilisationLab ignores Methods and Reps
			}
			_, err = UtilisationLab(tt.cfg, tt.kernels...)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("UtilisationLab: err = %v, want %v naming %q", err, tt.want, tt.text)
			}
		})
	}
}

// checkLab checks the invariants of a lab result for the given methods.
func checkLab(t *testing.T, res LabResult, reps int, methods []cputime.Clock) {
	t.Helper()
	want := slices.DeleteFunc(LabMethods(), func(c cputime.Clock) bool { return !slices.Contains(methods, c) })
	nest := slices.DeleteFunc(LabNesting(), func(c cputime.Clock) bool { return !slices.Contains(methods, c) })
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

func TestClocksLab(t *testing.T) {
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
			cfg := DefaultLabConfig()
			cfg.Reps, cfg.Methods = tt.reps, tt.methods
			res, err := ClocksLab(cfg, a.kernel("spin"), b.kernel("empty"))
			if err != nil {
				t.Fatal(err)
			}
			reps := cmp(tt.reps, DefaultLabReps)
			methods := cmpSlice(tt.methods, LabMethods())
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

func TestClocksLabFailures(t *testing.T) {
	t.Run("check error", func(t *testing.T) {
		c := &counted{work: func() {}, checkErr: errors.New("wrong output")}
		res, err := ClocksLab(DefaultLabConfig(), c.kernel("bad"))
		if err != nil {
			t.Fatal(err)
		}
		if e := res.Kernels[0].CheckError; e == nil || e.Error() != "wrong output" {
			t.Errorf("CheckError %v, want the Check's error", e)
		}
	})
	t.Run("few reps", func(t *testing.T) {
		res, err := ClocksLab(LabConfig{CPU: AnyCPU, Reps: 2, Methods: []cputime.Clock{cputime.ClockMonotonic}}, LabKernel{Name: "k", Run: func() {}})
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
		_, err := ClocksLab(DefaultLabConfig(), LabKernel{Name: "boom", Run: func() { panic("boom") }})
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
		cfg := DefaultLabConfig()
		cfg.Context = ctx
		_, err := ClocksLab(cfg, LabKernel{Name: "k", Run: func() {}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// method builds a LabMethod from readings in µs.
func method(c cputime.Clock, res time.Duration, us ...float64) LabMethod {
	r := make([]time.Duration, len(us))
	for i, v := range us {
		r[i] = time.Duration(v * 1e3)
	}
	return newLabMethod(LabClock{Clock: c, Resolution: res}, r)
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		name    string
		methods []LabMethod
		want    []string // substrings, one per verdict line, in order
	}{
		{
			"seed bubble sort",
			[]LabMethod{
				method(cputime.ClockWallMs, time.Millisecond, 0, 0, 0, 0, 0),
				method(cputime.ClockMonotonic, time.Nanosecond, 551, 552, 553, 551, 560),
				method(cputime.ClockTSC, time.Nanosecond, 550, 551, 552, 550, 559),
			},
			[]string{
				"cannot resolve the interval: wall-ms (read 0 in 5 of 5 repetitions; resolution 1ms > 1% of the tsc median 551µs)",
				"differ from tsc by more than 1%: wall-ms (-100%)",
				"agree with tsc within 1%: monotonic (+0.181%)",
			},
		},
		{
			"everything resolves",
			[]LabMethod{
				method(cputime.ClockWallUs, time.Microsecond, 9000, 9010, 9020),
				method(cputime.ClockTSC, time.Nanosecond, 9000, 9010, 9020),
				method(cputime.ClockThread, time.Nanosecond, 9500, 9600, 9700),
			},
			[]string{"every clock resolves", "agree with tsc within 1%: wall-us (+0%)", "differ from tsc by more than 1%: thread (+6.55%)", "spread by 0.222%"},
		},
		{
			"preempted",
			[]LabMethod{
				method(cputime.ClockTSC, time.Nanosecond, 9000, 18000, 9000, 27000),
				method(cputime.ClockThread, time.Nanosecond, 9001, 9000, 9002, 9000),
			},
			[]string{"in repetitions 2, 4 the thread ran for only 50%, 33.3% of the tsc interval"},
		},
		{
			"coarse resolution, no zero",
			[]LabMethod{
				method(cputime.ClockWallMs, time.Millisecond, 9000, 9000, 10000),
				method(cputime.ClockMonotonic, time.Nanosecond, 9200, 9210, 9220),
			},
			[]string{"wall-ms (resolution 1ms > 1% of the monotonic median 9.21ms)", "differ from monotonic"},
		},
		{
			"nesting cost",
			[]LabMethod{
				{LabClock: LabClock{Clock: cputime.ClockProcess, Resolution: time.Nanosecond, Empty: 6 * time.Microsecond}, Readings: []time.Duration{506 * time.Microsecond}, Median: 506 * time.Microsecond},
				method(cputime.ClockTSC, time.Nanosecond, 500),
			},
			[]string{"differ from tsc by more than 1%: process (+1.2%; it reads 6µs around nothing)"},
		},
		{
			"no reference",
			[]LabMethod{method(cputime.ClockThread, time.Nanosecond, 5, 6, 7)},
			[]string{"every clock resolves"},
		},
		{
			"unknown resolution",
			[]LabMethod{method(cputime.ClockProcess, 0, 5, 6, 7)},
			[]string{"process (resolution unknown)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := LabKernelResult{Name: tt.name, Methods: tt.methods, Tolerance: DefaultLabTolerance}
			k.judge()
			v := k.Verdict()
			joined := strings.Join(v, "\n")
			for _, w := range tt.want {
				if !strings.Contains(joined, w) {
					t.Errorf("verdict does not say %q:\n%s", w, joined)
				}
			}
		})
	}
}

func TestUtilisationLab(t *testing.T) {
	if !utilisationAvailable() {
		_, err := UtilisationLab(DefaultLabConfig(), LabKernel{Name: "k", Run: func() {}})
		if err == nil {
			t.Fatalf("utilisation unsupported on %s/%s, but UtilisationLab succeeded", runtime.GOOS, runtime.GOARCH)
		}
		t.Skipf("utilisation unsupported here: %v", err)
	}
	spun := &counted{work: func() {
		for t0 := time.Now(); time.Since(t0) < 30*time.Millisecond; {
			testSink += chain.Add(1000)
		}
	}}
	res, err := UtilisationLab(DefaultLabConfig(),
		spun.kernel("spin 30ms"),
		LabKernel{Name: "sleep 30ms", Run: func() { time.Sleep(30 * time.Millisecond) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kernels) != 2 || spun.runs != 1 || spun.setups != 1 || spun.checks != 1 {
		t.Fatalf("%d kernels; spin ran %d times, set up %d, checked %d: want 2 kernels, each once", len(res.Kernels), spun.runs, spun.setups, spun.checks)
	}
	spin, sleep := res.Kernels[0], res.Kernels[1]
	for _, k := range res.Kernels {
		u := k.Utilisation
		if u.Wall < 30*time.Millisecond || u.NumCPU < 1 || u.OfOneCPU < 0 || u.OfAllCPUs < 0 {
			t.Errorf("%s: %+v", k.Name, u)
		}
		if k.ThreadCPU > u.Wall+time.Microsecond {
			t.Errorf("%s: thread cpu %v > wall %v", k.Name, k.ThreadCPU, u.Wall)
		}
	}
	if spin.ThreadCPU <= sleep.ThreadCPU || spin.Utilisation.OfOneCPU <= sleep.Utilisation.OfOneCPU {
		t.Errorf("spin: %v cpu, %.3g%% of one CPU; sleep: %v, %.3g%%: the spin should use more", spin.ThreadCPU, spin.Utilisation.OfOneCPU, sleep.ThreadCPU, sleep.Utilisation.OfOneCPU)
	}
	if sleep.Utilisation.OfOneCPU >= 100*MinCPUShare {
		t.Errorf("a 30 ms sleep used %.3g%% of one CPU", sleep.Utilisation.OfOneCPU)
	}
}
