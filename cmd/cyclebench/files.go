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
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/gonum/stat"
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
	// Quantum is the resolution of each unit's values (the counter
	// quantum over the calls a sample timed, converted), the largest over
	// the runs; absent when the file does not say (benchmark format).
	Quantum map[string]float64
	// CyclesPerTick holds each run's core-clock ratio, when the file says.
	CyclesPerTick []float64
	units         []string // the units in the order first seen
}

// addQuantum records the resolution q of unit's values.
func (r *savedResult) addQuantum(unit string, q float64) {
	if q > 0 {
		if r.Quantum == nil {
			r.Quantum = map[string]float64{}
		}
		r.Quantum[unit] = max(r.Quantum[unit], q)
	}
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
		q := 0.0 // ticks per call
		if j.Repeat > 0 {
			q = j.QuantumTicks / float64(j.Repeat)
		}
		if j.CyclesPerTick > 0 {
			r.add("cycles/op", j.Cycles)
			r.addQuantum("cycles/op", q*j.CyclesPerTick)
			r.CyclesPerTick = append(r.CyclesPerTick, j.CyclesPerTick)
		}
		r.add("ns/op", j.Nanoseconds)
		r.add("ticks/op", j.Ticks)
		if j.TicksPerSecond > 0 {
			r.addQuantum("ns/op", q/j.TicksPerSecond*1e9)
		}
		r.addQuantum("ticks/op", q)
		if j.Elements > 0 {
			if j.CyclesPerTick > 0 {
				r.add("cycles/elem", j.CyclesPerElement)
			}
			r.add("ns/elem", j.NsPerElement)
			r.add("ticks/elem", j.TicksPerElement)
			for _, u := range []string{"cycles", "ns", "ticks"} {
				r.addQuantum(u+"/elem", r.Quantum[u+"/op"]/j.Elements)
			}
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

// fileMetric compares one unit between the runs of each side
// (stats.CompareRuns): each side's typical run, B/A with its interval, the
// test and its verdict, or "no test" with a single run on a side.
type fileMetric struct {
	Unit       string  `json:"unit"`
	A          float64 `json:"a"`
	B          float64 `json:"b"`
	Ratio      float64 `json:"ratio"`
	Lo         float64 `json:"ratio_lo"`
	Hi         float64 `json:"ratio_hi"`
	PValue     float64 `json:"p_value"`
	SpreadA    float64 `json:"spread_a"`
	SpreadB    float64 `json:"spread_b"`
	NoiseBand  float64 `json:"noise_band"`
	Detectable float64 `json:"detectable"`
	Verdict    string  `json:"verdict"`
	Reason     string  `json:"reason"`
	CountA     int     `json:"count_a"`
	CountB     int     `json:"count_b"`
}

// fileFitRow compares the CPE of one kernel between two cpe files.
type fileFitRow struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	A       float64 `json:"a"`
	ACI     float64 `json:"a_ci95"`
	B       float64 `json:"b"`
	BCI     float64 `json:"b_ci95"`
	Ratio   float64 `json:"ratio"`
	Verdict string  `json:"verdict"`
	Reason  string  `json:"reason"`
}

// fileComparison is two files side by side.
type fileComparison struct {
	A, B  *savedFile
	Keys  []string // metadata keys, A's order then B's extras
	Rows  []fileRow
	Fits  []fileFitRow
	OnlyA []string
	OnlyB []string
}

// compareFiles matches a's and b's results by name and compares each
// figure by the spread between runs. The same name with different units
// on the two sides is an error: its figures cannot be compared.
func compareFiles(a, b *savedFile, opt stats.CompareOptions) (*fileComparison, error) {
	// Empty, not nil: JSON shows [].
	c := &fileComparison{A: a, B: b, Rows: []fileRow{}, Fits: []fileFitRow{}, OnlyA: []string{}, OnlyB: []string{}}
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
		units := slices.DeleteFunc(slices.Clone(compareUnits), func(u string) bool { return len(ra.Values[u]) == 0 || len(rb.Values[u]) == 0 })
		if len(units) == 0 {
			units = commonUnits(ra, rb)
		}
		if len(units) == 0 {
			return nil, fmt.Errorf("%s has units [%s] in %s but [%s] in %s: no figure to compare", ra.Name, strings.Join(ra.units, " "), a.Path, strings.Join(rb.units, " "), b.Path)
		}
		row := fileRow{Name: ra.Name, Unit: cmpOr(ra.Unit, rb.Unit)}
		for _, u := range units {
			// The derived noise band is half the values' resolution, or the
			// systematic error of the unit when that is larger.
			o := opt
			o.Quantum = max(ra.Quantum[u], rb.Quantum[u])
			if len(ra.CyclesPerTick) > 0 && len(rb.CyclesPerTick) > 0 {
				// The core clock, which the rulers saw move between the
				// files (within a file the runs share it), moves ns and
				// ticks of code bound by the core, cycles of code bound by
				// memory.
				o.Systematic = min(0.5, math.Abs(stat.Mean(rb.CyclesPerTick, nil)/stat.Mean(ra.CyclesPerTick, nil)-1))
			}
			if strings.HasPrefix(u, "cycles/") {
				o.Systematic = max(o.Systematic, harness.RulerTolerance) // each run converts with its own ruler
			}
			rc, err := stats.CompareRuns(ra.Values[u], rb.Values[u], o)
			if err != nil {
				return nil, fmt.Errorf("comparing %s %s: %w", ra.Name, u, err)
			}
			row.Metrics = append(row.Metrics, fileMetric{Unit: u, A: rc.CenterA, B: rc.CenterB, Ratio: rc.Ratio, Lo: rc.Lo, Hi: rc.Hi, PValue: rc.PValue,
				SpreadA: rc.SpreadA, SpreadB: rc.SpreadB, NoiseBand: rc.NoiseBand, Detectable: rc.Detectable, Verdict: rc.Verdict, Reason: rc.Reason, CountA: rc.NA, CountB: rc.NB})
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
		// One sweep per file: its interval describes that run only, so
		// there is nothing to judge a difference between runs by.
		rc, err := stats.CompareRuns([]float64{fa.Fit.Slope}, []float64{fb.Fit.Slope}, opt)
		if err != nil {
			return nil, fmt.Errorf("comparing the CPE of %s: %w", fa.Name, err)
		}
		c.Fits = append(c.Fits, fileFitRow{Name: fa.Name, Unit: fa.FitUnit + "/" + elemWord(fa.ElemUnit), A: fa.Fit.Slope, ACI: fa.Fit.SlopeCI,
			B: fb.Fit.Slope, BCI: fb.Fit.SlopeCI, Ratio: rc.Ratio, Verdict: rc.Verdict, Reason: rc.Reason})
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
// even though their configuration (cpu, ...) differs, and the filter keeps
// the frequency-independent units.
func benchstatHint(a, b *savedFile) string {
	return fmt.Sprintf("benchstat -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' %s %s", a.Path, b.Path)
}

// verdictText is a metric's verdict with the size of the difference.
func verdictText(m fileMetric) string {
	switch m.Verdict {
	case stats.VerdictNoTest:
		return m.Reason
	case stats.VerdictSlower, stats.VerdictFaster:
		return fmt.Sprintf("%s (%s)", m.Verdict, signedSig((m.Ratio-1)*100, 3)+"%")
	}
	return m.Verdict
}

// metricsTable is one row per benchmark and unit; the text table leaves out
// the per-element units, whose ratios are those per op (the names hold n).
func metricsTable(c *fileComparison, perElem bool) *table {
	t := &table{cols: []col{{name: "name", left: true}, {name: "unit", left: true}, {name: "A", key: "a", digits: 5}, {name: "B", key: "b", digits: 5},
		{name: "B/A", key: "ratio", digits: 5}, {name: "95% CI", key: "-", left: true}, {name: "ratio_lo", csv: true}, {name: "ratio_hi", csv: true},
		{name: "p", key: "p_value", digits: 2}, {name: "runs", key: "-"}, {name: "count_a", csv: true}, {name: "count_b", csv: true},
		{name: "verdict", left: true}, {name: "reason", csv: true}}}
	for _, r := range c.Rows {
		for _, m := range r.Metrics {
			if !perElem && strings.HasSuffix(m.Unit, "/elem") && len(r.Metrics) > 2 {
				continue
			}
			var ci, p any
			if m.Verdict != stats.VerdictNoTest {
				ci, p = fmt.Sprintf("[%s, %s]", sig(m.Lo, 5), sig(m.Hi, 5)), m.PValue
			}
			t.add(r.Name, m.Unit, m.A, m.B, m.Ratio, ci, m.Lo, m.Hi, p, fmt.Sprintf("%d/%d", m.CountA, m.CountB), m.CountA, m.CountB, verdictText(m), m.Reason)
		}
	}
	return t
}

func writeFileComparison(w io.Writer, format string, c *fileComparison) error {
	switch format {
	case formatJSON:
		return writeJSON(w, fileComparisonReport(c))
	case formatCSV:
		t := metricsTable(c, true)
		for _, f := range c.Fits {
			t.add(f.Name+"/cpe", f.Unit, f.A, f.B, f.Ratio, nil, nil, nil, nil, nil, 1, 1, f.Verdict, f.Reason)
		}
		return t.writeCSV(w)
	case formatTable:
	default:
		return usageErrorf("-format %s: comparing files writes table, json or csv (benchstat reads benchmark files directly)", format)
	}
	var b strings.Builder
	meta := &table{cols: []col{{name: "", left: true}, {name: "A", left: true}, {name: "B", left: true}}}
	meta.add("file", c.A.Path, c.B.Path)
	meta.add("format", c.A.Kind, c.B.Kind)
	for _, k := range c.Keys {
		meta.add(k, c.A.metaValue(k), c.B.metaValue(k))
	}
	meta.writeText(&b)
	if len(c.Rows) > 0 {
		b.WriteString("\n")
		metricsTable(c, false).writeText(&b)
	}
	if len(c.Fits) > 0 {
		b.WriteString("\n")
		t := &table{cols: []col{{name: "CPE", left: true}, {name: "A"}, {name: "B"}, {name: "B/A", digits: 5}, {name: "verdict", left: true}}}
		for _, f := range c.Fits {
			t.add(f.Name+" ("+f.Unit+")", sig(f.A, 5)+" ± "+sig(f.ACI, 2), sig(f.B, 5)+" ± "+sig(f.BCI, 2), f.Ratio, f.Reason)
		}
		t.writeText(&b)
		b.WriteString("a sweep's ± is its own run's interval; a difference between runs needs the sweep repeated on each side\n")
	}
	b.WriteString("\nA and B are the geometric means of each side's runs (runs: A/B); the test compares\n" +
		"the spread between runs (Welch's t on the logarithms) and needs 2 runs per side;\n" +
		"per-element figures (in -format json and csv) have the ratios of the per-op ones.\n" +
		"cycles are core cycles (frequency-independent); ticks are left out: the two counters may run at different rates\n")
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(&b, "only in A: %s\n", strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(&b, "only in B: %s\n", strings.Join(c.OnlyB, ", "))
	}
	if c.A.Kind == "Go benchmark format" && c.B.Kind == "Go benchmark format" {
		fmt.Fprintf(&b, "the same with benchstat (benchmarks run with -count ≥ 6): %s\n", benchstatHint(c.A, c.B))
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
	if c.A.Kind == "Go benchmark format" && c.B.Kind == "Go benchmark format" {
		j.Benchstat = benchstatHint(c.A, c.B)
	}
	return j
}

// fileBars is the picture of a file comparison: B/A of each benchmark in
// the first unit they share (cycles/op where both files have it), with
// the between-run interval where there is a test.
func fileBars(c *fileComparison) (plot.Comparison, bool) {
	bars := plot.Comparison{Ratio: true, Series: []plot.BarSeries{{Name: "B/A"}}}
	for _, r := range c.Rows {
		m := r.Metrics[0]
		if bars.Unit == "" {
			bars.Unit = "ratio B/A of " + m.Unit + " (95% CI between runs)"
		}
		if "ratio B/A of "+m.Unit+" (95% CI between runs)" != bars.Unit || !(m.Ratio > 0) {
			continue
		}
		bar := plot.Bar{Value: m.Ratio}
		if m.Verdict != stats.VerdictNoTest {
			bar.Lo, bar.Hi = math.Min(m.Lo, m.Ratio), math.Max(m.Hi, m.Ratio)
		}
		bars.Groups = append(bars.Groups, r.Name)
		bars.Series[0].Bars = append(bars.Series[0].Bars, bar)
	}
	return bars, len(bars.Groups) > 0
}
