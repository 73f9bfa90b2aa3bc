package sums

import (
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

// sizes are the sweep's sizes: 500 to 4000 elements, 4 KB to 32 KB, so
// that the input stays in a 32 KB first-level data cache.
var sizes = []int{500, 1000, 1500, 2000, 2500, 3000, 3500, 4000}

// compareN is the size of the comparisons.
const compareN = 4000

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
func sweep(sum func([]int64) int64) func(n int) (harness.Instance, error) {
	return func(n int) (harness.Instance, error) {
		s := input(n)
		return harness.Instance{Run: func() { sink = sum(s) }}, nil
	}
}

// BenchmarkSum1 and BenchmarkSum4 sweep the sums over sizes: one
// sub-benchmark per size (Sum1/n=500, ...), each with cycles/op and
// cycles/elem. Their cost per call against n is a line whose slope is the
// cost per element (CPE).
func BenchmarkSum1(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), sizes, sweep(Sum1))
}

func BenchmarkSum4(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), sizes, sweep(Sum4))
}

// BenchmarkSum4vsSum1 measures Sum1 (A) and Sum4 (B) interleaved on the
// same input and reports B/A with its 95% interval and p-value.
func BenchmarkSum4vsSum1(b *testing.B) {
	s := input(compareN)
	harness.ReportCompare(b, harness.DefaultConfig(),
		harness.Instance{Name: "Sum1", Run: func() { sink = Sum1(s) }},
		harness.Instance{Name: "Sum4", Run: func() { sink = Sum4(s) }},
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
	harness.ReportCompare(b, harness.DefaultConfig(),
		harness.Instance{Name: "Sum1", Run: run},
		harness.Instance{Name: "Sum1'", Run: run},
		harness.CompareOptions{})
}
