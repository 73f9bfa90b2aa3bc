package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// PooledVerdicts is one line per comparison that ran more than once (go
// test -count N): the median of its runs' paired B/A with their range,
// and the verdict over the runs. A direction holds only when every run
// found it; runs that disagree give none, because each run is one process
// and one code layout, and a verdict that flips between them is the
// layout's or the host's, not the code's.
func PooledVerdicts(cs []results.Paired) []string {
	type group struct {
		name   string
		ratios []float64
		count  map[string]int
	}
	var groups []*group
	for _, c := range cs {
		name := c.Name
		if c.Pkg != "" {
			name = c.Pkg + "." + name
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.name == name })
		if i < 0 {
			groups, i = append(groups, &group{name: name, count: map[string]int{}}), len(groups)
		}
		groups[i].ratios = append(groups[i].ratios, c.Ratio)
		groups[i].count[c.Verdict]++
	}
	var lines []string
	for _, g := range groups {
		n := len(g.ratios)
		if n < 2 {
			continue
		}
		line := fmt.Sprintf("%s over %d runs: B/A %s (runs %s to %s): ", g.name, n, sigfig.Sig(stats.Median(g.ratios), 5), sigfig.Sig(slices.Min(g.ratios), 5), sigfig.Sig(slices.Max(g.ratios), 5))
		switch f, s := g.count[stats.VerdictFaster], g.count[stats.VerdictSlower]; {
		case f == n:
			line += "B faster in every run"
		case s == n:
			line += "B slower in every run"
		case g.count[stats.VerdictSame] == n:
			line += "no significant difference in any run"
		default:
			var parts []string
			for _, v := range []string{stats.VerdictFaster, stats.VerdictSlower, stats.VerdictSame, stats.VerdictInconclusive} {
				if k := g.count[v]; k > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", k, v))
				}
			}
			line += "no pooled verdict: the runs disagree (" + strings.Join(parts, ", ") + ")"
		}
		lines = append(lines, line)
	}
	return lines
}
