package main

// Comparing two saved result files, read with package results (every
// version of cyclebench's JSON, the Go benchmark format of cyclebench and
// go test) and compared there (results.Compare): the rendering.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/internal/tab"
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
	t := &table{Cols: []col{{Name: "name", Left: true}, {Name: "unit", Left: true}, {Name: "A", Key: "a", Digits: 5}, {Name: "B", Key: "b", Digits: 5},
		{Name: "B/A", Key: "ratio", Digits: 5}, {Name: "95% CI", Key: "-", Left: true}, {Name: "ratio_lo", CSV: true}, {Name: "ratio_hi", CSV: true},
		{Name: "p", Key: "p_value", Digits: 2}, {Name: "runs", Key: "-"}, {Name: "count_a", CSV: true}, {Name: "count_b", CSV: true},
		{Name: "verdict", Left: true}, {Name: "reason", CSV: true}}}
	for _, r := range c.Rows {
		sa, sb := sideMark(c.A, r.Name), sideMark(c.B, r.Name)
		for _, m := range r.Metrics {
			if !perElem && strings.HasSuffix(m.Unit, "/elem") && len(r.Metrics) > 2 {
				continue
			}
			var ci, p any
			if m.Tested() {
				ci, p = fmt.Sprintf("[%s, %s]", sig(m.Lo, 5), sig(m.Hi, 5)), m.PValue
			}
			t.Add(r.Name, m.Unit, markShared(m.A, sa), markShared(m.B, sb), m.Ratio, ci, m.Lo, m.Hi, p, fmt.Sprintf("%d/%d", m.CountA, m.CountB), m.CountA, m.CountB, m.VerdictText(), m.Reason)
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
			t.Add(f.Name+"/cpe", f.Unit, f.A, f.B, f.Ratio, nil, nil, nil, nil, nil, 1, 1, f.Verdict, f.Reason)
		}
		return t.WriteCSV(w)
	}
	d := newDoc(format)
	// The header shows what differs between the sides; what agrees is
	// named in one line (-format json has every value).
	meta := &table{Cols: []col{{Name: "", Left: true}, {Name: "A", Left: true}, {Name: "B", Left: true}}}
	meta.Add("file", c.A.Path, c.B.Path)
	var same []string
	rows := [][3]string{{"format", c.A.Format.String(), c.B.Format.String()}}
	for _, k := range c.Keys {
		rows = append(rows, [3]string{k, orDash(c.A.ConfigValue(k)), orDash(c.B.ConfigValue(k))})
	}
	for _, r := range rows {
		if r[1] == r[2] {
			same = append(same, r[0]+" "+r[1])
		} else {
			meta.Add(r[0], r[1], r[2])
		}
	}
	d.Table(meta)
	if len(same) > 0 {
		d.Para(tab.WrapList("the same on both sides: ", same, 100))
	}
	if len(c.Rows) > 0 {
		d.Blank()
		d.Table(metricsTable(c, false))
		d.Blank()
		noTest := false
		for _, r := range c.Rows {
			d.Item(r.Name + ": " + r.Summary)
			noTest = noTest || !r.Metrics[0].Tested()
		}
		if noTest {
			d.Line("no test with 1 run on a side: " + c.Remedy())
		}
	}
	if len(c.Fits) > 0 {
		d.Blank()
		t := &table{Cols: []col{{Name: "CPE", Left: true}, {Name: "A"}, {Name: "B"}, {Name: "B/A", Digits: 5}, {Name: "verdict", Left: true}}}
		for _, f := range c.Fits {
			t.Add(f.Name+" ("+f.Unit+")", sig(f.A, 5)+" ± "+sig(f.ACI, 2), sig(f.B, 5)+" ± "+sig(f.BCI, 2), f.Ratio, f.Reason)
		}
		d.Table(t)
		d.Line("a sweep's ± is its own run's interval; a difference between runs needs the sweep repeated on each side")
	}
	d.Blank()
	d.Para("A and B are the geometric means of each side's runs (runs: A/B); the test compares\n" +
		"the spread between runs (Welch's t on the logarithms) and needs 2 runs per side;\n" +
		"per-element figures (in -format json and csv) have the ratios of the per-op ones.\n" +
		"cycles are core cycles (frequency-independent); ticks are left out: the two counters may run at different rates")
	marks := ""
	for _, r := range c.Rows {
		marks += sideMark(c.A, r.Name) + sideMark(c.B, r.Name)
	}
	if strings.Contains(marks, "!") {
		d.Line(reports.SharedNote + "; a side so marked is slower than its code")
	}
	if strings.Contains(marks, "<") {
		d.Line(reports.RoomNote + "; a side so marked may read faster than its code")
	}
	if len(c.OnlyA) > 0 {
		d.Line("only in A: " + strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		d.Line("only in B: " + strings.Join(c.OnlyB, ", "))
	}
	if b := c.Benchstat(); b != "" {
		d.Line("the same with benchstat (benchmarks run with -count ≥ 6): " + b)
	}
	return d.Render(w)
}

// sideMark is the mark of benchmark name in f: "!" when a run of it was
// measured on a shared core (results.Run.Shared, reports.SharedNote), "<"
// when one was measured in a moment of room (results.Run.Room,
// reports.RoomNote), both when both; "" when none was.
func sideMark(f results.File, name string) string {
	mark := ""
	for _, e := range f.Entries {
		if e.Name != name {
			continue
		}
		if slices.ContainsFunc(e.Runs, func(r results.Run) bool { return r.Shared }) && !strings.Contains(mark, "!") {
			mark = "!" + mark
		}
		if slices.ContainsFunc(e.Runs, func(r results.Run) bool { return r.Room }) && !strings.Contains(mark, "<") {
			mark += "<"
		}
	}
	return mark
}

// markShared is figure v with its side's mark (sideMark) before it.
func markShared(v float64, mark string) any {
	if mark == "" {
		return v
	}
	return shown{V: v, Text: mark + sig(v, 5)}
}
