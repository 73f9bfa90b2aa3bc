package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

var resultFormats = []string{formatTable, formatBench, formatJSON, formatCSV, formatMD}

// convergedRule says when a result converges, as harness decides it
// (harness/converge.go, decide.go): said once for run -h and README.md,
// which readme_test.go holds to it.
const convergedRule = "with the core-clock ruler (the default), the cycle figures of the even and of the odd rounds " +
	"agree within ε (or two counter quanta), each from at least K samples; with -no-cycles, the K best samples agree within ε"

// convergedText says whether r converged: yes, nearly (usable), NO.
func convergedText(r harness.Result) shown {
	switch {
	case r.Converged:
		return shown{V: true, Text: "yes"}
	case results.Usable(r):
		return shown{V: false, Text: "nearly"}
	}
	return shown{V: false, Text: "NO"}
}

// cyclesCell shows a cycle figure, marked "!" when the core was shared
// (sharedNote), "~" when the core-clock ruler behind it did not converge
// and "?" when nothing could check it; "-" without cycles (a refused
// ruler, or none).
func cyclesCell(r harness.Result, v float64, digits int) any {
	if r.CyclesPerTick <= 0 {
		return nil
	}
	mark := ""
	if r.Shared {
		mark = "!"
	}
	if !r.ReferenceConverged {
		mark = "~"
	}
	if uncheckedRuler(r) {
		mark += "?"
	}
	if mark != "" {
		return shown{V: v, Text: mark + sig(v, digits)}
	}
	return v
}

// uncheckedRuler reports a cycle figure from a ruler measured in this run
// that no second chain could check (results read from files do not say).
func uncheckedRuler(r harness.Result) bool {
	return r.CyclesPerTick > 0 && r.CyclesSource == "ruler" && !r.CyclesChecked && r.Ruler.AddTicksPerOp > 0
}

// rulerNote is the legend of the "~" mark, uncheckedNote of the "?" mark,
// sharedNote of the "!" mark.
const (
	sharedNote    = "! marks figures measured on a shared core (another hardware thread had part of it to the end): code bound by the front end or by branches reads slow"
	rulerNote     = "~ marks cycles converted with a core-clock ruler (the register ADD chain measured alongside) that did not converge: less certain"
	uncheckedNote = "? marks cycles from a core-clock ruler that no second chain could check on this processor (see the calibration's warning)"
)

// writeResults writes rs in format to w.
func writeResults(w io.Writer, format string, h results.Header, rs []results.Measurement) error {
	h, rs = h.HoistMeasurements(rs)
	switch format {
	case formatBench:
		return results.WriteBench(w, h, rs)
	case formatJSON:
		return writeJSON(w, results.NewRunReport(h, rs))
	case formatCSV:
		return resultTable(h, rs).WriteCSV(w)
	}
	modes := modes(rs)
	d := newDoc(format)
	line := h.Line()
	if len(modes) == 1 && !h.ModeUnknown {
		line += "  mode: " + modes[0].String()
	}
	d.Line(line)
	t := resultTable(h, rs)
	if len(modes) > 1 {
		t = bothModesTable(rs)
	}
	d.Table(t)
	return d.Render(w)
}

// resultWarnings lists every warning of a run for stderr
// (reports.Warnings), and the legends of the table's marks it needs.
func resultWarnings(h results.Header, rs []results.Measurement) []reports.Warning {
	ws := reports.Warnings(h, withFigures(rs))
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.CyclesPerTick > 0 && !r.ReferenceConverged }) {
		ws = append(ws, reports.Warning{Text: rulerNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return uncheckedRuler(r.Result) }) {
		ws = append(ws, reports.Warning{Text: uncheckedNote})
	}
	if slices.ContainsFunc(rs, func(r results.Measurement) bool { return r.Shared }) {
		ws = append(ws, reports.Warning{Text: sharedNote})
	}
	return ws
}

