package reports

// The table of a run's results, as run, cpe and compare show it: one row
// per result with the marks on its cycle figures, and the warnings and
// legends that go with it on stderr.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
)

// ConvergedText says whether r converged: yes, nearly (usable), NO.
func ConvergedText(r harness.Result) tab.Shown {
	switch {
	case r.Converged:
		return tab.Shown{V: true, Text: "yes"}
	case results.Usable(r):
		return tab.Shown{V: false, Text: "nearly"}
	}
	return tab.Shown{V: false, Text: "NO"}
}

// CyclesCell shows a cycle figure, marked "!" when the core was shared
// (SharedNote), "<" when the core had more room than usual (RoomNote),
// "~" when the core-clock ruler behind it did not converge,
// "?" when nothing could check it and "*" when it is the samples' 5th
// percentile (QuantileNote); "-" without cycles (a refused ruler, or none).
func CyclesCell(r harness.Result, v float64, digits int) any {
	if r.CyclesPerTick <= 0 {
		return nil
	}
	mark := ""
	if r.Shared {
		mark = "!"
	}
	if !r.ReferenceConverged {
		mark += "~"
	}
	if r.Room {
		mark += "<"
	}
	if uncheckedRuler(r) {
		mark += "?"
	}
	if r.Quantile > 0 {
		mark += "*"
	}
	if mark != "" {
		return tab.Shown{V: v, Text: mark + sigfig.Sig(v, digits)}
	}
	return v
}

// uncheckedRuler reports a cycle figure from a ruler measured in this run
// that no second chain could check (results read from files do not say).
func uncheckedRuler(r harness.Result) bool {
	return r.CyclesPerTick > 0 && r.CyclesSource == "ruler" && !r.CyclesChecked && r.Ruler.AddTicksPerOp > 0
}

// RulerNote is the legend of the "~" mark, UncheckedNote of the "?" mark,
// SharedNote of the "!" mark, RoomNote of the "<" mark, QuantileNote of
// the "*" mark.
const (
	QuantileNote  = "* marks figures that are the 5th percentile of the samples, not the best: the code's cost varies from call to call, its best sample was a rare call that would not repeat (harness.ErrNoFloor)"
	SharedNote    = "! marks figures measured on a shared core (another hardware thread had part of it to the end): code bound by the front end or by branches reads slow"
	RoomNote      = "< marks figures measured while the core had more room than usual (the host's other hardware thread left it for longer than the measurement waits, harness.ErrRoom): calls that overlap the next may read low; measure again"
	RulerNote     = "~ marks cycles converted with a core-clock ruler (the register ADD chain measured alongside) that did not converge: less certain"
	UncheckedNote = "? marks cycles from a core-clock ruler that no second chain could check on this processor (see the calibration's warning)"
)

