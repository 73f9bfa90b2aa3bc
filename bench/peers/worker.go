package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/loov/hrtime"
)

// The worker is this same program started by the driver with the first
// argument "worker": one child process per measurement, so that every tool
// runs alone, one process at a time, while the driver waits. It writes one
// JSON object (workerOut) on stdout.

// hrtimeCount is the number of laps of one hrtime.NewBenchmark, the count
// hrtime's documentation uses.
const hrtimeCount = 4096

// rulerLen is the length of the kernel measured with cyclebench to read its
// core-clock ruler (Result.CyclesPerTick) beside a peer.
const rulerLen = kernels.ChainLen

// Ruler is cyclebench's core-clock ruler read in one measurement: the counter
// frequency and core cycles per tick. Cycles per nanosecond is their product
// over 1e9.
type Ruler struct {
	TicksPerSecond float64 `json:"ticks_per_second"`
	CyclesPerTick  float64 `json:"cycles_per_tick"`
	// Why is the reason when CyclesPerTick is 0.
	Why string `json:"why,omitempty"`
}

// CyclesPerNs returns core cycles per nanosecond, 0 when unknown.
func (r Ruler) CyclesPerNs() float64 { return r.TicksPerSecond / 1e9 * r.CyclesPerTick }

// KernelOut is one tool's figure for one kernel in one process.
type KernelOut struct {
	Key string  `json:"key"`
	Ns  float64 `json:"ns"`
	// Cycles is core cycles per call: cyclebench's own figure, or the
	// peer's ns converted with the rulers around it; 0 when unknown (Why).
	Cycles float64 `json:"cycles"`
	Why    string  `json:"why,omitempty"`
	// RulerWaitMs is cyclebench's Result.RulerWait in milliseconds, and
	// Lagged reports its ErrRulerLag warning (its ruler's ADD chain still
	// lagged its IMUL chain at the end).
	RulerWaitMs float64 `json:"ruler_wait_ms,omitempty"`
	Lagged      bool    `json:"lagged,omitempty"`
	// Shared is cyclebench's Result.Shared: the core-state probe said the
	// core was shared to the end, and the figure is labelled so.
	Shared bool `json:"shared,omitempty"`
	// Room is cyclebench's Result.Room: the room probe read the core with
	// more room than usual to the end of the wait, and the figure is
	// labelled so (it may read low).
	Room bool `json:"room,omitempty"`
	// Before and After are the rulers read just before and after a peer's
	// measurement (in its process).
	Before *Ruler `json:"before,omitempty"`
	After  *Ruler `json:"after,omitempty"`
}

// CompareOut is one comparison of A with B by one tool.
type CompareOut struct {
	Detected bool    `json:"detected"`
	P        float64 `json:"p"`
	Ratio    float64 `json:"ratio"`
	Seconds  float64 `json:"seconds"`
	// Runs is the number of runs per side (testing.B, hrtime); 0 for
	// cyclebench, whose Pairs counts its paired samples.
	Runs  int `json:"runs,omitempty"`
	Pairs int `json:"pairs,omitempty"`
	// MoreBlocks is how many blocks cyclebench took beyond the five asked
	// (harness.Comparison.MoreBlocks).
	MoreBlocks int    `json:"more_blocks,omitempty"`
	Note       string `json:"note,omitempty"`
}

type workerOut struct {
	Kernels []KernelOut `json:"kernels,omitempty"`
	Compare *CompareOut `json:"compare,omitempty"`
	Ruler   *Ruler      `json:"ruler,omitempty"`
}

