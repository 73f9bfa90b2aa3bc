package main

// Reading saved result files for compare: cyclebench's -format json (from
// run or cpe) and the Go benchmark format (cyclebench -format bench, go
// test -bench), read with golang.org/x/perf/benchfmt.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/stats"
	"golang.org/x/perf/benchfmt"
)

// maxFileSize bounds what compare reads from one file.
const maxFileSize = 256 << 20

// savedFile is one result file, reduced to what compare shows.
type savedFile struct {
	Path string
	// Kind is "cyclebench run (json)", "cyclebench cpe (json)" or "Go
	// benchmark format".
	Kind string
	// Meta is the machine and settings the file records, in file order,
	// with keys named as in the benchmark format (cpu, tsc-hz, ...).
	Meta []metaKV
	// Results by benchmark name, in the order first seen.
	Results []*savedResult
	// Fits are the CPE fits of a cpe JSON file.
	Fits []savedFit
}

type metaKV struct{ Key, Value string }

// savedResult is every value a file holds for one benchmark name.
type savedResult struct {
	Name string
	// Unit is what n and the per-element figures count ("ops",
	// "elements"); "" when the file does not say (benchmark format).
	Unit string
	// Values holds the measurements by unit ("cycles/op", "ns/op",
	// "cycles/elem", ...), one per run of the benchmark.
	Values map[string][]float64
	units  []string // the units in the order first seen
}

func (r *savedResult) add(unit string, v float64) {
	if r.Values == nil {
		r.Values = map[string][]float64{}
	}
	if _, ok := r.Values[unit]; !ok {
		r.units = append(r.units, unit)
	}
	r.Values[unit] = append(r.Values[unit], v)
}

// savedFit is one kernel's CPE fit from a cpe JSON file.
type savedFit struct {
	Name, ElemUnit, FitUnit string
	Fit                     stats.Fit // N, Slope, SlopeSE, SlopeCI, Intercept, R2
}

// readSavedFile reads path, telling JSON from the benchmark format by its
// first non-blank byte. Errors name the file, and the line for a syntax
// error.
func readSavedFile(path string) (*savedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, maxFileSize>>20)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return readJSONFile(path, data)
	}
	return readBenchFile(path, data)
}

// fileJSON is what compare reads of a run or cpe JSON file.
type fileJSON struct {
	header
	Results *[]jsonResult    `json:"results"`
	Kernels *[]cpeKernelJSON `json:"kernels"`
}

func readJSONFile(path string, data []byte) (*savedFile, error) {
	var fj fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&fj); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:%d: malformed JSON: %v", path, lineAt(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s:%d: malformed result file: %v", path, lineAt(data, te.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%s:%d: malformed JSON: the file ends in the middle of a value (truncated?)", path, lineAt(data, int64(len(data))))
		}
		return nil, fmt.Errorf("%s: malformed JSON: %v", path, err)
	}
	sf := &savedFile{Path: path, Meta: jsonMeta(fj.header)}
	byName := map[string]*savedResult{}
	addResult := func(j jsonResult) error {
		if j.Name == "" {
			return fmt.Errorf("%s: a result has no name", path)
		}
		r := byName[j.Name]
		if r == nil {
			r = &savedResult{Name: j.Name, Unit: j.Unit}
			byName[j.Name] = r
			sf.Results = append(sf.Results, r)
		} else if r.Unit != j.Unit {
			return fmt.Errorf("%s: %s appears with units %q and %q", path, j.Name, r.Unit, j.Unit)
		}
		if j.CyclesPerTick > 0 {
			r.add("cycles/op", j.Cycles)
		}
		r.add("ns/op", j.Nanoseconds)
		r.add("ticks/op", j.Ticks)
		if j.Elements > 0 {
			if j.CyclesPerTick > 0 {
				r.add("cycles/elem", j.CyclesPerElement)
			}
			r.add("ns/elem", j.NsPerElement)
			r.add("ticks/elem", j.TicksPerElement)
		}
		return nil
	}
	switch {
	case fj.Results != nil:
		sf.Kind = "cyclebench " + orDash(fj.Command) + " (json)"
		for _, j := range *fj.Results {
			if err := addResult(j); err != nil {
				return nil, err
			}
		}
	case fj.Kernels != nil:
		sf.Kind = "cyclebench " + orDash(fj.Command) + " (json)"
		for _, k := range *fj.Kernels {
			for _, p := range k.Points {
				if p.Unit == "" {
					p.Unit = k.Unit
				}
				if err := addResult(p); err != nil {
					return nil, err
				}
			}
			for _, f := range k.Fits {
				if f.Unit == "cycles" || f.Unit == "ticks" && !hasFitUnit(k.Fits, "cycles") {
					sf.Fits = append(sf.Fits, savedFit{Name: k.Name, ElemUnit: k.Unit, FitUnit: f.Unit, Fit: stats.Fit{
						N: f.N, Slope: f.PerElement, SlopeCI: f.PerElementCI, SlopeSE: f.PerElementSE, Intercept: f.Intercept, R2: f.R2}})
				}
			}
		}
	default:
		return nil, fmt.Errorf("%s: not a cyclebench result file (no \"results\" or \"kernels\"; write one with cyclebench run or cpe -format json)", path)
	}
	if len(sf.Results) == 0 && len(sf.Fits) == 0 {
		return nil, fmt.Errorf("%s: no results in the file", path)
	}
	return sf, nil
}

