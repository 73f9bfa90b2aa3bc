package reports

// The renderings of a matrix of result files as markdown and CSV.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
)

// MatrixDoc is the matrix as markdown: the machines as a
// list, every column of results.Table.TextRows in one table (markdown
// wraps it, so it need not fit a terminal), the fastest variants and the
// notes as lists.
func MatrixDoc(t *results.Table) *tab.Doc {
	d := tab.NewDoc(true)
	d.Heading("machines")
	for ci, c := range t.Columns {
		name := c.Name
		if ci == t.Baseline {
			name += " (baseline)"
		}
		d.Item(fmt.Sprintf("**%s**: %s; %s (%s)", name, c.Machine, c.Path, c.Format))
	}
	rows := t.TextRows()
	mt := &tab.Table{}
	for i, h := range rows[0] {
		mt.Cols = append(mt.Cols, tab.Col{Name: h, Left: i == 0})
	}
	for _, r := range rows[1:] {
		cells := make([]any, len(r))
		for i, c := range r {
			cells[i] = c
		}
		mt.Add(cells...)
	}
	d.Table(mt)
	if len(t.Verdicts) > 0 {
		d.Heading("fastest variants")
		for _, v := range t.Verdicts {
			d.Item(v.Text)
		}
	}
	if len(t.Notes) > 0 {
		d.Heading("notes")
		for _, n := range t.Notes {
			d.Item(n)
		}
	}
	return d
}

// MatrixTable is the matrix in long form: one row per benchmark and machine,
// every figure with its spread, so that a spreadsheet or a data frame can
// pivot it either way.
func MatrixTable(t *results.Table) *tab.Table {
	ct := &tab.Table{}
	for _, n := range []string{"benchmark", "pkg", "kernel", "size_key", "n", "mode", "cpe_fit", "unit", "machine", "baseline", "machine_label", "file",
		"missing", "runs", "cycles", "cycles_lo", "cycles_hi", "cycles_per_elem", "cycles_per_elem_lo", "cycles_per_elem_hi",
		"ns", "ns_lo", "ns_hi", "ns_per_elem", "ns_per_elem_lo", "ns_per_elem_hi", "ratio", "no_cycles", "not_converged", "check_failed"} {
		ct.Cols = append(ct.Cols, tab.Col{Name: n})
	}
	stat := func(s results.Stat) []any {
		if s.N == 0 {
			return []any{nil, nil, nil}
		}
		return []any{s.Median, s.Lo, s.Hi}
	}
	for _, r := range t.Rows {
		for ci, c := range r.Cells {
			cl := t.Columns[ci]
			row := []any{r.Name, r.Pkg, r.Kernel, r.SizeKey, r.N, r.Mode, r.Fit, r.Unit, cl.Name, ci == t.Baseline, cl.Machine.String(), cl.Path, c.Missing}
			if c.Missing {
				ct.Add(row...)
				continue
			}
			row = append(row, c.Runs)
			for _, s := range []results.Stat{c.Cycles, c.CyclesPerElem, c.NS, c.NsPerElem} {
				row = append(row, stat(s)...)
			}
			var ratio, why any
			if c.Ratio > 0 {
				ratio = c.Ratio
			}
			if c.NoCycles != results.HasCycles {
				why = c.NoCycles.String()
			}
			ct.Add(append(row, ratio, why, c.NotConverged, c.CheckFailed)...)
		}
	}
	return ct
}
