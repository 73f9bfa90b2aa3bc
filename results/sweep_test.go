package results

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// fakeSweep returns a sweep as harness.CPE would leave it: sizes
// 100…500 at 2 cycles per element plus 50, size 300 not converged, each
// point's K best samples spread by 1%.
func fakeSweep(t *testing.T, name string, cpe bool) *Sweep {
	t.Helper()
	const cyclesPerTick, repeat, overhead = 1.5, 4, 100.0
	r := harness.CPEResult{Name: name, HasCycles: true, CyclesPerTick: cyclesPerTick}
	var xs, cyc, tk []float64
	for i, n := range []int{100, 200, 300, 400, 500} {
		c := 50 + 2*float64(n) + float64(i%2)
		ticks := c / cyclesPerTick
		best := ticks + overhead/repeat // ticks per call, as Result.Best holds them
		r.Sizes = append(r.Sizes, n)
		r.Points = append(r.Points, harness.Result{Name: name, Elements: float64(n), Cycles: c, Ticks: ticks, Converged: n != 300,
			Repeat: repeat, OverheadTicks: overhead, Best: []float64{best, best * 1.005, best * 1.01}})
		xs, cyc, tk = append(xs, float64(n)), append(cyc, c), append(tk, ticks)
	}
	var err error
	if r.Cycles, err = stats.LinearFit(xs, cyc); err != nil {
		t.Fatal(err)
	}
	if r.Ticks, err = stats.LinearFit(xs, tk); err != nil {
		t.Fatal(err)
	}
	if r.Linearity, err = stats.LackOfFit(xs, cyc, stats.LinearityOptions{}); err != nil {
		t.Fatal(err)
	}
	return &Sweep{CPEResult: r, Kernel: name, Unit: "elements", NotCPE: !cpe}
}

func TestPlotSweeps(t *testing.T) {
	swept := []*Sweep{fakeSweep(t, "Linear", true), fakeSweep(t, "Curved", false)}
	series, opt, err := PlotSweeps(swept, "Test CPU", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || !strings.Contains(opt.Title, "Test CPU") {
		t.Fatalf("plot %+v, %+v: want 2 kernels and the CPU in the title", series, opt)
	}
	k := series[0]
	if k.Unit != "cycles" || k.ElementUnit != "element" || k.Fit == nil || k.Fit.SlopeSE <= 0 || k.Fit.SlopeCI <= 0 || k.Fit.XMean != 300 {
		t.Errorf("series %+v, fit %+v: want cycles per element with a band (SE, CI, XMean 300)", k, k.Fit)
	}
	if k.Fit.NotLinear != "" || series[1].Fit.NotLinear == "" {
		t.Errorf("NotLinear %q and %q: want only the non-CPE kernel marked", k.Fit.NotLinear, series[1].Fit.NotLinear)
	}
	for i, pt := range k.Points {
		if pt.NotConverged != (pt.N == 300) {
			t.Errorf("point %d (n %v): NotConverged %v", i, pt.N, pt.NotConverged)
		}
		// YHi is the K-th best sample: 1% above the best, per call.
		if want := pt.Y + 0.01*(pt.Y+100*1.5/4); pt.YLo != pt.Y || pt.YHi < pt.Y || pt.YHi > want*1.0001 {
			t.Errorf("point %d: Y %v, YLo %v, YHi %v: want YLo = Y ≤ YHi ≤ %v", i, pt.Y, pt.YLo, pt.YHi, want)
		}
	}
	for _, format := range plot.Formats {
		var img bytes.Buffer
		if err := plot.CPE(&img, format, series, opt); err != nil || img.Len() == 0 {
			t.Errorf("render %s: %d bytes, %v", format, img.Len(), err)
		}
	}
	// Without a cycle estimate the plot is in ticks; a kernel found not
	// linear in n is marked with the criteria it failed.
	swept[1].HasCycles = false
	swept[0].Linearity = stats.Linearity{Verdict: stats.LinearityNotLinear, R2: 0.9, MinR2: 0.999, Curvature: stats.Curvature{Significant: true, Fails: true}}
	series, _, _ = PlotSweeps(swept, "", true)
	if series[0].Unit != "ticks" || series[0].Fit.NotLinear != "curvature, R² 0.9" {
		t.Errorf("unit %q, NotLinear %q: want ticks, curvature, R² 0.9", series[0].Unit, series[0].Fit.NotLinear)
	}
}

func TestDisturbed(t *testing.T) {
	tests := []struct {
		name string
		ys   []float64
		want []bool
	}{
		{"none", []float64{3219, 3219, 3220, 3221}, []bool{false, false, false, false}},
		{"two slow of six", []float64{3219, 3219, 3220, 6033, 5321, 3221}, []bool{false, false, false, true, true, false}},
		// Two runs that disagree have no majority: both stay.
		{"two runs", []float64{820, 1531}, []bool{false, false}},
		// A fast outlier is left out as a slow one is: the majority decides.
		{"one fast of three", []float64{1386, 1220, 1390}, []bool{false, true, false}},
		// The case: five runs agree, one reads 9% faster.
		{"one fast of six", []float64{1760, 1766, 1598, 1762, 1764, 1761}, []bool{false, false, true, false, false, false}},
		{"within 5%", []float64{2020, 2045, 2031, 2100}, []bool{false, false, false, false}},
		{"just over 5%", []float64{1000, 1000, 1050.5}, []bool{false, false, true}},
		// Half against half: no majority, nothing left out.
		{"half and half", []float64{1000, 1001, 1500, 1502}, []bool{false, false, false, false}},
		{"three clusters", []float64{1000, 1200, 1400}, []bool{false, false, false}},
		// Equal clusters: the fastest is taken only when it is a majority.
		{"fastest majority", []float64{1000, 1001, 1002, 1500, 1502}, []bool{false, false, false, true, true}},
		{"one run", []float64{5}, []bool{false}},
		{"empty", nil, []bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := disturbed(tt.ys); !slices.Equal(got, tt.want) {
				t.Errorf("disturbed(%v) = %v, want %v", tt.ys, got, tt.want)
			}
		})
	}
}

