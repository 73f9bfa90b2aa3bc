// Command hrtime is the start-up row of github.com/loov/hrtime: it times
// 4096 calls of a continued ADD chain of N links (about 1 µs) one by one with
// hrtime.NewBenchmark, as hrtime's documentation does, prints the median lap
// less hrtime's own overhead and exits. hrtime does not calibrate anything
// beyond that overhead.
//
// Usage: hrtime N
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/loov/hrtime"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "hrtime: usage: hrtime N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "hrtime: bad chain length %q\n", os.Args[1])
		os.Exit(2)
	}
	bench := hrtime.NewBenchmark(4096)
	for bench.Next() {
		kernels.AddContinued(n)
	}
	h := bench.Histogram(10)
	fmt.Printf("ns=%g\n", h.P50-float64(hrtime.Overhead().Nanoseconds()))
}
