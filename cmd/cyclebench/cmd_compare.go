package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

const compareDescription = `Compare two kernels measured interleaved in this process, or two saved
result files.

Kernels: -a and -b name them (see cyclebench run -list; the same name on both
sides is an A/A test); -n sets both sizes, -na and -nb one side's. Each round
samples A and B back to back, forward and back (A B B A, the next round
B A A B), every sample timing R calls with the same R for both sides; the
smaller sample of each side in a round forms a pair. The ratio B/A of the
paired per-call costs comes with a 95% confidence interval (Hodges–Lehmann,
from the Wilcoxon signed-rank test) and the test's p-value. Both sides of a
pair ran moments apart on one core, so the ratio is the same in cycles,
ticks and ns. "no significant difference" means the interval contains 1,
lies within the noise band, or p ≥ α.

With -sizes, -range or -log both kernels are swept over those sizes (as
cyclebench cpe does) and their costs per element compared (Welch's t test
on the two slopes).

Files: cyclebench compare [flags] A B compares two files written by
cyclebench run or cpe with -format json or -format bench (or by go test
-bench), matching results by name: cycles (frequency-independent), ns and
cycles per element, medians when a file holds several runs, both machines'
metadata side by side, and for cpe JSON files the two CPEs with a test.
For benchmark-format files benchstat does the statistics; the command it
needs to put two machines' files in one table is printed.`