// runWorker runs one measurement: worker measure|compare|ruler [flags].
func runWorker(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("worker: missing task (measure, compare or ruler)")
	}
	task := args[0]
	fs := flag.NewFlagSet("worker "+task, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tool := fs.String("tool", "", "cyclebench, cyclebench-latency, cyclebench-long, testingb or hrtime")
	benchtime := fs.Duration("benchtime", 0, "testing.Benchmark's -test.benchtime; 0 leaves its default")
	a := fs.Int("a", 0, "links of side A's ADD chain")
	b := fs.Int("b", 0, "links of side B's ADD chain")
	count := fs.Int("count", 6, "runs per side of a peer's comparison")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("worker %s: %w", task, err)
	}
	if *benchtime > 0 {
		testing.Init()
		if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
			return fmt.Errorf("worker: -benchtime: %w", err)
		}
	}
	var out workerOut
	switch task {
	case "ruler":
		r := measureRuler()
		out.Ruler = &r
	case "measure":
		ks, err := measureKernels(*tool)
		if err != nil {
			return err
		}
		out.Kernels = ks
	case "compare":
		if *a < 1 || *b < 1 || *count < 2 {
			return fmt.Errorf("worker compare: need -a, -b ≥ 1 and -count ≥ 2")
		}
		c, err := compareChains(*tool, *a, *b, *count)
		if err != nil {
			return err
		}
		out.Compare = &c
	default:
		return fmt.Errorf("worker: unknown task %q", task)
	}
	return json.NewEncoder(stdout).Encode(out)
}

// finePairs is the pairs of the cyclebench-fine comparisons: with the
// noise band off, the band's half counter quantum no longer hides a
// smaller difference, and many pairs resolve it (the counter's phase
// differs from sample to sample).
const finePairs = 1000

// measureRuler reads cyclebench's ruler by measuring a 1000-ADD kernel.
func measureRuler() Ruler {
	r, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Run: func() { kernels.AddContinued(rulerLen) }})
	if err != nil {
		return Ruler{Why: err.Error()}
	}
	out := Ruler{TicksPerSecond: r.TicksPerSecond, CyclesPerTick: r.CyclesPerTick}
	if r.CyclesPerTick == 0 {
		out.Why = "no ruler slope"
		for _, w := range r.Warnings {
			out.Why = w.Error()
		}
	}
	return out
}

// longMinTime is the cyclebench-long row's Config.MinTime: long enough
// that a measurement's samples span the host's short shared-core moments
// (12 to 60 ms each on the Zen 4 guest, by go -C bench/peers run
// ./states), a tenth of testing.B's default second.
const longMinTime = 100 * time.Millisecond

// measureKernels measures every kernel of the table once with tool.
func measureKernels(tool string) ([]KernelOut, error) {
	var out []KernelOut
	for _, k := range kernels.Table() {
		var ko KernelOut
		switch tool {
		case "cyclebench", "cyclebench-latency", "cyclebench-long":
			cfg := harness.DefaultConfig()
			switch tool {
			case "cyclebench-latency":
				cfg.Mode = harness.Latency
			case "cyclebench-long":
				cfg.MinTime = longMinTime
			}
			r, err := harness.Measure(context.Background(), cfg, harness.Target{Run: k.Run})
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", tool, k.Key, err)
			}
			ko = KernelOut{Key: k.Key, Ns: r.Nanoseconds, Cycles: r.Cycles, RulerWaitMs: float64(r.RulerWait) / float64(time.Millisecond),
				Lagged: slices.ContainsFunc(r.Warnings, func(w error) bool { return errors.Is(w, harness.ErrRulerLag) }), Shared: r.Shared, Room: r.Room}
			switch {
			case r.Cycles == 0:
				ko.Why = "no cycle estimate"
			case !r.Converged:
				ko.Why = "not converged"
			}
		case "testingb":
			before := measureRuler()
			br := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					k.Run()
				}
			})
			after := measureRuler()
			ko = KernelOut{Key: k.Key, Before: &before, After: &after}
			if br.N == 0 {
				ko.Why = "testing.Benchmark did not run"
			} else {
				ko.Ns = float64(br.T.Nanoseconds()) / float64(br.N)
			}
		case "hrtime":
			before := measureRuler()
			ns := hrtimeRun(k.Run)
			after := measureRuler()
			ko = KernelOut{Key: k.Key, Ns: ns, Before: &before, After: &after}
		default:
			return nil, fmt.Errorf("worker measure: unknown tool %q", tool)
		}
		if ko.Before != nil {
			ko.Cycles, ko.Why = toCycles(ko.Ns, *ko.Before, *ko.After)
		}
		out = append(out, ko)
	}
	return out, nil
}

