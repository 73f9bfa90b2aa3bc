package calibrate_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
)

// Get calibrates once per process (a few milliseconds) and caches the
// result; the frequency says where it came from and how precise it is.
func ExampleGet() {
	cal, err := calibrate.Get()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("counter %s at %.0f Hz (%s, ±%.2g ppm), step %.3g ticks\n",
		cal.CPU.Counter, cal.Frequency.Hz, cal.Frequency.Method, cal.Frequency.PPM, cal.Step.Step)
	fmt.Printf("empty start/stop pair: %.0f ticks; %.3f core cycles per tick\n", cal.Overhead.Min, cal.Core.CyclesPerTick)
	for _, w := range cal.Warnings {
		fmt.Println("warning:", w)
	}
}

// Measure calibrates now with chosen options, without touching Get's cache.
func ExampleMeasure() {
	cal, err := calibrate.Measure(calibrate.Options{Duration: 20 * time.Millisecond, Pairs: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f Hz after %v\n", cal.Frequency.Hz, cal.Took.Round(time.Millisecond))
}

// A long run ends with Refine, which closes the bracket Get opened: the
// frequency is then measured over the whole run.
func ExampleRefine() {
	cal, err := calibrate.Get()
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(200 * time.Millisecond) // the run
	refined, err := calibrate.Refine()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s ±%.2g ppm, then %s ±%.2g ppm over %v\n", cal.Frequency.Method, cal.Frequency.PPM,
		refined.Frequency.Method, refined.Frequency.PPM, refined.Frequency.Duration.Round(time.Millisecond))
}

// Calibration.Refine returns a refined copy and leaves the cache alone.
func ExampleCalibration_Refine() {
	cal, err := calibrate.Measure(calibrate.FastOptions)
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(100 * time.Millisecond)
	refined, err := cal.Refine()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("±%.2g ppm → ±%.2g ppm\n", cal.Frequency.PPM, refined.Frequency.PPM)
}

// The fast options take the kernel's figure where it defines the monotonic
// clock, and confirm it with a bracket of a few milliseconds.
func ExampleMeasure_auto() {
	cal, err := calibrate.Measure(calibrate.FastOptions)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := cal.Frequency
	fmt.Printf("%.0f Hz ±%.2g ppm (%s: %s) in %v\n", f.Hz, f.PPM, f.Method, f.Source, cal.Took.Round(time.Millisecond))
	for _, c := range f.CrossChecks {
		fmt.Printf("  %s: %+.2f ppm (±%.2g)\n", c.Source, c.DiffPPM, c.PPM)
	}
}

// Refresh replaces the cached calibration, after a change of machine state
// (a frequency governor, a host migration of a virtual machine).
func ExampleRefresh() {
	cal, err := calibrate.Refresh(calibrate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := calibrate.Get()
	fmt.Println(cal == again)
}

// The conversions are plain arithmetic on a calibration's figures.
func ExampleCalibration_Nanoseconds() {
	cal := &calibrate.Calibration{
		Frequency: calibrate.Frequency{Hz: 2.5e9},
		Core:      calibrate.CoreClock{CyclesPerTick: 1.4},
	}
	fmt.Println(cal.Nanoseconds(5000), "ns")
	fmt.Println(cal.Seconds(5000), "s")
	fmt.Println(cal.Cycles(5000), "cycles")
	// Output:
	// 2000 ns
	// 2e-06 s
	// 7000 cycles
}

func ExampleCalibration_Seconds() {
	cal := &calibrate.Calibration{Frequency: calibrate.Frequency{Hz: 1e9}}
	fmt.Println(time.Duration(cal.Seconds(1.5e9) * float64(time.Second)))
	// Output: 1.5s
}

// Without a core-clock estimate Cycles is 0.
func ExampleCalibration_Cycles() {
	cal := &calibrate.Calibration{Frequency: calibrate.Frequency{Hz: 2e9}}
	fmt.Println(cal.Cycles(1000))
	// Output: 0
}

func ExampleDetectCPU() {
	cpu := calibrate.DetectCPU()
	fmt.Printf("%s %s (family %d model %d), %d logical CPUs\n", cpu.Vendor, cpu.Brand, cpu.Family, cpu.Model, cpu.LogicalCPUs)
	fmt.Printf("counter %s, invariant TSC %v, RDTSCP %v, hypervisor %q\n", cpu.Counter, cpu.InvariantTSC, cpu.RDTSCP, cpu.Hypervisor)
}

func ExampleCPU_CounterConstant() {
	cpu := calibrate.CPU{Counter: "rdtsc", InvariantTSC: false}
	fmt.Println(cpu.CounterConstant()) // an old TSC that follows the core clock
	cpu.InvariantTSC = true
	fmt.Println(cpu.CounterConstant())
	fmt.Println(calibrate.CPU{Counter: "cntvct"}.CounterConstant())
	// Output:
	// false
	// true
	// true
}

// Bracket is the default method: a fraction of a ppm in 100 ms.
func ExampleBracket() {
	f, err := calibrate.Bracket(100 * time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f Hz ± %.2g ppm against %s\n", f.Hz, f.PPM, f.Source)
}

// An interval outside [MinDuration, MaxDuration] is refused.
func ExampleBracket_badDuration() {
	_, err := calibrate.Bracket(time.Microsecond)
	fmt.Println(errors.Is(err, calibrate.ErrBadDuration))
	// Output: true
}

// Sleep is the textbook method; its PPM is the sleep's overshoot, a bias.
func ExampleSleep() {
	f, err := calibrate.Sleep(100 * time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f Hz, biased high by about %.0f ppm\n", f.Hz, f.PPM)
	for _, w := range f.Warnings {
		fmt.Println("warning:", w)
	}
}

func ExampleArchitected() {
	if f, ok := calibrate.Architected(); ok {
		fmt.Printf("the counter runs at exactly %.0f Hz (%s)\n", f.Hz, f.Method)
	} else {
		fmt.Println("the counter's frequency must be measured")
	}
}

// AddCrossChecks compares a measured frequency with every other figure the
// machine offers (CPUID leaves, the kernel's, ...).
func ExampleAddCrossChecks() {
	f, err := calibrate.Bracket(20 * time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	calibrate.AddCrossChecks(&f, calibrate.DetectCPU())
	for _, c := range f.CrossChecks {
		fmt.Printf("%s: %.0f Hz (%+.1f ppm)\n", c.Source, c.Hz, c.DiffPPM)
	}
}

// KernelFrequency is usable only where the kernel's monotonic clock counts
// ticks at the figure it states; the error says why not elsewhere.
func ExampleKernelFrequency() {
	f, err := calibrate.KernelFrequency()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f Hz ±%.2g ppm from %s\n", f.Hz, f.PPM, f.Source)
}

func ExampleKernelHz() {
	hz, source, err := calibrate.KernelHz()
	if errors.Is(err, calibrate.ErrNoKernelFigure) {
		fmt.Println("the kernel states no TSC frequency here")
		return
	}
	fmt.Printf("%.0f Hz from %s\n", hz, source)
}

// MeasureOverhead times empty start/stop pairs: the harness subtracts this.
func ExampleMeasureOverhead() {
	o, err := calibrate.MeasureOverhead(10_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("empty pair from Go: min %.0f ticks, median %.0f; inside assembly: min %.0f\n", o.Min, o.Median, o.AsmMin)
}

// Core cycles per tick from a register ADD chain, checked by an IMUL chain;
// the immediate ADD chain beside them says whether this core folds it.
func ExampleMeasureCoreClock() {
	c, err := calibrate.MeasureCoreClock(calibrate.CoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	switch {
	case c.Refused():
		fmt.Println("no cycle figure:", c.Err)
	case c.Checked:
		fmt.Printf("%.4f cycles per tick, checked: IMUL/ADD %.3f (documented %g)\n", c.CyclesPerTick, c.ImulAddRatio, c.ImulLatency)
	default:
		fmt.Printf("%.4f cycles per tick, unchecked: %v\n", c.CyclesPerTick, c.Err)
	}
	fmt.Println("ADD reg, 1:", c.Imm)
}

// DecideRuler is a pure function of the chains' slopes: here two runs
// recorded on an Emerald Rapids guest, whose core folds ADD reg, 1 at
// rename. A ruler of register ADDs is accepted; one of immediate ADDs is
// refused, never a number.
func ExampleDecideRuler() {
	const hz = 2100e6 // the guest's TSC
	sound := calibrate.DecideRuler(calibrate.RulerFigures{AddTicksPerOp: 0.8077, ImulTicksPerOp: 2.3350, ImulLatency: 3, CounterHz: hz, Exact: true}, calibrate.DefaultRulerThresholds)
	fmt.Printf("register ADD: %.4f cycles per tick, checked %v, core %.2f GHz\n", sound.CyclesPerTick, sound.Checked, sound.CoreHz/1e9)
	folded := calibrate.DecideRuler(calibrate.RulerFigures{AddTicksPerOp: 0.1568, ImulTicksPerOp: 2.3350, ImulLatency: 3, CounterHz: hz, Exact: true}, calibrate.DefaultRulerThresholds)
	fmt.Printf("immediate ADD: %v cycles per tick, refused %v, rulers disagree %v\n", folded.CyclesPerTick, folded.Refused(), errors.Is(folded.Err, calibrate.ErrRulersDisagree))
	// Output:
	// register ADD: 1.2381 cycles per tick, checked true, core 2.60 GHz
	// immediate ADD: 0 cycles per tick, refused true, rulers disagree true
}

// The CPU table: what is documented of a core's multiply and of its
// renamer.
func ExampleLookupX86() {
	for _, m := range []calibrate.Microarch{
		calibrate.LookupX86("GenuineIntel", 6, 0xcf),
		calibrate.LookupX86("AuthenticAMD", 0x19, 0x11),
		calibrate.LookupX86("GenuineIntel", 6, 0x97),
	} {
		fmt.Printf("%s; folds ADD reg, 1: %s\n", m, m.FoldsAddImm)
	}
	// Output:
	// Raptor Cove (Emerald Rapids): IMUL latency 3 cycles; folds ADD reg, 1: yes
	// Zen 4: IMUL latency 3 cycles; folds ADD reg, 1: no
	// Alder Lake (hybrid: P- and E-cores differ; the multiply latency is not vouched for): multiply latency not documented; folds ADD reg, 1: unknown
}

// A Ruler beside other work: the caller decides when each stream is
// sampled (the harness interleaves them with its targets), the ruler times
// the chains and keeps the best samples.
func ExampleNewRuler() {
	lat, _ := calibrate.DetectCPU().ImulLatency()
	r, err := calibrate.NewRuler(calibrate.RulerOptions{AddShort: 256, AddLong: 100_256, ImulShort: 85, ImulLong: 8_500, ImulLatency: lat, K: 3, Epsilon: 0.0005, MaxSamples: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 50 {
		// ... a sample of the work being measured, then:
		for _, s := range r.Streams() {
			r.Sample(s, 0, false)
		}
	}
	v := r.Verdict()
	fmt.Printf("%.4f cycles per tick (checked %v, converged %v)\n", v.CyclesPerTick, v.Checked, v.Converged)
}

// Get may take the kernel's frequency at once and leave its confirmation
// for later; Confirmed makes it, over everything measured in between.
func ExampleConfirmed() {
	c, err := calibrate.Get()
	if err != nil {
		fmt.Println(err)
		return
	}
	// ... measure ...
	if c, err = calibrate.Confirmed(c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f Hz by %s, pending %v\n", c.Frequency.Hz, c.Frequency.Method, c.Pending())
}
