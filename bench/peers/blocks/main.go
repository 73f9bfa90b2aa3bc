// Command blocks records the blocks of harness.Compare one by one: it
// compares two continued ADD chains of package kernels (-a and -b links;
// A/A rounds compare -a with itself) many times in one process, each
// comparison a single block of -pairs pairs, A/A and A/B alternated, and
// writes one JSON line per block ([blockrec.Block]): its pairs in ticks per
// call (overhead subtracted) and what the block's sides reported (their
// K-best figures and spreads, R, the counter quantum per call).
//
// Groups of consecutive blocks of one kind are what harness.Compare's
// default (5 blocks of 40 pairs) would have seen, so a rule that combines
// blocks can be judged offline on blocks recorded at a noisy hour
// (harness.TestCompareRecordedBlocks reads the files of
// harness/testdata/blocks, gzipped: the first 200 lines of a run).
// Values are rounded: ticks to 0.01, far below a counter quantum per call.
//
//	go -C bench/peers run ./blocks -n 600 > blocks.jsonl
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/blockrec"
)

func main() {
	n := flag.Int("n", 600, "blocks to record (A/A and A/B alternated)")
	pairs := flag.Int("pairs", 40, "pairs per block (from 6)")
	la := flag.Int("a", 10000, "links of chain A")
	lb := flag.Int("b", 10003, "links of chain B")
	flag.Parse()
	if *n < 1 || *pairs < 6 || *la < 1 || *lb < 1 {
		fmt.Fprintf(os.Stderr, "blocks: -n %d -pairs %d -a %d -b %d: want n ≥ 1, pairs ≥ 6, a and b ≥ 1\n", *n, *pairs, *la, *lb)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	cfg := harness.DefaultConfig()
	opt := harness.CompareOptions{Pairs: *pairs, Blocks: 1}
	t0 := time.Now()
	for i := range *n {
		kind, lenB := "aa", *la
		if i%2 == 1 {
			kind, lenB = "ab", *lb
		}
		fa := func() { kernels.AddContinued(*la) }
		fb := func() { kernels.AddContinued(lenB) }
		at := time.Since(t0).Seconds()
		c, err := harness.Compare(context.Background(), cfg, harness.Target{Name: "A", Run: fa}, harness.Target{Name: "B", Run: fb}, opt)
		if err != nil {
			fmt.Fprintln(os.Stderr, "blocks:", err)
			os.Exit(1)
		}
		b := blockrec.Block{Kind: kind, At: round(at, 1e-4), A: rounds(c.TicksA), B: rounds(c.TicksB), TicksA: round(c.A.Ticks, 1e-3), TicksB: round(c.B.Ticks, 1e-3),
			SpreadA: sig(spread(c.A)), SpreadB: sig(spread(c.B)), Converged: c.A.Converged && c.B.Converged,
			Quantum: sig(max(c.A.Quantum, c.B.Quantum) / float64(max(c.Repeat, 1))), R: c.Repeat,
			Wall: round(c.Wall.Seconds(), 1e-5)}
		for _, w := range c.Warnings {
			b.Lagged = b.Lagged || errors.Is(w, harness.ErrRulerLag)
		}
		if r := c.A.Ruler.ImulAddRatio; r > 0 && !math.IsInf(r, 0) {
			b.ImulAdd = sig(r)
		}
		if err := blockrec.Write(w, b); err != nil {
			fmt.Fprintln(os.Stderr, "blocks:", err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "blocks:", err)
		os.Exit(1)
	}
}

// round rounds x to a multiple of unit.
func round(x, unit float64) float64 { return math.Round(x/unit) * unit }

// rounds rounds ticks to 0.01.
func rounds(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = round(x, 0.01)
	}
	return out
}

// sig rounds x to 6 significant digits.
func sig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

// spread is the spread of r's K best samples relative to its figure, as
// harness.Compare takes it for the noise band's floor.
func spread(r harness.Result) float64 {
	if len(r.Best) < 2 || !(r.Ticks > 0) {
		return 0
	}
	return max(0, r.Best[len(r.Best)-1]-r.Best[0]) / r.Ticks
}
