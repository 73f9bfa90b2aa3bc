package main

// The one table model of the command: a table is built once, from values,
// and rendered as aligned text (-format table) or as CSV (-format csv).
// JSON is written straight from the result structs.

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// col is one column of a table.
type col struct {
	name   string // header in the text rendering
	key    string // header in CSV; "" means name; "-" leaves the column out of CSV
	digits int    // significant digits of a float64 in text; 0 means 6
	left   bool   // left-aligned in text (words); figures are right-aligned
	csv    bool   // only in CSV, not in the text rendering
}

// shown is a value with its own text: text in the text rendering ("~1234"
// for a figure from a fallback, "-12 *" for an outlier's residual,
// "nearly" for a boolean), v in CSV.
type shown struct {
	v    any
	text string
}

// table holds rows of values: string, int, float64 (NaN and ±Inf show as
// "-" in text and "" in CSV), bool (yes/no, true/false), shown, or nil
// ("-" and ""). A nil row is a blank line in text and nothing in CSV.
type table struct {
	cols   []col
	rows   [][]any
	noHead bool // no header line in text (key/value tables)
}

// kvTable returns a two-column key/value table without a header line in
// text; in CSV its columns are key and value.
func kvTable() *table {
	return &table{cols: []col{{name: "key", left: true}, {name: "value", left: true}}, noHead: true}
}

// kvLines is a key/value table of lines, each a label and its text (as
// results.Sweep.FitLines gives them).
func kvLines(lines [][2]string) *table {
	t := kvTable()
	for _, l := range lines {
		t.add(l[0], l[1])
	}
	return t
}

// add appends a row of values, one per column.
func (t *table) add(cells ...any) { t.rows = append(t.rows, cells) }

// kv appends key with a value formatted like fmt.Sprintf.
func (t *table) kv(key, format string, args ...any) { t.add(key, fmt.Sprintf(format, args...)) }

// blank appends a blank line (text only).
func (t *table) blank() { t.rows = append(t.rows, nil) }

// write renders t in format: formatCSV as CSV, anything else as text.
func (t *table) write(w io.Writer, format string) error {
	if format == formatCSV {
		return t.writeCSV(w)
	}
	return t.writeText(w)
}

