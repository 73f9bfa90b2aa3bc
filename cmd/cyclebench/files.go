package main

// Comparing two saved result files, read with package results (every
// version of cyclebench's JSON, the Go benchmark format of cyclebench and
// go test) and compared there (results.Compare): the rendering.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cyclebench/cyclebench/results"
)

// unreadable is a result file that cannot be read, as the usage error it
// is: the command was given bad input, not a measurement that failed.
func unreadable(err error) error {
	if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "-o FILE") {
		return usageErrorf("%w", err)
	}
	return usageErrorf("%w (want a file of cyclebench run or cpe with -o FILE.json or FILE.txt, or of go test -bench)", err)
}

// metricsTable is one row per benchmark and unit; the text table leaves out
// the per-element units, whose ratios are those per op (the names hold n).
func metricsTable(c *results.Comparison, perElem bool) *table {
	t := &table{cols: []col{{name: "name", left: true}, {name: "unit", left: true}, {name: "A", key: "a", digits: 5}, {name: "B", key: "b", digits: 5},
		{name: "B/A", key: "ratio", digits: 5}, {name: "95% CI", key: "-", left: true}, {name: "ratio_lo", csv: true}, {name: "ratio_hi", csv: true},
		{name: "p", key: "p_value", digits: 2}, {name: "runs", key: "-"}, {name: "count_a", csv: true}, {name: "count_b", csv: true},
		{name: "verdict", left: true}, {name: "reason", csv: true}}}
	for _, r := range c.Rows {
		for _, m := range r.Metrics {
			if !perElem && strings.HasSuffix(m.Unit, "/elem") && len(r.Metrics) > 2 {
				continue
			}
			var ci, p any
			if m.Tested() {
				ci, p = fmt.Sprintf("[%s, %s]", sig(m.Lo, 5), sig(m.Hi, 5)), m.PValue
			}
			t.add(r.Name, m.Unit, m.A, m.B, m.Ratio, ci, m.Lo, m.Hi, p, fmt.Sprintf("%d/%d", m.CountA, m.CountB), m.CountA, m.CountB, m.VerdictText(), m.Reason)
		}
	}
	return t
}

func writeFileComparison(w io.Writer, format string, c *results.Comparison) error {
	switch format {
	case formatJSON:
		return writeJSON(w, c)
	case formatCSV:
		t := metricsTable(c, true)
		for _, f := range c.Fits {
			t.add(f.Name+"/cpe", f.Unit, f.A, f.B, f.Ratio, nil, nil, nil, nil, nil, 1, 1, f.Verdict, f.Reason)
		}
		return t.writeCSV(w)
	}
	d := newDoc(format)
	meta := &table{cols: []col{{name: "", left: true}, {name: "A", left: true}, {name: "B", left: true}}}
	meta.add("file", c.A.Path, c.B.Path)
	meta.add("format", c.A.Format.String(), c.B.Format.String())
	for _, k := range c.Keys {
		meta.add(k, orDash(c.A.ConfigValue(k)), orDash(c.B.ConfigValue(k)))
	}
	d.table(meta)
	if len(c.Rows) > 0 {
		d.blank()
		d.table(metricsTable(c, false))
		d.blank()
		noTest := false
		for _, r := range c.Rows {
			d.item(r.Name + ": " + r.Summary)
			noTest = noTest || !r.Metrics[0].Tested()
		}
		if noTest {
			d.line("no test with 1 run on a side: " + c.Remedy())
		}
	}
	if len(c.Fits) > 0 {
		d.blank()
		t := &table{cols: []col{{name: "CPE", left: true}, {name: "A"}, {name: "B"}, {name: "B/A", digits: 5}, {name: "verdict", left: true}}}
		for _, f := range c.Fits {
			t.add(f.Name+" ("+f.Unit+")", sig(f.A, 5)+" ± "+sig(f.ACI, 2), sig(f.B, 5)+" ± "+sig(f.BCI, 2), f.Ratio, f.Reason)
		}
		d.table(t)
		d.line("a sweep's ± is its own run's interval; a difference between runs needs the sweep repeated on each side")
	}
	d.blank()
	d.para("A and B are the geometric means of each side's runs (runs: A/B); the test compares\n" +
		"the spread between runs (Welch's t on the logarithms) and needs 2 runs per side;\n" +
		"per-element figures (in -format json and csv) have the ratios of the per-op ones.\n" +
		"cycles are core cycles (frequency-independent); ticks are left out: the two counters may run at different rates")
	if len(c.OnlyA) > 0 {
		d.line("only in A: " + strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		d.line("only in B: " + strings.Join(c.OnlyB, ", "))
	}
	if b := c.Benchstat(); b != "" {
		d.line("the same with benchstat (benchmarks run with -count ≥ 6): " + b)
	}
	return d.writeTo(w)
}
