package results

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/stats"
)

// Spread is how a cell's spread across runs is measured.
type Spread int

// Spreads of [MatrixOptions.Spread].
const (
	// SpreadRange: from the smallest to the largest run.
	SpreadRange Spread = iota
	// SpreadIQR: the interquartile range, first to third quartile of the
	// runs (empirical quantiles, as stats.Summarize computes them; with
	// three runs or fewer it is the range).
	SpreadIQR
)

func (s Spread) String() string {
	switch s {
	case SpreadRange:
		return "min–max"
	case SpreadIQR:
		return "IQR"
	}
	return fmt.Sprintf("Spread(%d)", int(s))
}

// defaultTie is the relative difference below which two variants count
// as tied in [DefaultMatrixOptions]: 2%, about the run-to-run spread of a
// K-best figure on a quiet machine.
const defaultTie = 0.02

// MatrixOptions are the settings of [Matrix]. The zero value works (the
// first file is the baseline, spread min–max, ties only by overlapping
// spreads); [DefaultMatrixOptions] sets Tie to defaultTie.
type MatrixOptions struct {
	// Baseline is the index in files of the file the ratios are relative
	// to; 0 means the first. [SelectBaseline] finds it from a path, a file
	// name or a CPU name.
	Baseline int
	// Spread chooses how a cell's spread is measured: SpreadRange (min–max
	// of the runs) or SpreadIQR.
	Spread Spread
	// Tie is the relative difference (0.02 = 2%) within which the runner-up
	// of a variant group ties with the fastest; they tie too when their
	// spreads (or a fit's 95% confidence intervals) overlap. 0 ≤ Tie < 1;
	// 0 means ties only by overlap.
	Tie float64
	// AllSizes gives a verdict for every size at which two or more
	// variants of a group were measured; false gives one per group and
	// mode, at the largest such size (where per-element figures are least
	// disturbed by the per-call overhead), plus one per group for CPE fits.
	AllSizes bool
	// Names, when not nil, names the columns (one name per file, unique,
	// not empty); nil means names made from the file names ([Column.Name]).
	Names []string
}

// DefaultMatrixOptions returns the options a command line starts from:
// first file as baseline, spread min–max, Tie = defaultTie.
func DefaultMatrixOptions() MatrixOptions { return MatrixOptions{Tie: defaultTie} }

// Table is kernels × machines: one [Row] per benchmark (name, package,
// mode) found in any file, one [Column] per file, a [Cell] at each
// crossing. Rows come in the order they first appear in the files (a
// file's fit rows right after its last point of the same kernel); columns
// in the order of the files.
type Table struct {
	Columns []Column
	Rows    []Row
	// Baseline is the index of the baseline column.
	Baseline int
	// Spread says how the cells' Lo and Hi were measured (fit rows: the
	// 95% confidence interval instead).
	Spread Spread
	// Tie is MatrixOptions.Tie.
	Tie float64
	// Verdicts say, for each variant group, which variant is fastest on
	// each machine and by how much.
	Verdicts []Verdict
	// Notes explain the table: what the figures are, why a column has no
	// cycles, what the files warned about. One sentence each.
	Notes []string
}

// Column is one file: one machine.
type Column struct {
	// Name is short and unique within the table: the file's name without
	// directory and extension, with the words every file's name shares at
	// its start or end taken off ("kvm-amd-zen5-run.json",
	// "kvm-amd-zen4-run.json" → "zen5", "zen4"); MatrixOptions.Names
	// overrides it.
	Name string
	// Path is File.Path.
	Path string
	// Machine, Format and Producer are the file's.
	Machine  Machine
	Format   Format
	Producer string
	// NoCycles is HasCycles when some cell of the column has cycles, else
	// the reason the first cell without them gives.
	NoCycles NoCycles
}

// Row is one benchmark across machines.
type Row struct {
	// Name is the benchmark's name ("Combine4/n=1000"); for a fit row the
	// kernel's ("Combine4").
	Name string
	// Pkg is the go test package, "" otherwise.
	Pkg string
	// Kernel is the name without its size part; SizeKey and N the size
	// ("" and 0 without one).
	Kernel  string
	SizeKey string
	N       int64
	// Mode is Throughput or Latency.
	Mode string
	// Fit marks the CPE fit of a cpe file: its cells hold the slope per
	// element (CyclesPerElem, NsPerElem) with the 95% confidence interval
	// as Lo and Hi, and no per-call figures.
	Fit bool
	// Unit is what N and the per-element figures count, from the first
	// file that says.
	Unit string
	// Cells holds one cell per column.
	Cells []Cell
}

