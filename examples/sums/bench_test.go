package sums

import (
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

// sizes are the sweep's sizes: 400 to 3200 elements, 3.2 KB to 25.6 KB,
// so that the input stays in a 32 KB first-level data cache with room to
// spare for the stack and the harness's own data. (At 4000 elements, 32
// KB, Sum1 took 1.08 cycles/element instead of 1.00 in most runs: the
// input no longer fits beside everything else.)
var sizes = []int{400, 800, 1200, 1600, 2000, 2400, 2800, 3200}

// compareN is the size of the comparisons.
const compareN = 3200

// config is the benchmarks' configuration: the defaults (K-best with K 3
// and ε 1%, pinned to one CPU), in latency mode. In throughput mode (the
// default) each sample times calls back to back, and the out-of-order core
// overlaps the end of one call of Sum1 with the start of the next by an
// amount that depends on n and on the calls per sample: on a Zen 4 guest
// Sum1 took 1.00 cycles/element at some sizes and 1.16-1.18 at others, the
// same in every repetition, which bends the line a CPE is fitted to. In
// latency mode a fence separates the calls (and a fenced empty call is
// subtracted): each figure is one call on its own, 1.00 cycles/element at
// every size.
func config() harness.Config {
	cfg := harness.DefaultConfig()
	cfg.Mode = harness.Latency
	return cfg
}

var sink int64

// input returns n elements to add up.
func input(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i%1000) - 500
	}
	return s
}

// sweep returns the build function of a sweep of sum.
func sweep(sum func([]int64) int64) func(n int) (harness.Target, error) {
	return func(n int) (harness.Target, error) {
		s := input(n)
		return harness.Target{Run: func() { sink = sum(s) }}, nil
	}
}

// BenchmarkSum1 and BenchmarkSum4 sweep the sums over sizes: one
// sub-benchmark per size (Sum1/n=500, ...), each with cycles/op and
// cycles/elem. Their cost per call against n is a line whose slope is the
// cost per element (CPE).
func BenchmarkSum1(b *testing.B) {
	harness.ReportSweep(b, config(), sizes, sweep(Sum1))
}

func BenchmarkSum4(b *testing.B) {
	harness.ReportSweep(b, config(), sizes, sweep(Sum4))
}

// BenchmarkSum4vsSum1 measures Sum1 (A) and Sum4 (B) interleaved on the
// same input and reports B/A with its 95% interval and p-value.
func BenchmarkSum4vsSum1(b *testing.B) {
	s := input(compareN)
	harness.ReportCompare(b, config(),
		harness.Target{Name: "Sum1", Run: func() { sink = Sum1(s) }},
		harness.Target{Name: "Sum4", Run: func() { sink = Sum4(s) }},
		harness.CompareOptions{})
}

// BenchmarkSum1AA compares Sum1 with itself (an A/A test): the ratio
// should be 1 and the verdict "no significant difference" in about 19
// runs of 20 — the check that a difference reported by a comparison is
// not the noise of the machine. Both sides run the very same function
// value: two closures, even of the same source, are two pieces of machine
// code at different addresses, and their loops' alignment can make them
// differ by a percent.
func BenchmarkSum1AA(b *testing.B) {
	s := input(compareN)
	run := func() { sink = Sum1(s) }
	harness.ReportCompare(b, config(),
		harness.Target{Name: "Sum1", Run: run},
		harness.Target{Name: "Sum1'", Run: run},
		harness.CompareOptions{})
}

// BenchmarkSum1Modes measures Sum1 at n = 3200 in both modes, as go test
// names them: BenchmarkSum1Modes/mode=throughput (calls back to back, free
// to overlap) and BenchmarkSum1Modes/mode=latency (each call fenced from
// the last). benchstat -col /mode shows them side by side.
func BenchmarkSum1Modes(b *testing.B) {
	s := input(compareN)
	for _, mode := range []harness.Mode{harness.Throughput, harness.Latency} {
		b.Run("mode="+mode.String(), func(b *testing.B) {
			cfg := config()
			cfg.Mode = mode
			harness.Report(b, cfg, harness.Target{Run: func() { sink = Sum1(s) }})
		})
	}
}
