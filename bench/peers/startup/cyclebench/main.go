// Command cyclebench is the start-up row of cyclebench: it measures one
// continued ADD chain of N links (about 1 µs) with harness.Measure and the
// default configuration, prints the figure and exits. The driver times it
// from exec to exit. With -no-wait it sets Config.NoSettle: the
// measurement does not wait out a shared core (a lagging ruler), and says
// so in a warning instead.
//
// Usage: cyclebench [-no-wait] N
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/cyclebench/cyclebench/harness"
)

func main() {
	args := os.Args[1:]
	cfg := harness.DefaultConfig()
	if len(args) > 0 && args[0] == "-no-wait" {
		cfg.NoSettle, args = true, args[1:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "cyclebench: usage: cyclebench [-no-wait] N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "cyclebench: bad chain length %q\n", args[0])
		os.Exit(2)
	}
	r, err := harness.Measure(context.Background(), cfg, harness.Target{Run: func() { kernels.AddContinued(n) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cyclebench:", err)
		os.Exit(1)
	}
	lag := false
	for _, w := range r.Warnings {
		lag = lag || errors.Is(w, harness.ErrRulerLag)
	}
	fmt.Printf("ns=%g cycles=%g converged=%v waited=%g ruler_lag=%v\n", r.Nanoseconds, r.Cycles, r.Converged, r.RulerWait.Seconds(), lag)
}
