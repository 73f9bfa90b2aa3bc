package main

// cyclebench compare FILE FILE FILE...: the matrix of kernels × machines
// that package results builds (results.Matrix), rendered as text, JSON,
// CSV, markdown or one Go benchmark stream (results.Table.WriteBench), and
// drawn as grouped bars or a heat map.

import (
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/reports"
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
		return reports.MatrixTable(t).WriteCSV(w)
	case formatBench:
		return t.WriteBench(w, files)
	case formatMD:
		return reports.MatrixDoc(t).Render(w)
	}
	_, err := io.WriteString(w, t.String())
	return err
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
