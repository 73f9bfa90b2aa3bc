package results

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
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
	cols := make([]int, len(t.Columns))
	for i := range cols {
		cols[i] = i
	}
	return t.textRows(cols, t.perElem(), false)
}

// perElem reports whether any cell has per-element figures.
func (t *Table) perElem() bool {
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.CyclesPerElem.N > 0 || c.NsPerElem.N > 0 {
				return true
			}
		}
	}
	return false
}

// textRows is TextRows for the machines cols, with or without the
// per-element columns; with names, the header is two rows, the machines'
// names above their columns, so that a long name does not widen them all.
func (t *Table) textRows(cols []int, perElem, names bool) [][]string {
	base := t.Columns[t.Baseline].Name
	if names {
		base = t.label(t.Baseline)
	}
	head := []string{"benchmark"}
	top := []string{""}
	for _, ci := range cols {
		col := t.Columns[ci]
		prefix := col.Name + " "
		if names {
			prefix = ""
		}
		top = append(top, t.label(ci))
		head = append(head, prefix+"cycles")
		if perElem {
			top = append(top, "")
			head = append(head, prefix+"c/elem")
		}
		if ci != t.Baseline {
			top = append(top, "")
			head = append(head, "×"+base)
		}
	}
	out := [][]string{head}
	if names {
		out = [][]string{top, head}
	}
	for _, r := range t.Rows {
		row := []string{r.Label()}
		for _, ci := range cols {
			c := r.Cells[ci]
			op, elem, ratio := cellText(r, c)
			if r.Fit && !perElem {
				op = elem // the slope is all a fit row has
			}
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

// defaultWidth is the width [Table.String] fits its text to: 100
// columns, the most a terminal beside another shows.
const defaultWidth = 100

// String is [Table.Text] at defaultWidth.
func (t *Table) String() string { return t.Text(defaultWidth) }

// Text renders the table as plain text at most width columns wide where
// it can be (a benchmark name or a word longer than that cannot): the
// machines (with the baseline marked), each with its label and file on
// lines of their own; the rows of [Table.TextRows] in aligned columns; the
// verdicts and the notes, wrapped. When the rows are wider than width,
// the per-element columns are left out (a note says so; every figure is
// in the JSON and CSV renderings); when they are still too wide, the
// machines are shown in blocks of as many as fit, each block repeating
// the benchmark column. width ≤ 0 means no limit.
func (t *Table) Text(width int) string {
	if width <= 0 {
		width = math.MaxInt
	}
	var b strings.Builder
	b.WriteString("machines:\n")
	var ms []string
	for ci := range t.Columns {
		name := t.label(ci)
		if ci == t.Baseline {
			name += " (baseline)"
		}
		ms = append(ms, name)
	}
	nameWidth := 0
	for _, m := range ms {
		nameWidth = max(nameWidth, len([]rune(m)))
	}
	indent := strings.Repeat(" ", 2+nameWidth+2)
	for ci, col := range t.Columns {
		first := "  " + ms[ci] + strings.Repeat(" ", nameWidth-len([]rune(ms[ci]))) + "  "
		label := col.Machine.String()
		if t.label(ci) != col.Name {
			label = col.Name + ": " + label
		}
		for _, l := range wrap(label, width, first, indent) {
			b.WriteString(l + "\n")
		}
		for _, l := range wrap(col.Path+" ("+col.Format.String()+")", width, indent, indent) {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\n")
	all := make([]int, len(t.Columns))
	for i := range all {
		all[i] = i
	}
	perElem := t.perElem()
	blocks := [][]int{all}
	dropped := false
	if perElem && alignedWidth(t.textRows(all, true, true)) > width {
		perElem, dropped = false, true
	}
	if alignedWidth(t.textRows(all, perElem, true)) > width {
		blocks = nil
		var cur []int
		for _, ci := range all {
			if len(cur) > 0 && alignedWidth(t.textRows(append(slices.Clone(cur), ci), perElem, true)) > width {
				blocks = append(blocks, cur)
				cur = nil
			}
			cur = append(cur, ci)
		}
		blocks = append(blocks, cur)
	}
	for i, cols := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		rows := t.textRows(cols, perElem, true)
		right := make([]bool, len(rows[0]))
		for i := 1; i < len(right); i++ {
			right[i] = true
		}
		writeAligned(&b, "", rows, right)
	}
	if len(t.Verdicts) > 0 {
		b.WriteString("\nfastest variants:\n")
		for _, v := range t.Verdicts {
			for _, l := range wrap(v.Text, width, "  ", "    ") {
				b.WriteString(l + "\n")
			}
		}
	}
	notes := slices.Clone(t.Notes)
	if dropped {
		notes = append(notes, fmt.Sprintf("the per-element figures are left out to fit %d columns: see -format csv or json", width))
	}
	if len(notes) > 0 {
		b.WriteString("\nnotes:\n")
		notes = append(notes, "±N% is the farther end of a cell's spread from its median; (… ns) is a cell without cycles; * marks runs that did not converge; - a missing benchmark")
		for _, n := range notes {
			for _, l := range wrap(n, width, "  - ", "    ") {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.String()
}

// maxLabel is the longest column name the text table heads a column
// with; a table with a longer one heads every column "m1", "m2", ... and
// names them in the machines legend.
const maxLabel = 16

// label is the head of column ci in the text table: its name, or "m1",
// "m2", ... for every column when a name is longer than maxLabel.
func (t *Table) label(ci int) string {
	for _, c := range t.Columns {
		if len([]rune(c.Name)) > maxLabel {
			return "m" + strconv.Itoa(ci+1)
		}
	}
	return t.Columns[ci].Name
}

// alignedWidth is the width of rows as writeAligned lays them out.
func alignedWidth(rows [][]string) int {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	w := 2 * max(0, len(widths)-1)
	for _, x := range widths {
		w += x
	}
	return w
}

// wrap breaks text into lines of at most width runes at spaces, the first
// line starting with first and the others with rest; a word longer than a
// line stays whole.
func wrap(text string, width int, first, rest string) []string {
	var lines []string
	line := first
	empty := true
	for _, w := range strings.Fields(text) {
		if !empty && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	return append(lines, line)
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

// WriteBench writes every run of files, the files t was made of (in the
// same order), as one stream in the Go benchmark format, each file's runs
// under the configuration line "machine: NAME" (its column's name) and
// its machine's own lines (cpu:, family:, ...), in cycles and ns per call
// and per element (ticks are left out: the counters' rates differ), the
// baseline first. benchstat -col machine makes the matrix of it, with its
// own statistics.
func (t *Table) WriteBench(w io.Writer, files []File) error {
	if len(files) != len(t.Columns) || t.Baseline < 0 || t.Baseline >= len(t.Columns) {
		return fmt.Errorf("%w: %d files for a table of %d columns (want the files the table was made of)", ErrBadInput, len(files), len(t.Columns))
	}
	// The baseline first: benchstat compares the other columns with the
	// first.
	order := []int{t.Baseline}
	names := []string{t.Columns[t.Baseline].Name}
	for i, c := range t.Columns {
		if i != t.Baseline {
			order, names = append(order, i), append(names, c.Name)
		}
	}
	fmt.Fprintf(w, "# cyclebench compare: %d files as one benchmark stream, each under \"machine: NAME\" (%s);\n", len(files), strings.Join(names, ", "))
	fmt.Fprintf(w, "# the matrix in benchstat: benchstat -col machine -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' FILE\n")
	bw := benchfmt.NewWriter(w)
	for _, fi := range order {
		f := files[fi]
		m := f.Machine
		for _, e := range f.Entries {
			name := e.Name
			if e.Mode != Throughput {
				name += "/mode=" + e.Mode
			}
			for _, run := range e.Runs {
				r := &benchfmt.Result{Name: benchfmt.Name(name), Iters: max(1, run.Iters, run.Samples*run.Repeat)}
				for _, kv := range [][2]string{{"machine", t.Columns[fi].Name}, {"goos", m.GOOS}, {"goarch", m.GOARCH}, {"cpu", m.CPU}, {"vendor", m.Vendor},
					{"family", idText(m.Family)}, {"model", idText(m.Model)}, {"stepping", idText(m.Stepping)}, {"logical-cpus", idText(m.LogicalCPUs)},
					{"hypervisor", m.Hypervisor}, {"counter", m.Counter}, {"go", m.GoVersion}, {"pkg", e.Pkg}} {
					if kv[1] != "" {
						r.Config = append(r.Config, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
					}
				}
				if run.NoCycles == HasCycles {
					r.Values = append(r.Values, benchfmt.Value{Value: run.Cycles, Unit: "cycles/op"})
				}
				if run.NS != 0 {
					r.Values = append(r.Values, benchfmt.Value{Value: run.NS, Unit: "ns/op"})
				}
				if run.Elements > 0 && run.NoCycles == HasCycles {
					r.Values = append(r.Values, benchfmt.Value{Value: run.CyclesPerElem, Unit: "cycles/elem"})
				}
				if run.Elements > 0 && run.NsPerElem != 0 {
					r.Values = append(r.Values, benchfmt.Value{Value: run.NsPerElem, Unit: "ns/elem"})
				}
				for _, v := range run.Other {
					r.Values = append(r.Values, benchfmt.Value{Value: v.Value, Unit: v.Unit})
				}
				if len(r.Values) == 0 {
					continue
				}
				if err := bw.Write(r); err != nil {
					return err
				}
			}
		}
	}
	var b strings.Builder
	for _, c := range t.Columns {
		if c.NoCycles != HasCycles {
			fmt.Fprintf(&b, "# %s has no cycle figures: %s\n", c.Name, c.NoCycles)
		}
	}
	if slices.ContainsFunc(t.Rows, func(r Row) bool { return r.Fit }) {
		b.WriteString("# the cpe files' fits are not benchmark lines: see -format table, json or csv\n")
	}
	for _, v := range t.Verdicts {
		fmt.Fprintf(&b, "# fastest: %s\n", v.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
