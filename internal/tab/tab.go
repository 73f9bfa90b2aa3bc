// Package tab is the one table model of the cyclebench command: a table
// is built once, from values, and rendered as aligned text, CSV or
// markdown; a [Doc] strings lines, list items and tables into text or
// markdown. JSON is written straight from the result structs, not from
// here. It is golang.org/x/perf's internal/benchtab in spirit: the model
// apart from the command that fills it.
package tab

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cyclebench/cyclebench/internal/sigfig"
)

// Col is one column of a table.
type Col struct {
	Name   string // header in the text rendering
	Key    string // header in CSV; "" means Name; "-" leaves the column out of CSV
	Digits int    // significant digits of a float64 in text; 0 means 6
	Left   bool   // left-aligned in text (words); figures are right-aligned
	CSV    bool   // only in CSV, not in the text rendering
}

// Shown is a value with its own text: text in the text rendering ("~1234"
// for a figure from a fallback, "-12 *" for an outlier's residual,
// "nearly" for a boolean), v in CSV.
type Shown struct {
	V    any
	Text string
}

// Table holds rows of values: string, int, float64 (NaN and ±Inf show as
// "-" in text and "" in CSV), bool (yes/no, true/false), [Shown], or nil
// ("-" and ""). A nil row is a blank line in text and nothing in CSV.
type Table struct {
	Cols   []Col
	Rows   [][]any
	NoHead bool // no header line in text (key/value tables)
}

// NewKV returns a two-column key/value table without a header line in
// text; in CSV its columns are key and value.
func NewKV() *Table {
	return &Table{Cols: []Col{{Name: "key", Left: true}, {Name: "value", Left: true}}, NoHead: true}
}

// KVLines is a key/value table of lines, each a label and its text (as
// results.Sweep.FitLines gives them).
func KVLines(lines [][2]string) *Table {
	t := NewKV()
	for _, l := range lines {
		t.Add(l[0], l[1])
	}
	return t
}

// Add appends a row of values, one per column.
func (t *Table) Add(cells ...any) { t.Rows = append(t.Rows, cells) }

// KV appends key with a value formatted like fmt.Sprintf.
func (t *Table) KV(key, format string, args ...any) { t.Add(key, fmt.Sprintf(format, args...)) }

// Blank appends a blank line (text only).
func (t *Table) Blank() { t.Rows = append(t.Rows, nil) }

// Write renders t in format: "csv" as CSV, anything else as text.
func (t *Table) Write(w io.Writer, format string) error {
	if format == "csv" {
		return t.WriteCSV(w)
	}
	return t.WriteText(w)
}

