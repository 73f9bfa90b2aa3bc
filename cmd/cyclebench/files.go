package main

// Comparing two saved result files, read with package results (every
// version of cyclebench's JSON, the Go benchmark format of cyclebench and
// go test): each benchmark's figures are compared between the runs of the
// two files (stats.CompareRuns).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat"
)

// readFiles reads the result files of a comparison and keeps the
// benchmarks whose name matches keep (nil keeps all). A file that cannot be
// read as a result file (missing, unreadable, empty, not a result file,
// malformed) is bad input: a usage error naming the file (and the line);
// with skip, it is left out instead, with a warning (a glob such as
// results/* that caught a README), and the error comes only when fewer
// than two files are left. kept lists the indices in paths of the files
// returned.
func readFiles(paths []string, keep *regexp.Regexp, skip bool) (files []results.File, kept []int, warnings []string, err error) {
	for i, p := range paths {
		f, err := results.Read(p)
		if err != nil && skip {
			warnings = append(warnings, "skipped a file: "+withoutPackages.Replace(err.Error()))
			continue
		}
		if err != nil {
			return nil, nil, nil, unreadable(err)
		}
		if keep != nil {
			f.Entries = slices.DeleteFunc(f.Entries, func(e results.Entry) bool { return !keep.MatchString(e.Name) })
			f.Fits = slices.DeleteFunc(f.Fits, func(fit results.Fit) bool { return !keep.MatchString(fit.Kernel) })
		}
		files, kept = append(files, f), append(kept, i)
	}
	if len(files) < 2 {
		return nil, nil, nil, usageErrorf("%d of the %d files given could be read as result files (want two or more; %s)", len(files), len(paths), strings.Join(warnings, "; "))
	}
	if keep != nil && !slices.ContainsFunc(files, func(f results.File) bool { return len(f.Entries)+len(f.Fits) > 0 }) {
		return nil, nil, nil, usageErrorf("-bench %q matches no benchmark in the files", keep)
	}
	return files, kept, warnings, nil
}

// unreadable is a result file that cannot be read, as the usage error it
// is: the command was given bad input, not a measurement that failed.
func unreadable(err error) error {
	if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "-o FILE") {
		return usageErrorf("%w", err)
	}
	return usageErrorf("%w (want a file of cyclebench run or cpe with -o FILE.json or FILE.txt, or of go test -bench)", err)
}

// fileWarnings are the files' own warnings (lines skipped, fields an older
// version did not write), for stderr.
func fileWarnings(files []results.File) []string {
	var ws []string
	for _, f := range files {
		ws = append(ws, errorStrings(f.Warnings)...)
	}
	return ws
}

type metaKV struct{ Key, Value string }

// fileMeta is what a file says about its machine and settings, under the
// benchmark format's key names; "" for what it does not say.
func fileMeta(f results.File) []metaKV {
	m := f.Machine
	num := func(v float64, digits int) string {
		if v == 0 {
			return ""
		}
		return sig(v, digits)
	}
	eps := ""
	if f.Settings.K > 0 {
		eps = strconv.FormatFloat(f.Settings.Epsilon, 'g', -1, 64)
	}
	return []metaKV{
		{"goos", m.GOOS}, {"goarch", m.GOARCH}, {"cpu", m.CPU}, {"vendor", m.Vendor},
		{"family", num(float64(m.Family), 6)}, {"model", num(float64(m.Model), 6)}, {"stepping", num(float64(m.Stepping), 6)},
		{"logical-cpus", num(float64(m.LogicalCPUs), 6)}, {"hypervisor", m.Hypervisor}, {"counter", m.Counter},
		{"tsc-hz", num(math.Round(m.CounterHz), 12)}, {"core-cycles-per-tick", num(m.CyclesPerTick, 5)},
		{"tsc-step", num(m.CounterStep, 4)}, {"k", num(float64(f.Settings.K), 6)}, {"eps", eps},
		{"m", num(float64(f.Settings.MaxSamples), 9)}, {"go", m.GoVersion},
	}
}

