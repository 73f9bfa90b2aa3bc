package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

// A Target with the whole protocol: Setup restores the input before each
// sample, untimed; Run is timed; Check verifies the output once, after
// the measurement, and its error is the measurement's.
func ExampleTarget() {
	pristine := []int{5, 3, 8, 1, 9, 2, 7, 4, 6, 0}
	data := make([]int, len(pristine))
	t := harness.Target{
		Name:     "sort10",
		Setup:    func() { copy(data, pristine) },
		Run:      func() { slices.Sort(data) },
		Elements: float64(len(data)),
		Check: func() error {
			if !slices.IsSorted(data) {
				return errors.New("not sorted")
			}
			return nil
		},
	}
	cfg := harness.DefaultConfig()
	cfg.MaxSamples, cfg.NoCycles = 50, true // a quick look is enough here
	r, err := harness.Measure(context.Background(), cfg, t)
	fmt.Println(r.Name, r.Repeat, err) // a Setup means one call per sample

	t.Check = func() error { return errors.New("wrong answer") }
	_, err = harness.Measure(context.Background(), cfg, t)
	fmt.Println(err)
	// Output:
	// sort10 1 <nil>
	// harness: sort10: the check after measuring failed: wrong answer
}

// The progress hook rides on the context, as net/http/httptrace's hooks
// do, and is called between samples, at most every 50 ms. (Not run as a
// test: what it prints depends on the machine.)
func ExampleWithProgress() {
	ctx := harness.WithProgress(context.Background(), func(p harness.Progress) {
		fmt.Fprintf(os.Stderr, "\r%s: %d of %d samples, spread %.2g%%", p.Name, p.Samples, p.Max, 100*p.Spread)
	})
	r, err := harness.Measure(ctx, harness.DefaultConfig(), harness.Target{Name: "sum1000", Run: sum1000})
	fmt.Fprintln(os.Stderr)
	fmt.Println(r.Converged, err)
}

// Progress is what the hook of WithProgress receives; for a sweep Samples
// and Max count sizes, for a comparison pairs. (Not run as a test.)
func ExampleProgress() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = harness.WithProgress(ctx, func(p harness.Progress) {
		if p.Elapsed > 2*time.Second && !p.Converged {
			cancel() // enough: keep what was measured so far
		}
	})
	r, err := harness.Measure(ctx, harness.DefaultConfig(), harness.Target{Run: sum1000})
	fmt.Println(r.Samples, err)
}

// A Config literal takes the documented default for each zero field, but
// CPU 0 is CPU 0; DefaultConfig is the explicit form, every field meant.
func ExampleConfig() {
	lit, err := harness.Config{K: 5}.WithDefaults()
	fmt.Println(lit.K, lit.Epsilon, lit.MaxSamples, lit.CPU, err)
	def := harness.DefaultConfig()
	def.Epsilon = 0 // exactly 0: the K best must be equal
	checked, err := def.WithDefaults()
	fmt.Println(checked.K, checked.Epsilon, checked.CPU == harness.AnyCPU, err)
	// Output:
	// 5 0.01 1000 0 <nil>
	// 3 0 true <nil>
}

// ConfigError names the field; the cyclebench command maps it to the flag
// that set it.
func ExampleConfigError() {
	cfg := harness.DefaultConfig()
	cfg.MaxTime = -time.Second
	_, err := harness.Measure(context.Background(), cfg, harness.Target{Run: sum1000})
	var ce *harness.ConfigError
	fmt.Println(errors.As(err, &ce), ce.Field, ce.Allowed)
	// Output:
	// true MaxTime > 0
}

// Remedy says what may cure a warning, naming the Config field, the go
// test flag and the cyclebench flag; it reads the warning's text, so it
// serves warnings read back from files too.
func ExampleRemedy() {
	fmt.Println(harness.Remedy("harness: many samples discarded: sum: 40 of 200 samples (20%)"))
	fmt.Printf("%q\n", harness.Remedy("calibrate: running under a hypervisor"))
	// Output:
	// a quieter CPU: other work interrupted the samples
	// ""
}

// A sweep: one Target per size, built before anything is measured, all
// sizes interleaved in one loop with one ruler. (Not run as a test.)
func ExampleSweep() {
	sizes, err := harness.ParseSizes("log 64:65536:11")
	if err != nil {
		fmt.Println(err)
		return
	}
	sw := harness.Sweep{Name: "sum", Sizes: sizes, Build: sumTo}
	res, err := harness.CPE(context.Background(), harness.DefaultConfig(), sw)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, unit := res.Primary()
	fmt.Printf("%s: %.3f %s per element, %s\n", res.Name, f.Slope, unit, res.Linearity.Verdict)
}