func hasFitUnit(fs []cpeFitJSON, unit string) bool {
	for _, f := range fs {
		if f.Unit == unit {
			return true
		}
	}
	return false
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// jsonMeta lists a JSON header under the benchmark format's key names.
func jsonMeta(h header) []metaKV {
	var m []metaKV
	add := func(k, v string) {
		if v != "" {
			m = append(m, metaKV{k, v})
		}
	}
	num := func(v float64, digits int) string {
		if v == 0 {
			return ""
		}
		return sig(v, digits)
	}
	add("goos", h.GOOS)
	add("goarch", h.GOARCH)
	add("cpu", h.CPU)
	add("vendor", h.Vendor)
	add("hypervisor", h.Hypervisor)
	add("counter", h.Counter)
	add("tsc-hz", num(math.Round(h.TSCHz), 12))
	add("core-cycles-per-tick", num(h.CyclesPerTick, 5))
	add("tsc-step", num(h.TSCStep, 4))
	add("k", num(float64(h.K), 6))
	add("eps", strconv.FormatFloat(h.Epsilon, 'g', -1, 64))
	add("m", num(float64(h.MaxSamples), 9))
	add("go", h.GoVersion)
	return m
}

// readBenchFile reads the Go benchmark format with benchfmt. The first
// syntax error is returned with its file and line.
func readBenchFile(path string, data []byte) (*savedFile, error) {
	sf := &savedFile{Path: path, Kind: "Go benchmark format"}
	byName := map[string]*savedResult{}
	rd := benchfmt.NewReader(bytes.NewReader(data), path)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("malformed benchmark file: %w", rec)
		case *benchfmt.Result:
			if sf.Meta == nil {
				sf.Meta = []metaKV{}
				for _, c := range rec.Config {
					if c.File {
						sf.Meta = append(sf.Meta, metaKV{c.Key, string(c.Value)})
					}
				}
			}
			name := benchBaseName(rec.Name)
			r := byName[name]
			if r == nil {
				r = &savedResult{Name: name}
				byName[name] = r
				sf.Results = append(sf.Results, r)
			}
			for _, v := range rec.Values {
				if v.OrigUnit != "" { // benchfmt normalised it (ns/op to sec/op)
					r.add(v.OrigUnit, v.OrigValue)
				} else {
					r.add(v.Unit, v.Value)
				}
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(sf.Results) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results (neither cyclebench JSON nor lines starting with \"Benchmark\")", path)
	}
	return sf, nil
}

// benchBaseName is a benchmark's full name without the GOMAXPROCS suffix
// ("-8"), which differs between machines.
func benchBaseName(n benchfmt.Name) string {
	base, parts := n.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		if len(p) > 0 && p[0] == '-' {
			continue
		}
		b.Write(p)
	}
	return b.String()
}