// Label is the row's name with its mode when it is not throughput and
// "CPE" for a fit: "Combine4/n=1000", "AddChain/n=10000 (latency)",
// "Combine4 CPE".
func (r Row) Label() string {
	s := r.Name
	if r.Pkg != "" {
		s = r.Pkg + "." + s
	}
	if r.Fit {
		s += " CPE"
	}
	if r.Mode != Throughput {
		s += " (" + r.Mode + ")"
	}
	return s
}

// Cell is one benchmark on one machine: the median of the file's runs and
// their spread, in cycles and ns, per call and per element.
type Cell struct {
	// Missing: the machine's file does not have this benchmark.
	Missing bool
	// Runs is the number of runs (1 for a fit).
	Runs int
	// Cycles and NS are per call; CyclesPerElem and NsPerElem per element
	// (absent, N = 0, when the runs have no elements). A fit row has only
	// the per-element figures.
	Cycles, CyclesPerElem, NS, NsPerElem Stat
	// NoCycles is HasCycles when Cycles (or, for a fit, CyclesPerElem) is
	// present, else why it is empty (the first run's reason).
	NoCycles NoCycles
	// Ratio is this cell's median cycles over the baseline's (per call;
	// per element for a fit): below 1 is fewer cycles than the baseline.
	// 0 when either has no cycles or the baseline lacks the benchmark.
	Ratio float64
	// NotConverged counts the runs the file says did not converge.
	NotConverged int
	// CheckFailed counts the runs whose output check failed.
	CheckFailed int
	// Warnings are the runs' own warnings, each once, in file order.
	Warnings []string
}

// Stat is the median of a figure over runs and its spread [Lo, Hi] (as
// Table.Spread says; the 95% CI for a fit). N is the number of runs with
// the figure; 0 means absent.
type Stat struct {
	N              int
	Median, Lo, Hi float64
}

// Verdict answers, for one variant group at one size (or for its CPE
// fits), which variant is fastest on each machine and by how much.
type Verdict struct {
	// Group is the group's name: "Combine".
	Group string
	// Pkg, SizeKey, N, Mode and Fit locate the compared rows: the same
	// size and mode, or the CPE fits.
	Pkg     string
	SizeKey string
	N       int64
	Mode    string
	Fit     bool
	// Rows are the indices in Table.Rows of the group's rows compared.
	Rows []int
	// Wins holds one Win per column.
	Wins []Win
	// Text says it in one sentence: "Combine n=1000: Combine6 fastest on
	// all 3 machines: zen5 0.951 cycles/elem, 2.01× Combine5; ...".
	Text string
}

// Win is a variant group on one machine.
type Win struct {
	// Variants is the number of the group's variants measured there.
	// With fewer than two there is no winner: Fastest is -1.
	Variants int
	// Fastest, RunnerUp and Slowest are row indices in Table.Rows (-1
	// when none).
	Fastest, RunnerUp, Slowest int
	// Value is the fastest's median in Unit: "cycles/elem", "cycles/op"
	// (cycles when every variant there has them, per element when every
	// one has elements), else "ns/elem" or "ns/op".
	Value float64
	Unit  string
	// Factor is the runner-up's value over the fastest's (≥ 1), and
	// SlowFactor the slowest's.
	Factor, SlowFactor float64
	// Tied: the runner-up is within MatrixOptions.Tie of the fastest, or
	// their spreads overlap.
	Tied bool
}