func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "-a NAME -b NAME [-n SIZE] [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [flags]\n       cyclebench compare [-format table|json|csv] [-o FILE] FILE_A FILE_B", compareDescription, stderr)
	nameA := fs.String("a", "", "kernel A (the baseline)")
	nameB := fs.String("b", "", "kernel B (compared with A)")
	n := fs.Int("n", 0, "size of both kernels (0: each kernel's default)")
	na := fs.Int("na", 0, "size of kernel A (0: -n)")
	nb := fs.Int("nb", 0, "size of kernel B (0: -n)")
	pairs := fs.Int("pairs", harness.DefaultPairs, fmt.Sprintf("paired samples to collect (%d to %d)", harness.MinPairs, harness.MaxPairs))
	alpha := fs.Float64("alpha", stats.DefaultCompareOptions.Alpha, "significance level of the test (0 < α < 1)")
	noise := fs.Float64("noise", stats.DefaultCompareOptions.NoiseBand, "relative noise band: a ratio within 1 ± noise is no difference (0 ≤ noise < 1)")
	sf := addSizeFlags(fs)
	format := choiceFlag(fs, "format", formatTable, "output format", resultFormats...)
	out := fs.String("o", "", "write the comparison to this file (atomically) instead of stdout")
	mf := addMeasureFlags(fs, false)
	if err := fs.parse(args); err != nil {
		return err
	}
	if math.IsNaN(*alpha) || *alpha <= 0 || *alpha >= 1 {
		return usageErrorf("-alpha %v: want 0 < α < 1", *alpha)
	}
	if math.IsNaN(*noise) || *noise < 0 || *noise >= 1 {
		return usageErrorf("-noise %v: want 0 ≤ noise < 1", *noise)
	}
	opt := stats.CompareOptions{Alpha: *alpha, NoiseBand: *noise}
	if *noise == 0 {
		opt.NoiseBand = stats.NoNoiseBand
	}
	if fs.NArg() > 0 {
		if fs.NArg() != 2 {
			return usageErrorf("compare: %d files given, want two (A and B)", fs.NArg())
		}
		if *nameA != "" || *nameB != "" || sf.given() {
			return usageErrorf("compare: give either two files or -a and -b, not both")
		}
		if *format == formatBench {
			return usageErrorf("-format bench: comparing files writes table, json or csv (benchstat reads benchmark files directly)")
		}
		if err := checkOutputPath(*out); err != nil {
			return err
		}
		return compareSavedFiles(stdout, *out, *format, fs.Arg(0), fs.Arg(1), opt)
	}
	if *nameA == "" || *nameB == "" {
		return usageErrorf("compare: give -a and -b (kernel names; see cyclebench run -list), or two result files")
	}
	ka, err := benchexamples.Lookup(*nameA)
	if err != nil {
		return usageErrorf("-a %q: %w", *nameA, err)
	}
	kb, err := benchexamples.Lookup(*nameB)
	if err != nil {
		return usageErrorf("-b %q: %w", *nameB, err)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"n", *n}, {"na", *na}, {"nb", *nb}} {
		if f.v < 0 {
			return usageErrorf("-%s %d: want 0 (the default) or a positive size", f.name, f.v)
		}
	}
	if *pairs < harness.MinPairs || *pairs > harness.MaxPairs {
		return usageErrorf("-pairs %d: want %d to %d", *pairs, harness.MinPairs, harness.MaxPairs)
	}
	sizes, _, err := sf.parse()
	if err != nil {
		return err
	}
	if err := checkOutputPath(*out); err != nil {
		return err
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	if sizes != nil {
		if *n != 0 || *na != 0 || *nb != 0 {
			return usageErrorf("-n, -na and -nb are for one size; with -sizes, -range or -log the sizes come from there")
		}
		for _, k := range []benchexamples.Kernel{ka, kb} {
			if err := checkKernelSizes("-sizes", k, sizes); err != nil {
				return err
			}
		}
		return compareCPE(stdout, stderr, *out, *format, cfg, ka, kb, sizes, opt)
	}
	sizeA, sizeB := pick(*na, *n, ka.DefaultN), pick(*nb, *n, kb.DefaultN)
	insA, err := ka.New(sizeA)
	if err != nil {
		return usageErrorf("-a %s size %d: %w", ka.Name, sizeA, err)
	}
	insB, err := kb.New(sizeB)
	if err != nil {
		return usageErrorf("-b %s size %d: %w", kb.Name, sizeB, err)
	}
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	cfg.Calibration = cal
	h := newHeader("compare", cal, cfg, warns)
	in := catchInterrupts()
	defer in.stop()
	cfg.Context = in.ctx
	var done func()
	cfg.Progress, done = newSweepProgress(stderr, "compare", *pairs)
	a := harness.Instance{Name: fmt.Sprintf("%s/n=%d", ka.Name, sizeA), Run: insA.Run, Setup: insA.Setup, Elements: insA.Elements}
	b := harness.Instance{Name: fmt.Sprintf("%s/n=%d", kb.Name, sizeB), Run: insB.Run, Setup: insB.Setup, Elements: insB.Elements}
	c, err := harness.Compare(cfg, a, b, harness.CompareOptions{Pairs: *pairs, Stats: opt})
	done()
	if code := in.exitCode(); code != 0 {
		return silentExit(code) // nothing to compare yet: an interval needs every pair
	}
	if err != nil {
		return err
	}
	cmp := liveComparison{Comparison: c,
		A: measured{Result: c.A, Kernel: ka.Name, N: sizeA, Unit: ka.Unit, Check: checkWord(insA.Check()), bench: "A/" + c.A.Name, elemOK: insA.Elements > 0},
		B: measured{Result: c.B, Kernel: kb.Name, N: sizeB, Unit: kb.Unit, Check: checkWord(insB.Check()), bench: "B/" + c.B.Name, elemOK: insB.Elements > 0}}
	h.Warnings = append(h.Warnings, errorStrings(c.Warnings)...)
	var buf bytes.Buffer
	if err := writeLiveComparison(&buf, *format, h, cmp); err != nil {
		return err
	}
	if err := writeResult(stdout, *out, buf.Bytes()); err != nil {
		return err
	}
	if cmp.A.Check != "ok" || cmp.B.Check != "ok" {
		return silentExit(exitFailure)
	}
	return nil
}

// pick returns the first non-zero of side, both and def.
func pick(side, both, def int) int {
	switch {
	case side != 0:
		return side
	case both != 0:
		return both
	}
	return def
}

func checkWord(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// compareSavedFiles compares two result files.
func compareSavedFiles(stdout io.Writer, out, format, pathA, pathB string, opt stats.CompareOptions) error {
	a, err := readSavedFile(pathA)
	if err != nil {
		return fileError(err)
	}
	b, err := readSavedFile(pathB)
	if err != nil {
		return fileError(err)
	}
	c, err := compareFiles(a, b, opt)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeFileComparison(&buf, format, c); err != nil {
		return err
	}
	return writeResult(stdout, out, buf.Bytes())
}

// fileError makes a missing file a usage error (a wrong argument); a file
// that cannot be read or parsed stays an ordinary failure.
func fileError(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return usageErrorf("%w", err)
	}
	return err
}

