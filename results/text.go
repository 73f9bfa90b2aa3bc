package results

import (
	"math"
	"strings"
)

// TextRows renders the table as text cells: a header row, then one row per
// benchmark. The first column is the row's [Row.Label]; then, for each
// machine, its cycles per call, cycles per element (when any cell of the
// table has per-element figures) and, except for the baseline, the ratio
// to the baseline ("×zen5"). A figure from several runs carries its
// spread as "±N%": the farther end of the spread from the median, in
// percent of the median. A cell without cycles gives its ns in
// parentheses, "(3000 ns)"; "-" marks a benchmark the machine lacks; a
// trailing "*" marks runs that did not converge. Fit rows give the CPE
// slope in the per-element column and leave the per-call one blank.
// Rows is for plain renderings (the command line has its own table
// format): the figures themselves are in [Table.Rows].
func (t *Table) TextRows() [][]string {
	perElem := false
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			perElem = perElem || c.CyclesPerElem.N > 0 || c.NsPerElem.N > 0
		}
	}
	base := t.Columns[t.Baseline].Name
	head := []string{"benchmark"}
	for ci, col := range t.Columns {
		head = append(head, col.Name+" cycles")
		if perElem {
			head = append(head, col.Name+" c/elem")
		}
		if ci != t.Baseline {
			head = append(head, "×"+base)
		}
	}
	out := [][]string{head}
	for _, r := range t.Rows {
		row := []string{r.Label()}
		for ci, c := range r.Cells {
			op, elem, ratio := cellText(r, c)
			row = append(row, op)
			if perElem {
				row = append(row, elem)
			}
			if ci != t.Baseline {
				row = append(row, ratio)
			}
		}
		out = append(out, row)
	}
	return out
}

// cellText is a cell's per-call, per-element and ratio texts.
func cellText(r Row, c Cell) (op, elem, ratio string) {
	if c.Missing {
		return "-", "-", "-"
	}
	mark := ""
	if c.NotConverged > 0 {
		mark = "*"
	}
	ratio = "-"
	if c.Ratio > 0 {
		ratio = factor(c.Ratio) + "×"
	}
	fig := func(s Stat, unit string, spread bool) string {
		if s.N == 0 {
			return "-"
		}
		v := num(s.Median, 4)
		if unit != "" {
			v = "(" + v + " " + unit + ")"
		}
		if spread && (s.N > 1 || r.Fit) && s.Median != 0 {
			v += " ±" + num(100*math.Max(s.Hi-s.Median, s.Median-s.Lo)/math.Abs(s.Median), 2) + "%"
		}
		return v
	}
	if c.NoCycles == HasCycles {
		if r.Fit {
			return "", fig(c.CyclesPerElem, "", true) + mark, ratio
		}
		return fig(c.Cycles, "", true) + mark, fig(c.CyclesPerElem, "", false) + mark, ratio
	}
	if r.Fit {
		return "", fig(c.NsPerElem, "ns", true) + mark, ratio
	}
	return fig(c.NS, "ns", true) + mark, fig(c.NsPerElem, "ns", false) + mark, ratio
}

// String renders the table as plain text: the machines (with the
// baseline marked), the rows of [Table.TextRows] in aligned columns, the
// verdicts and the notes.
func (t *Table) String() string {
	var b strings.Builder
	b.WriteString("machines:\n")
	var ms [][]string
	for ci, col := range t.Columns {
		name := col.Name
		if ci == t.Baseline {
			name += " (baseline)"
		}
		ms = append(ms, []string{name, col.Machine.String(), col.Path + " (" + col.Format.String() + ")"})
	}
	writeAligned(&b, "  ", ms, nil)
	b.WriteString("\n")
	rows := t.TextRows()
	right := make([]bool, len(rows[0]))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	writeAligned(&b, "", rows, right)
	if len(t.Verdicts) > 0 {
		b.WriteString("\nfastest variants:\n")
		for _, v := range t.Verdicts {
			b.WriteString("  " + v.Text + "\n")
		}
	}
	if len(t.Notes) > 0 {
		b.WriteString("\nnotes:\n")
		for _, n := range t.Notes {
			b.WriteString("  - " + n + "\n")
		}
		b.WriteString("  - ±N% is the farther end of a cell's spread from its median; (… ns) is a cell without cycles; * marks runs that did not converge; - a missing benchmark\n")
	}
	return b.String()
}

// writeAligned writes rows as columns padded to their widest cell, right
// aligned where right[i] is set.
func writeAligned(b *strings.Builder, indent string, rows [][]string, right []bool) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i < len(right) && right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
			if i < len(row)-1 {
				line.WriteString("  ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