// writeText writes t as columns padded to their widest cell, separated by
// two spaces, without trailing blanks. A column with nothing in any row
// (every cell nil, "", "-", NaN or infinite) is left out, unless the table has
// no rows: a go test line says nothing of samples or R, and six empty
// columns would say nothing either.
func (t *table) writeText(w io.Writer) error {
	idx := t.shown()
	var lines [][]string
	if !t.noHead {
		var h []string
		for _, i := range idx {
			h = append(h, t.cols[i].name)
		}
		lines = append(lines, h)
	}
	for _, r := range t.rows {
		if r == nil {
			lines = append(lines, nil)
			continue
		}
		var l []string
		for _, i := range idx {
			l = append(l, t.text(i, r))
		}
		lines = append(lines, l)
	}
	widths := make([]int, len(idx))
	for _, l := range lines {
		for j, c := range l {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, l := range lines {
		var line strings.Builder
		for j, c := range l {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			if t.cols[idx[j]].left {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
			if j < len(l)-1 {
				line.WriteString("  ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shown lists the columns the text rendering shows: not the CSV-only
// ones, nor those empty in every row (when there are rows).
func (t *table) shown() []int {
	var idx []int
	for i, c := range t.cols {
		if !c.csv && (t.noHead || len(t.rows) == 0 || t.hasValue(i)) {
			idx = append(idx, i)
		}
	}
	return idx
}

// hasValue reports whether some row has something in column i.
func (t *table) hasValue(i int) bool {
	for _, r := range t.rows {
		if r == nil || i >= len(r) {
			continue
		}
		switch v := r[i].(type) {
		case nil:
		case string:
			if v != "" && v != "-" {
				return true
			}
		case float64:
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// text renders cell i of row r for the text table.
func (t *table) text(i int, r []any) string {
	if i >= len(r) {
		return "-"
	}
	switch v := r[i].(type) {
	case nil:
		return "-"
	case string:
		if v == "" && !t.cols[i].left {
			return "-"
		}
		return v
	case float64:
		d := t.cols[i].digits
		if d == 0 {
			d = 6
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return sig(v, d)
	case bool:
		return yesNo(v)
	case shown:
		return v.text
	}
	return fmt.Sprint(r[i])
}

// writeCSV writes t as CSV with a header of the columns' keys; floats keep
// 10 significant digits.
func (t *table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var idx []int
	var head []string
	for i, c := range t.cols {
		if c.key == "-" {
			continue
		}
		idx = append(idx, i)
		head = append(head, cmp.Or(c.key, c.name))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.rows {
		if r == nil {
			continue
		}
		rec := make([]string, len(idx))
		for j, i := range idx {
			if i < len(r) {
				rec[j] = csvCell(r[i])
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCell renders one value for CSV.
func csvCell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 10, 64)
	case shown:
		return csvCell(v.v)
	}
	return fmt.Sprint(v)
}

// writeMarkdown writes t as a GitHub-flavoured markdown table (the
// columns the text rendering shows, figures right-aligned), or, for a
// key/value table, as a list of "**key** value" items.
func (t *table) writeMarkdown(w io.Writer) error {
	idx := t.shown()
	var b strings.Builder
	esc := strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "~", `\~`)
	if !t.noHead {
		var head, rule []string
		for _, i := range idx {
			head = append(head, esc.Replace(t.cols[i].name))
			rule = append(rule, map[bool]string{true: "---", false: "---:"}[t.cols[i].left])
		}
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Join(rule, "|") + "|\n")
	}
	for _, r := range t.rows {
		if r == nil {
			continue
		}
		var cells []string
		for _, i := range idx {
			cells = append(cells, esc.Replace(t.text(i, r)))
		}
		switch {
		case !t.noHead:
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		default: // a key/value table: a list of "**key** value"
			if len(cells) > 1 && cells[0] != "" {
				cells[0] = "**" + cells[0] + "**"
			}
			b.WriteString("- " + strings.TrimSpace(strings.Join(cells, " ")) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// doc is a text output built of lines, list items and tables, rendered
// as plain text (lines as they are, tables aligned) or, with md, as
// markdown (each line a paragraph, items a list, tables markdown tables).
type doc struct {
	md   bool
	b    strings.Builder
	list bool // the last thing written in markdown was a list item
}

// newDoc returns a document for format: markdown for formatMD, text
// otherwise.
func newDoc(format string) *doc { return &doc{md: format == formatMD} }

// endList closes a markdown list before something else.
func (d *doc) endList() {
	if d.list {
		d.b.WriteString("\n")
		d.list = false
	}
}

// line writes lines of text (s may hold several, and ends without a
// newline).
func (d *doc) line(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.endList()
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			d.b.WriteString(strings.TrimSpace(l) + "\n\n")
		}
	}
}

// para writes a paragraph wrapped over several lines: as it is in text,
// as one paragraph in markdown.
func (d *doc) para(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.endList()
	d.b.WriteString(strings.Join(strings.Fields(s), " ") + "\n\n")
}

// heading writes a section's title: a line in text, a heading in
// markdown.
func (d *doc) heading(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.endList()
	d.b.WriteString("### " + s + "\n\n")
}

// blank writes an empty line in text; markdown separates its blocks
// itself.
func (d *doc) blank() {
	if !d.md {
		d.b.WriteString("\n")
	}
}

// item writes one item of a list: a line in text.
func (d *doc) item(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.b.WriteString("- " + s + "\n")
	d.list = true
}

// table writes t.
// (Writing to the document's builder cannot fail.)
func (d *doc) table(t *table) {
	if !d.md {
		t.writeText(&d.b)
		return
	}
	d.endList()
	t.writeMarkdown(&d.b)
	d.b.WriteString("\n")
}

// writeTo writes the document to w.
func (d *doc) writeTo(w io.Writer) error {
	d.endList()
	s := d.b.String()
	if d.md {
		s = strings.TrimRight(s, "\n") + "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}
