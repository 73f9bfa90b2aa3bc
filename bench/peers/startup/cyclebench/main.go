// Command cyclebench is the start-up row of cyclebench: it measures one
// continued ADD chain of N links (about 1 µs) with harness.Measure and the
// default configuration, prints the figure and exits. The driver times it
// from exec to exit.
//
// Usage: cyclebench N
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/cyclebench/cyclebench/harness"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "cyclebench: usage: cyclebench N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "cyclebench: bad chain length %q\n", os.Args[1])
		os.Exit(2)
	}
	r, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Run: func() { kernels.AddContinued(n) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cyclebench:", err)
		os.Exit(1)
	}
	fmt.Printf("ns=%g cycles=%g converged=%v\n", r.Nanoseconds, r.Cycles, r.Converged)
}
