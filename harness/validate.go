package harness

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// ValidateOptions sets what [Validate] runs; the zero value gives the
// defaults.
type ValidateOptions struct {
	// Config is the base measurement configuration (K, ε, CPU, ...); its
	// Name, Elements and Setup are ignored. Start from DefaultConfig().
	Config Config
	// Lengths are the chain lengths fitted; nil means 1e3, 2e3, 5e3, 1e4,
	// 2e4, 5e4, 1e5. At least 3, each ≥ 1.
	Lengths []int
	// Reps is how many times the 1000-ADD kernel is measured by each of
	// Measure and testing.Benchmark for the repeatability check; 0 means
	// 10 (allowed 3 to 1000).
	Reps int
	// SkipBenchmark skips the testing.Benchmark side of the comparison
	// (each repetition of it takes about a second).
	SkipBenchmark bool
	// Progress, when not nil, is told what Validate is doing.
	Progress func(step string)
}

// Check is one pass/fail line of a validation.
type Check struct {
	Name      string  // what was checked
	Value     float64 // what was measured
	Truth     float64 // what it should be (or the bound)
	Tolerance float64 // allowed |Value − Truth| (or 0 for a bound check)
	Unit      string
	Pass      bool
	Detail    string // how the value was obtained, or why it failed
}

// Validation is the outcome of [Validate].
type Validation struct {
	Calibration *calibrate.Calibration
	// AddTicks and ImulTicks fit ticks per call against chain length; their
	// slopes are ticks per op.
	AddTicks, ImulTicks stats.Fit
	// AddCycles and ImulCycles fit estimated core cycles per call against
	// chain length; their slopes are cycles per op (truth 1 and 3).
	AddCycles, ImulCycles stats.Fit
	Lengths               []int
	// ImulAddRatio is ImulTicks.Slope / AddTicks.Slope (truth: the IMUL latency, 3).
	ImulAddRatio float64
	// Empty is the empty function's result (truth 0 after subtraction).
	Empty Result
	// HarnessCycles are the 1000-ADD kernel's Cycles over Reps measurements;
	// HarnessCV their coefficient of variation; HarnessWall the total time.
	HarnessCycles []float64
	HarnessCV     float64
	HarnessWall   time.Duration
	// BenchNs are testing.Benchmark's ns/op of the same kernel over Reps
	// runs; BenchCV their coefficient of variation; BenchWall the total.
	BenchNs   []float64
	BenchCV   float64
	BenchWall time.Duration
	// SpeedKernel is the ~1 µs kernel's result and SpeedWall the wall time
	// Measure took for it (after calibration); SpeedBenchWall is
	// testing.Benchmark's wall time for the same kernel.
	SpeedKernel    Result
	SpeedWall      time.Duration
	SpeedBenchWall time.Duration
	Checks         []Check
	Pass           bool
	Warnings       []error
}