// liveComparison is a Compare result with what the CLI knows of each side.
type liveComparison struct {
	harness.Comparison
	A, B measured
}

func writeLiveComparison(w io.Writer, format string, h header, c liveComparison) error {
	switch format {
	case formatTable:
		return writeLiveTable(w, h, c)
	case formatJSON:
		return writeJSON(w, liveReport(h, c))
	case formatCSV:
		return writeLiveCSV(w, c)
	case formatBench:
		if err := writeResultBench(w, h, []measured{c.A, c.B}); err != nil {
			return err
		}
		s := c.Stats
		_, err := fmt.Fprintf(w, "# compare: B/A = %.5f, 95%% CI [%.5f, %.5f], p = %s (%s, %d pairs of %d calls, ABBA interleaved): %s\n",
			s.Ratio, s.Lo, s.Hi, pString(s.PValue), s.Test, s.N, c.Repeat, s.Verdict)
		return err
	}
	return usageErrorf("-format %q: want one of %s", format, strings.Join(resultFormats, ", "))
}

// verdictLine says the verdict in words, with the size of the difference.
func verdictLine(s stats.Comparison) string {
	band := "no noise band"
	if s.NoiseBand > 0 {
		band = fmt.Sprintf("noise band ±%s%%", sig(s.NoiseBand*100, 2))
	}
	switch s.Verdict {
	case stats.VerdictSlower:
		return fmt.Sprintf("slower: B takes %s%% more than A (%s)", sig((s.Ratio-1)*100, 3), band)
	case stats.VerdictFaster:
		return fmt.Sprintf("faster: B takes %s%% less than A (%s)", sig((1-s.Ratio)*100, 3), band)
	}
	return fmt.Sprintf("%s (%s, α %s)", s.Verdict, band, sig(s.Alpha, 2))
}

func writeLiveTable(w io.Writer, h header, c liveComparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu: %s  counter: %s at %s  core: %s cycles/tick  k=%d eps=%g m=%d\n\n",
		orDash(h.CPU), h.Counter, formatHz(h.TSCHz), sig(c.A.CyclesPerTick, 5), h.K, h.Epsilon, h.MaxSamples)
	rows := [][]string{{"", "name", "cycles", "ticks", "ns", "cycles/elem", "unit", "R", "samples", "converged"}}
	for _, s := range []struct {
		side string
		m    measured
	}{{"A", c.A}, {"B", c.B}} {
		rows = append(rows, []string{s.side, s.m.Name, sig(s.m.Cycles, 6), sig(s.m.Ticks, 6), sig(s.m.Nanoseconds, 6),
			perElem(s.m.CyclesPerElement, s.m.elemOK), orDash(s.m.Unit), strconv.Itoa(s.m.Repeat), strconv.Itoa(s.m.Samples), yesNo(s.m.Converged)})
	}
	writeColumns(&b, rows, 0, 1, 6)
	b.WriteString("\n")
	s := c.Stats
	exact := "normal approximation"
	if s.Exact {
		exact = "exact"
	}
	t := &table{}
	t.row("B/A", "%.5f  (95%% CI %.5f to %.5f; the same in cycles, ticks and ns: A and B ran interleaved)", s.Ratio, s.Lo, s.Hi)
	t.row("p", "%s  (Wilcoxon signed-rank, %s; %d pairs of %d calls, %d equal)", pString(s.PValue), exact, s.N, c.Repeat, s.Zeros)
	t.row("best B/A", "%.5f  (ratio of the two sides' best samples, the figures above)", c.BestRatio)
	t.row("verdict", "%s", verdictLine(s))
	t.row("took", "%s ms measuring, %d rounds", sig(float64(c.Wall.Microseconds())/1000, 3), c.Rounds)
	t.write(&b)
	for _, m := range []measured{c.A, c.B} {
		if m.Check != "ok" {
			fmt.Fprintf(&b, "error: %s: output check failed: %s\n", m.Name, m.Check)
		}
		for _, wr := range m.Warnings {
			fmt.Fprintf(&b, "warning: %v\n", wr)
		}
	}
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wr)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type liveJSON struct {
	header
	A           jsonResult `json:"a"`
	B           jsonResult `json:"b"`
	Ratio       float64    `json:"ratio"`
	BestRatio   float64    `json:"best_ratio"`
	Lo          float64    `json:"ratio_lo"`
	Hi          float64    `json:"ratio_hi"`
	Confidence  float64    `json:"confidence"`
	PValue      float64    `json:"p_value"`
	Test        string     `json:"test"`
	Exact       bool       `json:"exact"`
	Pairs       int        `json:"pairs"`
	Zeros       int        `json:"equal_pairs"`
	Alpha       float64    `json:"alpha"`
	NoiseBand   float64    `json:"noise_band"`
	Significant bool       `json:"significant"`
	Verdict     string     `json:"verdict"`
	Repeat      int        `json:"repeat"`
	Rounds      int        `json:"rounds"`
	WallSeconds float64    `json:"wall_seconds"`
	TicksA      []float64  `json:"pair_ticks_a"`
	TicksB      []float64  `json:"pair_ticks_b"`
}

