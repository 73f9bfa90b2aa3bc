package gotest

import (
	"flag"
	"testing"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

var chainLen = flag.Int("n", 10000, "links of BenchmarkChain's ADD chain")

// BenchmarkKernel runs each kernel of the tables as a sub-benchmark named by
// its key.
func BenchmarkKernel(b *testing.B) {
	for _, k := range kernels.Table() {
		b.Run(k.Key, func(b *testing.B) {
			for b.Loop() {
				k.Run()
			}
		})
	}
}

// BenchmarkChain runs an ADD chain of -n links, continued across calls.
func BenchmarkChain(b *testing.B) {
	n := *chainLen
	for b.Loop() {
		kernels.AddContinued(n)
	}
}
