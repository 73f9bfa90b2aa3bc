package reports

// The renderings of go test runs' comparisons as text and CSV.

import (
	"fmt"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
)

// PairedTable is the comparisons of go test runs (harness.ReportCompare),
// one row per run; the text shows the main columns, CSV all.
func PairedTable(cs []results.Paired) *tab.Table {
	t := &tab.Table{Cols: []tab.Col{{Name: "name", Left: true}, {Name: "B/A", Key: "b_over_a", Left: true}, {Name: "best A", Key: "cycles_a"}, {Name: "best B", Key: "cycles_b"},
		{Name: "ticks_a", CSV: true}, {Name: "ticks_b", CSV: true},
		{Name: "paired B/A", Key: "ratio", Digits: 5}, {Name: "95% CI", Key: "-", Left: true}, {Name: "ratio_lo", CSV: true}, {Name: "ratio_hi", CSV: true},
		{Name: "p", Key: "p_value", Digits: 2}, {Name: "noise band", Key: "noise_band", Digits: 2}, {Name: "pairs", CSV: true}, {Name: "calls", CSV: true},
		{Name: "verdict", Left: true}, {Name: "reason", CSV: true}, {Name: "summary", CSV: true}, {Name: "warnings", CSV: true}}}
	for _, c := range cs {
		var cycA, cycB any
		if c.CyclesA > 0 {
			cycA, cycB = c.CyclesA, c.CyclesB
		}
		t.Add(c.Name, c.B+"/"+c.A, cycA, cycB, c.TicksA, c.TicksB, c.Ratio, fmt.Sprintf("[%s, %s]", sigfig.Sig(c.Lo, 5), sigfig.Sig(c.Hi, 5)), c.Lo, c.Hi,
			tab.Shown{V: c.PValue, Text: sigfig.PValue(c.PValue)}, tab.Shown{V: c.NoiseBand, Text: "±" + sigfig.Percent(c.NoiseBand, 2)}, c.Pairs, c.Calls, c.Verdict, c.Reason, c.Summary, strings.Join(c.Warnings, "\n"))
	}
	return t
}

// PairedDoc is the comparisons of go test runs as text (markdown when md):
// the header's line, the table, each comparison's summary and what the
// columns mean.
func PairedDoc(h results.Header, cs []results.Paired, md bool) *tab.Doc {
	d := tab.NewDoc(md)
	d.Line(h.Line())
	d.Blank()
	d.Table(PairedTable(cs))
	d.Blank()
	for _, c := range cs {
		d.Item(c.Name + ": " + c.Summary)
	}
	for _, l := range PooledVerdicts(cs) {
		d.Item(l)
	}
	d.Blank()
	d.Para("best A and best B are each side's cycles per call from its K best samples; paired B/A\n" +
		"is the ratio of typical pairs, measured interleaved (ABBA) in one go test run, with\n" +
		"a 95% interval and p-value from its blocks' ratios. When the two disagree\n" +
		"beyond their intervals, or a side did not converge, the verdict is inconclusive.")
	return d
}
