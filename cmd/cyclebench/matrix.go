package main

// cyclebench compare FILE FILE FILE...: the matrix of kernels × machines
// that package results builds (results.Matrix), rendered as text, JSON,
// CSV, markdown or one Go benchmark stream (results.Table.WriteBench), and
// drawn as grouped bars or a heat map.

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
)

// matrixFlags are the flags of a comparison of saved files.
type matrixFlags struct {
	opt      results.MatrixOptions
	baseline string
	names    string
	bench    string
	spread   *string
	kind     *string
	matrix   bool
	perFile  bool
	pooled   []string // notes on the files pooled as one machine's runs
}

func addMatrixFlags(fs *flagSet) *matrixFlags {
	m := &matrixFlags{opt: results.DefaultMatrixOptions()}
	fs.StringVar(&m.baseline, "baseline", "", "files: the baseline `FILE|N|NAME` the ratios are relative to (with two files: A): a path, a position\n(1 is the first), a -names name, or part of a file name or CPU (default: the first file)")
	fs.StringVar(&m.names, "names", "", "files: the machines' column names, one per file: `LIST` such as zen5,zen4 (default: from the file names)")
	fs.StringVar(&m.bench, "bench", "", "files: keep the benchmarks whose name matches `REGEXP`")
	m.spread = choiceFlag(fs, "spread", "range", "files: a cell's spread over its file's runs: range (min to max) or iqr (first to third quartile)", "range", "iqr")
	fs.BoolVar(&m.opt.AllSizes, "all-sizes", false, "files: say which variant is fastest at every size, not only at the largest")
	fs.BoolVar(&m.matrix, "matrix", false, "two files: the matrix of kernels × machines instead of the A/B statistics")
	fs.BoolVar(&m.perFile, "per-file", false, "files: one matrix column per file; by default files of one machine (same CPU, counter, platform, Go)\nare pooled as the runs of one column (with -names: files given one name are)")
	m.kind = choiceFlag(fs, "plot-kind", "auto", "files: -plot draws grouped bars or a heat map; auto: bars up to 16 rows", "auto", "bars", "heat")
	return m
}

// The flags for files, and those of them that shape only the matrix.
var (
	fileFlags  = []string{"baseline", "names", "bench", "spread", "all-sizes", "matrix", "plot-kind", "per-file"}
	matrixOnly = []string{"names", "spread", "all-sizes", "plot-kind", "per-file"}
)

// setup reads the flags that shape a matrix: the -bench filter, the
// -names and -spread.
func (m *matrixFlags) setup() (*regexp.Regexp, error) {
	if m.names != "" {
		m.opt.Names = strings.Split(m.names, ",")
		for i := range m.opt.Names {
			m.opt.Names[i] = strings.TrimSpace(m.opt.Names[i])
		}
	}
	if *m.spread == "iqr" {
		m.opt.Spread = results.SpreadIQR
	}
	if m.bench == "" {
		return nil, nil
	}
	re, err := regexp.Compile(m.bench)
	if err != nil {
		return nil, usageErrorf("-bench %q: not a regular expression: %v", m.bench, err)
	}
	return re, nil
}

// selectBaseline finds -baseline among the files: a -names name, else as
// results.SelectBaseline does (a path, a position, part of a file name or
// CPU).
func (m *matrixFlags) selectBaseline(files []results.File) (int, error) {
	if i := slices.Index(m.opt.Names, m.baseline); i >= 0 && m.baseline != "" {
		return i, nil
	}
	i, err := results.SelectBaseline(files, m.baseline)
	if err != nil {
		return 0, inputError("-", err)
	}
	return i, nil
}