// ResultWarnings lists every warning of a run for stderr
// ([Warnings]), and the legends of the table's marks it needs.
func ResultWarnings(h results.Header, rs []results.Measurement) []Warning {
	ws := Warnings(h, withFigures(rs))
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.CyclesPerTick > 0 && !r.ReferenceConverged }) {
		ws = append(ws, Warning{Text: RulerNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return uncheckedRuler(r.Result) }) {
		ws = append(ws, Warning{Text: UncheckedNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.Shared }) {
		ws = append(ws, Warning{Text: SharedNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.Room }) {
		ws = append(ws, Warning{Text: RoomNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.Quantile > 0 }) {
		ws = append(ws, Warning{Text: QuantileNote})
	}
	return ws
}

// ResultTable is the table of results: one row per result; the text
// rendering shows the main figures, CSV every column.
func ResultTable(h results.Header, rs []results.Measurement) *tab.Table {
	t := &tab.Table{Cols: []tab.Col{
		{Name: "name", Left: true}, {Name: "mode", CSV: true}, {Name: "kernel", CSV: true}, {Name: "n", CSV: true},
		{Name: "cycles"}, {Name: "ticks"}, {Name: "ns"},
		{Name: "elements", CSV: true}, {Name: "cycles/elem", Key: "cycles_per_element", Digits: 4},
		{Name: "ticks_per_element", CSV: true}, {Name: "ns_per_element", CSV: true},
		{Name: "unit", Left: true}, {Name: "R", Key: "repeat"}, {Name: "samples"}, {Name: "discarded"},
		{Name: "cs/mig/pf", Key: "-"}, {Name: "disturbed_context_switches", CSV: true},
		{Name: "disturbed_migrations", CSV: true}, {Name: "disturbed_page_faults", CSV: true},
		{Name: "spread", Digits: 3}, {Name: "converged", Left: true}, {Name: "usable", CSV: true},
		{Name: "overhead_ticks", CSV: true}, {Name: "core_cycles_per_tick", CSV: true}, {Name: "ruler_converged", CSV: true},
		{Name: "cycles_source", CSV: true}, {Name: "tsc_hz", CSV: true}, {Name: "cpu", CSV: true}, {Name: "shared", CSV: true}, {Name: "room", CSV: true}, {Name: "quantile", CSV: true},
	}}
	// One column per extra event counted (Config.Events), when any was.
	events := events(rs)
	for _, ev := range events {
		t.Cols = append(t.Cols, tab.Col{Name: ev + "/op", Key: strings.ReplaceAll(ev, "-", "_") + "_per_op"})
	}
	others := otherUnits(rs) // B/op, allocs/op, MB/s, a benchmark's own units
	for _, u := range others {
		t.Cols = append(t.Cols, tab.Col{Name: u, Key: unitKey(u)})
	}
	t.Cols = append(t.Cols, tab.Col{Name: "check", CSV: true}, tab.Col{Name: "warnings", CSV: true})
	if len(rs) == 0 && len(h.Warnings) > 0 {
		// No result to carry them: one row with only the warnings, so that
		// a run interrupted before its first result still says why.
		row := make([]any, len(t.Cols))
		row[len(row)-1] = strings.Join(h.Warnings, "\n")
		t.Add(row...)
	}
	for _, r := range rs {
		var epc, tpe, npe, elems any
		if r.PerElement {
			elems, epc, tpe, npe = r.Elements, CyclesCell(r.Result, r.CyclesPerElement, 4), r.TicksPerElement, r.NsPerElement
		}
		var ticks, ns any = r.Ticks, r.Nanoseconds
		if r.CyclesPerTick <= 0 { // no cycle figure to carry the marks
			mark := ""
			if r.Shared {
				mark = "!"
			}
			if r.Room {
				mark += "<"
			}
			if r.Quantile > 0 {
				mark += "*"
			}
			if mark != "" {
				ns = tab.Shown{V: r.Nanoseconds, Text: mark + sigfig.Sig(r.Nanoseconds, 6)}
			}
		}
		if r.NoTicks {
			ticks, tpe = nil, nil
		}
		var repeat, samples, discarded, spread any = r.Repeat, r.Samples, r.Discarded, SpreadCell(r.Spread)
		if r.Read && r.Samples == 0 { // a go test line does not say
			repeat, samples, discarded, spread = nil, nil, nil, nil
		}
		// The warnings cell holds one warning per line (a quoted CSV field
		// may contain newlines; warnings themselves are single lines).
		warn := strings.Join(append(slices.Clone(h.Warnings), results.ErrorStrings(r.Warnings)...), "\n")
		d := r.Disturbed
		var dist any // "-" where the switches and faults could not be read
		if d.Monitored {
			dist = fmt.Sprintf("%d/%d/%d", d.ContextSwitches, d.Migrations, d.PageFaults)
		}
		row := []any{r.Name, r.Mode.String(), r.Kernel, r.N,
			CyclesCell(r.Result, r.Cycles, 6), ticks, ns,
			elems, epc, tpe, npe,
			orDash(r.Unit), repeat, samples, discarded,
			dist, d.ContextSwitches, d.Migrations, d.PageFaults,
			spread, convergedCell(r), results.Usable(r.Result),
			r.OverheadTicks, r.CyclesPerTick, r.ReferenceConverged,
			r.CyclesSource, r.TicksPerSecond, r.CPU, r.Shared, r.Room, r.Quantile}
		for _, ev := range events {
			var v any
			if c, ok := r.CounterValue(ev); ok {
				v = c
			}
			row = append(row, v)
		}
		row = append(row, otherCells(r, others)...)
		t.Add(append(row, r.Check, warn)...)
	}
	return t
}

// withFigures rewords, for stderr, harness's "no core-cycle estimate" on a
// result that has a cycle figure all the same (from a ruler that did not
// converge, marked ~, or from the calibration's ratio): a line beside the
// figure must not deny it. The remedy is the original warning's; JSON
// keeps the library's words.
func withFigures(rs []results.Measurement) []results.Measurement {
	prefix := harness.ErrNoCycles.Error() + ": "
	out := slices.Clone(rs)
	for i, r := range out {
		if r.CyclesPerTick <= 0 || !slices.ContainsFunc(r.Warnings, func(w error) bool { return strings.HasPrefix(w.Error(), prefix) }) {
			continue
		}
		ws := slices.Clone(r.Warnings)
		for j, w := range ws {
			if t := w.Error(); strings.HasPrefix(t, prefix) {
				text := "harness: cycles less certain: " + strings.TrimSuffix(strings.TrimPrefix(t, prefix), "; the cycle estimate is less certain")
				if rem := harness.Remedy(t); rem != "" {
					text += "; remedy: " + rem
				}
				ws[j] = errors.New(text)
			}
		}
		out[i].Warnings = ws
	}
	return out
}

// SpreadCell shows a K-best spread as a percentage ("-" before K samples).
func SpreadCell(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return tab.Shown{V: v, Text: sigfig.Percent(v, 3)}
}

// bothModesTable lays out results of both modes side by side: one row per
// kernel (and repetition), each figure in a throughput and a latency
// column. A result without its partner (an interrupted run) leaves the
// other columns "-".
func bothModesTable(rs []results.Measurement) *tab.Table {
	t := &tab.Table{Cols: []tab.Col{{Name: "name", Left: true}, {Name: "cycles thru"}, {Name: "cycles lat"}, {Name: "ticks thru"}, {Name: "ticks lat"},
		{Name: "ns thru"}, {Name: "ns lat"}, {Name: "cycles/elem thru", Digits: 4}, {Name: "cycles/elem lat", Digits: 4}, {Name: "unit", Left: true}, {Name: "converged", Left: true}}}
	for i := 0; i < len(rs); i++ {
		var side [2]*results.Measurement // throughput, latency
		side[rs[i].Mode] = &rs[i]
		if i+1 < len(rs) && rs[i+1].Name == rs[i].Name && rs[i+1].Mode != rs[i].Mode {
			side[rs[i+1].Mode] = &rs[i+1]
			i++
		}
		row := []any{rs[i].Name}
		for _, f := range []func(r *results.Measurement) any{
			func(r *results.Measurement) any { return CyclesCell(r.Result, r.Cycles, 6) },
			func(r *results.Measurement) any { return r.Ticks },
			func(r *results.Measurement) any { return r.Nanoseconds },
			func(r *results.Measurement) any {
				if !r.PerElement {
					return nil
				}
				return CyclesCell(r.Result, r.CyclesPerElement, 4)
			},
		} {
			for _, r := range side {
				if r == nil {
					row = append(row, nil)
				} else {
					row = append(row, f(r))
				}
			}
		}
		conv := []string{"-", "-"}
		for j, r := range side {
			if r != nil {
				conv[j] = ConvergedText(r.Result).Text
			}
		}
		row = append(row, orDash(rs[i].Unit), conv[0]+"/"+conv[1])
		t.Add(row...)
	}
	return t
}

// events lists the extra performance-counter events any of ms counted
// (harness.Config.Events), in the order they first appear.
func events(ms []results.Measurement) []string {
	var evs []string
	for _, m := range ms {
		for _, c := range m.Counters {
			if !slices.Contains(evs, c.Event) {
				evs = append(evs, c.Event)
			}
		}
	}
	return evs
}

// modes lists the modes of ms in the order they first appear.
func modes(ms []results.Measurement) []harness.Mode {
	var modes []harness.Mode
	for _, m := range ms {
		if !slices.Contains(modes, m.Mode) {
			modes = append(modes, m.Mode)
		}
	}
	return modes
}

// convergedCell is a result's converged cell: "n/a (testing.B)" for a
// benchmark the testing package timed (there are no K best samples to
// agree), else ConvergedText.
func convergedCell(m results.Measurement) any {
	if m.TestingB() {
		return "n/a (testing.B)"
	}
	return ConvergedText(m.Result)
}

// otherUnits are the units of the results' other figures (B/op,
// allocs/op, MB/s, a benchmark's own), in the order first seen.
func otherUnits(rs []results.Measurement) []string {
	var units []string
	for _, r := range rs {
		for _, v := range r.Other {
			if !slices.Contains(units, v.Unit) {
				units = append(units, v.Unit)
			}
		}
	}
	return units
}

// otherCells are r's figures in units, nil ("-") where r has none.
func otherCells(r results.Measurement, units []string) []any {
	cells := make([]any, len(units))
	for i, u := range units {
		for _, v := range r.Other {
			if v.Unit == u {
				cells[i] = v.Value
			}
		}
	}
	return cells
}

// unitKey is a unit as a CSV column name: "B/op" is "B_per_op".
func unitKey(u string) string {
	return strings.NewReplacer("/", "_per_", " ", "_", "-", "_").Replace(u)
}

// ResultsDoc is the text (markdown when md) of a run's results: the
// header's line, then one table, or, with both modes, the two side by
// side.
func ResultsDoc(h results.Header, rs []results.Measurement, md bool) *tab.Doc {
	modes := modes(rs)
	d := tab.NewDoc(md)
	line := h.Line()
	if len(modes) == 1 && !h.ModeUnknown {
		line += "  mode: " + modes[0].String()
	}
	d.Line(line)
	t := ResultTable(h, rs)
	if len(modes) > 1 {
		t = bothModesTable(rs)
	}
	d.Table(t)
	return d
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