// figures is one benchmark of one file, as the A/B statistics take it:
// each unit's value in every run, the values' resolution, the runs'
// core-clock rulers.
type figures struct {
	name, unit string
	values     map[string][]float64
	quantum    map[string]float64 // the largest over the runs; absent when the file does not say
	rulers     []float64          // core cycles per tick of each run, where the file gives them
	units      []string           // in the order first seen
}

func (fg *figures) add(unit string, v, q float64) {
	if _, ok := fg.values[unit]; !ok {
		fg.units = append(fg.units, unit)
	}
	fg.values[unit] = append(fg.values[unit], v)
	if q > 0 {
		fg.quantum[unit] = max(fg.quantum[unit], q)
	}
}

// figuresOf collects entry e of file f.
func figuresOf(f results.File, e results.Entry) *figures {
	fg := &figures{name: results.Row{Name: e.Name, Pkg: e.Pkg, Mode: e.Mode}.Label(), unit: e.Unit,
		values: map[string][]float64{}, quantum: map[string]float64{}}
	for _, r := range e.Runs {
		q := 0.0 // the counter quantum per call, in ticks
		if r.Repeat > 0 {
			q = r.Quantum / float64(r.Repeat)
		}
		qns := 0.0
		if f.Machine.CounterHz > 0 {
			qns = q / f.Machine.CounterHz * 1e9
		}
		cycles := r.NoCycles == results.HasCycles
		if cycles {
			fg.add("cycles/op", r.Cycles, q*r.CyclesPerTick)
		}
		if r.NS != 0 {
			fg.add("ns/op", r.NS, qns)
		}
		if r.Ticks != 0 {
			fg.add("ticks/op", r.Ticks, q)
		}
		if r.Elements > 0 {
			if cycles {
				fg.add("cycles/elem", r.CyclesPerElem, q*r.CyclesPerTick/r.Elements)
			}
			fg.add("ns/elem", r.NsPerElem, qns/r.Elements)
			if r.TicksPerElem != 0 {
				fg.add("ticks/elem", r.TicksPerElem, q/r.Elements)
			}
		}
		for _, v := range r.Other {
			fg.add(v.Unit, v.Value, 0)
		}
		if r.CyclesPerTick > 0 {
			fg.rulers = append(fg.rulers, r.CyclesPerTick)
		}
	}
	return fg
}

// The figures compare shows, in this order. Ticks are left out: two
// machines' counters run at different rates.
var compareUnits = []string{"cycles/op", "ns/op", "cycles/elem", "ns/elem"}

// fileRow is one benchmark present in both files, with the verdict of its
// first figure (cycles/op where both files have it) in one sentence.
type fileRow struct {
	Name    string       `json:"name"`
	Unit    string       `json:"unit,omitempty"`
	Metrics []fileMetric `json:"metrics"`
	Verdict string       `json:"verdict"`
	Summary string       `json:"summary"`
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
	A, B  results.File
	Keys  []string // metadata keys either file gives
	Rows  []fileRow
	Fits  []fileFitRow
	OnlyA []string
	OnlyB []string
}

