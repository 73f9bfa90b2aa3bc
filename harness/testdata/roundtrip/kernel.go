// Package roundtrip is the module harness's round-trip test generates in a
// temporary directory: benchmarks that report through harness.Report, run
// with go test -bench and read back with golang.org/x/perf/benchfmt.
package roundtrip

// Iterations is the length of Kernel's dependent chain.
const Iterations = 1000

var sink uint64

// Kernel runs a dependent multiply-add chain of Iterations steps (each
// waits for the one before: at least one core cycle per step), about 1 µs
// on a 3 GHz core.
//
//go:noinline
func Kernel() {
	x := sink
	for i := 0; i < Iterations; i++ {
		x = x*0x9E3779B97F4A7C15 + 1
	}
	sink = x
}

// Chain returns a function running Kernel's chain with n steps.
func Chain(n int) func() {
	return func() {
		x := sink
		for i := 0; i < n; i++ {
			x = x*0x9E3779B97F4A7C15 + 1
		}
		sink = x
	}
}

var bytesSink []byte

// Alloc64 allocates 64 bytes a call, in one allocation.
func Alloc64() { bytesSink = make([]byte, 64) }
