package harness_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
)

// work is a kernel of about 100 µs of arithmetic.
var work = harness.LabKernel{Name: "work", Run: func() {
	x := uint64(1)
	for i := 0; i < 200_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}}

var sink uint64

// Every clock times the same five runs; the millisecond clock cannot
// resolve a 100 µs interval.
func ExampleClocksLab() {
	res, err := harness.ClocksLab(harness.DefaultLabConfig(), work)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := res.Kernels[0]
	for _, m := range k.Methods {
		fmt.Println(m.Clock, len(m.Readings), "readings")
	}
	wallMs, _ := k.Method(cputime.ClockWallMs)
	fmt.Println("wall-ms resolves it:", wallMs.Resolves)
	// Output:
	// wall-ms 5 readings
	// wall-us 5 readings
	// monotonic 5 readings
	// tsc 5 readings
	// process 5 readings
	// thread 5 readings
	// wall-ms resolves it: false
}

func ExampleDefaultLabConfig() {
	cfg := harness.DefaultLabConfig()
	cfg.Reps = 7 // instead of the seed's 5
	cfg.Methods = []cputime.Clock{cputime.ClockTSC, cputime.ClockThread}
	fmt.Println(cfg.CPU == harness.AnyCPU, cfg.Reps, cfg.Methods)
	// Output: true 7 [tsc thread]
}

func ExampleLabMethods() {
	fmt.Println(harness.LabMethods())
	// Output: [wall-ms wall-us monotonic tsc process thread]
}

func ExampleLabNesting() {
	fmt.Println(harness.LabNesting())
	// Output: [process thread wall-ms wall-us monotonic tsc]
}

func ExampleLabKernelResult_Method() {
	cfg := harness.DefaultLabConfig()
	cfg.Methods = []cputime.Clock{cputime.ClockTSC}
	res, err := harness.ClocksLab(cfg, work)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, hasTSC := res.Kernels[0].Method(cputime.ClockTSC)
	_, hasWall := res.Kernels[0].Method(cputime.ClockWallMs)
	fmt.Println(hasTSC, hasWall)
	// Output: true false
}

func ExampleLabKernelResult_Verdict() {
	cfg := harness.DefaultLabConfig()
	cfg.Methods = []cputime.Clock{cputime.ClockWallMs, cputime.ClockTSC}
	res, err := harness.ClocksLab(cfg, work)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := res.Kernels[0].Verdict()
	fmt.Println(strings.HasPrefix(v[0], "cannot resolve the interval: wall-ms"))
	// Output: true
}

// Seed 002's second demo: a sleep keeps no CPU busy.
func ExampleUtilisationLab() {
	res, err := harness.UtilisationLab(harness.DefaultLabConfig(), harness.LabKernel{
		Name: "sleep", Run: func() { time.Sleep(50 * time.Millisecond) },
	})
	if err != nil {
		fmt.Println(err) // errors.ErrUnsupported outside Linux and Windows
		return
	}
	u := res.Kernels[0].Utilisation
	fmt.Println(u.Wall >= 50*time.Millisecond, u.OfOneCPU < 10)
	// Output: true true
}

// A kernel that sleeps: the measuring thread's CPU time per call is far
// below the wall time per call, and Measure warns.
func ExampleResult_blocking() {
	cfg := harness.DefaultConfig()
	cfg.Repeat, cfg.MaxSamples, cfg.Warmup, cfg.NoCycles = 1, 5, -1, true
	r, err := harness.Measure(cfg, func() { time.Sleep(time.Millisecond) })
	if err != nil {
		fmt.Println(err)
		return
	}
	// Calls counts every call in the sampling loop (it may stop before
	// MaxSamples when the samples agree); the sleeping kernel ran on the CPU
	// for far less than the wall time it took.
	fmt.Println(r.Calls == int64(r.Samples*r.Repeat), r.ThreadCPUNsPerCall < r.WallNsPerCall/2)
	fmt.Println(slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, harness.ErrBlocks) }))
	// Output:
	// true true
	// true
}
