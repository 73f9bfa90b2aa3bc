package reports

// The renderings of clocks' reports as text and CSV.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/internal/tab"
)

// formatNs is a time in ns as a duration ("1.5µs").
func formatNs(ns int64) string { return time.Duration(ns).String() }

// kbestRow is the name of the K-best figure's row.
const kbestRow = "cyclebench (K-best)"

// Doc is the report as text: the head, the clocks, and per kernel its
// readings by clock with the verdict.
func (r ClocksReport) Doc() *tab.Doc {
	d := tab.NewDoc(false)
	for _, l := range r.Head() {
		d.Line(l)
	}
	d.Blank()
	t := &tab.Table{Cols: []tab.Col{{Name: "clock", Left: true}, {Name: "resolution"}, {Name: "empty interval"}, {Name: "source", Left: true}}}
	for _, c := range r.Clocks {
		t.Add(c.Clock, formatNs(c.ResolutionNs), formatNs(c.EmptyNs), c.Source)
	}
	d.Table(t)
	for _, k := range r.Kernels {
		unit, div := k.DisplayUnit()
		d.Blank()
		d.Heading(fmt.Sprintf("%s (%s; times in %s)", k.Name, orDash(k.Unit), unit))
		t := &tab.Table{Cols: []tab.Col{{Name: "clock", Left: true}}}
		for i := range r.Reps {
			t.Cols = append(t.Cols, tab.Col{Name: strconv.Itoa(i + 1)})
		}
		t.Cols = append(t.Cols, tab.Col{Name: "min"}, tab.Col{Name: "median"}, tab.Col{Name: "spread"}, tab.Col{Name: "resolution"})
		if k.KBest != nil {
			t.Cols = append(t.Cols, tab.Col{Name: "cycles", Digits: 7}, tab.Col{Name: "vs K-best"})
		}
		in := func(ns float64) string { return strconv.FormatFloat(ns/div, 'f', 6, 64) }
		for _, m := range k.Methods {
			row := []any{m.Clock}
			for _, v := range m.ReadingsNs {
				row = append(row, in(float64(v)))
			}
			spread := "-"
			if m.Spread != nil {
				spread = sigfig.Percent(*m.Spread, 3)
			}
			row = append(row, in(float64(m.MinNs)), in(float64(m.MedianNs)), spread, formatNs(m.ResolutionNs))
			if k.KBest != nil {
				vs := "-"
				if m.DiffFromKBest != nil {
					vs = sigfig.Signed(100**m.DiffFromKBest, 3) + "%"
				}
				row = append(row, nil, vs)
			}
			t.Add(row...)
		}
		if kb := k.KBestResult; kb != nil {
			// One figure from many runs: no repetitions, no spread of
			// single readings; its converged flag in the last column.
			row := []any{kbestRow}
			for range r.Reps {
				row = append(row, nil)
			}
			t.Add(append(row, in(kb.Nanoseconds), nil, nil, nil, CyclesCell(*kb, kb.Cycles, 7), kbestConverged(*kb))...)
		}
		d.Table(t)
		verdicts(d, k.Verdict)
	}
	return d
}

// verdicts writes a report's verdict lines as a list.
func verdicts(d *tab.Doc, vs []string) {
	d.Line("verdict:")
	for _, v := range vs {
		d.Item("  " + v)
	}
}

// kbestConverged says whether a K-best figure converged: "converged",
// "nearly converged" (its K best agree within 2ε), or "NOT converged".
func kbestConverged(r harness.Result) tab.Shown {
	switch c := ConvergedText(r); c.Text {
	case "yes":
		return tab.Shown{V: true, Text: "converged"}
	case "nearly":
		return tab.Shown{V: false, Text: "nearly converged"}
	}
	return tab.Shown{V: false, Text: "NOT converged"}
}

// Table is one row per kernel and clock, with one column per repetition,
// times in nanoseconds.
func (r ClocksReport) Table() *tab.Table {
	t := &tab.Table{}
	names := []string{"kernel", "unit", "clock", "source", "resolution_ns", "empty_ns"}
	for i := range r.Reps {
		names = append(names, fmt.Sprintf("rep%d_ns", i+1))
	}
	names = append(names, "min_ns", "median_ns", "max_ns", "spread", "zeros", "resolves", "reference", "diff_from_reference", "agrees", "diff_from_kbest", "cycles", "converged", "check")
	for _, n := range names {
		t.Cols = append(t.Cols, tab.Col{Name: n})
	}
	opt := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, k := range r.Kernels {
		for _, m := range k.Methods {
			row := []any{k.Name, k.Unit, m.Clock, m.Source, m.ResolutionNs, m.EmptyNs}
			for _, v := range m.ReadingsNs {
				row = append(row, v)
			}
			t.Add(append(row, m.MinNs, m.MedianNs, m.MaxNs, opt(m.Spread), m.Zeros, m.Resolves, k.Reference, opt(m.DiffFromReference), m.Agrees, opt(m.DiffFromKBest), nil, nil, k.Check)...)
		}
		if kb := k.KBest; kb != nil {
			// The K-best figure in min_ns (ns per call, overhead
			// subtracted), its cycles and whether it converged; what
			// describes single readings stays empty.
			row := []any{k.Name, k.Unit, kbestRow, "harness K-best", nil, nil}
			for range r.Reps {
				row = append(row, nil)
			}
			var cycles any
			if kb.Cycles != nil && *kb.Cycles > 0 {
				cycles = *kb.Cycles
			}
			t.Add(append(row, kb.Nanoseconds, nil, nil, nil, nil, nil, k.Reference, nil, nil, nil, cycles, kb.Converged, k.Check)...)
		}
	}
	return t
}

// Doc is the report as text: the head, the kernels' time and CPU
// shares, and the verdict.
func (r UtilisationReport) Doc() *tab.Doc {
	d := tab.NewDoc(false)
	for _, l := range r.Head() {
		d.Line(l)
	}
	d.Blank()
	numCPU := 0
	for _, k := range r.Kernels {
		numCPU = max(numCPU, k.NumCPU)
	}
	t := &tab.Table{Cols: []tab.Col{{Name: "kernel", Left: true}, {Name: "wall"}, {Name: "process cpu"}, {Name: "thread cpu"}, {Name: "% of one cpu"},
		{Name: fmt.Sprintf("%% of all %d cpus", numCPU)}, {Name: "system busy %"}}}
	us := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, k := range r.Kernels {
		t.Add(k.Name, us(k.WallNs), us(k.ProcessCPUNs), us(k.ThreadCPUNs), f2(k.OfOneCPU), f2(k.OfAllCPUs), f2(k.SystemBusy))
	}
	d.Table(t)
	verdicts(d, r.Verdict)
	return d
}

// Table is one row per kernel, times in nanoseconds.
func (r UtilisationReport) Table() *tab.Table {
	t := &tab.Table{}
	for _, n := range []string{"kernel", "wall_ns", "process_cpu_ns", "thread_cpu_ns", "of_one_cpu_pct", "of_all_cpus_pct", "num_cpu", "system_busy_pct", "tick_share_pct", "source", "check"} {
		t.Cols = append(t.Cols, tab.Col{Name: n})
	}
	for _, k := range r.Kernels {
		t.Add(k.Name, k.WallNs, k.ProcessCPUNs, k.ThreadCPUNs, k.OfOneCPU, k.OfAllCPUs, k.NumCPU, k.SystemBusy, k.TickShare, k.Source, k.Check)
	}
	return t
}