func TestResolution(t *testing.T) {
	goTest := File{Format: FormatBench, Producer: ProducerGoTest}
	ours := File{Format: FormatBench, Producer: ProducerCyclebench}
	tests := []struct {
		f    File
		y    float64
		want float64
	}{
		{goTest, 3219, 1},
		{goTest, 999.95, 1},
		{goTest, 999.9, 0.1},
		{goTest, 420.1, 0.1},
		{goTest, 99.99, 0.01},
		{goTest, 1.05, 0.001},
		{goTest, 0.7379, 0.0001},
		{ours, 3219, 0.01},
		{File{Format: FormatCPEJSON}, 3219, 0},
	}
	for _, tt := range tests {
		if got := tt.f.Resolution(tt.y); math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("File{%s}.Resolution(%v) = %v, want %v", tt.f.Producer, tt.y, got, tt.want)
		}
	}
}

// TestFitFiles fits kvm-amd-gotest-sums.txt, go test -bench -count 6 of
// examples/sums on a shared KVM guest, in which two runs of Sum1 at
// n = 3200 were slowed by other jobs: they are left out of Sum1's fit,
// unless allRuns.
func TestFitFiles(t *testing.T) {
	f := readTestdata(t, "kvm-amd-gotest-sums.txt")
	tests := []struct {
		name    string
		filter  string
		allRuns bool
		sweeps  []string
		leftOut []int // Sum1's
		runs    int   // fitted in Sum1's cycle fit
	}{
		{"disturbed runs left out", "", false, []string{"Sum1", "Sum4"}, []int{45, 46}, 46},
		{"all runs", "", true, []string{"Sum1", "Sum4"}, nil, 48},
		{"filter", "^Sum1$", false, []string{"Sum1"}, []int{45, 46}, 46},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var filter *regexp.Regexp
			if tt.filter != "" {
				filter = regexp.MustCompile(tt.filter)
			}
			ss, notes, err := FitFiles([]File{f}, filter, tt.allRuns)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range ss {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tt.sweeps) {
				t.Fatalf("sweeps %q, want %q", names, tt.sweeps)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "left out Sum4vsSum1, Sum1AA: no size part") {
				t.Errorf("notes %q: want the benchmarks without a size named", notes)
			}
			s := ss[0]
			var left []int
			for i := range s.Points {
				if s.IsLeftOut(i) {
					left = append(left, i)
				}
			}
			if !slices.Equal(left, tt.leftOut) || len(s.Points) != 48 || s.SizeCount() != 8 || s.Unit != "elements" || s.Check != "ok" {
				t.Errorf("Sum1: left out %v of %d points at %d sizes (unit %q, check %q); want %v of 48 at 8", left, len(s.Points), s.SizeCount(), s.Unit, s.Check, tt.leftOut)
			}
			// The slow runs, when fitted, tilt the line and pull R² down.
			if c := s.Cycles; !s.HasCycles || (math.Abs(c.Slope-1) > 0.02 || c.R2 < 0.999) != tt.allRuns || c.N != tt.runs {
				t.Errorf("Sum1's cycle fit %+v: want %d runs; about 1 cycle per element and R² ≥ 0.999 unless all runs", c, tt.runs)
			}
			if text := s.LeftOutText(); (len(tt.leftOut) > 0) != strings.Contains(text, "n = 3200: 6033, 5321 cycles (4 runs kept: 3219–3221); disturbed: "+disturbedRule) {
				t.Errorf("LeftOutText() = %q", text)
			}
			if j := s.JSON(); !slices.Equal(j.LeftOut, tt.leftOut) || len(j.Points) != 48 || len(j.Fits) != 3 {
				t.Errorf("JSON: left out %v, %d points, %d fits", j.LeftOut, len(j.Points), len(j.Fits))
			}
		})
	}
}

