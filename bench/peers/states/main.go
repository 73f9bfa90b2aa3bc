// Command states follows the machine's states from one process: for a
// while (-d), it measures the restarted ADD chain, the continued ADD chain
// and the continued IMUL chain of package kernels back to back with
// harness.Measure (DefaultConfig), and prints one line per round with each
// figure, the ruler's IMUL/ADD ratio and how long each measurement waited
// for its ruler's chains to agree (Result.RulerWait); then a summary.
//
// It is how the shared-core stretches of docs/how-it-measures.md were
// found and measured: run it against a build from before a change and one
// after, alternated, to see what the change does to them.
//
//	go -C bench/peers run ./states -d 12s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

// lagAt is the IMUL/ADD disagreement, as a fraction of the documented
// latency, above which the summary counts a measurement as lagging.
const lagAt = 0.002

func main() {
	dur := flag.Duration("d", 12*time.Second, "how long to go on (at least one round)")
	flag.Parse()
	if *dur < 0 {
		fmt.Fprintf(os.Stderr, "states: -d %v: want a duration ≥ 0\n", *dur)
		os.Exit(2)
	}
	if err := run(*dur); err != nil {
		fmt.Fprintln(os.Stderr, "states:", err)
		os.Exit(1)
	}
}

type kernel struct {
	name string
	run  func()
	figs []float64
	lags int
	wait int
	warn int
}

func run(dur time.Duration) error {
	ks := []*kernel{
		{name: "add-restarted", run: func() { kernels.AddRestarted(kernels.ChainLen) }},
		{name: "add-continued", run: func() { kernels.AddContinued(kernels.ChainLen) }},
		{name: "imul-continued", run: func() { kernels.ImulContinued(kernels.ChainLen) }},
	}
	start := time.Now()
	for time.Since(start) <= dur || len(ks[0].figs) == 0 {
		fmt.Printf("%8.3fs", time.Since(start).Seconds())
		for _, k := range ks {
			r, err := harness.Measure(context.Background(), harness.DefaultConfig(), harness.Target{Name: k.name, Run: k.run})
			if err != nil {
				return err
			}
			if r.Cycles <= 0 {
				return fmt.Errorf("%s: no cycle figure: %v", k.name, r.Warnings)
			}
			k.figs = append(k.figs, r.Cycles)
			ratio, lat := r.Ruler.ImulAddRatio, r.Ruler.ImulLatency
			if lat > 0 && 1-ratio/lat > lagAt {
				k.lags++
			}
			if r.RulerWait > 0 {
				k.wait++
			}
			for _, w := range r.Warnings {
				if errors.Is(w, harness.ErrRulerLag) {
					k.warn++
				}
			}
			fmt.Printf("  %s %.2f cycles (%.2f ticks, %.5f cycles/tick, IMUL/ADD %.4f, waited %v)", k.name, r.Cycles, r.Ticks, r.CyclesPerTick, ratio, r.RulerWait.Round(time.Millisecond))
		}
		fmt.Println()
	}
	fmt.Printf("\n%d rounds in %v\n", len(ks[0].figs), time.Since(start).Round(time.Millisecond))
	for _, k := range ks {
		s, err := stats.Summarize(k.figs)
		if err != nil {
			return err
		}
		fmt.Printf("%-15s median %.2f, range %.2f–%.2f, CV %.4f%%; IMUL/ADD more than %.1f%% below the latency in %d, waited in %d, warned in %d\n",
			k.name, s.Median, s.Min, s.Max, 100*s.StdDev/math.Abs(s.Mean), 100*lagAt, k.lags, k.wait, k.warn)
	}
	return nil
}