// pool merges the files of one machine into one column's runs
// (results.Pool), unless -per-file; with -names, the files given one name
// are pooled, and must be of one machine. The names and the baseline
// follow the files; a note for the table says what was pooled.
func (m *matrixFlags) pool(files []results.File) ([]results.File, error) {
	if m.perFile {
		return files, nil
	}
	p, err := results.Pool(files, m.opt.Names, m.opt.Baseline)
	if err != nil {
		return nil, inputError("-names: ", err)
	}
	for _, n := range p.Notes {
		m.pooled = append(m.pooled, n+" (-per-file keeps them apart)")
	}
	m.opt.Names, m.opt.Baseline = p.Names, p.Baseline
	return p.Files, nil
}

// compareMatrix writes the matrix of files in o's format and draws it to
// -plot.
func compareMatrix(o *out, pf *plotFlags, m *matrixFlags, files []results.File) error {
	t, err := results.Matrix(files, m.opt)
	if err != nil {
		return inputError("-names: ", err) // names that do not fit: the only bad input left
	}
	t.Notes = append(t.Notes, m.pooled...)
	for _, n := range m.pooled { // on stderr too: pooling changes what a column means
		o.note("note: %s", n)
	}
	if err := o.emit(func(w io.Writer) error { return writeMatrix(w, o.format, t, files) }); err != nil {
		return err
	}
	if pf.path != "" {
		if err := plotMatrix(o, pf, *m.kind, t); err != nil {
			return err
		}
	}
	o.warnAll(results.FileWarnings(files))
	return nil
}

func writeMatrix(w io.Writer, format string, t *results.Table, files []results.File) error {
	switch format {
	case formatJSON:
		return writeJSON(w, t)
	case formatCSV:
		return matrixCSV(t).WriteCSV(w)
	case formatBench:
		return t.WriteBench(w, files)
	case formatMD:
		return writeMatrixMarkdown(w, t)
	}
	_, err := io.WriteString(w, t.String())
	return err
}

// writeMatrixMarkdown writes the matrix as markdown: the machines as a
// list, every column of results.Table.TextRows in one table (markdown
// wraps it, so it need not fit a terminal), the fastest variants and the
// notes as lists.
func writeMatrixMarkdown(w io.Writer, t *results.Table) error {
	d := newDoc(formatMD)
	d.Heading("machines")
	for ci, c := range t.Columns {
		name := c.Name
		if ci == t.Baseline {
			name += " (baseline)"
		}
		d.Item(fmt.Sprintf("**%s**: %s; %s (%s)", name, c.Machine, c.Path, c.Format))
	}
	rows := t.TextRows()
	mt := &table{}
	for i, h := range rows[0] {
		mt.Cols = append(mt.Cols, col{Name: h, Left: i == 0})
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
	return d.Render(w)
}

// matrixCSV is the matrix in long form: one row per benchmark and machine,
// every figure with its spread, so that a spreadsheet or a data frame can
// pivot it either way.
func matrixCSV(t *results.Table) *table {
	ct := &table{}
	for _, n := range []string{"benchmark", "pkg", "kernel", "size_key", "n", "mode", "cpe_fit", "unit", "machine", "baseline", "machine_label", "file",
		"missing", "runs", "cycles", "cycles_lo", "cycles_hi", "cycles_per_elem", "cycles_per_elem_lo", "cycles_per_elem_hi",
		"ns", "ns_lo", "ns_hi", "ns_per_elem", "ns_per_elem_lo", "ns_per_elem_hi", "ratio", "no_cycles", "not_converged", "check_failed"} {
		ct.Cols = append(ct.Cols, col{Name: n})
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

// plotMatrix draws the table to -plot: grouped bars or a heat map
// (results.Table.Picture).
func plotMatrix(o *out, pf *plotFlags, kind string, t *results.Table) error {
	p, err := t.Picture(kind)
	if err != nil {
		return err
	}
	return pf.write(o, func(w io.Writer, f string, opt plot.Options) error {
		if p.Heat != nil {
			return plot.Heat(w, f, *p.Heat, opt)
		}
		return plot.Compare(w, f, *p.Bars, opt)
	}, plot.Options{Title: p.Title})
}
