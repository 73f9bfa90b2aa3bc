package results

// Two result files, A and B, compared benchmark by benchmark: the rows of
// the matrix of the two files (matrixRows), each unit's per-run figures
// (figuresOf, which the matrix's cells summarize too) tested between the
// runs of each side (stats.CompareRuns).

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
	"gonum.org/v1/gonum/stat"
)

// FileRuns is the number of runs of each kernel cyclebench run writes to
// a file by default: [Compare] tests two files by the spread between their
// runs, which needs 2 runs per side; with 3, Welch's interval has at least
// 2 degrees of freedom (t = 4.3 instead of 12.7 at 1).
const FileRuns = 3

// figures is one benchmark of one file as its runs give it: each unit's
// value in every run, the values' resolution, the runs' core-clock
// rulers. Ticks per call and per element are there too, for files of one
// machine.
type figures struct {
	values  map[string][]float64
	quantum map[string]float64 // the largest over the runs; absent when the file does not say
	rulers  []float64          // core cycles per tick of each run, where the file gives them
	units   []string           // in the order first seen
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

// figuresOf collects the figures of entry e of file f: cycles where a run
// has them, ns and ticks where they are not 0, the per-element figures of
// runs with elements, and the runs' other units.
func figuresOf(f *File, e Entry) figures {
	fg := figures{values: map[string][]float64{}, quantum: map[string]float64{}}
	for _, r := range e.Runs {
		q := 0.0 // the counter quantum per call, in ticks
		if r.Repeat > 0 {
			q = r.Quantum / float64(r.Repeat)
		}
		qns := 0.0
		if f.Machine.CounterHz > 0 {
			qns = q / f.Machine.CounterHz * 1e9
		}
		cycles := r.NoCycles == HasCycles
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
			if r.NsPerElem != 0 {
				fg.add("ns/elem", r.NsPerElem, qns/r.Elements)
			}
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

// compareUnits are the figures [Compare] tests, in this order. Ticks are
// left out: two machines' counters run at different rates.
var compareUnits = []string{"cycles/op", "ns/op", "cycles/elem", "ns/elem"}

// Comparison is two files, A and B, side by side ([Compare]). It encodes
// as the JSON report of cyclebench compare A B -format json.
type Comparison struct {
	A, B File
	// Keys are the configuration keys ([File.Config]) either file gives.
	Keys []string
	// Rows holds the benchmarks present in both files, in A's order.
	Rows []CompareRow
	// Fits compares the CPE of the kernels both cpe files fit.
	Fits []FitComparison
	// OnlyA and OnlyB name the benchmarks only one file has.
	OnlyA, OnlyB []string
	// Apart says that the two files were measured at different times, and
	// how to measure two revisions interleaved ([MeasuredApart]).
	Apart string
}

// CompareRow is one benchmark present in both files, with the verdict of
// its first figure (cycles/op where both files have it) in one sentence.
type CompareRow struct {
	Name    string           `json:"name"`
	Unit    string           `json:"unit,omitempty"`
	Metrics []UnitComparison `json:"metrics"`
	Verdict string           `json:"verdict"`
	Summary string           `json:"summary"`
}

// UnitComparison compares one unit between the runs of each side
// ([stats.CompareRuns]): each side's typical run, B/A with its interval,
// the test and its verdict, or "no test" with a single run on a side.
type UnitComparison struct {
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

// FitComparison compares the CPE of one kernel between two cpe files.
type FitComparison struct {
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

// Compare matches a's and b's benchmarks by package, name and mode (the
// rows of their [Matrix]) and compares each figure, in cycles and ns per
// call and per element, by the spread between the runs of each side:
// Welch's t test on the logarithms of the per-run values by default
// (opt.RunTest), with a noise band of half the values' resolution or the
// systematic error of the unit, whichever is larger (the tolerance of the
// core-clock ruler for cycles; for ns and ticks, how far the two files'
// rulers say the core clock moved between them). A side with runs that
// did not converge gets no verdict but "inconclusive", and so does a
// difference found where a side has runs measured on a shared core
// (Run.Shared) or in a moment of room (Run.Room); a side with one
// run no test, and the reason says how to get runs. The CPE fits of two
// cpe files are compared too, without a test (one sweep per file).
//
// It returns an error wrapping [ErrIncomparable] when the same benchmark
// counts different element units on the two sides, shares no figure, or
// when the files have no benchmark name in common.
func Compare(a, b File, opt stats.CompareOptions) (*Comparison, error) {
	// Empty, not nil: JSON shows [].
	c := &Comparison{A: a, B: b, Rows: []CompareRow{}, Fits: []FitComparison{}, OnlyA: []string{}, OnlyB: []string{}, Apart: MeasuredApart(a, b)}
	ca, cb := a.Config(), b.Config()
	for i, kv := range ca {
		if kv[1] != "" || cb[i][1] != "" {
			c.Keys = append(c.Keys, kv[0])
		}
	}
	files := []File{a, b}
	for _, r := range matrixRows(files) {
		if r.Fit {
			if err := c.compareFits(r, opt); err != nil {
				return nil, err
			}
			continue
		}
		ia := slices.IndexFunc(a.Entries, func(e Entry) bool { return e.Pkg == r.Pkg && e.Name == r.Name && e.Mode == r.Mode })
		ib := slices.IndexFunc(b.Entries, func(e Entry) bool { return e.Pkg == r.Pkg && e.Name == r.Name && e.Mode == r.Mode })
		switch {
		case ib < 0:
			c.OnlyA = append(c.OnlyA, r.Label())
		case ia < 0:
			c.OnlyB = append(c.OnlyB, r.Label())
		default:
			row, err := c.compareEntries(r.Label(), a.Entries[ia], b.Entries[ib], opt)
			if err != nil {
				return nil, err
			}
			c.Rows = append(c.Rows, row)
		}
	}
	if len(c.Rows) == 0 && len(c.Fits) == 0 {
		return nil, fmt.Errorf("%w: %s and %s have no benchmark name in common", ErrIncomparable, a.Path, b.Path)
	}
	return c, nil
}

// compareEntries compares one benchmark, ea in A and eb in B.
func (c *Comparison) compareEntries(name string, ea, eb Entry, opt stats.CompareOptions) (CompareRow, error) {
	a, b := c.A, c.B
	ra, rb := figuresOf(&a, ea), figuresOf(&b, eb)
	if ea.Unit != "" && eb.Unit != "" && ea.Unit != eb.Unit {
		return CompareRow{}, fmt.Errorf("%w: %s counts %s in %s but %s in %s: its per-element figures cannot be compared", ErrIncomparable, name, ea.Unit, a.Path, eb.Unit, b.Path)
	}
	shared := func(u string) bool { return len(ra.values[u]) > 0 && len(rb.values[u]) > 0 }
	// The timing units first (the row's verdict is the first's), then
	// every other unit both sides have (B/op, allocs/op, a benchmark's
	// own metrics), as benchstat compares them.
	units := slices.DeleteFunc(slices.Clone(compareUnits), func(u string) bool { return !shared(u) })
	for _, u := range ra.units {
		if shared(u) && !slices.Contains(units, u) && !strings.HasPrefix(u, "ticks/") {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return CompareRow{}, fmt.Errorf("%w: %s has units [%s] in %s but [%s] in %s: no figure to compare", ErrIncomparable, name, strings.Join(ra.units, " "), a.Path, strings.Join(rb.units, " "), b.Path)
	}
	row := CompareRow{Name: name, Unit: ea.Unit}
	if row.Unit == "" {
		row.Unit = eb.Unit
	}
	// A run whose K best samples did not agree is not a figure the tool
	// vouches for: no verdict rests on it.
	var unsettled, onShared []string
	for _, side := range []struct {
		name string
		e    Entry
	}{{"A", ea}, {"B", eb}} {
		if n := notConverged(side.e); n > 0 {
			unsettled = append(unsettled, fmt.Sprintf("%d of %d runs of %s did not converge", n, len(side.e.Runs), side.name))
		}
		// A run measured while another thread had part of the core is the
		// code with less of a core: a difference resting on it is not the
		// code's.
		if n := countRuns(side.e, func(r Run) bool { return r.Shared }); n > 0 {
			onShared = append(onShared, fmt.Sprintf("%d of %d runs of %s were measured on a shared core", n, len(side.e.Runs), side.name))
		}
		// A run measured in a moment of room reads calls that overlap the
		// next low: a difference resting on it is the host's.
		if n := countRuns(side.e, func(r Run) bool { return r.Room }); n > 0 {
			onShared = append(onShared, fmt.Sprintf("%d of %d runs of %s were measured in a moment of room", n, len(side.e.Runs), side.name))
		}
	}
	for _, u := range units {
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
			o.Systematic = max(o.Systematic, rulerTolerance) // each run converts with its own ruler
		}
		rc, err := stats.CompareRuns(ra.values[u], rb.values[u], o)
		if err != nil {
			return CompareRow{}, fmt.Errorf("%w: comparing %s %s: %w", ErrIncomparable, name, u, err)
		}
		m := UnitComparison{Unit: u, A: rc.CenterA, B: rc.CenterB, Ratio: rc.Ratio, Lo: rc.Lo, Hi: rc.Hi, PValue: rc.PValue,
			SpreadA: rc.SpreadA, SpreadB: rc.SpreadB, NoiseBand: rc.NoiseBand, Detectable: rc.Detectable, Verdict: rc.Verdict, Reason: rc.Reason, CountA: rc.NA, CountB: rc.NB}
		switch {
		case !rc.Tested:
			m.Reason += "; " + c.Remedy()
		case len(unsettled) > 0:
			m.Verdict, m.Reason = stats.VerdictInconclusive, strings.Join(unsettled, ", ")+" (the test alone: "+rc.Verdict+")"
		case len(onShared) > 0 && rc.Significant:
			m.Verdict, m.Reason = stats.VerdictInconclusive, strings.Join(onShared, ", ")+", so the difference need not be the code's (the test alone: "+rc.Verdict+")"
		}
		row.Metrics = append(row.Metrics, m)
	}
	m := row.Metrics[0]
	row.Verdict = m.Verdict
	reason, _, _ := strings.Cut(m.Reason, "; ") // without the remedy, said once
	row.Summary = stats.Sentence(c.sideName(true), c.sideName(false), m.Ratio, m.Lo, m.Hi, m.Verdict, reason) + " (" + m.Unit + ")"
	return row, nil
}

// compareFits compares the fits of row r, when both files have one.
func (c *Comparison) compareFits(r Row, opt stats.CompareOptions) error {
	a, b := c.A, c.B
	ia := slices.IndexFunc(a.Fits, func(f Fit) bool { return f.Kernel == r.Name && f.Mode == r.Mode })
	ib := slices.IndexFunc(b.Fits, func(f Fit) bool { return f.Kernel == r.Name && f.Mode == r.Mode })
	if ia < 0 || ib < 0 {
		return nil
	}
	fa, fb := a.Fits[ia], b.Fits[ib]
	la, ua := fa.Primary()
	lb, ub := fb.Primary()
	if fa.Unit != fb.Unit || ua != ub {
		return fmt.Errorf("%w: the CPE of %s is in %s per %s in %s but %s per %s in %s: not comparable", ErrIncomparable, fa.Kernel, ua, ElementWord(fa.Unit), a.Path, ub, ElementWord(fb.Unit), b.Path)
	}
	if ua == "" {
		return nil
	}
	// One sweep per file: its interval describes that run only, so there
	// is nothing to judge a difference between runs by.
	rc, err := stats.CompareRuns([]float64{la.PerElement}, []float64{lb.PerElement}, opt)
	if err != nil {
		return fmt.Errorf("%w: comparing the CPE of %s: %w", ErrIncomparable, fa.Kernel, err)
	}
	c.Fits = append(c.Fits, FitComparison{Name: Row{Name: fa.Kernel, Mode: fa.Mode}.Label(), Unit: ua + "/" + ElementWord(fa.Unit),
		A: la.PerElement, ACI: la.PerElementCI, B: lb.PerElement, BCI: lb.PerElementCI, Ratio: rc.Ratio, Verdict: rc.Verdict, Reason: rc.Reason})
	return nil
}

// countRuns counts the runs of e for which the file says what is true
// of: measured while the core was shared (Run.Shared), in a moment of
// room (Run.Room), not converged (Run.NotConverged).
func countRuns(e Entry, is func(Run) bool) int {
	n := 0
	for _, r := range e.Runs {
		if is(r) {
			n++
		}
	}
	return n
}

// notConverged counts the runs of e that the file says did not converge.
func notConverged(e Entry) int { return countRuns(e, func(r Run) bool { return r.NotConverged }) }

// Remedy says how to get the runs a test needs, for the kind of files
// compared: which flag to add.
func (c *Comparison) Remedy() string {
	a, b := c.A, c.B
	switch {
	case a.Producer == ProducerGoTest || b.Producer == ProducerGoTest:
		return "measure each side with go test -bench ... -count 6 (benchstat wants 6 runs, this test 2)"
	case a.Format == FormatCPEJSON || b.Format == FormatCPEJSON:
		return fmt.Sprintf("a cpe file holds one sweep: for a test of single sizes, save each side with cyclebench run -bench KERNEL -n SIZE -o FILE (%d runs)", FileRuns)
	}
	return fmt.Sprintf("measure each side with several runs: cyclebench run -o FILE writes %d, or add -count N (at least 2)", FileRuns)
}

// sideName names file A (first true) or B in a summary: its file name,
// or "A" and "B" when the two names are the same.
func (c *Comparison) sideName(first bool) string {
	na, nb := filepath.Base(c.A.Path), filepath.Base(c.B.Path)
	if na == nb {
		na, nb = "A", "B"
	}
	if first {
		return na
	}
	return nb
}

// Primary is the fit in cycles, or in ticks without the ruler, with its
// unit; "" when it has neither.
func (f Fit) Primary() (FitLine, string) {
	switch {
	case f.Cycles.N > 0:
		return f.Cycles, "cycles"
	case f.Ticks.N > 0:
		return f.Ticks, "ticks"
	}
	return FitLine{}, ""
}

// ElementWord is the singular of an element unit: "element" for
// "elements" (and for ""), "op" for "ops".
func ElementWord(unit string) string {
	switch unit {
	case "":
		return "element"
	case "ms":
		return "ms"
	}
	return strings.TrimSuffix(unit, "s")
}

// Benchstat is the benchstat command that does the statistics benchstat
// can do on two files in the Go benchmark format ("" unless both are):
// -table "" keeps both files in one table even though their
// configuration (cpu, ...) differs, and the filter keeps the
// frequency-independent units.
func (c *Comparison) Benchstat() string {
	if c.A.Format != FormatBench || c.B.Format != FormatBench {
		return ""
	}
	return fmt.Sprintf("benchstat -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' %s %s", c.A.Path, c.B.Path)
}

// Tested reports whether m has a test (at least 2 runs per side).
func (m UnitComparison) Tested() bool { return m.Verdict != stats.VerdictNoTest }

// VerdictText is m's verdict with the size of the difference: "slower
// (+3.2%)", "no significant difference"; for no test, its reason without
// the remedy.
func (m UnitComparison) VerdictText() string {
	switch m.Verdict {
	case stats.VerdictNoTest:
		reason, _, _ := strings.Cut(m.Reason, "; ") // the remedy is said once, apart
		return reason
	case stats.VerdictSlower, stats.VerdictFaster:
		s := sigfig.Sig((m.Ratio-1)*100, 3)
		if !strings.HasPrefix(s, "-") {
			s = "+" + s
		}
		return fmt.Sprintf("%s (%s%%)", m.Verdict, s)
	}
	return m.Verdict
}

// Bars is the picture of the comparison for [plot.Compare]: B/A of each
// benchmark in the first unit they share (cycles/op where both files
// have it), with the between-run interval where there is a test; false
// when there is no bar to draw.
func (c *Comparison) Bars() (plot.Comparison, bool) {
	bars := plot.Comparison{Ratio: true, Series: []plot.BarSeries{{Name: "B/A"}}}
	for _, r := range c.Rows {
		m := r.Metrics[0]
		unit := "ratio B/A of " + m.Unit + " (95% CI between runs)"
		if bars.Unit == "" {
			bars.Unit = unit
		}
		if unit != bars.Unit || !(m.Ratio > 0) {
			continue
		}
		bar := plot.Bar{Value: m.Ratio, Label: m.Verdict}
		if m.Tested() {
			bar.Lo, bar.Hi = math.Min(m.Lo, m.Ratio), math.Max(m.Hi, m.Ratio)
		}
		bars.Groups = append(bars.Groups, r.Name)
		bars.Series[0].Bars = append(bars.Series[0].Bars, bar)
	}
	return bars, len(bars.Groups) > 0
}

// MarshalJSON writes the comparison as cyclebench compare -format json
// does: each file's path, format and configuration ("a", "b"), the rows
// ("results"), the fits ("cpe"), the benchmarks of one side only, and the
// benchstat command when both files are in the benchmark format.
func (c *Comparison) MarshalJSON() ([]byte, error) {
	type side struct {
		Path string            `json:"path"`
		Kind string            `json:"format"`
		Meta map[string]string `json:"meta"`
		// Provenance is where the file's measurements came from.
		Provenance *Provenance `json:"provenance,omitempty"`
	}
	sideOf := func(f File) side {
		s := side{Path: f.Path, Kind: f.Format.String(), Meta: map[string]string{}, Provenance: f.Provenance}
		for _, kv := range f.Config() {
			if kv[1] != "" {
				s.Meta[kv[0]] = kv[1]
			}
		}
		return s
	}
	return json.Marshal(struct {
		A         side            `json:"a"`
		B         side            `json:"b"`
		Rows      []CompareRow    `json:"results"`
		Fits      []FitComparison `json:"cpe"`
		OnlyA     []string        `json:"only_a"`
		OnlyB     []string        `json:"only_b"`
		Benchstat string          `json:"benchstat,omitempty"`
		Apart     string          `json:"measured_apart,omitempty"`
	}{sideOf(c.A), sideOf(c.B), c.Rows, c.Fits, c.OnlyA, c.OnlyB, c.Benchstat(), c.Apart})
}
