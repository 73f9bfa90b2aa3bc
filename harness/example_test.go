package harness_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/harness"
)

// sum1000 is the function these examples measure: 1000 loads and adds.
func sum1000() {
	var s uint64
	for _, v := range sum1000Data {
		s += v
	}
	sum1000Sink = s
}

var (
	sum1000Data = make([]uint64, 1000)
	sum1000Sink uint64
)

func ExampleMeasure() {
	res, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Name: "sum1000", Run: sum1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.0f cycles, %.0f ticks, %.1f ns per call\n", res.Cycles, res.Ticks, res.Nanoseconds)
	fmt.Printf("converged: %v after %d samples of %d calls\n", res.Converged, res.Samples, res.Repeat)
	for _, w := range res.Warnings {
		fmt.Println("warning:", w)
	}
}

// Per-element figures: tell Measure how many elements one call processes.
func ExampleMeasure_elements() {
	t := harness.Target{Run: sum1000, Elements: float64(len(sum1000Data))}
	res, err := harness.Measure(context.Background(), harness.DefaultConfig(), t)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f cycles per element\n", res.CyclesPerElement)
}

// A bad configuration is an error naming the field and what is allowed;
// nothing is measured.
func ExampleMeasure_badConfig() {
	cfg := harness.DefaultConfig()
	cfg.Epsilon = 1.5
	_, err := harness.Measure(context.Background(), cfg, harness.Target{Run: sum1000})
	fmt.Println(err)
	fmt.Println(errors.Is(err, harness.ErrBadConfig))
	// Output:
	// harness: bad config: Epsilon 1.5 (allowed: 0 ≤ ε < 1)
	// true
}

func ExampleDefaultConfig() {
	cfg := harness.DefaultConfig()
	fmt.Println(cfg.CPU == harness.AnyCPU) // let Measure pick a CPU
	// Every default is filled in; set the fields to change. A Config from
	// DefaultConfig means what it holds: ε 0 is exactly 0.
	cfg.K = 5
	cfg.Epsilon = 0
	fmt.Printf("K %d, ε %g, M %d, %v\n", cfg.K, cfg.Epsilon, cfg.MaxSamples, cfg.Mode)
	checked, err := cfg.WithDefaults()
	fmt.Println(checked.Epsilon, err)
	// Output:
	// true
	// K 5, ε 0, M 1000, throughput
	// 0 <nil>
}

// Report belongs in a benchmark function of a _test.go file:
//
//	func BenchmarkSum1000(b *testing.B) {
//		// Elements adds the per-element units.
//		harness.Report(b, harness.DefaultConfig(), harness.Target{Run: sum1000, Elements: 1000})
//	}
//
// go test -bench Sum1000 -count 6 then prints cycles/op, ticks/op and ns/op
// (and cycles/elem, ticks/elem, ns/elem) for benchstat. Here the benchmark
// runs through testing.Benchmark so that the example is self-contained.
func ExampleReport() {
	t := harness.Target{Run: sum1000, Elements: float64(len(sum1000Data))}
	r := testing.Benchmark(func(b *testing.B) { harness.Report(b, harness.DefaultConfig(), t) })
	for _, unit := range slices.Sorted(maps.Keys(r.Extra)) {
		fmt.Println(unit)
	}
	// Output:
	// B/op
	// allocs/op
	// cycles/elem
	// cycles/op
	// ns/elem
	// ns/op
	// ticks/elem
	// ticks/op
}

// In latency mode every call follows a serializing fence, so calls cannot
// overlap: a chain of dependent ADDs measures its latency, one cycle per
// ADD. (Not run as a test: the figure depends on the machine.)
func ExampleMeasure_latency() {
	cfg := harness.DefaultConfig()
	cfg.Mode = harness.Latency
	var sink uint64
	r, err := harness.Measure(context.Background(), cfg, harness.Target{Run: func() {
		for i := uint64(0); i < 1000; i++ {
			sink = sink*3 + i
		}
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.0f cycles per call (%s), %d disturbed samples discarded\n", r.Mode, r.Cycles, r.CyclesSource, r.Discarded)
}

// A Mode reads and writes itself as text, so a flag binds to it with
// flag.TextVar and JSON results say "latency".
func ExampleMode() {
	var m harness.Mode
	err := m.UnmarshalText([]byte("latency"))
	fmt.Println(m, err)
	fmt.Println(m.UnmarshalText([]byte("fast")))
	// Output:
	// latency <nil>
	// harness: bad config: mode "fast" (allowed: throughput, latency)
}

// WithDefaults is the one check of a Config; its errors say which field,
// which value and what is allowed.
func ExampleConfig_WithDefaults() {
	cfg := harness.DefaultConfig()
	cfg.MaxSamples = 2
	_, err := cfg.WithDefaults()
	var ce *harness.ConfigError
	if errors.As(err, &ce) {
		fmt.Println(ce.Field, ce.Value, "—", ce.Allowed)
	}
	fmt.Println(errors.Is(err, harness.ErrBadConfig))
	// Output:
	// MaxSamples 2 — at least K = 3
	// true
}

// A kernel that sleeps: the measuring thread's CPU time per call is far
// below the wall time per call, and Measure warns.
func ExampleResult_blocking() {
	cfg := harness.DefaultConfig()
	cfg.Repeat, cfg.MaxSamples, cfg.Warmup, cfg.NoCycles = 1, 5, -1, true
	r, err := harness.Measure(context.Background(), cfg, harness.Target{Run: func() { time.Sleep(time.Millisecond) }})
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
