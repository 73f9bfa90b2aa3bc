// Command testingb is the start-up row of testing.Benchmark: it runs one
// testing.Benchmark of a continued ADD chain of N links (about 1 µs) with
// the default -test.benchtime (1 s), prints ns/op and exits.
//
// Usage: testingb N
package main

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "testingb: usage: testingb N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "testingb: bad chain length %q\n", os.Args[1])
		os.Exit(2)
	}
	testing.Init()
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			kernels.AddContinued(n)
		}
	})
	if r.N == 0 {
		fmt.Fprintln(os.Stderr, "testingb: the benchmark did not run")
		os.Exit(1)
	}
	fmt.Printf("ns=%g\n", float64(r.T.Nanoseconds())/float64(r.N))
}
