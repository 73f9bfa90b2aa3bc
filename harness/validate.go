package harness

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// speedReps is how many times Validate measures the ~1 µs kernel; the
// median wall time is judged, as the exec-to-exit figure is a median: a
// single measurement takes 6 ms on an AMD Zen 4 guest, but about one in ten
// falls in a stretch where the core clock drifts by 1–2% over tens of
// milliseconds, and the ruler, which must hold two counter quanta (0.05%),
// then runs until the drift stops (25–77 ms seen). The detail lists every
// wall time, so such a stretch still shows.
const speedReps = 5

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
	// AddTicks, ImulTicks and ImmTicks fit ticks per call against chain
	// length for the register ADD, IMUL and immediate ADD chains; their
	// slopes are ticks per op.
	AddTicks, ImulTicks, ImmTicks stats.Fit
	// AddCycles, ImulCycles and ImmCycles fit estimated core cycles per
	// call against chain length; their slopes are cycles per op (truth 1,
	// the IMUL latency, and 1 or about 0.2 where the core folds the
	// immediate ADD).
	AddCycles, ImulCycles, ImmCycles stats.Fit
	// AddCyclesByImul fits the register ADD chain's ticks converted with
	// each measurement's IMUL chain instead of its ADD chain (cycles per
	// tick = the IMUL latency over the IMUL chain's ticks per link): the
	// ADD kernel judged by the other ruler (truth 1). Empty where the IMUL
	// latency is not documented.
	AddCyclesByImul stats.Fit
	// RulerRatios are the IMUL/ADD slope ratios of the ruler of every
	// measurement of the validation, in order; RulersChecked counts those
	// whose ruler was checked (the chains agreed at the documented
	// latency), RulersRefused those that gave no cycle figure.
	RulerRatios                  []float64
	RulersChecked, RulersRefused int
	Lengths                      []int
	// ImulAddRatio is ImulCycles.Slope / AddCycles.Slope (truth: the IMUL
	// latency, 3): each chain length is converted with the ruler of its own
	// measurement, so the core clock's moves between measurements cancel.
	// TickRatio is ImulTicks.Slope / AddTicks.Slope: equal to it only when
	// the core clock held still over the whole validation (a warning says
	// when it is more than 1% off: the machine was not quiet).
	ImulAddRatio, TickRatio float64
	// ImmFolded reports that the immediate ADD chain runs well under a
	// cycle per op (calibrate.FoldedBelow) against the register ADD chain:
	// the core folds it at rename.
	ImmFolded bool
	// Empty is the empty function's result in latency mode (truth 0 after
	// subtraction). EmptyThroughput is the same in throughput mode, reported
	// and not judged: calling a function in a tight loop costs the same for
	// every function only when the core's branch predictors treat their
	// addresses alike, and on an AMD Zen 4 guest an empty function took 3.2
	// to 5.3 ticks per call depending on its address and the moment, so the
	// empty loop subtracted can be up to 2 ticks per call off another
	// function's call cost in that mode.
	Empty, EmptyThroughput Result
	// HarnessCycles are the 1000-ADD kernel's Cycles over Reps throughput
	// measurements; HarnessCV their coefficient of variation; HarnessWall
	// the total time.
	HarnessCycles []float64
	HarnessCV     float64
	HarnessWall   time.Duration
	// LatencyAdd and LatencyImul are the latency-mode results (calls fenced
	// apart) of 1000 dependent ADDs and 1000 dependent IMULs, each an
	// independent chain per call: truth 1000 and 1000 × the IMUL latency
	// cycles per call.
	LatencyAdd, LatencyImul Result
	// LatencyCycles are the latency-mode Cycles of the 1000-ADD kernel over
	// Reps measurements (LatencyAdd is the first), LatencyCV their
	// coefficient of variation, LatencyWall the total time.
	// LatencyByImul are the same measurements' ticks converted with their
	// IMUL chain (empty where the IMUL latency is not documented): the
	// figures the latency check judges, so that a ruler made of ADDs does
	// not judge ADDs.
	LatencyCycles, LatencyByImul []float64
	LatencyCV                    float64
	LatencyWall                  time.Duration
	// BenchNs are testing.Benchmark's ns/op of the same kernel over Reps
	// runs; BenchCV their coefficient of variation; BenchWall the total.
	BenchNs   []float64
	BenchCV   float64
	BenchWall time.Duration
	// SpeedWalls are the wall times Measure took for a ~1 µs kernel
	// (after calibration), speedReps measurements in a row, and SpeedWall
	// their median, the figure judged; SpeedKernel is the result of the
	// measurement that took the median time. SpeedBenchWall is
	// testing.Benchmark's wall time for the same kernel.
	SpeedKernel    Result
	SpeedWall      time.Duration
	SpeedWalls     []time.Duration
	SpeedBenchWall time.Duration
	Checks         []Check
	Pass           bool
	Warnings       []error
}