// WriteText writes t as columns padded to their widest cell, separated by
// two spaces, without trailing blanks. A column with nothing in any row
// (every cell nil, "", "-", NaN or infinite) is left out, unless the table has
// no rows: a go test line says nothing of samples or R, and six empty
// columns would say nothing either.
func (t *Table) WriteText(w io.Writer) error {
	idx := t.shown()
	var lines [][]string
	if !t.NoHead {
		var h []string
		for _, i := range idx {
			h = append(h, t.Cols[i].Name)
		}
		lines = append(lines, h)
	}
	for _, r := range t.Rows {
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
			if t.Cols[idx[j]].Left {
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
func (t *Table) shown() []int {
	var idx []int
	for i, c := range t.Cols {
		if !c.CSV && (t.NoHead || len(t.Rows) == 0 || t.hasValue(i)) {
			idx = append(idx, i)
		}
	}
	return idx
}

// hasValue reports whether some row has something in column i.
func (t *Table) hasValue(i int) bool {
	for _, r := range t.Rows {
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
func (t *Table) text(i int, r []any) string {
	if i >= len(r) {
		return "-"
	}
	switch v := r[i].(type) {
	case nil:
		return "-"
	case string:
		if v == "" && !t.Cols[i].Left {
			return "-"
		}
		return v
	case float64:
		d := t.Cols[i].Digits
		if d == 0 {
			d = 6
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "-"
		}
		return sigfig.Sig(v, d)
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case Shown:
		return v.Text
	}
	return fmt.Sprint(r[i])
}

// WriteCSV writes t as CSV with a header of the columns' keys; floats keep
// 10 significant digits.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var idx []int
	var head []string
	for i, c := range t.Cols {
		if c.Key == "-" {
			continue
		}
		idx = append(idx, i)
		head = append(head, cmp.Or(c.Key, c.Name))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
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
	case Shown:
		return csvCell(v.V)
	}
	return fmt.Sprint(v)
}

// WriteMarkdown writes t as a GitHub-flavoured markdown table (the
// columns the text rendering shows, figures right-aligned), or, for a
// key/value table, as a list of "**key** value" items.
func (t *Table) WriteMarkdown(w io.Writer) error {
	idx := t.shown()
	var b strings.Builder
	esc := strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`, "~", `\~`)
	if !t.NoHead {
		var head, rule []string
		for _, i := range idx {
			head = append(head, esc.Replace(t.Cols[i].Name))
			rule = append(rule, map[bool]string{true: "---", false: "---:"}[t.Cols[i].Left])
		}
		b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Join(rule, "|") + "|\n")
	}
	for _, r := range t.Rows {
		if r == nil {
			continue
		}
		var cells []string
		for _, i := range idx {
			cells = append(cells, esc.Replace(t.text(i, r)))
		}
		switch {
		case !t.NoHead:
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

// Doc is a text output built of lines, list items and tables, rendered
// as plain text (lines as they are, tables aligned) or, with md, as
// markdown (each line a paragraph, items a list, tables markdown tables).
type Doc struct {
	md   bool
	b    strings.Builder
	list bool // the last thing written in markdown was a list item
}

// NewDoc returns a document: markdown with md, text otherwise.
func NewDoc(md bool) *Doc { return &Doc{md: md} }

// endList closes a markdown list before something else.
func (d *Doc) endList() {
	if d.list {
		d.b.WriteString("\n")
		d.list = false
	}
}

// Line writes lines of text (s may hold several, and ends without a
// newline).
func (d *Doc) Line(s string) {
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

// Para writes a paragraph wrapped over several lines: as it is in text,
// as one paragraph in markdown.
func (d *Doc) Para(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.endList()
	d.b.WriteString(strings.Join(strings.Fields(s), " ") + "\n\n")
}

// Heading writes a section's title: a line in text, a heading in
// markdown.
func (d *Doc) Heading(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.endList()
	d.b.WriteString("### " + s + "\n\n")
}

// Blank writes an empty line in text; markdown separates its blocks
// itself.
func (d *Doc) Blank() {
	if !d.md {
		d.b.WriteString("\n")
	}
}

// Item writes one item of a list: a line in text.
func (d *Doc) Item(s string) {
	if !d.md {
		d.b.WriteString(s + "\n")
		return
	}
	d.b.WriteString("- " + s + "\n")
	d.list = true
}

// Table writes t.
// (Writing to the document's builder cannot fail.)
func (d *Doc) Table(t *Table) {
	if !d.md {
		t.WriteText(&d.b)
		return
	}
	d.endList()
	t.WriteMarkdown(&d.b)
	d.b.WriteString("\n")
}

// Render writes the document to w.
func (d *Doc) Render(w io.Writer) error {
	d.endList()
	s := d.b.String()
	if d.md {
		s = strings.TrimRight(s, "\n") + "\n"
	}
	_, err := io.WriteString(w, s)
	return err
}

// WrapList joins items after head with ", ", breaking lines before width
// columns.
func WrapList(head string, items []string, width int) string {
	var b strings.Builder
	line := head
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if i > 0 && len(line)+1+len(it) > width {
			b.WriteString(line + "\n")
			line = it
			continue
		}
		if i > 0 {
			line += " "
		}
		line += it
	}
	return b.String() + line
}