// compareFiles matches a's and b's benchmarks by package, name and mode
// and compares each figure by the spread between runs. The same benchmark
// with different element units on the two sides is an error: its figures
// cannot be compared.
func compareFiles(a, b results.File, opt stats.CompareOptions) (*fileComparison, error) {
	// Empty, not nil: JSON shows [].
	c := &fileComparison{A: a, B: b, Rows: []fileRow{}, Fits: []fileFitRow{}, OnlyA: []string{}, OnlyB: []string{}}
	ma, mb := fileMeta(a), fileMeta(b)
	for i, kv := range ma {
		if kv.Value != "" || mb[i].Value != "" {
			c.Keys = append(c.Keys, kv.Key)
		}
	}
	type key struct{ pkg, name, mode string }
	inB := map[key]results.Entry{}
	for _, e := range b.Entries {
		inB[key{e.Pkg, e.Name, e.Mode}] = e
	}
	inA := map[key]bool{}
	for _, ea := range a.Entries {
		k := key{ea.Pkg, ea.Name, ea.Mode}
		inA[k] = true
		eb, ok := inB[k]
		ra := figuresOf(a, ea)
		if !ok {
			c.OnlyA = append(c.OnlyA, ra.name)
			continue
		}
		rb := figuresOf(b, eb)
		if ra.unit != "" && rb.unit != "" && ra.unit != rb.unit {
			return nil, fmt.Errorf("%s counts %s in %s but %s in %s: its per-element figures cannot be compared", ra.name, ra.unit, a.Path, rb.unit, b.Path)
		}
		shared := func(u string) bool { return len(ra.values[u]) > 0 && len(rb.values[u]) > 0 }
		units := slices.DeleteFunc(slices.Clone(compareUnits), func(u string) bool { return !shared(u) })
		if len(units) == 0 {
			units = slices.DeleteFunc(slices.Clone(ra.units), func(u string) bool { return !shared(u) })
		}
		if len(units) == 0 {
			return nil, fmt.Errorf("%s has units [%s] in %s but [%s] in %s: no figure to compare", ra.name, strings.Join(ra.units, " "), a.Path, strings.Join(rb.units, " "), b.Path)
		}
		row := fileRow{Name: ra.name, Unit: cmpOr(ra.unit, rb.unit)}
		// A run whose K best samples did not agree is not a figure the
		// tool vouches for: no verdict rests on it.
		var unsettled []string
		for _, side := range []struct {
			name string
			e    results.Entry
		}{{"A", ea}, {"B", eb}} {
			if n := notConverged(side.e); n > 0 {
				unsettled = append(unsettled, fmt.Sprintf("%d of %d runs of %s did not converge", n, len(side.e.Runs), side.name))
			}
		}
		for _, u := range units {
			// The derived noise band is half the values' resolution, or the
			// systematic error of the unit when that is larger.
			o := opt
			o.Quantum = max(ra.quantum[u], rb.quantum[u])
			if len(ra.rulers) > 0 && len(rb.rulers) > 0 {
				// The core clock, which the rulers saw move between the
				// files (within a file the runs share it), moves ns and
				// ticks of code bound by the core, cycles of code bound by
				// memory.
				o.Systematic = min(0.5, math.Abs(stat.Mean(rb.rulers, nil)/stat.Mean(ra.rulers, nil)-1))
			}
			if strings.HasPrefix(u, "cycles/") {
				o.Systematic = max(o.Systematic, harness.RulerTolerance) // each run converts with its own ruler
			}
			rc, err := stats.CompareRuns(ra.values[u], rb.values[u], o)
			if err != nil {
				return nil, fmt.Errorf("comparing %s %s: %w", ra.name, u, err)
			}
			m := fileMetric{Unit: u, A: rc.CenterA, B: rc.CenterB, Ratio: rc.Ratio, Lo: rc.Lo, Hi: rc.Hi, PValue: rc.PValue,
				SpreadA: rc.SpreadA, SpreadB: rc.SpreadB, NoiseBand: rc.NoiseBand, Detectable: rc.Detectable, Verdict: rc.Verdict, Reason: rc.Reason, CountA: rc.NA, CountB: rc.NB}
			switch {
			case !rc.Tested:
				m.Reason += "; " + noTestRemedy(a, b)
			case len(unsettled) > 0:
				m.Verdict, m.Reason = stats.VerdictInconclusive, strings.Join(unsettled, ", ")+" (the test alone: "+rc.Verdict+")"
			}
			row.Metrics = append(row.Metrics, m)
		}
		m := row.Metrics[0]
		row.Verdict = m.Verdict
		reason, _, _ := strings.Cut(m.Reason, "; ") // without the remedy, said once
		row.Summary = stats.Sentence(sideName(a, b, true), sideName(a, b, false), m.Ratio, m.Lo, m.Hi, m.Verdict, reason) + " (" + m.Unit + ")"
		c.Rows = append(c.Rows, row)
	}
	for _, e := range b.Entries {
		if !inA[key{e.Pkg, e.Name, e.Mode}] {
			c.OnlyB = append(c.OnlyB, figuresOf(b, e).name)
		}
	}
	for _, fa := range a.Fits {
		i := slices.IndexFunc(b.Fits, func(f results.Fit) bool { return f.Kernel == fa.Kernel && f.Mode == fa.Mode })
		if i < 0 {
			continue
		}
		fb := b.Fits[i]
		la, ua := fitLine(fa)
		lb, ub := fitLine(fb)
		if fa.Unit != fb.Unit || ua != ub {
			return nil, fmt.Errorf("the CPE of %s is in %s per %s in %s but %s per %s in %s: not comparable", fa.Kernel, ua, elemWord(fa.Unit), a.Path, ub, elemWord(fb.Unit), b.Path)
		}
		if ua == "" {
			continue
		}
		// One sweep per file: its interval describes that run only, so
		// there is nothing to judge a difference between runs by.
		rc, err := stats.CompareRuns([]float64{la.PerElement}, []float64{lb.PerElement}, opt)
		if err != nil {
			return nil, fmt.Errorf("comparing the CPE of %s: %w", fa.Kernel, err)
		}
		c.Fits = append(c.Fits, fileFitRow{Name: results.Row{Name: fa.Kernel, Mode: fa.Mode}.Label(), Unit: ua + "/" + elemWord(fa.Unit),
			A: la.PerElement, ACI: la.PerElementCI, B: lb.PerElement, BCI: lb.PerElementCI, Ratio: rc.Ratio, Verdict: rc.Verdict, Reason: rc.Reason})
	}
	if len(c.Rows) == 0 && len(c.Fits) == 0 {
		return nil, fmt.Errorf("%s and %s have no benchmark name in common", a.Path, b.Path)
	}
	return c, nil
}

