package main

import (
	"fmt"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

// table is the one table model of the report, rendered as Markdown (which
// reads as plain text on a terminal too).
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
}

// markdown writes t as a Markdown section: title, table, notes.
func (t table) markdown(w io.Writer) {
	fmt.Fprintf(w, "## %s\n\n", t.Title)
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	row := func(cells []string) {
		parts := make([]string, len(t.Header))
		for i := range parts {
			if i < len(cells) {
				parts[i] = cell(cells[i])
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(parts, " | "))
	}
	row(t.Header)
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range t.Rows {
		row(r)
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range t.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
	fmt.Fprintln(w)
}

// sig formats v as the tables show a figure: three significant digits
// ([sigfig.Sig]), and "—" where there is no figure.
func sig(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return sigfig.Sig(v, 3)
}

// pct formats a fraction as a percentage with about three significant digits.
func pct(f float64) string {
	if math.IsNaN(f) {
		return "—"
	}
	return sig(f*100) + "%"
}

// dash is the cell of a figure that could not be obtained: "—" and why.
func dash(why string) string {
	if why == "" {
		return "—"
	}
	return "— (" + why + ")"
}

// series is one tool's figures for one kernel, one per process.
type series struct {
	Cycles []float64
	Ns     []float64
	// Why collects the reasons of results with no cycle figure.
	Why []string
	// Labelled counts the cycle figures cyclebench labelled (the core
	// shared, its ruler's ADD chain still lagging, or the core with more
	// room than usual, at the end).
	Labelled int
}

// add records one result; cycles 0 means no cycle figure, for reason why.
func (s *series) add(cycles, ns float64, why string) {
	if ns > 0 {
		s.Ns = append(s.Ns, ns)
	}
	if cycles > 0 {
		s.Cycles = append(s.Cycles, cycles)
	} else if why != "" {
		s.Why = append(s.Why, why)
	}
}

// reason summarises why results had no cycle figure.
func (s *series) reason() string {
	if s == nil || len(s.Why) == 0 {
		return "not measured"
	}
	w := slices.Clone(s.Why)
	slices.Sort(w)
	w = slices.Compact(w)
	return strings.Join(w, "; ")
}

// tool is one row of the tables.
type tool struct {
	ID    string
	Label string
	// From says how its cycles were obtained.
	From string
}

// accuracyTable is table 1: the median over the processes of each tool's
// cycles per call, with the range.
func accuracyTable(tools []tool, ks []kernels.Kernel, data map[string]map[string]*series, reps int) table {
	t := table{Title: "1. Accuracy: core cycles per call (median of the processes; range)"}
	t.Header = []string{"tool", "cycles from"}
	for _, k := range ks {
		truth := "truth —"
		if k.Truth > 0 {
			truth = "truth " + sig(k.Truth)
		}
		t.Header = append(t.Header, fmt.Sprintf("%s (%s)", k.Name, truth))
	}
	for _, tl := range tools {
		r := []string{tl.Label, tl.From}
		for _, k := range ks {
			s := data[tl.ID][k.Key]
			if s == nil || len(s.Cycles) == 0 {
				r = append(r, dash(s.reason()))
				continue
			}
			c := slices.Clone(s.Cycles)
			cell := fmt.Sprintf("%s (%s–%s)", sig(median(c)), sig(slices.Min(c)), sig(slices.Max(c)))
			if len(c) < reps {
				cell += fmt.Sprintf(", %d of %d results", len(c), reps)
			}
			r = append(r, cell)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// spreadMeasure is how table 2 and 2b measure the spread of a series.
type spreadMeasure struct {
	Title string
	Of    func([]float64) float64
}

// byCV is table 2's measure: the CV, which the target names.
var byCV = spreadMeasure{"2. Spread: CV of the results, one per process (in cycles; in ns)", cv}

// byMAD is table 2b's: the robust spread, 1.4826 × MAD / median, which one
// process in ten caught in another machine state moves little.
var byMAD = spreadMeasure{"2b. Spread, robust: 1.4826 × MAD / median of the results, one per process (in cycles; in ns)", robustSpread}

// isCyclebench reports whether tl is one of cyclebench's own rows.
func isCyclebench(tl tool) bool { return strings.HasPrefix(tl.ID, "cyclebench") }

// spreadTable is table 2 (or 2b): each tool's spread over the processes,
// in cycles and in nanoseconds, measured by m; then the best peer's spread
// in cycles per kernel and, for each cyclebench row, how many times below
// it cyclebench's is.
func spreadTable(tools []tool, ks []kernels.Kernel, data map[string]map[string]*series, m spreadMeasure) table {
	t := table{Title: m.Title}
	t.Header = []string{"tool"}
	for _, k := range ks {
		t.Header = append(t.Header, k.Name)
	}
	for _, tl := range tools {
		r := []string{tl.Label}
		for _, k := range ks {
			s := data[tl.ID][k.Key]
			switch {
			case s == nil || len(s.Ns) < 2:
				r = append(r, dash("fewer than 2 results"))
			case len(s.Cycles) < 2:
				r = append(r, fmt.Sprintf("— (%s); ns %s", s.reason(), pct(m.Of(s.Ns))))
			case s.Labelled > 0:
				r = append(r, fmt.Sprintf("%s; ns %s (n=%d, %d labelled)", pct(m.Of(s.Cycles)), pct(m.Of(s.Ns)), len(s.Cycles), s.Labelled))
			default:
				r = append(r, fmt.Sprintf("%s; ns %s (n=%d)", pct(m.Of(s.Cycles)), pct(m.Of(s.Ns)), len(s.Cycles)))
			}
		}
		t.Rows = append(t.Rows, r)
	}
	best := []string{"best peer (the lowest spread in cycles of the tools not cyclebench)"}
	bestOf := make([]float64, len(ks))
	for i, k := range ks {
		bestOf[i] = math.NaN()
		who := ""
		for _, tl := range tools {
			if s := data[tl.ID][k.Key]; !isCyclebench(tl) && s != nil && len(s.Cycles) >= 2 {
				if v := m.Of(s.Cycles); !math.IsNaN(v) && !(v >= bestOf[i]) {
					bestOf[i], who = v, tl.Label
				}
			}
		}
		if who == "" {
			best = append(best, dash("no peer with 2 results"))
			continue
		}
		best = append(best, fmt.Sprintf("%s: %s", pct(bestOf[i]), who))
	}
	t.Rows = append(t.Rows, best)
	for _, tl := range tools {
		if !isCyclebench(tl) {
			continue
		}
		r := []string{tl.Label + ": times below the best peer"}
		for i, k := range ks {
			s := data[tl.ID][k.Key]
			if s == nil || len(s.Cycles) < 2 || math.IsNaN(bestOf[i]) {
				r = append(r, "—")
				continue
			}
			v := m.Of(s.Cycles)
			if v == 0 {
				r = append(r, "— (no spread at all)")
				continue
			}
			r = append(r, sig(bestOf[i]/v)+"×")
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// pair is one detection test: ADD chains of A and B links.
type pair struct {
	Label string
	A, B  int
}

// detectionPairs are the pairs of the detection table; the last is A/A.
var detectionPairs = []pair{
	{"+1%", 10000, 10100},
	{"+0.1%", 10000, 10010},
	{"+0.03%", 10000, 10003},
	{"+0.01%", 10000, 10001},
	{"A/A", 10000, 10000},
}

// cellCount formats a tally as "k/n", or "—" and why when nothing ran.
func cellCount(t *tally) string {
	if t == nil || t.N == 0 {
		if t != nil && len(t.Errs) > 0 {
			return dash(t.Errs[0])
		}
		return dash("not run")
	}
	s := fmt.Sprintf("%d/%d", t.Detected, t.N)
	if t.More > 0 {
		s += fmt.Sprintf(" (%d took more blocks)", t.More)
	}
	if len(t.Errs) > 0 {
		s += fmt.Sprintf(" (%d gave no verdict: %s)", len(t.Errs), t.Errs[0])
	}
	return s
}

// detectionTable is table 3: how many comparisons of each pair found a
// difference, per tool, and the median time of one comparison.
func detectionTable(tools []tool, pairs []pair, data map[string]map[string]*tally) table {
	t := table{Title: "3. Detection: comparisons that found a difference (A/A: false positives)"}
	t.Header = []string{"tool", "rule"}
	for _, p := range pairs {
		what := "detected"
		if p.A == p.B {
			what = "false positives"
		}
		t.Header = append(t.Header, fmt.Sprintf("%s (%d vs %d ADDs) %s", p.Label, p.A, p.B, what))
	}
	t.Header = append(t.Header, "time per comparison (median; range)")
	for _, tl := range tools {
		r := []string{tl.Label, tl.From}
		var secs []float64
		for _, p := range pairs {
			tal := data[tl.ID][p.Label]
			r = append(r, cellCount(tal))
			if tal != nil {
				secs = append(secs, tal.Seconds...)
			}
		}
		if len(secs) == 0 {
			r = append(r, "—")
		} else {
			r = append(r, fmt.Sprintf("%s s (%s–%s)", sig(median(slices.Clone(secs))), sig(slices.Min(secs)), sig(slices.Max(secs))))
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// startupRow is one program's exec-to-exit times and the figure it printed.
type startupRow struct {
	Label string
	What  string
	// Ms are the exec-to-exit times in milliseconds.
	Ms []float64
	// Figure is the first run's result as printed ("" when it prints none).
	Figure string
	Why    string
	// Waits are the times in ms the runs that waited for a shared core
	// waited (harness.Result.RulerWait), and Lagged counts the runs whose
	// ruler still lagged at the end (a warning, harness.ErrRulerLag).
	Waits  []float64
	Lagged int
}

// startupTable is table 4: exec to exit, median and range.
func startupTable(rows []startupRow) table {
	t := table{Title: "4. Start-up: exec to exit, a first result of a ~1 µs kernel"}
	t.Header = []string{"program", "what it does", "exec to exit, median (ms)", "range (ms)", "its figure"}
	for _, r := range rows {
		if len(r.Ms) == 0 {
			t.Rows = append(t.Rows, []string{r.Label, r.What, dash(r.Why), "—", "—"})
			continue
		}
		fig := r.Figure
		if fig == "" {
			fig = "—"
		}
		if len(r.Waits) > 0 {
			fig += fmt.Sprintf("; %d of %d runs waited for a shared core, %s–%s ms", len(r.Waits), len(r.Ms), sig(slices.Min(r.Waits)), sig(slices.Max(r.Waits)))
		}
		if r.Lagged > 0 {
			fig += fmt.Sprintf("; in %d of %d the ruler still lagged (a warning: the cycles may read low)", r.Lagged, len(r.Ms))
		}
		med := sig(median(slices.Clone(r.Ms)))
		if r.Why != "" {
			med += " (" + r.Why + ")"
		}
		t.Rows = append(t.Rows, []string{r.Label, r.What,
			fmt.Sprintf("%s (n=%d)", med, len(r.Ms)),
			fmt.Sprintf("%s–%s", sig(slices.Min(r.Ms)), sig(slices.Max(r.Ms))), fig})
	}
	return t
}
