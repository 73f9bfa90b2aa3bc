package lab_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/lab"
)

// work is a kernel of about 100 µs of arithmetic.
var work = harness.Target{Name: "work", Run: func() {
	x := uint64(1)
	for i := 0; i < 200_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}}

var sink uint64

// Every clock times the same five runs; the millisecond clock cannot
// resolve a 100 µs interval.
func ExampleClocks() {
	res, err := lab.Clocks(context.Background(), lab.DefaultConfig(), work)
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

// Beside the clocks, the harness's own figure for the same kernel: the
// K-best method over many runs, in nanoseconds and core cycles.
func ExampleClocks_kBest() {
	cfg := lab.DefaultConfig()
	cfg.Methods = []cputime.Clock{cputime.ClockTSC}
	res, err := lab.Clocks(context.Background(), cfg, work)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := res.Kernels[0]
	tsc, _ := k.Method(cputime.ClockTSC)
	fmt.Println("measured:", k.KBest != nil, "on the lab's CPU:", k.KBest.CPU == res.CPU)
	fmt.Println("a tsc reading's median against it is finite:", !math.IsNaN(tsc.DiffFromKBest))
	// k.KBest.Nanoseconds, k.KBest.Cycles and k.KBest.Converged are the
	// figures; they depend on the machine.

	// Output:
	// measured: true on the lab's CPU: true
	// a tsc reading's median against it is finite: true
}

func ExampleDefaultConfig() {
	cfg := lab.DefaultConfig()
	cfg.Reps = 7 // instead of 5
	cfg.Methods = []cputime.Clock{cputime.ClockTSC, cputime.ClockThread}
	cfg.NoKBest = true // no K-best measurement beside the clocks
	fmt.Println(cfg.CPU == harness.AnyCPU, cfg.Reps, cfg.Methods)
	// Output: true 7 [tsc thread]
}

func ExampleMethods() {
	fmt.Println(lab.Methods())
	// Output: [wall-ms wall-us monotonic tsc process thread]
}

func ExampleNesting() {
	fmt.Println(lab.Nesting())
	// Output: [process thread wall-ms wall-us monotonic tsc]
}

func ExampleKernelResult_Method() {
	cfg := lab.DefaultConfig()
	cfg.Methods = []cputime.Clock{cputime.ClockTSC}
	res, err := lab.Clocks(context.Background(), cfg, work)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, hasTSC := res.Kernels[0].Method(cputime.ClockTSC)
	_, hasWall := res.Kernels[0].Method(cputime.ClockWallMs)
	fmt.Println(hasTSC, hasWall)
	// Output: true false
}

func ExampleKernelResult_Verdict() {
	cfg := lab.DefaultConfig()
	cfg.Methods = []cputime.Clock{cputime.ClockWallMs, cputime.ClockTSC}
	res, err := lab.Clocks(context.Background(), cfg, work)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := res.Kernels[0].Verdict()
	fmt.Println(strings.HasPrefix(v[0], "cannot resolve the interval: wall-ms"))
	// Output: true
}

// A sleep keeps no CPU busy. (200 ms: long enough that the few
// milliseconds a busy host may add to the process's CPU time around the
// snapshots do not reach 10%.)
func ExampleUtilisation() {
	res, err := lab.Utilisation(context.Background(), lab.DefaultConfig(), harness.Target{
		Name: "sleep", Run: func() { time.Sleep(200 * time.Millisecond) },
	})
	if err != nil {
		fmt.Println(err) // errors.ErrUnsupported outside Linux and Windows
		return
	}
	u := res.Kernels[0].Utilisation
	fmt.Println(u.Wall >= 200*time.Millisecond, u.OfOneCPU < 10)
	// Output: true true
}
