package tsc_test

import (
	"fmt"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

var exampleSink uint64

// work is a short dependent chain for the examples to time.
func work() {
	x := exampleSink
	for i := 0; i < 1000; i++ {
		x = x*3 + 1
	}
	exampleSink = x
}

// Time a region: pin the thread so that both reads come from the same
// CPU's counter, bracket the work with Start and Stop, and take the
// difference in ticks (not cycles: package calibrate converts them).
func ExampleStart() {
	// A real measurement pins the thread to one CPU (affinity.Pin); locking
	// it to its OS thread is the least a caller must do.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := tsc.Start()
	work()
	stop := tsc.Stop()
	ticks, ok := tsc.Elapsed(start, stop)
	fmt.Println(ok, ticks > 0)
	// Output: true true
}

// Stop's read waits for the work before it; an empty region measures the
// cost of the start/stop pair itself, which a harness subtracts.
func ExampleStop() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := ^uint64(0)
	for i := 0; i < 1000; i++ {
		start := tsc.Start()
		stop := tsc.Stop()
		if d, ok := tsc.Elapsed(start, stop); ok && d < best {
			best = d
		}
	}
	fmt.Printf("an empty start/stop pair costs %d ticks\n", best)
}

// StartCPU and StopCPU also return IA32_TSC_AUX, whose low bits are the
// CPU number on Linux: a sample that straddled two CPUs can be discarded.
func ExampleStartCPU() {
	start, auxStart := tsc.StartCPU()
	work()
	stop, auxStop := tsc.StopCPU()
	if tsc.HasAux() && auxStart != auxStop {
		fmt.Println("discard: migrated from CPU", tsc.AuxCPU(auxStart), "to", tsc.AuxCPU(auxStop))
		return
	}
	ticks, _ := tsc.Elapsed(start, stop)
	fmt.Println(ticks, "ticks")
}

func ExampleStopCPU() {
	_, aux := tsc.StopCPU()
	if tsc.HasAux() && runtime.GOOS == "linux" {
		fmt.Println("this thread is on CPU", tsc.AuxCPU(aux))
	}
}

// AuxCPU keeps bits 0–11 of IA32_TSC_AUX: Linux puts the NUMA node above.
func ExampleAuxCPU() {
	const aux = 1<<12 | 3 // node 1, CPU 3
	fmt.Println(tsc.AuxCPU(aux))
	// Output: 3
}

func ExampleElapsed() {
	fmt.Println(tsc.Elapsed(1000, 1250))
	fmt.Println(tsc.Elapsed(1250, 1000)) // backwards: invalid
	// Output:
	// 250 true
	// 0 false
}

func ExampleHasAux() {
	if !tsc.HasAux() {
		fmt.Println("no RDTSCP: migrations between start and stop cannot be detected")
	}
}

// Read is unserialized: fine for coarse timestamps, wrong for short regions.
func ExampleRead() {
	t0 := tsc.Read()
	time.Sleep(time.Millisecond)
	t1 := tsc.Read()
	fmt.Println(t1 > t0)
	// Output: true
}

func ExampleCounter() {
	switch tsc.Counter() {
	case tsc.CounterRDTSC:
		fmt.Println("x86 time-stamp counter: calibrate its frequency")
	case tsc.CounterCNTVCT:
		fmt.Println("arm64 generic timer: its frequency is architected")
	case tsc.CounterMonotonic:
		fmt.Println("no hardware counter in this build: ticks are nanoseconds")
	}
}

func ExampleNominalHz() {
	if hz, ok := tsc.NominalHz(); ok {
		fmt.Printf("the counter runs at exactly %.0f Hz\n", hz)
	} else {
		fmt.Println("the counter's frequency must be measured (package calibrate)")
	}
}

// CPUID leaf 0 holds the vendor string in EBX, EDX, ECX.
func ExampleCPUID() {
	if !tsc.HasCPUID() {
		return
	}
	_, b, c, d := tsc.CPUID(0, 0)
	vendor := make([]byte, 0, 12)
	for _, r := range []uint32{b, d, c} {
		vendor = append(vendor, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	fmt.Println(string(vendor))
}

func ExampleHasCPUID() {
	fmt.Println(tsc.HasCPUID() == (runtime.GOARCH == "amd64" && tsc.Counter() == tsc.CounterRDTSC))
	// Output: true
}

// PairInAsm is the floor under ExampleStop's figure: the same sequences
// with no Go call between them.
func ExamplePairInAsm() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := ^uint64(0)
	for i := 0; i < 1000; i++ {
		best = min(best, tsc.PairInAsm())
	}
	fmt.Printf("start+stop inside one assembly function: %d ticks\n", best)
}

// A tolerance below one counter step is meaningless.
func ExampleStep() {
	step := tsc.Step()
	fmt.Println(step > 0)
	// Output: true
}

func ExampleSteps() {
	s := tsc.Steps()
	fmt.Printf("step %.4g ticks (GCD %d, smallest difference %d, quantized %v, from %d differences, %.2g%% off-grid, %d interrupted)\n",
		s.Step, s.GCD, s.MinDelta, s.Quantized, s.Deltas, 100*s.OffGridShare(), s.Outliers)
}

// A quantized counter with rare artefacts: 16 of 4000 differences were off
// the 26-tick grid, and 2 reads were interrupted.
func ExampleStepInfo_OffGridShare() {
	s := tsc.StepInfo{Step: 26, GCD: 1, MinDelta: 1, Quantized: true, Deltas: 4000, OffGrid: 16, Outliers: 2}
	fmt.Printf("%g ticks, %.1f%% off-grid differences\n", s.Step, 100*s.OffGridShare())
	// Output: 26 ticks, 0.4% off-grid differences
}

// MeasureStep measures afresh (Steps caches); more pairs see more values.
func ExampleMeasureStep() {
	s := tsc.MeasureStep(2000)
	fmt.Println(s.Step > 0, s.Deltas > 0)
	// Output: true true
}