func liveReport(h header, c liveComparison) liveJSON {
	s := c.Stats
	return liveJSON{header: h, A: toJSON(c.A), B: toJSON(c.B), Ratio: s.Ratio, BestRatio: c.BestRatio, Lo: s.Lo, Hi: s.Hi, Confidence: s.Confidence,
		PValue: s.PValue, Test: s.Test, Exact: s.Exact, Pairs: s.N, Zeros: s.Zeros, Alpha: s.Alpha, NoiseBand: s.NoiseBand,
		Significant: s.Significant, Verdict: s.Verdict, Repeat: c.Repeat, Rounds: c.Rounds, WallSeconds: c.Wall.Seconds(),
		TicksA: c.TicksA, TicksB: c.TicksB}
}

func writeLiveCSV(w io.Writer, c liveComparison) error {
	cw := csv.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	s := c.Stats
	recs := [][]string{
		{"a", "b", "cycles_a", "cycles_b", "ticks_a", "ticks_b", "ns_a", "ns_b", "ratio", "ratio_lo", "ratio_hi", "p_value", "pairs", "repeat", "verdict"},
		{c.A.Name, c.B.Name, f(c.A.Cycles), f(c.B.Cycles), f(c.A.Ticks), f(c.B.Ticks), f(c.A.Nanoseconds), f(c.B.Nanoseconds),
			f(s.Ratio), f(s.Lo), f(s.Hi), f(s.PValue), strconv.Itoa(s.N), strconv.Itoa(c.Repeat), s.Verdict},
	}
	if err := cw.WriteAll(recs); err != nil {
		return err
	}
	return cw.Error()
}

// compareCPE sweeps two kernels and compares their slopes.
func compareCPE(stdout, stderr io.Writer, out, format string, cfg harness.Config, ka, kb benchexamples.Kernel, sizes []int, opt stats.CompareOptions) error {
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	cfg.Calibration = cal
	h := newHeader("compare", cal, cfg, warns)
	in := catchInterrupts()
	defer in.stop()
	cfg.Context = in.ctx
	sa := &sweptKernel{kernel: ka, sizes: sizes}
	sb := &sweptKernel{kernel: kb, sizes: sizes}
	nameB := kb.Name
	if ka.Name == kb.Name {
		nameB += "'"
	}
	var done func()
	cfg.Progress, done = newSweepProgress(stderr, "compare", 2*len(sizes))
	c, err := harness.CompareCPE(cfg, sizes, sa.sweep(ka.Name), sb.sweep(nameB), opt)
	done()
	if code := in.exitCode(); code != 0 {
		return silentExit(code)
	}
	if err != nil {
		return err
	}
	sa.res, sb.res = c.A, c.B
	okA, okB := sa.runChecks(), sb.runChecks()
	swept := []*sweptKernel{sa, sb}
	hoistSweepWarnings(&h, swept)
	var buf bytes.Buffer
	switch format {
	case formatTable:
		err = writeCPECompareTable(&buf, h, swept, c)
	case formatJSON:
		err = writeJSON(&buf, cpeCompareReport(h, swept, c))
	case formatCSV:
		err = writeCPECompareCSV(&buf, c)
	case formatBench:
		if err = writeCPE(&buf, formatBench, h, swept); err == nil {
			s := c.Slopes
			_, err = fmt.Fprintf(&buf, "# compare cpe: B/A = %s, B − A = %s ± %s %s/%s (95%%), p = %s (Welch t, %s dof): %s\n",
				sig(s.Ratio, 5), signedSig(s.Diff, 4), sig(s.DiffCI, 2), c.Unit, elemWord(ka.Unit), pString(s.PValue), sig(s.DoF, 3), s.Verdict)
		}
	}
	if err != nil {
		return err
	}
	if err := writeResult(stdout, out, buf.Bytes()); err != nil {
		return err
	}
	if !okA || !okB {
		return silentExit(exitFailure)
	}
	return nil
}