// notConverged counts the runs of e that the file says did not converge.
func notConverged(e results.Entry) int {
	n := 0
	for _, r := range e.Runs {
		if r.NotConverged {
			n++
		}
	}
	return n
}

// noTestRemedy says how to get the runs a test needs: which flag to add,
// for the kind of files compared.
func noTestRemedy(a, b results.File) string {
	switch {
	case a.Producer == results.ProducerGoTest || b.Producer == results.ProducerGoTest:
		return "measure each side with go test -bench ... -count 6 (benchstat wants 6 runs, this test 2)"
	case a.Format == results.FormatCPEJSON || b.Format == results.FormatCPEJSON:
		return fmt.Sprintf("a cpe file holds one sweep: for a test of single sizes, save each side with cyclebench run -bench KERNEL -n SIZE -o FILE (%d runs)", fileCount)
	}
	return fmt.Sprintf("measure each side with several runs: cyclebench run -o FILE writes %d, or add -count N (at least 2)", fileCount)
}

// sideName names file a (first true) or b in a summary: its file name,
// or "A" and "B" when the two names are the same.
func sideName(a, b results.File, first bool) string {
	na, nb := filepath.Base(a.Path), filepath.Base(b.Path)
	if na == nb {
		na, nb = "A", "B"
	}
	if first {
		return na
	}
	return nb
}

// fitLine is a fit in cycles, or in ticks without the ruler; "" when it
// has neither.
func fitLine(f results.Fit) (results.FitLine, string) {
	switch {
	case f.Cycles.N > 0:
		return f.Cycles, "cycles"
	case f.Ticks.N > 0:
		return f.Ticks, "ticks"
	}
	return results.FitLine{}, ""
}

// metaValue returns key's value in f, or "-".
func metaValue(f results.File, key string) string {
	for _, m := range fileMeta(f) {
		if m.Key == key {
			return orDash(m.Value)
		}
	}
	return "-"
}

// bothBench reports whether both files are in the Go benchmark format,
// which benchstat reads.
func bothBench(c *fileComparison) bool {
	return c.A.Format == results.FormatBench && c.B.Format == results.FormatBench
}