// hrtimeRun times hrtimeCount calls of f one by one with hrtime and returns
// the median lap less hrtime's own overhead (hrtime.Overhead), in ns.
func hrtimeRun(f func()) float64 {
	bench := hrtime.NewBenchmark(hrtimeCount)
	for bench.Next() {
		f()
	}
	return bench.Histogram(10).P50 - float64(hrtime.Overhead().Nanoseconds())
}

// toCycles converts a peer's ns to core cycles with the mean of the rulers
// read before and after it; it returns 0 and the reason when either ruler
// has no figure.
func toCycles(ns float64, before, after Ruler) (float64, string) {
	switch {
	case ns <= 0:
		return 0, "no figure"
	case before.CyclesPerNs() == 0:
		return 0, "ruler before: " + before.Why
	case after.CyclesPerNs() == 0:
		return 0, "ruler after: " + after.Why
	}
	return ns * (before.CyclesPerNs() + after.CyclesPerNs()) / 2, ""
}

// compareChains compares ADD chains of a and b links (continued) with tool.
// cyclebench decides with harness.Compare's verdict; testing.Benchmark and
// hrtime take count runs per side, interleaved A B A B …, and decide with
// the Mann–Whitney U test of benchmath (benchstat's test), p < 0.05. The
// time runs from the start of the comparison in this process to its
// verdict, cyclebench's one-off calibration included.
func compareChains(tool string, a, b, count int) (CompareOut, error) {
	fa := func() { kernels.AddContinued(a) }
	fb := func() { kernels.AddContinued(b) }
	t0 := time.Now()
	switch tool {
	case "cyclebench", "cyclebench-fine":
		var opt harness.CompareOptions
		if tool == "cyclebench-fine" {
			opt.Pairs, opt.Stats = finePairs, stats.DefaultCompareOptions
			opt.Stats.NoiseBand = stats.NoNoiseBand
		}
		c, err := harness.Compare(context.Background(), harness.DefaultConfig(), harness.Target{Name: "A", Run: fa}, harness.Target{Name: "B", Run: fb}, opt)
		if err != nil {
			return CompareOut{}, fmt.Errorf("cyclebench compare: %w", err)
		}
		note := fmt.Sprintf("ratio %.6f, %d blocks: %s (%s)", c.Stats.Ratio, c.Blocks, c.Verdict, c.Reason)
		if c.Reason != c.Stats.Reason {
			note += "; the paired test alone: " + c.Stats.Reason
		}
		return CompareOut{Detected: c.Stats.Significant, P: c.Stats.PValue, Ratio: c.Stats.Ratio,
			Seconds: time.Since(t0).Seconds(), Pairs: c.Stats.N, MoreBlocks: c.MoreBlocks, Note: note}, nil
	case "testingb", "hrtime":
		var xa, xb []float64
		for range count {
			for _, side := range []struct {
				f  func()
				xs *[]float64
			}{{fa, &xa}, {fb, &xb}} {
				var ns float64
				if tool == "hrtime" {
					ns = hrtimeRun(side.f)
				} else {
					br := testing.Benchmark(func(b *testing.B) {
						for b.Loop() {
							side.f()
						}
					})
					if br.N == 0 {
						return CompareOut{}, errors.New("testing.Benchmark did not run")
					}
					ns = float64(br.T.Nanoseconds()) / float64(br.N)
				}
				*side.xs = append(*side.xs, ns)
			}
		}
		secs := time.Since(t0).Seconds()
		v := mannWhitney(xa, xb)
		return CompareOut{Detected: v.Detected, P: v.P, Ratio: median(slices.Clone(xb)) / median(slices.Clone(xa)),
			Seconds: secs, Runs: count}, nil
	}
	return CompareOut{}, fmt.Errorf("worker compare: unknown tool %q", tool)
}