// Matrix lays files side by side: see [Table]. Each file is a column
// (a machine), each benchmark found in any file a row; entries match by
// name (without GOMAXPROCS and mode part), package and mode. A cell holds
// the medians of the file's runs with their spread; cycles are the
// cross-machine figure, and each cell's Ratio is relative to the baseline
// file's. Kernels a file lacks are Missing cells; cells without cycles
// keep their ns figures and say why (Cell.NoCycles). Variant groups
// get a [Verdict]: the fastest variant on each machine and
// by how much.
//
// Matrix is pure and deterministic: the same files and options give the
// same table. Errors wrap [ErrBadInput]: no files, a baseline index out of
// range, a Tie outside [0, 1), an unknown Spread, Names that do not fit.
func Matrix(files []File, opt MatrixOptions) (*Table, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: Matrix needs at least one file", ErrBadInput)
	}
	if opt.Baseline < 0 || opt.Baseline >= len(files) {
		return nil, fmt.Errorf("%w: baseline index %d: want 0 to %d, one of the %d files", ErrBadInput, opt.Baseline, len(files)-1, len(files))
	}
	if !(opt.Tie >= 0 && opt.Tie < 1) {
		return nil, fmt.Errorf("%w: Tie %v: want 0 ≤ Tie < 1 (0.02 is 2%%)", ErrBadInput, opt.Tie)
	}
	if opt.Spread != SpreadRange && opt.Spread != SpreadIQR {
		return nil, fmt.Errorf("%w: Spread %d: want SpreadRange or SpreadIQR", ErrBadInput, int(opt.Spread))
	}
	names, err := columnNames(files, opt.Names)
	if err != nil {
		return nil, err
	}
	t := &Table{Baseline: opt.Baseline, Spread: opt.Spread, Tie: opt.Tie}
	for i, f := range files {
		t.Columns = append(t.Columns, Column{Name: names[i], Path: f.Path, Machine: f.Machine, Format: f.Format, Producer: f.Producer})
	}
	t.Rows = matrixRows(files)
	for ri := range t.Rows {
		r := &t.Rows[ri]
		r.Cells = make([]Cell, len(files))
		for fi := range files {
			r.Cells[fi] = cellOf(&files[fi], r, opt.Spread)
		}
	}
	t.ratios()
	for ci := range t.Columns {
		t.Columns[ci].NoCycles = t.columnNoCycles(ci)
	}
	t.verdicts(opt.AllSizes)
	t.notes(files)
	return t, nil
}

type rowKey struct {
	pkg, name, mode string
	fit             bool
}

// matrixRows lists the rows in order of first appearance, each fit right
// after the last row of its kernel and mode (or at the end).
func matrixRows(files []File) []Row {
	var rows []Row
	seen := map[rowKey]bool{}
	for _, f := range files {
		for _, e := range f.Entries {
			k := rowKey{e.Pkg, e.Name, e.Mode, false}
			if seen[k] {
				if i := slices.IndexFunc(rows, func(r Row) bool { return rowKey{r.Pkg, r.Name, r.Mode, r.Fit} == k }); i >= 0 && rows[i].Unit == "" {
					rows[i].Unit = e.Unit
				}
				continue
			}
			seen[k] = true
			rows = append(rows, Row{Name: e.Name, Pkg: e.Pkg, Kernel: e.Kernel, SizeKey: e.SizeKey, N: e.N, Mode: e.Mode, Unit: e.Unit})
		}
		for _, fit := range f.Fits {
			k := rowKey{"", fit.Kernel, fit.Mode, true}
			if seen[k] {
				continue
			}
			seen[k] = true
			row := Row{Name: fit.Kernel, Kernel: fit.Kernel, Mode: fit.Mode, Fit: true, Unit: fit.Unit}
			at := len(rows)
			for i := len(rows) - 1; i >= 0; i-- {
				if !rows[i].Fit && rows[i].Pkg == "" && rows[i].Kernel == fit.Kernel && rows[i].Mode == fit.Mode {
					at = i + 1
					break
				}
			}
			rows = slices.Insert(rows, at, row)
		}
	}
	return rows
}

// cellOf is row r in file f.
func cellOf(f *File, r *Row, spread Spread) Cell {
	if r.Fit {
		i := slices.IndexFunc(f.Fits, func(fit Fit) bool { return fit.Kernel == r.Name && fit.Mode == r.Mode })
		if i < 0 || r.Pkg != "" {
			return Cell{Missing: true}
		}
		fit := f.Fits[i]
		c := Cell{Runs: 1, Warnings: dedupe(nil, fit.Warnings)}
		if fit.Check != "" && fit.Check != "ok" {
			c.CheckFailed = 1
		}
		line := func(fl FitLine) Stat {
			if fl.N == 0 {
				return Stat{}
			}
			return Stat{N: 1, Median: fl.PerElement, Lo: fl.PerElement - fl.PerElementCI, Hi: fl.PerElement + fl.PerElementCI}
		}
		c.CyclesPerElem, c.NsPerElem = line(fit.Cycles), line(fit.NS)
		if c.CyclesPerElem.N == 0 {
			c.NoCycles = NoRuler
		}
		return c
	}
	i := slices.IndexFunc(f.Entries, func(e Entry) bool { return e.Pkg == r.Pkg && e.Name == r.Name && e.Mode == r.Mode })
	if i < 0 {
		return Cell{Missing: true}
	}
	e := f.Entries[i]
	c := Cell{Runs: len(e.Runs), NoCycles: HasCycles, NotConverged: notConverged(e)}
	for _, run := range e.Runs {
		if run.Check != "" && run.Check != "ok" {
			c.CheckFailed++
		}
		c.Warnings = dedupe(c.Warnings, run.Warnings)
	}
	fg := figuresOf(f, e) // the figures Compare tests, summarized
	c.Cycles, c.CyclesPerElem = StatOf(fg.values["cycles/op"], spread), StatOf(fg.values["cycles/elem"], spread)
	c.NS, c.NsPerElem = StatOf(fg.values["ns/op"], spread), StatOf(fg.values["ns/elem"], spread)
	if c.Cycles.N == 0 {
		c.NoCycles = e.Runs[0].NoCycles
		if c.NoCycles == HasCycles { // runs with cycles, all of them non-finite
			c.NoCycles = NotWritten
		}
	}
	return c
}