// TestFitFilesErrors: go test output without ticks or cycles fits in ns;
// a family with fewer than 3 sizes gets no fit and a note; files without
// a family to fit are an error wrapping ErrNoSweep.
func TestFitFilesErrors(t *testing.T) {
	plain := parseText(t, "plain.txt", `pkg: example.com/p
BenchmarkCopy/n=100-2   	 1000	       110.0 ns/op
BenchmarkCopy/n=200-2   	 1000	       210.0 ns/op
BenchmarkCopy/n=400-2   	 1000	       410.0 ns/op
BenchmarkCopy/n=800-2   	 1000	       810.0 ns/op
BenchmarkTwo/size=100-2 	 1000	       50.0 ns/op
BenchmarkTwo/size=200-2 	 1000	       90.0 ns/op
`)
	ss, notes, err := FitFiles([]File{plain}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || !ss[0].Fitted() || ss[1].Fitted() || !ss[0].NoTicks || ss[0].HasCycles {
		t.Fatalf("sweeps %+v: want Copy fitted in ns and Two not fitted", ss)
	}
	if f, unit := ss[0].Primary(); unit != "ns" || f.Slope != 1 || f.Intercept != 10 {
		t.Errorf("Copy: %v + %v·n %s, want 10 + 1·n ns", f.Intercept, f.Slope, unit)
	}
	if len(notes) != 1 || notes[0] != "no fit for Two (2 sizes): a fit needs 3 sizes or more" {
		t.Errorf("notes %q", notes)
	}
	tests := []struct {
		name, text, filter, want string
	}{
		{"two sizes", "BenchmarkA/n=1 1 5 ns/op\nBenchmarkA/n=2 1 6 ns/op\n", "", "no family with 3 sizes or more: A (2 sizes)"},
		{"no family", "BenchmarkA 1 5 ns/op\nBenchmarkB 1 6 ns/op\n", "", "no family of sub-benchmarks Name/n=SIZE"},
		{"no match", "BenchmarkA/n=1 1 5 ns/op\nBenchmarkA/n=2 1 6 ns/op\nBenchmarkA/n=3 1 7 ns/op\n", "Nope", `matching -bench "Nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var filter *regexp.Regexp
			if tt.filter != "" {
				filter = regexp.MustCompile(tt.filter)
			}
			_, _, err := FitFiles([]File{parseText(t, "x.txt", tt.text)}, filter, false)
			if !errors.Is(err, ErrNoSweep) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("FitFiles = %v, want ErrNoSweep saying %q", err, tt.want)
			}
		})
	}
}

// TestFamilyEntries: a family turned back into entries is the same family.
func TestFamilyEntries(t *testing.T) {
	f := readTestdata(t, "kvm-amd-zen4-gotest.txt")
	for _, fam := range families(f.Entries) {
		again := families(fam.Entries())
		if len(again) != 1 || !reflect.DeepEqual(again[0], fam) {
			t.Errorf("%s: %+v, then %+v", fam.Name, fam, again)
		}
	}
}

// TestSweepTexts: the sentences a report says of a sweep.
func TestSweepTexts(t *testing.T) {
	s := fakeSweep(t, "Linear", true)
	for _, tt := range []struct{ got, want string }{
		{s.LinearityText(), "linear in n: "},
		{(&Sweep{NotCPE: true}).LinearityText(), "not tested: fewer than 3 sizes (this kernel's cost is not linear in n by design)"},
		{r2Text(0.9999), "0.9999000"},
		{ElementWord("ops"), "op"},
		{ElementWord(""), "element"},
	} {
		if !strings.HasPrefix(tt.got, tt.want) {
			t.Errorf("%q, want it to start %q", tt.got, tt.want)
		}
	}
	c := s.FitComments()
	if len(c) != 4 || !strings.HasPrefix(c[1], "# cpe Linear: 2 ± ") || !strings.Contains(c[1], "cycles/element (95%), intercept") {
		t.Errorf("FitComments() = %q", c)
	}
	if ms := s.Measurements(); len(ms) != 5 || ms[2].N != 300 || ms[2].Bench != "Linear" || !ms[2].PerElement {
		t.Errorf("Measurements() = %+v", ms)
	}
}

// TestFitFilesOtherCPU: families of files of two CPUs are fitted
// together, with a note that says so.
func TestFitFilesOtherCPU(t *testing.T) {
	text := "BenchmarkCopy/n=100 1000 110 ns/op\nBenchmarkCopy/n=200 1000 210 ns/op\nBenchmarkCopy/n=400 1000 410 ns/op\n"
	a, b := parseText(t, "a.txt", "cpu: Zen 4\n"+text), parseText(t, "b.txt", "cpu: Zen 5\n"+text)
	ss, notes, err := FitFiles([]File{a, b}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || len(ss[0].Points) != 6 || len(notes) != 1 || notes[0] != `a.txt was measured on "Zen 4", b.txt on "Zen 5": families of both are fitted together` {
		t.Errorf("%d sweeps (%d points), notes %q", len(ss), len(ss[0].Points), notes)
	}
}

// TestSweepHeadingAndFitLines: the heading of a sweep and its fit's
// lines, in the order a report lists them.
func TestSweepHeadingAndFitLines(t *testing.T) {
	s := fakeSweep(t, "Linear", true)
	if h := s.Heading(); h != "Linear: 5 sizes, n in elements, core 1.5 cycles/tick" {
		t.Errorf("Heading() = %q", h)
	}
	s.Cycles.Outliers = []int{1, 3}
	lines := s.FitLines()
	var labels []string
	for _, l := range lines {
		labels = append(labels, l[0])
	}
	if strings.Join(labels, "|") != "CPE||intercept|R²|outliers" {
		t.Fatalf("labels %q, want CPE, the other units, intercept, R², outliers", labels)
	}
	if !strings.HasPrefix(lines[0][1], "2 ± ") || !strings.HasSuffix(lines[0][1], " cycles/element (95% CI)") ||
		!strings.HasPrefix(lines[1][1], "= ") || !strings.Contains(lines[1][1], " ticks/element") ||
		!strings.HasSuffix(lines[2][1], " cycles per call") || lines[4][1] != "n = 200, 400 (residual marked *)" {
		t.Errorf("FitLines() = %q", lines)
	}
	if l := (&Sweep{}).FitLines(); l != nil {
		t.Errorf("FitLines() of a sweep without a fit = %q, want none", l)
	}
}

// TestFitFilesFastOutlier: cpe of -count 6 in which one run at n = 1500
// read 1,598 and five read 1,760–1,766. The one is left out, not the five,
// and the fit stays linear; a family whose runs disagree at every size
// warns that many were left out.
func TestFitFilesFastOutlier(t *testing.T) {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/m\n")
	for _, n := range []int{500, 1000, 1500, 2000} {
		for run := range 6 {
			ns := 100 + 1.17*float64(n) + float64(run)
			if n == 1500 && run == 2 {
				ns = 1598
			}
			fmt.Fprintf(&b, "BenchmarkSweep/n=%d\t1000\t%.1f ns/op\n", n, ns)
		}
	}
	f, err := Parse("sweep.txt", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ss, _, err := FitFiles([]File{f}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	var left []int
	for i := range s.Points {
		if s.IsLeftOut(i) {
			left = append(left, i)
		}
	}
	if !slices.Equal(left, []int{14}) {
		t.Errorf("left out %v, want [14] (the 1598 of n = 1500)", left)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v: one run of 24 left out is not many", s.Warnings)
	}

	// Every size: four runs agree, two read 20% slow.
	b.Reset()
	for _, n := range []int{500, 1000, 1500} {
		for run := range 6 {
			ns := float64(n)
			if run < 2 {
				ns *= 1.2
			}
			fmt.Fprintf(&b, "BenchmarkSweep/n=%d\t1000\t%.1f ns/op\n", n, ns)
		}
	}
	if f, err = Parse("sweep.txt", strings.NewReader(b.String())); err != nil {
		t.Fatal(err)
	}
	if ss, _, err = FitFiles([]File{f}, nil, false); err != nil {
		t.Fatal(err)
	}
	if w := fmt.Sprint(ss[0].Warnings); !strings.Contains(w, "6 of 18 runs left out as disturbed") {
		t.Errorf("warnings %s: want one saying 6 of 18 runs were left out", w)
	}
}
