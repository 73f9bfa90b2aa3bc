package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

// report writes the whole report: the command, the machine, the four
// tables, the load summary and every process's load.
func (d *driver) report(w io.Writer, tableTools, detectTools []tool, n int) {
	o := d.opt
	fmt.Fprintf(w, "Regenerate from the repository root: `%s` (this file; %s)\n\n", command, modeLine(o))
	fmt.Fprintf(w, "# cyclebench and its peers, side by side\n\n")
	if d.infoErr != nil {
		fmt.Fprintf(w, "machine: — (`cyclebench info` failed: %v)\n\n", d.infoErr)
	} else {
		fmt.Fprintf(w, "machine (`cyclebench info`): %s\n\n", d.info.line())
	}
	// No date or time of day: the report is committed, and git dates it.
	fmt.Fprintf(w, "run: %s in all; %s\n\n", time.Since(d.started).Round(time.Second), strings.Join(d.versions, ", "))
	fmt.Fprintf(w, "Every figure comes from a process of its own, run one at a time while the driver waits, the tools interleaved (each repetition starts with the next tool). /proc/loadavg was read before and after every process (summary and full log at the end).\n\n")

	ks := kernels.Table()
	t1 := accuracyTable(tableTools, ks, d.acc, o.Reps)
	t1.Notes = []string{
		fmt.Sprintf("%d processes per tool, one result per kernel each. The chains are register-operand ADDQ/IMULQ reg, reg in Go assembly (internal/chain, through bench/peers/kernels) and the same instructions in C++ (bench/peers/cpp); the truth counts the chain's links × latency only, so a continued chain reads a few cycles more (the call and the store and load of its running value are on the chain), and a restarted chain in throughput mode may read less (the next call's chain overlaps the last in the out-of-order core).", o.Reps),
		"Peers measure nanoseconds. Their cycles are ns × (TSC ticks per ns × core cycles per tick) of cyclebench's own core-clock ruler (harness.Result.TicksPerSecond and CyclesPerTick of a 1000-ADD measurement), the mean of one read just before and one just after the peer's measurement: in the same process for the in-process peers, in cyclebench processes run right before and after for go test and Google Benchmark. The core clock moves between and during those reads, so a peer's cycles carry the clock's movement over its run.",
		"The sum kernel is 1000 int64 added with one accumulator: gc's scalar loop in Go, g++ -O2 -fno-tree-vectorize's in C++ (the same loop shape, not the same bytes); no exact truth.",
	}
	if o.TableBenchtime > 0 {
		t1.Notes = append(t1.Notes, fmt.Sprintf("This run gave the peers %v per measurement instead of their defaults (-table-benchtime).", o.TableBenchtime))
	}
	t2 := spreadTable(tableTools, ks, d.acc, byCV)
	t2.Notes = []string{
		"CV = sample standard deviation / mean of the results above, one per process. The cycle figure's CV includes the ruler's; the ns figure's includes the core clock's movement between processes. \"k labelled\": k of cyclebench's figures carried its label (the core shared, its ruler's ADD chain still lagging, or the core with more room than usual, at the end: measure again); they count in the CV, as every peer's figures do, which carry none.",
		"The host moves some kernels between states lasting 50 ms to seconds: a restarted chain overlaps less with the next call while the core is shared (`go -C bench/peers run ./states` follows them from one process). A process that falls in one moves the CV by its whole distance, for every tool; table 2b gives the spread one such process in ten moves little. Most such moments are short, and the ADD/IMUL ruler does not always see them; the Config.MinTime row samples each kernel for longer than one, so that its K best come from around them.",
	}
	t2b := spreadTable(tableTools, ks, d.acc, byMAD)
	t2b.Notes = []string{
		"1.4826 × MAD / median equals the CV for normally distributed results; with one result in ten far off, it stays near the spread of the other nine. The issue's target is the CV (table 2); this table says how much of it the machine's states make.",
	}
	t3 := detectionTable(detectTools, o.Pairs, d.detect)
	t3.Notes = []string{
		fmt.Sprintf("%d comparisons per pair and tool, each in fresh processes. A and B are continued ADD chains of the lengths shown (+1%% is 100 more ADDs in 10,000; +0.03%% is 3 more; +0.01%% is 1 more).", o.DetectReps),
		"Detected = the tool's own significance verdict where it has one (cyclebench's Compare, benchstat); for testing.Benchmark, hrtime and Google Benchmark, which report figures but no verdict, the Mann–Whitney U test of golang.org/x/perf/benchmath (what benchstat uses) on their runs, p < 0.05.",
		"Time per comparison: cyclebench and the in-process peers from the comparison's start in a fresh process to its verdict (cyclebench's one-off calibration included); go test + benchstat the three processes, exec to exit; Google Benchmark its process, exec to exit.",
		fmt.Sprintf("The peers run %d runs per side at %v each (-peer-count, -peer-benchtime), not their default 1 s per run, which would make each comparison last at least 2 × %d × 1 s = %d s; so the full run fits in minutes.", o.PeerCount, o.PeerBenchtime, o.PeerCount, 2*o.PeerCount),
	}
	t4 := startupTable(d.start)
	t4.Notes = []string{
		fmt.Sprintf("Median of %d runs per program, interleaved; exec to exit as the driver sees it (os/exec start to wait). The kernel is a continued chain of %s ADDs, about 1 µs by a ruler read at the start of this phase.", o.StartupReps, lenStr(n)),
	}
	for _, t := range []table{t1, t2, t2b, t3, t4} {
		t.markdown(w)
	}
	if len(d.skipped) > 0 {
		fmt.Fprintf(w, "Left out:")
		for _, id := range slices.Sorted(maps.Keys(d.skipped)) {
			fmt.Fprintf(w, " %s: %s.", id, d.skipped[id])
		}
		fmt.Fprintf(w, "\n\n")
	}
	d.loadSection(w)
}