// Validate checks the harness against kernels whose cost is known: dependent
// ADD and IMUL chains (1 and 3 core cycles per op), the empty function (0),
// and compares its repeatability and speed with testing.Benchmark on the
// same kernel in the same run. It takes about 25 s with the benchmark
// comparison, 2 s without.
func Validate(o ValidateOptions) (*Validation, error) {
	if o.Lengths == nil {
		o.Lengths = []int{1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000}
	}
	if o.Reps == 0 {
		o.Reps = 10
	}
	if len(o.Lengths) < 3 {
		return nil, fmt.Errorf("%w: %d chain lengths (allowed: at least 3)", ErrBadConfig, len(o.Lengths))
	}
	for _, n := range o.Lengths {
		if n < 1 || n > 1e9 {
			return nil, fmt.Errorf("%w: chain length %d (allowed: 1 to 1e9)", ErrBadConfig, n)
		}
	}
	if o.Reps < 3 || o.Reps > 1000 {
		return nil, fmt.Errorf("%w: reps %d (allowed: 3 to 1000)", ErrBadConfig, o.Reps)
	}
	say := func(format string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, a...))
		}
	}
	base := o.Config
	base.Name, base.Elements, base.Setup = "", 0, nil
	if _, err := base.WithDefaults(); err != nil {
		return nil, err
	}
	say("calibrating")
	cal, err := calibrate.Get()
	if err != nil {
		return nil, err
	}
	base.Calibration = cal
	v := &Validation{Calibration: cal, Lengths: o.Lengths}
	var sink uint64

	// Chains at several lengths, ADD and IMUL interleaved.
	xs := make([]float64, len(o.Lengths))
	var addT, addC, mulT, mulC []float64
	for i, n := range o.Lengths {
		say("chains: %d ops", n)
		xs[i] = float64(n)
		for _, c := range []struct {
			name string
			f    func(uint64, int) uint64
			t, y *[]float64
		}{{"AddChain", chain.AddFrom, &addT, &addC}, {"ImulChain", chain.ImulFrom, &mulT, &mulC}} {
			// Each call continues the previous call's chain, so repeated
			// calls cost exactly n ops (see chain.AddFrom).
			cfg := base
			cfg.Name = fmt.Sprintf("%s(%d)", c.name, n)
			r, err := Measure(cfg, func() { sink = c.f(sink, n) })
			if err != nil {
				return nil, err
			}
			*c.t = append(*c.t, r.Ticks)
			*c.y = append(*c.y, r.Cycles)
			v.Warnings = append(v.Warnings, notConverged(r)...)
		}
	}
	for _, f := range []struct {
		fit *stats.Fit
		ys  []float64
	}{{&v.AddTicks, addT}, {&v.AddCycles, addC}, {&v.ImulTicks, mulT}, {&v.ImulCycles, mulC}} {
		if *f.fit, err = stats.LinearFit(xs, f.ys); err != nil {
			return nil, fmt.Errorf("harness: fitting the chains: %w", err)
		}
	}
	v.ImulAddRatio = v.ImulTicks.Slope / v.AddTicks.Slope
	// The IMUL latency is documented per core (3 on x86-64; 2 to 4 on arm64
	// cores): where it is not known, the IMUL figures are reported, not judged.
	lat, known := cal.CPU.ImulLatency()
	if !known {
		v.Warnings = append(v.Warnings, fmt.Errorf("harness: the multiply latency of this core is not documented: the IMUL/ADD ratio (%.3f) and cycles per IMUL (%.3f) are reported, not checked", v.ImulAddRatio, v.ImulCycles.Slope))
	}

	say("empty function")
	if v.Empty, err = Measure(base, func() {}); err != nil {
		return nil, err
	}

	// Repeatability: the 1000-ADD kernel, Reps times each way.
	k1000 := func() { sink = chain.AddFrom(sink, 1000) }
	say("repeatability: Measure ×%d", o.Reps)
	t0 := time.Now()
	for i := 0; i < o.Reps; i++ {
		r, err := Measure(base, k1000)
		if err != nil {
			return nil, err
		}
		v.HarnessCycles = append(v.HarnessCycles, r.Cycles)
	}
	v.HarnessWall = time.Since(t0)
	v.HarnessCV = cv(v.HarnessCycles)
	if !o.SkipBenchmark {
		say("repeatability: testing.Benchmark ×%d", o.Reps)
		t0 = time.Now()
		for i := 0; i < o.Reps; i++ {
			br := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					k1000()
				}
			})
			if br.N > 0 {
				v.BenchNs = append(v.BenchNs, float64(br.T.Nanoseconds())/float64(br.N))
			}
		}
		v.BenchWall = time.Since(t0)
		v.BenchCV = cv(v.BenchNs)
	}

	// Speed: a ~1 µs kernel.
	n1us := max(1, int(math.Round(1e-6*cal.Frequency.Hz*math.Max(cal.Core.CyclesPerTick, 0.1))))
	k1us := func() { sink = chain.AddFrom(sink, n1us) }
	say("speed: a %d-ADD kernel (~1 µs)", n1us)
	t0 = time.Now()
	if v.SpeedKernel, err = Measure(base, k1us); err != nil {
		return nil, err
	}
	v.SpeedWall = time.Since(t0)
	v.SpeedKernel.Name = fmt.Sprintf("AddChain(%d)", n1us)
	if !o.SkipBenchmark {
		t0 = time.Now()
		testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				k1us()
			}
		})
		v.SpeedBenchWall = time.Since(t0)
	}
	runtime.KeepAlive(sink)

	// The checks.
	step := cal.Step.Step
	add := func(c Check) { v.Checks = append(v.Checks, c) }
	within := func(name string, val, truth, tol float64, unit, detail string) {
		add(Check{Name: name, Value: val, Truth: truth, Tolerance: tol, Unit: unit, Pass: math.Abs(val-truth) <= tol, Detail: detail})
	}
	within("empty function after overhead subtraction", v.Empty.Ticks, 0, 2, "ticks",
		fmt.Sprintf("R = %d calls per sample, overhead %.0f ticks per sample, counter step %.3g ticks", v.Empty.Repeat, v.Empty.OverheadTicks, step))
	if known {
		within("IMUL/ADD slope ratio", v.ImulAddRatio, lat, 0.03, "",
			fmt.Sprintf("slopes %.4f and %.4f ticks/op", v.ImulTicks.Slope, v.AddTicks.Slope))
	}
	within("core cycles per ADD", v.AddCycles.Slope, 1, 0.03, "cycles/op",
		fmt.Sprintf("slope of cycles against length, ± %.4f (95%%)", v.AddCycles.SlopeCI))
	if known {
		within("core cycles per IMUL", v.ImulCycles.Slope, lat, 0.09, "cycles/op",
			fmt.Sprintf("slope of cycles against length, ± %.4f (95%%)", v.ImulCycles.SlopeCI))
	}
	add(Check{Name: "R² of the ADD fit", Value: v.AddTicks.R2, Truth: 0.9999, Unit: "", Pass: v.AddTicks.R2 >= 0.9999,
		Detail: fmt.Sprintf("lengths %d to %d", o.Lengths[0], o.Lengths[len(o.Lengths)-1])})
	add(Check{Name: "R² of the IMUL fit", Value: v.ImulTicks.R2, Truth: 0.9999, Pass: v.ImulTicks.R2 >= 0.9999})
	add(Check{Name: "CV of Cycles, 1000-ADD kernel", Value: v.HarnessCV * 100, Truth: 0.5, Unit: "%", Pass: v.HarnessCV <= 0.005,
		Detail: fmt.Sprintf("%d measurements in %v", o.Reps, v.HarnessWall.Round(time.Millisecond))})
	if !o.SkipBenchmark && v.BenchCV > 0 {
		ratio := v.BenchCV / math.Max(v.HarnessCV, 1e-12)
		add(Check{Name: "testing.B CV / cyclebench CV", Value: ratio, Truth: 5, Pass: ratio >= 5,
			Detail: fmt.Sprintf("testing.B CV %.3g%% over %d runs in %v", v.BenchCV*100, len(v.BenchNs), v.BenchWall.Round(time.Millisecond))})
	}
	speedDetail := fmt.Sprintf("%s: %.0f ns, converged %v", v.SpeedKernel.Name, v.SpeedKernel.Nanoseconds, v.SpeedKernel.Converged)
	if v.SpeedBenchWall > 0 {
		speedDetail += fmt.Sprintf("; testing.Benchmark took %v (%.0f× longer)", v.SpeedBenchWall.Round(time.Millisecond), v.SpeedBenchWall.Seconds()/v.SpeedWall.Seconds())
	}
	add(Check{Name: "wall time for a converged ~1 µs kernel", Value: float64(v.SpeedWall.Microseconds()) / 1000, Truth: 20, Unit: "ms",
		Pass: v.SpeedWall <= 20*time.Millisecond && v.SpeedKernel.Converged, Detail: speedDetail})
	v.Pass = true
	for _, c := range v.Checks {
		v.Pass = v.Pass && c.Pass
	}
	v.Warnings = append(v.Warnings, cal.Warnings...)
	return v, nil
}

func notConverged(r Result) []error {
	if r.Converged {
		return nil
	}
	return []error{fmt.Errorf("%w: %s", ErrNotConverged, r.Name)}
}

// cv returns the coefficient of variation of xs (0 for fewer than 2 values).
func cv(xs []float64) float64 {
	s, err := stats.Summarize(xs)
	if err != nil || s.N < 2 {
		return 0
	}
	return s.CV
}
