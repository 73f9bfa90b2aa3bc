package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
)

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "[flags]",
		"Measure the example kernels selected by -bench with the K-best method and print\n"+
			"per-call core cycles, counter ticks and nanoseconds, and per-element cycles.\n"+
			"-mode says what per call means: throughput (calls back to back, the default),\n"+
			"latency (each call after a serializing fence), or both side by side.\n"+
			"SIGINT or SIGTERM stops the run: the results gathered so far are written\n"+
			"(atomically with -o) and the exit status is 130 or 143.", stderr)
	bench := fs.String("bench", "", "regexp selecting kernels by name (empty: every default kernel; see -list)")
	n := fs.Int("n", 0, "size of every selected kernel (0: each kernel's default)")
	count := fs.Int("count", 1, "measure each kernel this many times (benchstat wants at least 6 for a confidence interval)")
	list := fs.Bool("list", false, "list the kernels and exit")
	format := choiceFlag(fs, "format", formatTable, "output format", resultFormats...)
	out := fs.String("o", "", "write the results to this file (atomically) instead of stdout")
	mf := addMeasureFlags(fs, true)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	if *list {
		return listKernels(stdout)
	}
	kernels, err := benchexamples.Select(*bench)
	if err != nil {
		return usageErrorf("-bench %q: %w", *bench, err)
	}
	if *n < 0 {
		return usageErrorf("-n %d: want 0 (each kernel's default) or a positive size", *n)
	}
	if *count < 1 || *count > 10000 {
		return usageErrorf("-count %d: want 1 to 10000", *count)
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	// Signals are caught from here on: one that arrives while the counter is
	// calibrated stops the run before it measures, leaving -o untouched.
	in := catchInterrupts()
	defer in.stop()
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	if code := in.exitCode(); code != 0 {
		return silentExit(code)
	}
	cfg.Calibration = cal
	h := newHeader("run", cal, cfg, warns)
	if err := checkOutputPath(*out); err != nil { // fail on a bad path before measuring
		return err
	}

	cfg.Context = in.ctx
	prog := newProgressLine(stderr)
	var results []measured
	failed := false
	modes := mf.modes()
	total := len(kernels) * *count * len(modes)
	done := 0
measuring:
	for rep := 0; rep < *count; rep++ {
		for _, k := range kernels {
			size := k.DefaultN
			if *n > 0 {
				size = *n
			}
			inst, err := k.New(size)
			if err != nil {
				return usageErrorf("-n %d: %w", size, err)
			}
			for _, mode := range modes {
				c := cfg
				c.Name = fmt.Sprintf("%s/n=%d", k.Name, size)
				c.Setup = inst.Setup
				c.Elements = inst.Elements
				c.Mode = mode
				done++
				step := fmt.Sprintf("[%d/%d] %s (%s)", done, total, c.Name, mode)
				c.Progress = func(p harness.Progress) {
					prog.show("%s: %d samples, spread %s", step, p.Samples, spreadText(p.Spread))
				}
				prog.show("%s", step)
				res, err := harness.Measure(c, inst.Run)
				if err != nil {
					if in.exitCode() != 0 {
						break measuring // interrupted: keep what was measured before
					}
					prog.clear()
					return fmt.Errorf("%s: %w", c.Name, err)
				}
				m := measured{Result: res, Kernel: k.Name, N: size, Unit: k.Unit, Check: "ok", bench: benchName(c.Name, mode), elemOK: inst.Elements > 0}
				if err := inst.Check(); err != nil {
					m.Check = err.Error()
					failed = true
				}
				failed = failed || !res.Converged
				results = append(results, m)
			}
		}
	}
	prog.clear()
	if code := in.exitCode(); code != 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("interrupted by a signal after %d of %d measurements", len(results), total))
		if err := writeOutput(stdout, *out, *format, h, results); err != nil {
			return err
		}
		return silentExit(code)
	}
	if err := writeOutput(stdout, *out, *format, h, results); err != nil {
		return err
	}
	if failed {
		return silentExit(exitFailure)
	}
	return nil
}

// benchName is a result's name in the Go benchmark format: a latency
// figure carries the sub-benchmark key mode=latency, so benchstat keeps
// the two modes apart and compares each with its own kind; a throughput
// figure keeps the plain name results had before modes existed.
func benchName(name string, mode harness.Mode) string {
	if mode == harness.Latency {
		return name + "/mode=latency"
	}
	return name
}

// spreadText formats a K-best spread for the progress line ("-" before K
// samples, when it is NaN).
func spreadText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return sig(v*100, 3) + "%"
}

// listKernels prints every kernel with its default size and whether the
// default selection includes it.
func listKernels(w io.Writer) error {
	var b strings.Builder
	t := &table{}
	for _, k := range benchexamples.All() {
		def := ""
		if !k.Default {
			def = " (not in the default selection)"
		}
		t.row(k.Name, "n=%d %s, %s [%s]%s", k.DefaultN, k.Unit, k.Description, k.Seed, def)
	}
	if err := t.write(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