func writeCPECompareTable(w io.Writer, h header, swept []*sweptKernel, c harness.CPEComparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu: %s  counter: %s at %s  k=%d eps=%g m=%d\n",
		orDash(h.CPU), h.Counter, formatHz(h.TSCHz), h.K, h.Epsilon, h.MaxSamples)
	for _, s := range swept {
		writeCPEKernel(&b, s)
	}
	s := c.Slopes
	elem := elemWord(swept[0].kernel.Unit)
	b.WriteString("\n")
	t := &table{}
	t.row("CPE B/A", "%s  (B − A = %s ± %s %s/%s, 95%% CI)", sig(s.Ratio, 5), signedSig(s.Diff, 4), sig(s.DiffCI, 2), c.Unit, elem)
	t.row("p", "%s  (Welch's t test on the slopes, %s degrees of freedom)", pString(s.PValue), sig(s.DoF, 3))
	t.row("verdict", "%s", s.Verdict)
	t.write(&b)
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wr)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type cpeCompareJSON struct {
	header
	A           cpeKernelJSON `json:"a"`
	B           cpeKernelJSON `json:"b"`
	Unit        string        `json:"unit"`
	Ratio       float64       `json:"ratio"`
	Diff        float64       `json:"diff"`
	DiffCI      float64       `json:"diff_ci95"`
	DoF         float64       `json:"dof"`
	PValue      float64       `json:"p_value"`
	Significant bool          `json:"significant"`
	Verdict     string        `json:"verdict"`
}

func cpeCompareReport(h header, swept []*sweptKernel, c harness.CPEComparison) cpeCompareJSON {
	s := c.Slopes
	return cpeCompareJSON{header: h, A: cpeKernelReport(swept[0]), B: cpeKernelReport(swept[1]), Unit: c.Unit,
		Ratio: s.Ratio, Diff: s.Diff, DiffCI: s.DiffCI, DoF: s.DoF, PValue: s.PValue, Significant: s.Significant, Verdict: s.Verdict}
}

func writeCPECompareCSV(w io.Writer, c harness.CPEComparison) error {
	fa, fb := c.A.Ticks, c.B.Ticks
	if c.Unit == "cycles" {
		fa, fb = c.A.Cycles, c.B.Cycles
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	s := c.Slopes
	cw := csv.NewWriter(w)
	if err := cw.WriteAll([][]string{
		{"a", "b", "unit", "slope_a", "slope_a_ci95", "slope_b", "slope_b_ci95", "ratio", "diff", "diff_ci95", "p_value", "verdict"},
		{c.A.Name, c.B.Name, c.Unit, f(fa.Slope), f(fa.SlopeCI), f(fb.Slope), f(fb.SlopeCI), f(s.Ratio), f(s.Diff), f(s.DiffCI), f(s.PValue), s.Verdict},
	}); err != nil {
		return err
	}
	return cw.Error()
}

// pString formats a p-value with two significant digits: 0.65, 0.0044,
// 2.1e-11; a p-value that underflowed to 0 is shown as < 1e-300.
func pString(p float64) string {
	if p == 0 {
		return "< 1e-300"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
