package results

// The comparisons of harness.ReportCompare, read back from go test
// output: two functions measured interleaved (ABBA) in one benchmark.

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// Paired is one run of a harness.ReportCompare benchmark: B/A of the
// paired per-call costs with its 95% interval, the Wilcoxon signed-rank
// p-value, the noise band and the verdict, and each side's cycles and
// ticks per call.
type Paired struct {
	Name        string   `json:"name"`
	Pkg         string   `json:"pkg,omitempty"`
	A           string   `json:"a"`
	B           string   `json:"b"`
	CyclesA     float64  `json:"cycles_a"`
	CyclesB     float64  `json:"cycles_b"`
	TicksA      float64  `json:"ticks_a"`
	TicksB      float64  `json:"ticks_b"`
	Ratio       float64  `json:"ratio"`
	Lo          float64  `json:"ratio_lo"`
	Hi          float64  `json:"ratio_hi"`
	PValue      float64  `json:"p_value"`
	NoiseBand   float64  `json:"noise_band"`
	Significant bool     `json:"significant"`
	Verdict     string   `json:"verdict"`
	Reason      string   `json:"reason"`
	Summary     string   `json:"summary"`
	Pairs       int      `json:"pairs,omitempty"`
	Calls       int      `json:"calls"`
	Warnings    []string `json:"warnings"`
	// Run is the run it was read from.
	Run Run `json:"-"`
}

// IsPaired reports whether e is a harness.ReportCompare result: a run
// with a "ratio" figure.
func (e Entry) IsPaired() bool {
	for _, r := range e.Runs {
		if r.Value("ratio") != nil {
			return true
		}
	}
	return false
}

// Value returns a pointer to r's figure in unit among Other, nil when
// absent.
func (r Run) Value(unit string) *float64 {
	for i := range r.Other {
		if r.Other[i].Unit == unit {
			return &r.Other[i].Value
		}
	}
	return nil
}

// compareLog matches ReportCompare's log line, which has the ratio and
// its interval to 5 digits, the side names, the noise band (not in the
// lines of versions that reported it as a metric) and the verdict:
// "harness.ReportCompare: Sum4/Sum1 = 0.77698 [0.77524, 0.77937], p = 1.4e-13, noise band 0.0012, 60 pairs: faster (...)".
var compareLog = regexp.MustCompile(`^harness\.ReportCompare: (.+)/(.+) = (\S+) \[(\S+), (\S+)\], p = (\S+),(?: noise band (\S+),)? (\d+) pairs: (faster|slower|no significant difference|inconclusive) \((.*)\)$`)

// PairedOf reads run r of a ReportCompare benchmark e: its figures (ratio,
// A-cycles/op, ...; and ratio-lo, ratio-hi, p-value, noise-band,
// significant and inconclusive in files of versions that reported them as
// metrics), refined by its log line when there is one (the sides' names,
// the interval, p-value and noise band, the pairs, the verdict and its
// reason).
func PairedOf(e Entry, r Run) Paired {
	c := Paired{Name: e.Name, Pkg: e.Pkg, A: "A", B: "B", Calls: r.Iters, Warnings: []string{}, Run: r}
	get := func(unit string) float64 {
		if v := r.Value(unit); v != nil {
			return *v
		}
		return 0
	}
	c.Ratio, c.Lo, c.Hi, c.PValue, c.NoiseBand = get("ratio"), get("ratio-lo"), get("ratio-hi"), get("p-value"), get("noise-band")
	c.CyclesA, c.CyclesB, c.TicksA, c.TicksB = get("A-cycles/op"), get("B-cycles/op"), get("A-ticks/op"), get("B-ticks/op")
	c.Significant = get("significant") != 0
	switch {
	case get("inconclusive") != 0:
		c.Verdict = stats.VerdictInconclusive
	case !c.Significant:
		c.Verdict = stats.VerdictSame
	case c.Ratio < 1:
		c.Verdict = stats.VerdictFaster
	default:
		c.Verdict = stats.VerdictSlower
	}
	for _, w := range r.Warnings {
		m := compareLog.FindStringSubmatch(w)
		if m == nil {
			c.Warnings = append(c.Warnings, w)
			continue
		}
		c.B, c.A = m[1], m[2]
		num := func(s string, into *float64) {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				*into = v
			}
		}
		num(m[3], &c.Ratio)
		num(m[4], &c.Lo)
		num(m[5], &c.Hi)
		num(m[6], &c.PValue)
		num(m[7], &c.NoiseBand)
		c.Pairs, _ = strconv.Atoi(m[8])
		c.Verdict, c.Reason = m[9], m[10]
		c.Significant = c.Verdict == stats.VerdictFaster || c.Verdict == stats.VerdictSlower
	}
	c.Summary = stats.Sentence(c.A, c.B, c.Ratio, c.Lo, c.Hi, c.Verdict, c.Reason)
	return c
}

// PairedBars is the picture of comparisons for [plot.Compare]: one bar per
// run, B/A with its interval, the noise band of the first. cs may not be
// empty.
func PairedBars(cs []Paired) (plot.Comparison, error) {
	if len(cs) == 0 {
		return plot.Comparison{}, fmt.Errorf("%w: PairedBars needs at least one comparison", ErrBadInput)
	}
	c := plot.Comparison{Unit: "ratio B/A (paired, 95% CI)", Ratio: true, NoiseBand: cs[0].NoiseBand}
	s := plot.BarSeries{Name: "B/A"}
	runs := map[string]int{}
	for _, x := range cs {
		runs[x.Name]++
	}
	seen := map[string]int{}
	for _, x := range cs {
		label := x.B + "/" + x.A
		if len(runs) > 1 {
			label = x.Name + ": " + label
		}
		if runs[x.Name] > 1 {
			seen[x.Name]++
			label += fmt.Sprintf(" #%d", seen[x.Name])
		}
		c.Groups = append(c.Groups, label)
		s.Bars = append(s.Bars, plot.Bar{Value: x.Ratio, Lo: math.Min(x.Lo, x.Ratio), Hi: math.Max(x.Hi, x.Ratio), Label: x.Verdict})
	}
	c.Series = []plot.BarSeries{s}
	return c, nil
}

// PairedTitle names what comparisons compare, for a plot's title: "Sum4
// vs Sum1", up to three such, and how many more.
func PairedTitle(cs []Paired) string {
	names := []string{}
	for _, c := range cs {
		if n := c.B + " vs " + c.A; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return listSome(names, 3)
}

// WritePairedBench writes comparisons cs under h in the Go benchmark
// format: each run's benchmark line as go test printed it (its ratio and
// sides' figures as units), and a "# compare" line with the interval,
// the p-value and the verdict.
func WritePairedBench(w io.Writer, h Header, cs []Paired) error {
	var b strings.Builder
	writeConfig(&b, h)
	if h.Partial != "" {
		fmt.Fprintf(&b, "# partial: %s\n", h.Partial)
	}
	for _, c := range cs {
		name := c.Run.BenchName // as go test named it, with its GOMAXPROCS suffix
		if name == "" {
			name = c.Name
		}
		fmt.Fprintf(&b, "Benchmark%s\t%d", name, max(1, c.Calls))
		for _, v := range c.Run.Other {
			fmt.Fprintf(&b, "\t%s %s", benchValue(v.Value), v.Unit)
		}
		fmt.Fprintf(&b, "\n# compare %s: %s/%s = %.5g [%.5g, %.5g], p = %s: %s\n", c.Name, c.B, c.A, c.Ratio, c.Lo, c.Hi, sigfig.PValue(c.PValue), c.Verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