// The figures compare shows, in this order. Ticks are left out: two
// machines' counters run at different rates.
var compareUnits = []string{"cycles/op", "ns/op", "cycles/elem", "ns/elem"}

// fileRow is one benchmark present in both files.
type fileRow struct {
	Name    string       `json:"name"`
	Unit    string       `json:"unit,omitempty"`
	Metrics []fileMetric `json:"metrics"`
}

// fileMetric compares one unit: medians of each side's runs and B/A.
type fileMetric struct {
	Unit   string  `json:"unit"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Ratio  float64 `json:"ratio"`
	CountA int     `json:"count_a"`
	CountB int     `json:"count_b"`
}

// fileFitRow compares the CPE of one kernel between two cpe files.
type fileFitRow struct {
	Name        string  `json:"name"`
	Unit        string  `json:"unit"`
	A           float64 `json:"a"`
	ACI         float64 `json:"a_ci95"`
	B           float64 `json:"b"`
	BCI         float64 `json:"b_ci95"`
	Ratio       float64 `json:"ratio"`
	Diff        float64 `json:"diff"`
	DiffCI      float64 `json:"diff_ci95"`
	PValue      float64 `json:"p_value"`
	Significant bool    `json:"significant"`
	Verdict     string  `json:"verdict"`
}

// fileComparison is two files side by side.
type fileComparison struct {
	A, B   *savedFile
	Keys   []string // metadata keys, A's order then B's extras
	Rows   []fileRow
	Fits   []fileFitRow
	OnlyA  []string
	OnlyB  []string
	Median bool // some figure is the median of several runs
}

// compareFiles matches a's and b's results by name. The same name with
// different units on the two sides is an error: its figures cannot be
// compared.
func compareFiles(a, b *savedFile, opt stats.CompareOptions) (*fileComparison, error) {
	c := &fileComparison{A: a, B: b}
	seen := map[string]bool{}
	for _, m := range append(slices.Clone(a.Meta), b.Meta...) {
		if !seen[m.Key] {
			seen[m.Key] = true
			c.Keys = append(c.Keys, m.Key)
		}
	}
	bByName := map[string]*savedResult{}
	for _, r := range b.Results {
		bByName[r.Name] = r
	}
	aNames := map[string]bool{}
	for _, ra := range a.Results {
		aNames[ra.Name] = true
		rb := bByName[ra.Name]
		if rb == nil {
			c.OnlyA = append(c.OnlyA, ra.Name)
			continue
		}
		if ra.Unit != "" && rb.Unit != "" && ra.Unit != rb.Unit {
			return nil, fmt.Errorf("%s counts %s in %s but %s in %s: its per-element figures cannot be compared", ra.Name, ra.Unit, a.Path, rb.Unit, b.Path)
		}
		row := fileRow{Name: ra.Name, Unit: cmpOr(ra.Unit, rb.Unit)}
		for _, u := range compareUnits {
			va, vb := ra.Values[u], rb.Values[u]
			if len(va) == 0 || len(vb) == 0 {
				continue
			}
			ma, mb := median(va), median(vb)
			c.Median = c.Median || len(va) > 1 || len(vb) > 1
			row.Metrics = append(row.Metrics, fileMetric{Unit: u, A: ma, B: mb, Ratio: mb / ma, CountA: len(va), CountB: len(vb)})
		}
		if len(row.Metrics) == 0 {
			common := commonUnits(ra, rb)
			if len(common) == 0 {
				return nil, fmt.Errorf("%s has units [%s] in %s but [%s] in %s: no figure to compare", ra.Name, strings.Join(ra.units, " "), a.Path, strings.Join(rb.units, " "), b.Path)
			}
			for _, u := range common {
				ma, mb := median(ra.Values[u]), median(rb.Values[u])
				row.Metrics = append(row.Metrics, fileMetric{Unit: u, A: ma, B: mb, Ratio: mb / ma, CountA: len(ra.Values[u]), CountB: len(rb.Values[u])})
			}
		}
		c.Rows = append(c.Rows, row)
	}
	for _, r := range b.Results {
		if !aNames[r.Name] {
			c.OnlyB = append(c.OnlyB, r.Name)
		}
	}
	bFits := map[string]savedFit{}
	for _, f := range b.Fits {
		bFits[f.Name] = f
	}
	for _, fa := range a.Fits {
		fb, ok := bFits[fa.Name]
		if !ok {
			continue
		}
		if fa.ElemUnit != fb.ElemUnit || fa.FitUnit != fb.FitUnit {
			return nil, fmt.Errorf("the CPE of %s is in %s per %s in %s but %s per %s in %s: not comparable", fa.Name, fa.FitUnit, fa.ElemUnit, a.Path, fb.FitUnit, fb.ElemUnit, b.Path)
		}
		row := fileFitRow{Name: fa.Name, Unit: fa.FitUnit + "/" + elemWord(fa.ElemUnit), A: fa.Fit.Slope, ACI: fa.Fit.SlopeCI, B: fb.Fit.Slope, BCI: fb.Fit.SlopeCI}
		sc, err := stats.CompareSlopes(fa.Fit, fb.Fit, opt)
		if err != nil {
			return nil, fmt.Errorf("comparing the CPE of %s: %w", fa.Name, err)
		}
		row.Ratio, row.Diff, row.DiffCI, row.PValue, row.Significant, row.Verdict = sc.Ratio, sc.Diff, sc.DiffCI, sc.PValue, sc.Significant, sc.Verdict
		c.Fits = append(c.Fits, row)
	}
	if len(c.Rows) == 0 && len(c.Fits) == 0 {
		return nil, fmt.Errorf("%s and %s have no benchmark name in common", a.Path, b.Path)
	}
	return c, nil
}

func commonUnits(a, b *savedResult) []string {
	var out []string
	for _, u := range a.units {
		if len(b.Values[u]) > 0 {
			out = append(out, u)
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// metaValue returns key's value in f, or "-".
func (f *savedFile) metaValue(key string) string {
	for _, m := range f.Meta {
		if m.Key == key {
			return m.Value
		}
	}
	return "-"
}

// benchstatHint is the command that does the statistics benchstat can do
// on two benchmark-format files: -table "" keeps both files in one table
// even though their configuration (cpu, tsc-hz, ...) differs, and the
// filter keeps the frequency-independent units.
func benchstatHint(a, b *savedFile) string {
	return fmt.Sprintf("benchstat -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' %s %s", a.Path, b.Path)
}

func writeFileComparison(w io.Writer, format string, c *fileComparison) error {
	switch format {
	case formatTable:
		return writeFileComparisonTable(w, c)
	case formatJSON:
		return writeJSON(w, fileComparisonReport(c))
	case formatCSV:
		return writeFileComparisonCSV(w, c)
	}
	return usageErrorf("-format %s: comparing files supports table, json and csv (benchstat reads benchmark files directly)", format)
}

func writeFileComparisonTable(w io.Writer, c *fileComparison) error {
	var b strings.Builder
	rows := [][]string{{"", "A", "B"}, {"file", c.A.Path, c.B.Path}, {"format", c.A.Kind, c.B.Kind}}
	for _, k := range c.Keys {
		rows = append(rows, []string{k, c.A.metaValue(k), c.B.metaValue(k)})
	}
	writeColumns(&b, rows, 0, 1, 2)
	if len(c.Rows) > 0 {
		b.WriteString("\n")
		head := []string{"name"}
		var units []string
		for _, u := range compareUnits {
			for _, r := range c.Rows {
				if slices.ContainsFunc(r.Metrics, func(m fileMetric) bool { return m.Unit == u }) {
					units = append(units, u)
					break
				}
			}
		}
		for _, r := range c.Rows { // units outside compareUnits (a plain go test file)
			for _, m := range r.Metrics {
				if !slices.Contains(units, m.Unit) {
					units = append(units, m.Unit)
				}
			}
		}
		for _, u := range units {
			head = append(head, u+" A", "B", "B/A")
		}
		table := [][]string{head}
		for _, r := range c.Rows {
			row := []string{r.Name}
			for _, u := range units {
				i := slices.IndexFunc(r.Metrics, func(m fileMetric) bool { return m.Unit == u })
				if i < 0 {
					row = append(row, "-", "-", "-")
					continue
				}
				m := r.Metrics[i]
				row = append(row, sig(m.A, 5), sig(m.B, 5), strconv.FormatFloat(m.Ratio, 'f', 4, 64))
			}
			table = append(table, row)
		}
		writeColumns(&b, table, 0)
	}
	if len(c.Fits) > 0 {
		b.WriteString("\n")
		table := [][]string{{"CPE", "A", "B", "B/A", "B − A", "p", "verdict"}}
		for _, f := range c.Fits {
			table = append(table, []string{f.Name + " (" + f.Unit + ")", sig(f.A, 5) + " ± " + sig(f.ACI, 2), sig(f.B, 5) + " ± " + sig(f.BCI, 2),
				strconv.FormatFloat(f.Ratio, 'f', 4, 64), signedSig(f.Diff, 3) + " ± " + sig(f.DiffCI, 2), pString(f.PValue), f.Verdict})
		}
		writeColumns(&b, table, 0, 6)
	}
	b.WriteString("\n")
	if c.Median {
		b.WriteString("figures are medians of the runs in each file\n")
	}
	b.WriteString("cycles are core cycles (frequency-independent); ticks are left out: the two counters may run at different rates\n")
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(&b, "only in A: %s\n", strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(&b, "only in B: %s\n", strings.Join(c.OnlyB, ", "))
	}
	if c.A.Kind == "Go benchmark format" && c.B.Kind == "Go benchmark format" {
		fmt.Fprintf(&b, "for confidence intervals and p-values (benchmarks run with -count ≥ 6): %s\n", benchstatHint(c.A, c.B))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type fileSideJSON struct {
	Path string            `json:"path"`
	Kind string            `json:"format"`
	Meta map[string]string `json:"meta"`
}

type fileComparisonJSON struct {
	A         fileSideJSON `json:"a"`
	B         fileSideJSON `json:"b"`
	Rows      []fileRow    `json:"results"`
	Fits      []fileFitRow `json:"cpe"`
	OnlyA     []string     `json:"only_a"`
	OnlyB     []string     `json:"only_b"`
	Benchstat string       `json:"benchstat,omitempty"`
}

func fileComparisonReport(c *fileComparison) fileComparisonJSON {
	side := func(f *savedFile) fileSideJSON {
		s := fileSideJSON{Path: f.Path, Kind: f.Kind, Meta: map[string]string{}}
		for _, m := range f.Meta {
			s.Meta[m.Key] = m.Value
		}
		return s
	}
	j := fileComparisonJSON{A: side(c.A), B: side(c.B), Rows: c.Rows, Fits: c.Fits, OnlyA: c.OnlyA, OnlyB: c.OnlyB}
	if j.Rows == nil {
		j.Rows = []fileRow{}
	}
	if j.Fits == nil {
		j.Fits = []fileFitRow{}
	}
	if j.OnlyA == nil {
		j.OnlyA = []string{}
	}
	if j.OnlyB == nil {
		j.OnlyB = []string{}
	}
	if c.A.Kind == "Go benchmark format" && c.B.Kind == "Go benchmark format" {
		j.Benchstat = benchstatHint(c.A, c.B)
	}
	return j
}

func writeFileComparisonCSV(w io.Writer, c *fileComparison) error {
	var b strings.Builder
	b.WriteString("name,unit,a,b,ratio,count_a,count_b\n")
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	q := func(s string) string {
		if strings.ContainsAny(s, ",\"\n") {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	for _, r := range c.Rows {
		for _, m := range r.Metrics {
			fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%d,%d\n", q(r.Name), q(m.Unit), f(m.A), f(m.B), f(m.Ratio), m.CountA, m.CountB)
		}
	}
	for _, fr := range c.Fits {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,1,1\n", q(fr.Name+"/cpe"), q(fr.Unit), f(fr.A), f(fr.B), f(fr.Ratio))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