func lenStr(n int) string {
	if n <= 0 {
		return "—"
	}
	return strconv.Itoa(n)
}

// modeLine says which settings made the file.
func modeLine(o options) string {
	if o.Quick {
		return "made with -quick: a smoke test, not the full measurement"
	}
	return fmt.Sprintf("-reps %d -detect-reps %d -startup-reps %d -peer-count %d -peer-benchtime %v", o.Reps, o.DetectReps, o.StartupReps, o.PeerCount, o.PeerBenchtime)
}

// loadSection summarises the load per phase and tool and lists every
// process.
func (d *driver) loadSection(w io.Writer) {
	type key struct{ phase, tool string }
	type agg struct {
		n        int
		lo, hi   float64
		secs     float64
		failures int
	}
	var order []key
	sum := map[key]*agg{}
	load1 := func(s string) (float64, bool) {
		f := strings.Fields(s)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	for _, e := range d.log {
		k := key{e.Phase, e.Tool}
		a := sum[k]
		if a == nil {
			a = &agg{lo: 1e9, hi: -1}
			sum[k] = a
			order = append(order, k)
		}
		a.n++
		a.secs += e.Seconds
		if e.Err != "" {
			a.failures++
		}
		for _, s := range []string{e.Before, e.After} {
			if v, ok := load1(s); ok {
				a.lo, a.hi = min(a.lo, v), max(a.hi, v)
			}
		}
	}
	t := table{Title: "Load: /proc/loadavg around the processes", Header: []string{"phase", "tool", "processes", "1-min load, lowest–highest before/after", "time in them (s)", "failed"}}
	for _, k := range order {
		a := sum[k]
		rng := "—"
		if a.hi >= 0 {
			rng = fmt.Sprintf("%.2f–%.2f", a.lo, a.hi)
		}
		t.Rows = append(t.Rows, []string{k.phase, k.tool, strconv.Itoa(a.n), rng, fmt.Sprintf("%.1f", a.secs), strconv.Itoa(a.failures)})
	}
	t.Notes = []string{fmt.Sprintf("The machine has %d logical CPUs (`cyclebench info`); while a tool runs, its own process accounts for a 1-min load of about 1.", d.info.LogicalCPUs)}
	t.markdown(w)
	fmt.Fprintf(w, "<details><summary>Every process: phase, tool, repetition, seconds, /proc/loadavg before → after</summary>\n\n```\n")
	for _, e := range d.log {
		fmt.Fprintf(w, "%-13s %-19s %3d %8.3f  %s -> %s%s%s\n", e.Phase, e.Tool, e.Rep+1, e.Seconds, e.Before, e.After, prefixed("  ERROR ", e.Err), prefixed("  ", e.Note))
	}
	fmt.Fprintf(w, "```\n\n</details>\n")
}
