// Command stretches follows the host's slow stretches from one process: for
// a while (-d), it measures, back to back with harness.Measure
// (DefaultConfig, no wait for a shared core), the core-state probes of
// package chain (a loop of one taken branch per iteration, a loop of eight
// independent ADDs) and kernels that the stretches slow (SumLoop,
// Combine4, BubbleSort) or do not (a continued register ADD chain), and
// writes one line per round: seconds since the start, /proc/loadavg's
// first figure, and for each kernel its core cycles per element and the
// core-state probe beside its best samples in the same measurement
// (Result.Probe: cycles per iteration of the probe sampled next to it by
// harness; NaN when not judged; recordings made before the probe was
// judged beside the best samples hold its best anywhere in the
// measurement). Its output is
// the recording that harness's stretch replay test reads
// (harness/testdata/stretches; see stretch_test.go there for how to record
// on a new machine kind). With -rooms it records instead what the room the
// out-of-order core has does to calls that overlap (harness/testdata/rooms,
// rooms_test.go there).
//
//	go -C bench/peers run ./stretches -d 10m > stretches.txt
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// The probes' lengths in iterations: a few thousand cycles each, long
// enough that the counter's quantum and the timing's fixed cost are a small
// part of a sample.
const (
	branchIters = 2000
	wideIters   = 1000
)

func main() {
	dur := flag.Duration("d", time.Minute, "how long to go on (at least one round)")
	cpu := flag.Int("cpu", -1, "the CPU to measure on (-1: harness.DefaultConfig's)")
	rooms := flag.Bool("rooms", false, "record the room the out-of-order core has instead: the branch probe, short restarted chains and short continued calls (candidate probes) and the peers' restarted and continued chains (for harness/testdata/rooms)")
	flag.Parse()
	if *dur < 0 {
		fmt.Fprintf(os.Stderr, "stretches: -d %v: want a duration ≥ 0\n", *dur)
		os.Exit(2)
	}
	if err := run(*dur, *cpu, *rooms); err != nil {
		fmt.Fprintln(os.Stderr, "stretches:", err)
		os.Exit(1)
	}
}

func run(dur time.Duration, cpu int, rooms bool) error {
	var sink uint64
	targets := []harness.Target{
		{Name: "branch", Run: func() { sink = chain.Branch(sink, branchIters) }, Elements: branchIters},
		{Name: "wide", Run: func() { sink = chain.Wide(sink, wideIters) }, Elements: wideIters},
		{Name: "add", Run: func() { sink = chain.AddFrom(sink, 1000) }, Elements: 1000},
	}
	examples := []string{"SumLoop", "Combine4", "BubbleSort"}
	if rooms {
		// A call that starts a fresh chain overlaps the next by as much as
		// the out-of-order core holds: short ones are candidate probes of
		// that room, the peers' chains what it moves (restarted) or not
		// (continued).
		targets = []harness.Target{
			{Name: "branch", Run: func() { sink = chain.Branch(sink, branchIters) }, Elements: branchIters},
			{Name: "imul-restarted-200", Run: func() { sink = chain.ImulFrom(3, 200) }, Elements: 200},
			{Name: "add-restarted-300", Run: func() { sink = chain.AddFrom(0, 300) }, Elements: 300},
			{Name: "imul-restarted", Run: func() { kernels.ImulRestarted(kernels.ChainLen) }, Elements: kernels.ChainLen},
			{Name: "add-restarted", Run: func() { kernels.AddRestarted(kernels.ChainLen) }, Elements: kernels.ChainLen},
			{Name: "imul-continued", Run: func() { kernels.ImulContinued(kernels.ChainLen) }, Elements: kernels.ChainLen},
			{Name: "add-continued", Run: func() { kernels.AddContinued(kernels.ChainLen) }, Elements: kernels.ChainLen},
			// Short continued calls: a candidate probe of the state in
			// which the continued chains read 0.3% high.
			{Name: "add-continued-8", Run: func() { kernels.AddContinued(8) }, Elements: 8},
		}
		examples = nil
	}
	for _, name := range examples {
		k, err := benchexamples.Lookup(name)
		if err != nil {
			return err
		}
		t, err := k.New(k.DefaultN)
		if err != nil {
			return err
		}
		t.Name = name
		targets = append(targets, t)
	}
	cal, err := calibrate.Get()
	if err != nil {
		return err
	}
	fmt.Printf("# stretches: seconds load then core cycles per element of each kernel; 0: no cycle figure\n")
	fmt.Printf("# machine: %s family %d model %d stepping %d, counter %.0f Hz, core %.4g cycles/tick\n",
		cal.CPU.Brand, cal.CPU.Family, cal.CPU.Model, cal.CPU.Stepping, cal.Frequency.Hz, cal.Core.CyclesPerTick)
	names := []string{"t", "load"}
	for _, t := range targets {
		names = append(names, t.Name, t.Name+".probe")
	}
	fmt.Println(strings.Join(names, " "))
	cfg := harness.DefaultConfig()
	cfg.NoSettle = true
	if cpu >= 0 {
		cfg.CPU = cpu
	}
	start := time.Now()
	for rounds := 0; time.Since(start) <= dur || rounds == 0; rounds++ {
		line := []string{fmt.Sprintf("%.3f", time.Since(start).Seconds()), loadavg()}
		for _, t := range targets {
			r, err := harness.Measure(context.Background(), cfg, t)
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			// The probe's own reading, so that a replay can judge it
			// against any best.
			line = append(line, fmt.Sprintf("%.5g", r.CyclesPerElement), fmt.Sprintf("%.5g", r.Probe))
		}
		fmt.Println(strings.Join(line, " "))
	}
	if sink == 42 {
		fmt.Fprintln(os.Stderr, "")
	}
	return nil
}

// loadavg is /proc/loadavg's first figure, "-" where there is none.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "-"
}