// benchstatHint is the command that does the statistics benchstat can do
// on two benchmark-format files: -table "" keeps both files in one table
// even though their configuration (cpu, ...) differs, and the filter keeps
// the frequency-independent units.
func benchstatHint(c *fileComparison) string {
	return fmt.Sprintf("benchstat -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' %s %s", c.A.Path, c.B.Path)
}

// verdictText is a metric's verdict with the size of the difference.
func verdictText(m fileMetric) string {
	switch m.Verdict {
	case stats.VerdictNoTest:
		reason, _, _ := strings.Cut(m.Reason, "; ") // the remedy is said once, below the table
		return reason
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
	}
	d := newDoc(format)
	meta := &table{cols: []col{{name: "", left: true}, {name: "A", left: true}, {name: "B", left: true}}}
	meta.add("file", c.A.Path, c.B.Path)
	meta.add("format", c.A.Format.String(), c.B.Format.String())
	for _, k := range c.Keys {
		meta.add(k, metaValue(c.A, k), metaValue(c.B, k))
	}
	if err := d.table(meta); err != nil {
		return err
	}
	if len(c.Rows) > 0 {
		d.blank()
		if err := d.table(metricsTable(c, false)); err != nil {
			return err
		}
		d.blank()
		noTest := false
		for _, r := range c.Rows {
			d.item(r.Name + ": " + r.Summary)
			noTest = noTest || r.Verdict == stats.VerdictNoTest
		}
		if noTest {
			d.line("no test with 1 run on a side: " + noTestRemedy(c.A, c.B))
		}
	}
	if len(c.Fits) > 0 {
		d.blank()
		t := &table{cols: []col{{name: "CPE", left: true}, {name: "A"}, {name: "B"}, {name: "B/A", digits: 5}, {name: "verdict", left: true}}}
		for _, f := range c.Fits {
			t.add(f.Name+" ("+f.Unit+")", sig(f.A, 5)+" ± "+sig(f.ACI, 2), sig(f.B, 5)+" ± "+sig(f.BCI, 2), f.Ratio, f.Reason)
		}
		if err := d.table(t); err != nil {
			return err
		}
		d.line("a sweep's ± is its own run's interval; a difference between runs needs the sweep repeated on each side")
	}
	d.blank()
	d.para("A and B are the geometric means of each side's runs (runs: A/B); the test compares\n" +
		"the spread between runs (Welch's t on the logarithms) and needs 2 runs per side;\n" +
		"per-element figures (in -format json and csv) have the ratios of the per-op ones.\n" +
		"cycles are core cycles (frequency-independent); ticks are left out: the two counters may run at different rates")
	if len(c.OnlyA) > 0 {
		d.line("only in A: " + strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		d.line("only in B: " + strings.Join(c.OnlyB, ", "))
	}
	if bothBench(c) {
		d.line("the same with benchstat (benchmarks run with -count ≥ 6): " + benchstatHint(c))
	}
	return d.writeTo(w)
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
	side := func(f results.File) fileSideJSON {
		s := fileSideJSON{Path: f.Path, Kind: f.Format.String(), Meta: map[string]string{}}
		for _, m := range fileMeta(f) {
			if m.Value != "" {
				s.Meta[m.Key] = m.Value
			}
		}
		return s
	}
	j := fileComparisonJSON{A: side(c.A), B: side(c.B), Rows: c.Rows, Fits: c.Fits, OnlyA: c.OnlyA, OnlyB: c.OnlyB}
	if bothBench(c) {
		j.Benchstat = benchstatHint(c)
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
		bar := plot.Bar{Value: m.Ratio, Label: m.Verdict}
		if m.Verdict != stats.VerdictNoTest {
			bar.Lo, bar.Hi = math.Min(m.Lo, m.Ratio), math.Max(m.Hi, m.Ratio)
		}
		bars.Groups = append(bars.Groups, r.Name)
		bars.Series[0].Bars = append(bars.Series[0].Bars, bar)
	}
	return bars, len(bars.Groups) > 0
}