// StatOf is the median of xs and their spread, measured as spread says
// (the minimum and maximum, or the first and third quartiles); NaN and
// ±Inf are left out, and without a value left the Stat is absent (N = 0).
func StatOf(xs []float64, spread Spread) Stat {
	xs = slices.DeleteFunc(slices.Clone(xs), func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
	if len(xs) == 0 {
		return Stat{}
	}
	s, err := stats.Summarize(xs, 0.25, 0.75)
	if err != nil { // overflow of the mean of values near ±1e308: no figure
		return Stat{}
	}
	st := Stat{N: s.N, Median: s.Median, Lo: s.Min, Hi: s.Max}
	if spread == SpreadIQR {
		st.Lo, st.Hi = s.Quantiles[0].Value, s.Quantiles[1].Value
	}
	return st
}

func dedupe(have, add []string) []string {
	for _, w := range add {
		if !slices.Contains(have, w) {
			have = append(have, w)
		}
	}
	return have
}

// value is the figure a cell is compared by: cycles per call (per element
// for a fit).
func (c Cell) value() Stat {
	if c.Cycles.N > 0 {
		return c.Cycles
	}
	return c.CyclesPerElem
}

func (t *Table) ratios() {
	for ri := range t.Rows {
		r := &t.Rows[ri]
		base := r.Cells[t.Baseline]
		for ci := range r.Cells {
			c := &r.Cells[ci]
			if c.Missing || base.Missing || c.NoCycles != HasCycles || base.NoCycles != HasCycles {
				continue
			}
			if b := base.value().Median; b != 0 {
				c.Ratio = c.value().Median / b
			}
		}
	}
}

func (t *Table) columnNoCycles(ci int) NoCycles {
	first := HasCycles
	for _, r := range t.Rows {
		c := r.Cells[ci]
		if c.Missing {
			continue
		}
		if c.NoCycles == HasCycles {
			return HasCycles
		}
		if first == HasCycles {
			first = c.NoCycles
		}
	}
	return first
}

// columnNames returns the given names, checked, or short names made from
// the files' paths.
func columnNames(files []File, given []string) ([]string, error) {
	if given != nil {
		if len(given) != len(files) {
			return nil, fmt.Errorf("%w: %d names for %d files: want one name per file", ErrBadInput, len(given), len(files))
		}
		seen := map[string]bool{}
		for i, n := range given {
			if strings.TrimSpace(n) == "" {
				return nil, fmt.Errorf("%w: name %d is empty: want a name for %s", ErrBadInput, i+1, files[i].Path)
			}
			if seen[n] {
				return nil, fmt.Errorf("%w: name %q given twice: want unique names", ErrBadInput, n)
			}
			seen[n] = true
		}
		return slices.Clone(given), nil
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return shortNames(paths), nil
}

// shortNames names files for a table's columns: each path's base name
// without its extension, with the words (split at '-', '_' and '.') that
// every name shares at its start or its end taken off, as long as every
// name keeps a word and the names stay distinct:
// "kvm-amd-zen5-run.json", "kvm-amd-zen4-run.txt" → "zen5", "zen4". Names
// that are still equal fall back to the paths, then get "#2", "#3" added.
// A single path keeps its whole base name. shortNames is pure.
func shortNames(paths []string) []string {
	base := make([]string, len(paths))
	words := make([][]string, len(paths))
	for i, p := range paths {
		b := filepath.Base(p)
		if ext := filepath.Ext(b); ext != "" && ext != b {
			b = strings.TrimSuffix(b, ext)
		}
		base[i] = b
		words[i] = splitWords(b)
	}
	out := slices.Clone(base)
	if len(paths) > 1 {
		lead, trail := commonWords(words, false), commonWords(words, true)
		short := make([]string, len(paths))
		for i, w := range words {
			if lead+trail >= len(w) {
				short = nil
				break
			}
			short[i] = strings.Join(w[lead:len(w)-trail], "")
			short[i] = strings.Trim(short[i], "-_.")
		}
		if short != nil && distinct(short) {
			out = short
		}
	}
	if !distinct(out) {
		out = slices.Clone(paths)
	}
	count := map[string]int{}
	for i, n := range out {
		count[n]++
		if count[n] > 1 {
			out[i] = n + "#" + strconv.Itoa(count[n])
		}
	}
	return out
}

// splitWords splits s after each separator, keeping it with the word
// before: "kvm-amd-zen5" → "kvm-", "amd-", "zen5".
func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '-' || s[i] == '_' || s[i] == '.' {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// commonWords counts the words every list shares at its start (or end),
// compared without their separators.
func commonWords(words [][]string, fromEnd bool) int {
	n := 0
	for {
		var w string
		for i, ws := range words {
			if n >= len(ws) {
				return n
			}
			k := n
			if fromEnd {
				k = len(ws) - 1 - n
			}
			x := strings.TrimRight(ws[k], "-_.")
			if i == 0 {
				w = x
			} else if x != w {
				return n
			}
		}
		n++
	}
}

func distinct(ss []string) bool {
	seen := map[string]bool{}
	for _, s := range ss {
		if s == "" || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// SelectBaseline finds the file sel names, for MatrixOptions.Baseline:
// "" is the first file; otherwise, in this order, a file whose path is sel
// (after filepath.Clean), a 1-based position in files ("2" is the second),
// a file whose short name ([shortNames]) or base name (with or without
// extension) is sel, and last a file whose path, CPU or machine label
// contains sel (any case). The error wraps [ErrBadInput] and lists the
// files when sel matches none or several.
func SelectBaseline(files []File, sel string) (int, error) {
	if len(files) == 0 {
		return 0, fmt.Errorf("%w: no files to choose a baseline from", ErrBadInput)
	}
	if sel == "" {
		return 0, nil
	}
	one := func(match func(i int, f File) bool) (int, []int) {
		var hits []int
		for i, f := range files {
			if match(i, f) {
				hits = append(hits, i)
			}
		}
		if len(hits) == 1 {
			return hits[0], hits
		}
		return -1, hits
	}
	if i, _ := one(func(_ int, f File) bool { return filepath.Clean(f.Path) == filepath.Clean(sel) }); i >= 0 {
		return i, nil
	}
	if n, err := strconv.Atoi(sel); err == nil && n >= 1 && n <= len(files) {
		return n - 1, nil
	}
	short := shortNames(pathsOf(files))
	if i, _ := one(func(i int, f File) bool {
		b := filepath.Base(f.Path)
		return short[i] == sel || b == sel || strings.TrimSuffix(b, filepath.Ext(b)) == sel
	}); i >= 0 {
		return i, nil
	}
	low := strings.ToLower(sel)
	i, hits := one(func(_ int, f File) bool {
		return strings.Contains(strings.ToLower(f.Path), low) || strings.Contains(strings.ToLower(f.Machine.CPU), low) ||
			strings.Contains(strings.ToLower(f.Machine.Label()), low)
	})
	if i >= 0 {
		return i, nil
	}
	var list []string
	for i, f := range files {
		list = append(list, fmt.Sprintf("%d: %s (%s)", i+1, f.Path, f.Machine.Label()))
	}
	if len(hits) > 1 {
		var which []string
		for _, h := range hits {
			which = append(which, files[h].Path)
		}
		return 0, fmt.Errorf("%w: baseline %q matches %d files (%s): give a path, a position or a longer part of the name; the files: %s", ErrBadInput, sel, len(hits), strings.Join(which, ", "), strings.Join(list, "; "))
	}
	return 0, fmt.Errorf("%w: baseline %q matches no file: want a path, a position 1 to %d, or part of a file name or CPU; the files: %s", ErrBadInput, sel, len(files), strings.Join(list, "; "))
}

func pathsOf(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// MarshalText writes the spread's String ("min–max", "IQR"), so a Table
// encodes as readable JSON.
func (s Spread) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
