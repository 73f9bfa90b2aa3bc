package revision

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/internal/tab"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// DefaultLayouts is compare -base's layouts per side. The rank test
// over layouts needs enough of them that the sides' samples of the
// layouts' modes agree: with 16 a side, it found a fifth more work in 4 of
// 4 comparisons of the insertion sort on the Intel guest, whose layouts
// spread by ±15%, and none of 6 A/A comparisons different
// (TestCompareLayoutsRecorded). 16 a side is 32 processes and, the base's
// builds cached, 16 links: about a minute on 2 vCPUs for benchmarks of a
// second. docs/measurements/revision-targets.sh measures the targets on a
// real machine.
const DefaultLayouts = 16

// Comparison is one benchmark's verdict over layouts, as the JSON report
// lists it: its name, the verdict's fields and the summary.
type Comparison struct {
	Name string
	LayoutComparison
	Summary string
}

// MarshalJSON writes the name and summary beside the verdict's own
// fields (whose MarshalJSON the embedding would otherwise take alone).
func (c Comparison) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.LayoutComparison)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["name"], _ = json.Marshal(c.Name)
	m["summary"], _ = json.Marshal(c.Summary)
	return json.Marshal(m)
}

// Report is compare -base's report: the two revisions, how they were
// built and run, and each benchmark's verdict.
type Report struct {
	results.Header
	Base        string       `json:"base"`
	Head        string       `json:"head"`
	HeadDirty   bool         `json:"head_dirty"`
	Layouts     int          `json:"layouts"`
	Seeds       []int64      `json:"layout_seeds"`
	Count       int          `json:"count"`
	Threshold   float64      `json:"threshold,omitempty"`
	Builds      int          `json:"builds"`
	Cached      int          `json:"cached_builds"`
	Took        float64      `json:"took_seconds"`
	Comparisons []Comparison `json:"comparisons"`
}

// Complete reports whether b has a figure in every layout of both sides.
func (b Benchmark) Complete() bool {
	for _, side := range b.Figures {
		for _, l := range side {
			if len(l) == 0 {
				return false
			}
		}
	}
	return true
}

// Judge compares each benchmark of bs over the layouts with opt and adds
// its verdict to rep.Comparisons; a benchmark not measured in every
// layout of both sides is left out with a warning. slower lists the
// benchmarks significantly slower by more than threshold (a fraction;
// +Inf: none), ratios B/A left aside.
func (rep *Report) Judge(bs []Benchmark, opt Options, threshold float64) (slower []string, err error) {
	for _, b := range bs {
		if !b.Complete() {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: not measured in every layout of both sides: left out", b.Name))
			continue
		}
		c, err := CompareLayouts(b.Unit, b.Figures[A], b.Figures[B], opt)
		if err != nil {
			return nil, err
		}
		rc := Comparison{Name: b.Name, LayoutComparison: c,
			Summary: stats.Sentence("base", "head", c.Ratio, c.Lo, c.Hi, c.Verdict, c.Reason) + fmt.Sprintf(" (%s, %d layouts a side)", c.Unit, rep.Layouts)}
		rep.Comparisons = append(rep.Comparisons, rc)
		if c.Significant && c.Ratio > 1+threshold && b.Unit != "B/A" {
			slower = append(slower, fmt.Sprintf("%s %+.3g%%", b.Name, (c.Ratio-1)*100))
		}
	}
	return slower, nil
}

// Table is the comparisons, one row per benchmark; the text shows the
// main columns, CSV all.
func (rep Report) Table() *tab.Table {
	t := &tab.Table{Cols: []tab.Col{{Name: "name", Left: true}, {Name: "unit", Left: true}, {Name: "A", Key: "a", Digits: 5}, {Name: "B", Key: "b", Digits: 5},
		{Name: "B/A", Key: "ratio", Digits: 5}, {Name: "95% CI", Key: "-", Left: true}, {Name: "ratio_lo", CSV: true}, {Name: "ratio_hi", CSV: true},
		{Name: "p", Key: "p_value", Digits: 2}, {Name: "layout sens.", Key: "layout_sensitivity", Digits: 3}, {Name: "detectable", Digits: 2},
		{Name: "significant", CSV: true}, {Name: "verdict", Left: true}, {Name: "modes_a", CSV: true}, {Name: "modes_b", CSV: true}, {Name: "summary", CSV: true}}}
	for _, c := range rep.Comparisons {
		det := any(tab.Shown{V: c.Detectable, Text: "±" + sigfig.Percent(c.Detectable, 2)})
		if math.IsInf(c.Detectable, 1) {
			det = tab.Shown{V: c.Detectable, Text: "none"}
		}
		t.Add(c.Name, c.Unit, c.A, c.B, c.Ratio, fmt.Sprintf("[%s, %s]", sigfig.Sig(c.Lo, 5), sigfig.Sig(c.Hi, 5)), c.Lo, c.Hi,
			tab.Shown{V: c.PValue, Text: sigfig.PValue(c.PValue)}, c.Sensitivity, det, c.Significant, c.Verdict,
			ModesText(c.ModesA), ModesText(c.ModesB), c.Summary)
	}
	return t
}

// Doc is the report as text (markdown when md): the revisions and runs,
// the table, each benchmark's modes and summary, and what the columns
// mean.
func (rep Report) Doc(md bool) *tab.Doc {
	d := tab.NewDoc(md)
	head := results.ShortRevision(rep.Head)
	if rep.HeadDirty {
		head += " + changes in the working tree"
	}
	d.Line(fmt.Sprintf("A: %s   B: %s   %d layouts a side (-randlayout=%d to %d), %d process(es) per layout, alternated A B B A; %d builds (%d from the cache), %.1f s",
		results.ShortRevision(rep.Base), head, rep.Layouts, rep.Seeds[0], rep.Seeds[len(rep.Seeds)-1], rep.Count, rep.Builds, rep.Cached, rep.Took))
	if rep.Partial != "" {
		d.Line("PARTIAL: " + rep.Partial)
	}
	d.Blank()
	d.Table(rep.Table())
	d.Blank()
	for _, c := range rep.Comparisons {
		d.Item(fmt.Sprintf("%s: layouts of A %s; of B %s", c.Name, ModesText(c.ModesA), ModesText(c.ModesB)))
		d.Item(c.Name + ": " + c.Summary)
	}
	d.Blank()
	d.Para("A is the median of A's layouts and B/A " + EstimatorShift + ";\n" +
		"the interval holds the pairs' ratios between the test's critical ranks. layout sens. is the\n" +
		"spread between layouts over the spread between processes of one layout (-count 2 or more);\n" +
		"detectable is the change this comparison finds 80% of the time.")
	return d
}