// Validate checks the harness against kernels whose cost is known: dependent
// register ADD and IMUL chains (1 and 3 core cycles per op) measured in
// throughput mode at several lengths, 1000 ADDs and 1000 IMULs measured in
// latency mode (1000 and 3000 cycles per call, absolute), the empty
// function (0), and compares its repeatability (both modes) and speed with
// testing.Benchmark on the same kernel in the same run. It takes about 13 s
// with the benchmark comparison, 1 s without.
//
// No chain is judged by a ruler made of itself: every measurement's ruler
// must have been checked (its ADD and IMUL chains agreed), the ADD kernel
// is judged in cycles of the IMUL chain measured beside it and the IMUL
// kernel in cycles of the ADD chain, and the immediate ADD kernel's cycles
// must follow its ticks (about 0.2 cycles per op where the core folds it,
// 1 elsewhere), which a ruler made of that folded chain would not give.
//
// Each check is made as soon as its measurements are in. When a
// measurement fails (cancelled through Config.Context, for example), the
// Validation made so far, with the checks that were complete, comes with
// the error; Pass is then false.
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
	v.Warnings = append(v.Warnings, cal.Warnings...)
	var sink uint64
	defer runtime.KeepAlive(&sink)
	// stop returns v as far as it got, with err.
	stop := func(err error) (*Validation, error) {
		v.Pass = false
		return v, err
	}
	add := func(c Check) { v.Checks = append(v.Checks, c) }
	within := func(name string, val, truth, tol float64, unit, detail string) {
		add(Check{Name: name, Value: val, Truth: truth, Tolerance: tol, Unit: unit, Pass: math.Abs(val-truth) <= tol, Detail: detail})
	}

	// rulers records each measurement's ruler.
	rulers := func(r Result) {
		v.RulerRatios = append(v.RulerRatios, r.Ruler.ImulAddRatio)
		switch {
		case r.CyclesPerTick <= 0:
			v.RulersRefused++
		case r.Ruler.Checked:
			v.RulersChecked++
		}
	}
	// The IMUL latency is documented per core (3 on Intel's big cores and
	// AMD Zen; 2 to 4 on arm64 cores): where it is not known, the figures
	// that need it are reported, not judged.
	lat, known := cal.CPU.ImulLatency()
	// byImul converts r's ticks with its own IMUL chain (0 without one).
	byImul := func(r Result) float64 {
		if !known || !(r.Ruler.ImulTicksPerOp > 0) {
			return 0
		}
		return r.Ticks * lat / r.Ruler.ImulTicksPerOp
	}

	// Chains at several lengths, the three interleaved.
	xs := make([]float64, len(o.Lengths))
	var addT, addC, addI, mulT, mulC, immT, immC []float64
	for i, n := range o.Lengths {
		say("chains: %d ops", n)
		xs[i] = float64(n)
		for _, c := range []struct {
			name string
			f    func(uint64, int) uint64
			t, y *[]float64
		}{{"AddChain", chain.AddFrom, &addT, &addC}, {"ImulChain", chain.ImulFrom, &mulT, &mulC}, {"AddImmChain", chain.AddImmFrom, &immT, &immC}} {
			// Each call continues the previous call's chain, so repeated
			// calls cost exactly n ops (see chain.AddFrom).
			cfg := base
			cfg.Name = fmt.Sprintf("%s(%d)", c.name, n)
			r, err := Measure(cfg, func() { sink = c.f(sink, n) })
			if err != nil {
				return stop(err)
			}
			rulers(r)
			*c.t = append(*c.t, r.Ticks)
			*c.y = append(*c.y, r.Cycles)
			if c.name == "AddChain" {
				addI = append(addI, byImul(r))
			}
			v.Warnings = append(v.Warnings, notConverged(r)...)
		}
	}
	for _, f := range []struct {
		fit *stats.Fit
		ys  []float64
	}{{&v.AddTicks, addT}, {&v.AddCycles, addC}, {&v.ImulTicks, mulT}, {&v.ImulCycles, mulC}, {&v.ImmTicks, immT}, {&v.ImmCycles, immC}} {
		if *f.fit, err = stats.LinearFit(xs, f.ys); err != nil {
			return stop(fmt.Errorf("harness: fitting the chains: %w", err))
		}
	}
	if known && !slices.Contains(addI, 0) {
		if v.AddCyclesByImul, err = stats.LinearFit(xs, addI); err != nil {
			return stop(fmt.Errorf("harness: fitting the chains: %w", err))
		}
	}
	v.ImulAddRatio = v.ImulCycles.Slope / v.AddCycles.Slope
	v.TickRatio = v.ImulTicks.Slope / v.AddTicks.Slope
	if math.Abs(v.TickRatio/v.ImulAddRatio-1) > 0.01 {
		v.Warnings = append(v.Warnings, fmt.Errorf("harness: the IMUL/ADD ratio in ticks (%.3f) is more than 1%% off the ratio in cycles (%.3f): the core clock moved between the measurements (the machine was not quiet); the cycle figures account for it", v.TickRatio, v.ImulAddRatio))
	}
	if !known {
		v.Warnings = append(v.Warnings, fmt.Errorf("harness: the multiply latency of this core is not documented: the rulers are unchecked, and the IMUL/ADD ratio (%.3f) and cycles per IMUL (%.3f) are reported, not judged", v.ImulAddRatio, v.ImulCycles.Slope))
	}
	rulerCheck := func() {
		if !known {
			return
		}
		worst := math.NaN()
		for _, q := range v.RulerRatios {
			if !math.IsNaN(q) && (math.IsNaN(worst) || math.Abs(q/lat-1) > math.Abs(worst/lat-1)) {
				worst = q
			}
		}
		n := len(v.RulerRatios)
		add(Check{Name: "the rulers agree (IMUL/ADD of every measurement's ruler)", Value: worst, Truth: lat, Tolerance: lat * calibrate.DefaultRulerThresholds.Agree,
			Pass: v.RulersChecked == n && n > 0,
			Detail: fmt.Sprintf("%d of %d rulers checked, %d refused; the ratio farthest from %g is shown (the tolerance widens by how far each ruler's best samples spread, up to %g%%)",
				v.RulersChecked, n, v.RulersRefused, lat, 100*calibrate.DefaultRulerThresholds.MaxAgree)})
	}
	if known {
		within("cycles per register ADD, by the IMUL ruler", v.AddCyclesByImul.Slope, 1, 0.03, "cycles/op",
			fmt.Sprintf("slope of ticks × IMUL latency / the IMUL chain's ticks per link, ± %.4f (95%%); by the ADD ruler %.4f", v.AddCyclesByImul.SlopeCI, v.AddCycles.Slope))
		within("cycles per IMUL, by the ADD ruler", v.ImulCycles.Slope, lat, 0.03*lat, "cycles/op",
			fmt.Sprintf("slope of cycles against length, ± %.4f (95%%); in ticks %.4f and %.4f per IMUL and ADD (ratio %.4f)", v.ImulCycles.SlopeCI, v.ImulTicks.Slope, v.AddTicks.Slope, v.TickRatio))
	}
	// The immediate ADD's cost in register ADDs, from ticks alone, against
	// what the ruler made of it: a ruler made of a folded chain would give
	// 1 cycle per op where the ticks say 0.2.
	immRatio := v.ImmTicks.Slope / v.AddTicks.Slope
	v.ImmFolded = immRatio < calibrate.FoldedBelow
	folded := "not folded"
	if v.ImmFolded {
		folded = fmt.Sprintf("folded at rename (%.1f× faster than a register ADD)", 1/immRatio)
	}
	within("cycles per immediate ADD follow its ticks", v.ImmCycles.Slope, immRatio, 0.05*immRatio, "cycles/op",
		fmt.Sprintf("truth: its ticks per op over the register ADD's (%.4f / %.4f): %s", v.ImmTicks.Slope, v.AddTicks.Slope, folded))
	add(Check{Name: "R² of the ADD fit, cycles", Value: v.AddCycles.R2, Truth: 0.9999, Unit: "", Pass: v.AddCycles.R2 >= 0.9999,
		Detail: fmt.Sprintf("lengths %d to %d", o.Lengths[0], o.Lengths[len(o.Lengths)-1])})
	add(Check{Name: "R² of the IMUL fit, cycles", Value: v.ImulCycles.R2, Truth: 0.9999, Pass: v.ImulCycles.R2 >= 0.9999})
	add(Check{Name: "R² of the immediate ADD fit, cycles", Value: v.ImmCycles.R2, Truth: 0.9999, Pass: v.ImmCycles.R2 >= 0.9999})

	say("empty function")
	// Judged in latency mode, where a fence before each call makes the
	// timing loop's cost additive; in throughput mode the cost of calling
	// an empty function moves between modes of up to 2 ticks per call on
	// some cores (see EmptyThroughput).
	emptyCfg := base
	emptyCfg.Mode = Latency
	if v.Empty, err = Measure(emptyCfg, func() {}); err != nil {
		return stop(err)
	}
	rulers(v.Empty)
	within("empty function after overhead subtraction, latency mode", v.Empty.Ticks, 0, 2, "ticks",
		fmt.Sprintf("R = %d calls per sample, overhead %.0f ticks per sample, counter step %.3g ticks", v.Empty.Repeat, v.Empty.OverheadTicks, cal.Step.Step))
	if v.EmptyThroughput, err = Measure(base, func() {}); err != nil {
		return stop(err)
	}
	rulers(v.EmptyThroughput)

	// Repeatability: the 1000-ADD kernel, Reps times each way.
	k1000 := func() { sink = chain.AddFrom(sink, 1000) }
	say("repeatability: Measure ×%d", o.Reps)
	t0 := time.Now()
	for i := 0; i < o.Reps; i++ {
		r, err := Measure(base, k1000)
		if err != nil {
			return stop(err)
		}
		rulers(r)
		v.HarnessCycles = append(v.HarnessCycles, r.Cycles)
	}
	v.HarnessWall = time.Since(t0)
	v.HarnessCV = cv(v.HarnessCycles)
	add(Check{Name: "CV of Cycles, 1000-ADD kernel, throughput", Value: v.HarnessCV * 100, Truth: 0.2, Unit: "%", Pass: v.HarnessCV <= 0.002,
		Detail: fmt.Sprintf("%d measurements in %v", o.Reps, v.HarnessWall.Round(time.Millisecond))})

	// Latency: independent chains, each call fenced from the last.
	lcfg := base
	lcfg.Mode = Latency
	say("latency: 1000 IMULs")
	lcfg.Name = "ImulChain(1000)"
	if v.LatencyImul, err = Measure(lcfg, func() { sink += chain.Imul(1000) }); err != nil {
		return stop(err)
	}
	rulers(v.LatencyImul)
	v.Warnings = append(v.Warnings, notConverged(v.LatencyImul)...)
	if known {
		within("latency of 1000 IMULs", v.LatencyImul.Cycles, 1000*lat, 10*lat, "cycles",
			fmt.Sprintf("latency mode, %d samples of %d calls", v.LatencyImul.Samples, v.LatencyImul.Repeat))
	}
	say("latency: 1000 ADDs ×%d", o.Reps)
	lcfg.Name = "AddChain(1000)"
	t0 = time.Now()
	for i := 0; i < o.Reps; i++ {
		r, err := Measure(lcfg, func() { sink += chain.Add(1000) })
		if err != nil {
			return stop(err)
		}
		rulers(r)
		if known {
			v.LatencyByImul = append(v.LatencyByImul, byImul(r))
		}
		if i == 0 {
			v.LatencyAdd = r
			v.Warnings = append(v.Warnings, notConverged(r)...)
		}
		v.LatencyCycles = append(v.LatencyCycles, r.Cycles)
	}
	v.LatencyWall = time.Since(t0)
	v.LatencyCV = cv(v.LatencyCycles)
	if known {
		// Judged in cycles of the IMUL chain measured beside it.
		addLat := v.LatencyByImul[0]
		for _, c := range v.LatencyByImul {
			if math.Abs(c-1000) > math.Abs(addLat-1000) {
				addLat = c // the worst of the repetitions is judged
			}
		}
		within("latency of 1000 ADDs, by the IMUL ruler", addLat, 1000, 10, "cycles",
			fmt.Sprintf("the farthest from 1000 of %d latency-mode measurements (%s to %s; by the ADD ruler %s to %s), each call fenced", len(v.LatencyByImul),
				sigStr(slicesMin(v.LatencyByImul)), sigStr(slicesMax(v.LatencyByImul)), sigStr(slicesMin(v.LatencyCycles)), sigStr(slicesMax(v.LatencyCycles))))
	}
	add(Check{Name: "CV of Cycles, 1000-ADD kernel, latency", Value: v.LatencyCV * 100, Truth: 0.1, Unit: "%", Pass: v.LatencyCV <= 0.001,
		Detail: fmt.Sprintf("%d measurements in %v", o.Reps, v.LatencyWall.Round(time.Millisecond))})
	perResult := (v.HarnessWall + v.LatencyWall) / time.Duration(2*o.Reps)
	add(Check{Name: "wall time per result, 1000-ADD kernel", Value: float64(perResult.Microseconds()) / 1000, Truth: 20, Unit: "ms", Pass: perResult <= 20*time.Millisecond,
		Detail: fmt.Sprintf("%d results of both modes in %v", 2*o.Reps, (v.HarnessWall + v.LatencyWall).Round(time.Millisecond))})

	if !o.SkipBenchmark {
		say("repeatability: testing.Benchmark ×%d", o.Reps)
		t0 = time.Now()
		for i := 0; i < o.Reps; i++ {
			if base.Context != nil && base.Context.Err() != nil {
				return stop(fmt.Errorf("harness: validation cancelled: %w", base.Context.Err()))
			}
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
		if v.BenchCV > 0 {
			ratio := v.BenchCV / math.Max(v.HarnessCV, 1e-12)
			add(Check{Name: "testing.B CV / cyclebench CV", Value: ratio, Truth: 5, Pass: ratio >= 5,
				Detail: fmt.Sprintf("testing.B CV %.3g%% over %d runs in %v", v.BenchCV*100, len(v.BenchNs), v.BenchWall.Round(time.Millisecond))})
		}
	}

	// Speed: a ~1 µs kernel.
	linksPerTick := math.Max(cal.Core.CyclesPerTick, 0.1)
	if a := cal.Core.AddTicksPerOp; a > 0 && !math.IsInf(a, 0) {
		linksPerTick = 1 / a
	}
	n1us := max(1, int(math.Round(1e-6*cal.Frequency.Hz*linksPerTick)))
	k1us := func() { sink = chain.AddFrom(sink, n1us) }
	say("speed: a %d-ADD kernel (~1 µs) ×%d", n1us, speedReps)
	speed := make([]Result, 0, speedReps)
	allConverged := true
	for range speedReps {
		t0 = time.Now()
		r, err := Measure(base, k1us)
		if err != nil {
			return stop(err)
		}
		v.SpeedWalls = append(v.SpeedWalls, time.Since(t0))
		r.Name = fmt.Sprintf("AddChain(%d)", n1us)
		rulers(r)
		speed = append(speed, r)
		allConverged = allConverged && r.Converged
	}
	order := make([]int, len(speed))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v.SpeedWalls[a], v.SpeedWalls[b]) })
	mid := order[len(order)/2]
	v.SpeedKernel, v.SpeedWall = speed[mid], v.SpeedWalls[mid]
	if !o.SkipBenchmark {
		t0 = time.Now()
		testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				k1us()
			}
		})
		v.SpeedBenchWall = time.Since(t0)
	}
	walls := make([]string, len(v.SpeedWalls))
	for i, w := range v.SpeedWalls {
		walls[i] = strconv.FormatFloat(float64(w.Microseconds())/1000, 'f', 1, 64)
	}
	speedDetail := fmt.Sprintf("median of %d results (%s ms); %s: %.0f ns, all converged %v", len(v.SpeedWalls), strings.Join(walls, ", "), v.SpeedKernel.Name, v.SpeedKernel.Nanoseconds, allConverged)
	if v.SpeedBenchWall > 0 {
		speedDetail += fmt.Sprintf("; testing.Benchmark took %v (%.0f× longer)", v.SpeedBenchWall.Round(time.Millisecond), v.SpeedBenchWall.Seconds()/v.SpeedWall.Seconds())
	}
	add(Check{Name: "median wall time for a converged ~1 µs kernel", Value: float64(v.SpeedWall.Microseconds()) / 1000, Truth: 20, Unit: "ms",
		Pass: v.SpeedWall <= 20*time.Millisecond && allConverged, Detail: speedDetail})
	rulerCheck()
	v.Pass = true
	for _, c := range v.Checks {
		v.Pass = v.Pass && c.Pass
	}
	return v, nil
}

func sigStr(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func slicesMin(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Min(xs)
}

func slicesMax(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
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