// CPEResult.Fit applies CPE's rules to points from anywhere (here, made by
// hand): the lines with an intercept in every unit the points have, the
// outliers and the linearity test.
func ExampleCPEResult() {
	c := harness.CPEResult{Name: "sum", NoTicks: true}
	for _, n := range []int{100, 200, 300, 400, 500} {
		ns := 20 + 0.5*float64(n)
		c.Sizes = append(c.Sizes, n)
		c.Points = append(c.Points, harness.Result{Elements: float64(n), Nanoseconds: ns})
	}
	x := []float64{100, 200, 300, 400, 500}
	if err := c.Fit(x, harness.FitOptions{Epsilon: 0.01}); err != nil {
		fmt.Println(err)
		return
	}
	f, unit := c.Primary()
	fmt.Printf("%.2f %s/element + %.1f %s, R² %.3f\n", f.Slope, unit, f.Intercept, unit, f.R2)
	// Output:
	// 0.50 ns/element + 20.0 ns, R² 1.000
}

// FitOptions.LeftOut keeps points out of the fit (a file's disturbed runs)
// while their residuals are still measured from the line.
func ExampleFitOptions() {
	c := harness.CPEResult{Name: "sum", NoTicks: true}
	for i, n := range []int{100, 200, 300, 400} {
		ns := 10 + float64(n)
		if i == 2 {
			ns += 100 // a disturbed run
		}
		c.Sizes = append(c.Sizes, n)
		c.Points = append(c.Points, harness.Result{Elements: float64(n), Nanoseconds: ns})
	}
	err := c.Fit([]float64{100, 200, 300, 400}, harness.FitOptions{Epsilon: 0.01, LeftOut: []bool{false, false, true, false}})
	fmt.Printf("%.1f ns/element, the left-out run %.0f ns off the line, %v\n", c.Nanoseconds.Slope, c.Nanoseconds.Residuals[2], err)
	// Output:
	// 1.0 ns/element, the left-out run 100 ns off the line, <nil>
}

// CompareOptions' zero value means its defaults; WithDefaults fills them
// in and checks the ranges as Compare does.
func ExampleCompareOptions() {
	o, err := harness.CompareOptions{}.WithDefaults()
	fmt.Println(o.Pairs, o.Blocks, err)
	_, err = harness.CompareOptions{Pairs: 3}.WithDefaults()
	fmt.Println(err)
	// Output:
	// 200 5 <nil>
	// harness: bad config: Pairs 3 (allowed: 6 to 100000, or 0 for 200)
}

// A Comparison says its outcome in one sentence. (Not run as a test.)
func ExampleComparison() {
	a, _ := sumTo(1000)
	b, _ := sumTo(1000)
	a.Name, b.Name = "A", "A again"
	c, err := harness.Compare(context.Background(), harness.DefaultConfig(), a, b, harness.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Sentence()) // an A/A test: no significant difference, in about 19 runs of 20
	fmt.Printf("best samples' ratio %.4f [%.4f, %.4f], paired %.4f [%.4f, %.4f]\n", c.BestRatio, c.BestLo, c.BestHi, c.Stats.Ratio, c.Lo, c.Hi)
}

// CompareCPE compares two sweeps' slopes. (Not run as a test.)
func ExampleCPEComparison() {
	sizes := []int{1000, 2000, 3000, 4000}
	c, err := harness.CompareCPE(context.Background(), harness.DefaultConfig(),
		harness.Sweep{Name: "sum", Sizes: sizes, Build: sumTo}, harness.Sweep{Name: "sum'", Build: sumTo}, stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s vs %s: %.3f and %.3f %s/element: %s\n", c.A.Name, c.B.Name, c.A.Cycles.Slope, c.B.Cycles.Slope, c.Unit, c.Slopes.Verdict)
}

// Extra events per call, where perf_event_open can count them; a machine
// that cannot count one says so in a warning. (Not run as a test.)
func ExampleCounter() {
	cfg := harness.DefaultConfig()
	cfg.Events = []string{"instructions", "branch-misses"}
	r, err := harness.Measure(context.Background(), cfg, harness.Target{Run: sum1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Counters {
		fmt.Printf("%s: %.1f per call (multiplexed %v)\n", c.Event, c.PerCall, c.Multiplexed)
	}
	if v, ok := r.CounterValue("instructions"); ok {
		fmt.Printf("%.2f instructions per element\n", v/1000)
	}
}

// Disturbances counts the samples thrown away, by cause. (Not run as a
// test.)
func ExampleDisturbances() {
	r, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Run: sum1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := r.Disturbed
	fmt.Printf("%d of %d samples discarded: %d context switches, %d migrations, %d page faults (events read: %v)\n",
		r.Discarded, r.Samples, d.ContextSwitches, d.Migrations, d.PageFaults, d.Monitored)
}

// Modes is set when the per-call samples form two clusters; the figure is
// the faster one, and a warning wrapping ErrModes names both. (Not run as
// a test.)
func ExampleModes() {
	r, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Run: sum1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	if m := r.Modes; m != nil {
		fmt.Printf("two modes: %.0f and %.0f ticks per call (%d and %d samples)\n", m.Low, m.High, m.NLow, m.NHigh)
	}
}