// resultTable is the table of results: one row per result; the text
// rendering shows the main figures, CSV every column.
func resultTable(h results.Header, rs []results.Measurement) *table {
	t := &table{Cols: []col{
		{Name: "name", Left: true}, {Name: "mode", CSV: true}, {Name: "kernel", CSV: true}, {Name: "n", CSV: true},
		{Name: "cycles"}, {Name: "ticks"}, {Name: "ns"},
		{Name: "elements", CSV: true}, {Name: "cycles/elem", Key: "cycles_per_element", Digits: 4},
		{Name: "ticks_per_element", CSV: true}, {Name: "ns_per_element", CSV: true},
		{Name: "unit", Left: true}, {Name: "R", Key: "repeat"}, {Name: "samples"}, {Name: "discarded"},
		{Name: "cs/mig/pf", Key: "-"}, {Name: "disturbed_context_switches", CSV: true},
		{Name: "disturbed_migrations", CSV: true}, {Name: "disturbed_page_faults", CSV: true},
		{Name: "spread", Digits: 3}, {Name: "converged", Left: true}, {Name: "usable", CSV: true},
		{Name: "overhead_ticks", CSV: true}, {Name: "core_cycles_per_tick", CSV: true}, {Name: "ruler_converged", CSV: true},
		{Name: "cycles_source", CSV: true}, {Name: "tsc_hz", CSV: true}, {Name: "cpu", CSV: true}, {Name: "shared", CSV: true},
	}}
	// One column per extra event counted (Config.Events), when any was.
	events := events(rs)
	for _, ev := range events {
		t.Cols = append(t.Cols, col{Name: ev + "/op", Key: strings.ReplaceAll(ev, "-", "_") + "_per_op"})
	}
	others := otherUnits(rs) // B/op, allocs/op, MB/s, a benchmark's own units
	for _, u := range others {
		t.Cols = append(t.Cols, col{Name: u, Key: unitKey(u)})
	}
	t.Cols = append(t.Cols, col{Name: "check", CSV: true}, col{Name: "warnings", CSV: true})
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
			elems, epc, tpe, npe = r.Elements, cyclesCell(r.Result, r.CyclesPerElement, 4), r.TicksPerElement, r.NsPerElement
		}
		var ticks, ns any = r.Ticks, r.Nanoseconds
		if r.Shared && r.CyclesPerTick <= 0 { // no cycle figure to carry the mark
			ns = shown{V: r.Nanoseconds, Text: "!" + sig(r.Nanoseconds, 6)}
		}
		if r.NoTicks {
			ticks, tpe = nil, nil
		}
		var repeat, samples, discarded, spread any = r.Repeat, r.Samples, r.Discarded, spreadCell(r.Spread)
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
			cyclesCell(r.Result, r.Cycles, 6), ticks, ns,
			elems, epc, tpe, npe,
			orDash(r.Unit), repeat, samples, discarded,
			dist, d.ContextSwitches, d.Migrations, d.PageFaults,
			spread, convergedCell(r), results.Usable(r.Result),
			r.OverheadTicks, r.CyclesPerTick, r.ReferenceConverged,
			r.CyclesSource, r.TicksPerSecond, r.CPU, r.Shared}
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

// spreadCell shows a K-best spread as a percentage ("-" before K samples).
func spreadCell(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return shown{V: v, Text: pct(v, 3)}
}

// bothModesTable lays out results of both modes side by side: one row per
// kernel (and repetition), each figure in a throughput and a latency
// column. A result without its partner (an interrupted run) leaves the
// other columns "-".
func bothModesTable(rs []results.Measurement) *table {
	t := &table{Cols: []col{{Name: "name", Left: true}, {Name: "cycles thru"}, {Name: "cycles lat"}, {Name: "ticks thru"}, {Name: "ticks lat"},
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
			func(r *results.Measurement) any { return cyclesCell(r.Result, r.Cycles, 6) },
			func(r *results.Measurement) any { return r.Ticks },
			func(r *results.Measurement) any { return r.Nanoseconds },
			func(r *results.Measurement) any {
				if !r.PerElement {
					return nil
				}
				return cyclesCell(r.Result, r.CyclesPerElement, 4)
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
				conv[j] = convergedText(r.Result).Text
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
