package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

const compareDescription = `Compare two kernels measured interleaved in this process, or saved result
files: two by the statistics of their runs, more as a matrix of kernels ×
machines.

Kernels: -a and -b name them (see cyclebench run -list; the same name on both
sides is an A/A test); -n sets both sizes, -na and -nb one side's. Each round
samples A and B back to back, forward and back (A B B A, the next round
B A A B), every sample timing R calls with the same R for both sides; the
smaller sample of each side in a round forms a pair. The pairs are taken in
five blocks, each a measurement of its own, and in up to ten more of as many
pairs while the blocks' own intervals are too wide to resolve half a counter
quantum (a block caught in a noisy moment); the ratio B/A of the
paired per-call costs comes with a 95% confidence interval and a p-value
from the blocks' ratios (each block's Hodges–Lehmann ratio, from the
Wilcoxon signed-rank test, weighted by its own interval). "no significant
difference" means the interval contains 1, reaches into the noise band, or
p ≥ α. The noise band is derived from the measurement (-noise auto): half a
counter quantum relative to a sample, or the drift of the ratio between the
run's halves, whichever is larger; the output also gives the smallest
difference the run could have detected.

With -sizes, -range or -log both kernels are swept over those sizes (as
cyclebench cpe does) and their costs per element compared (Welch's t test
on the two slopes).

Files: cyclebench compare [flags] FILE FILE [FILE...] compares result files
written by cyclebench run or cpe (-format json or bench, any version) or by go
test -bench (with or without harness.Report).

Two files, A and B (-baseline picks A), are compared result by result in
cycles (frequency-independent) and ns, each with a verdict and a one-line
summary. Measured again later, the same code moves by more than one run's
own interval, so files are compared by the spread between their runs
(Welch's t test on the logarithms of the per-run values): that needs at
least 2 runs of a result on each side, which cyclebench run -o FILE writes
(3 by default); with 1 run per side there is no test, and the output says
which flag to add.

Three files or more (or two with -matrix) make the matrix of kernels ×
machines: each machine a column labelled with its machine (CPU, core, counter
and its frequency, hypervisor, Go version), each cell the median of its runs
in core cycles per call and per element, with its spread (-spread) and its
ratio to the baseline file. Files of one machine (same CPU, counter, platform
and Go) are pooled as the runs of one column (-per-file keeps a column per
file); a file that is not a result file (a glob that caught a README) is
skipped with a warning. The text fits 100 columns: per-element figures are
left out first, then the machines come in blocks. Cycles compare across machines whose counters
differ; a file without cycles (measured with -no-cycles, go test without
harness.Report) shows its ns, and the notes say why; a kernel a machine lacks
is "-". Below the table, each family of variants (Combine1..6, Psum1/2, a
user's Sum/one and Sum/four) gets its verdict: which variant is fastest on
which machine, by how much. -format json writes the matrix (package results'
Table), csv one row per kernel and machine, bench (also with two files) every
run of every file as one benchmark stream with a "machine:" configuration
line, which benchstat -col machine lays out as the same matrix. -plot draws grouped bars of cycles
per element (per call for kernels without elements) with the runs' spread,
or a heat map of the ratios to the baseline (-plot-kind).`

func runCompare(args []string, stdout, stderr io.Writer) error {
	if revisionFlagSet(args) { // cyclebench compare -base REF ./mypkg: two revisions over layouts
		return compareRevisions(args, stdout, stderr)
	}
	if err := checkPaths(args); err != nil {
		return err
	}
	if packageArgs(args) { // cyclebench compare ./mypkg: go test's harness.ReportCompare results
		return comparePackages(args, stdout, stderr)
	}
	s := newSession("compare", "-a NAME -b NAME [-n SIZE] [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [flags]\n       cyclebench compare [flags] FILE FILE [FILE...]", compareDescription, stdout)
	s.fs.more = func() string { return revisionHelp() + packageHelp("compare") }
	fs := s.fs
	nameA := fs.String("a", "", "kernel `NAME` of A, the baseline")
	nameB := fs.String("b", "", "kernel `NAME` of B, compared with A")
	n := fs.Int("n", 0, "size `N` of both kernels (default: each kernel's own)")
	na := fs.Int("na", 0, "size `N` of kernel A (default: -n)")
	nb := fs.Int("nb", 0, "size `N` of kernel B (default: -n)")
	opt := harness.CompareOptions{Stats: stats.DefaultCompareOptions}
	defaults, _ := opt.WithDefaults() // the library's (cannot fail on zero fields)
	fs.IntVar(&opt.Pairs, "pairs", defaults.Pairs, "paired samples to collect: `N` from 6 to 100000 (fewer when -max-time comes first)")
	fs.Float64Var(&opt.Stats.Alpha, "alpha", opt.Stats.Alpha, "significance level `α` of the test (0 < α < 1)")
	fs.Var(noiseBandValue{Band: &opt.Stats.NoiseBand}, "noise", "noise band `BAND`: a ratio within 1 ± BAND is no difference; auto derives it from the measurement,\nnone (or 0) turns it off, a fraction fixes it (0.002 is ±0.2%)")
	sf := addSizeFlags(fs)
	s.pf = addPlotFlags(fs, "the ratio (or the two sweeps, the files' ratios, the machines' cycles)", plot.DefaultCompareSize)
	s.o = addOutputFlags(fs, stdout, stderr, true, resultFormats...)
	mf := addMatrixFlags(fs)
	meas := addMeasureFlags(fs, false)
	fs.example("cyclebench compare -a AddChain -b AddChain -na 10000 -nb 10010", "can it see 10 ADDs in 10000 (0.1%)?")
	fs.example("cyclebench compare -a Psum1 -b Psum2 -range 100:2000:100 -plot psum.svg", "the two kernels' costs per element, with a picture")
	fs.example("cyclebench compare old.json new.json", "two files of cyclebench run -o old.json and -o new.json, result by result")
	fs.example("cyclebench compare -names zen5,zen4,arm -baseline zen4 -bench 'Combine|Psum' zen5.json zen4.json arm.txt -plot m.svg",
		"three machines' Combine and Psum kernels relative to zen4: the matrix, the fastest variants, a picture")
	alpha := func() error {
		if a := opt.Stats.Alpha; math.IsNaN(a) || a <= 0 || a >= 1 {
			return usageErrorf("-alpha %v: out of range (allowed: 0 < α < 1)", a)
		}
		return nil
	}
	if err := s.parse(args); err != nil {
		return err
	}
	if len(fs.args) > 0 {
		if *nameA != "" || *nameB != "" || sf.given() {
			return usageErrorf("give either result files or -a and -b, not both")
		}
		if len(fs.args) == 2 && !mf.matrix && s.o.format != formatBench {
			if f := given(fs, matrixOnly...); f != "" {
				return usageErrorf("%s is for the matrix of three files or more (or two with -matrix)", f)
			}
		}
		return s.compareFiles(mf, opt, alpha)
	}
	if f := given(fs, fileFlags...); f != "" {
		return usageErrorf("%s is for comparing result files (cyclebench compare [flags] FILE FILE...)", f)
	}
	var ka, kb benchexamples.Kernel
	var sizes []int
	var logSpaced bool
	s.mf = meas
	if err := s.start(false, alpha, func() (err error) {
		if *nameA == "" || *nameB == "" {
			return usageErrorf("give -a and -b (kernel names; see cyclebench run -list), or two result files")
		}
		if ka, err = benchexamples.Lookup(*nameA); err != nil {
			return kernelError("-a", *nameA, err)
		}
		if kb, err = benchexamples.Lookup(*nameB); err != nil {
			return kernelError("-b", *nameB, err)
		}
		for _, f := range []struct {
			name string
			v    int
		}{{"n", *n}, {"na", *na}, {"nb", *nb}} {
			if f.v < 0 {
				return usageErrorf("-%s %d: out of range (allowed: 0 for the default, or a positive size)", f.name, f.v)
			}
		}
		if _, err := opt.WithDefaults(); err != nil {
			return usageErrorf("-pairs %d: %w", opt.Pairs, err)
		}
		if sizes, logSpaced, err = sf.parse(); err != nil || sizes == nil {
			return err
		}
		if *n != 0 || *na != 0 || *nb != 0 {
			return usageErrorf("-n, -na and -nb are for one size; with -sizes, -range or -log the sizes come from there")
		}
		for _, k := range []benchexamples.Kernel{ka, kb} {
			if err := checkKernelSizes("-sizes", k, sizes); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	defer s.close()
	if sizes != nil {
		return s.compareCPE(ka, kb, sizes, logSpaced, opt)
	}
	return s.compareKernels(ka, kb, pick(*na, *n, ka.DefaultN), pick(*nb, *n, kb.DefaultN), opt)
}

// compareKernels measures kernels ka at size sizeA and kb at sizeB
// interleaved and compares them.
func (s *session) compareKernels(ka, kb benchexamples.Kernel, sizeA, sizeB int, opt harness.CompareOptions) error {
	insA, err := ka.New(sizeA)
	if err != nil {
		return kernelError("-na", strconv.Itoa(sizeA), err)
	}
	insB, err := kb.New(sizeB)
	if err != nil {
		return kernelError("-nb", strconv.Itoa(sizeB), err)
	}
	if err := s.calibrate("compare"); err != nil {
		return err
	}
	prog := newProgress(s.o)
	ctx := harness.WithProgress(s.in.ctx, sweepProgress(prog, fmt.Sprintf("compare %s/n=%d with %s/n=%d", ka.Name, sizeA, kb.Name, sizeB), "pairs", s.cfg))
	// The outputs are checked below, into the results' Check fields.
	a, b := insA, insB
	a.Check, b.Check = nil, nil
	c, err := harness.Compare(ctx, s.cfg, a, b, opt)
	prog.done()
	if err != nil && (s.in.exitCode() == 0 || c.A.Samples == 0) {
		if s.in.exitCode() != 0 {
			return s.o.status(s.in, "")
		}
		return err
	}
	cmp := liveComparison{Comparison: c,
		A: results.Measurement{Result: c.A, Kernel: ka.Name, N: sizeA, Unit: ka.Unit, Check: checkWord(insA.Check()), Bench: "A/" + c.A.Name, PerElement: insA.Elements > 0},
		B: results.Measurement{Result: c.B, Kernel: kb.Name, N: sizeB, Unit: kb.Unit, Check: checkWord(insB.Check()), Bench: "B/" + c.B.Name, PerElement: insB.Elements > 0}}
	s.h.Warnings = append(s.h.Warnings, results.ErrorStrings(c.Warnings)...)
	s.partial(fmt.Sprintf(" after %d pairs", len(c.TicksA)), "")
	if err := s.o.emit(func(w io.Writer) error { return writeLiveComparison(w, s.o.format, s.h, cmp) }); err != nil {
		return err
	}
	if st := cmp.Stats; st.N > 0 {
		bars := plot.Comparison{Groups: []string{c.B.Name + " / " + c.A.Name}, Unit: "ratio B/A (paired, 95% CI)", Ratio: true, NoiseBand: st.NoiseBand,
			Series: []plot.BarSeries{{Name: "B/A", Bars: []plot.Bar{{Value: st.Ratio, Lo: math.Min(c.Lo, st.Ratio), Hi: math.Max(c.Hi, st.Ratio), Label: c.Verdict}}}}}
		title := fmt.Sprintf("%s on %s", c.Sentence(), orDash(s.h.CPU))
		if err := s.pf.write(s.o, func(w io.Writer, f string, opt plot.Options) error { return plot.Compare(w, f, bars, opt) }, plot.Options{Title: title}); err != nil {
			return err
		}
	}
	sides := []results.Measurement{cmp.A, cmp.B}
	s.o.warnResults(reports.ResultWarnings(s.h, sides))
	return s.o.status(s.in, results.Failure(sides, s.o.strict, s.cfg.MaxTime, "sides"))
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

// compareFiles compares result files: two by the statistics of their
// runs (results.Compare; with -matrix, or -format bench, as a matrix),
// more as the matrix of kernels × machines (results.Matrix).
func (s *session) compareFiles(mf *matrixFlags, opt harness.CompareOptions, checks ...func() error) error {
	var keep *regexp.Regexp
	var files []results.File
	var kept []int
	var skipped []error
	paths := s.fs.args
	if err := s.start(true, append(checks, func() (err error) {
		if err := filesExist(paths); err != nil {
			return err
		}
		if len(paths) < 2 {
			return usageErrorf("%d file given (want two or more: cyclebench compare [flags] FILE FILE...)", len(paths))
		}
		keep, err = mf.setup()
		return err
	})...); err != nil {
		return err
	}
	defer s.close()
	if len(mf.opt.Names) > 0 && len(mf.opt.Names) != len(paths) {
		return usageErrorf("-names %q: %d names for %d files (want one per file)", mf.names, len(mf.opt.Names), len(paths))
	}
	// Three files or more make the matrix, which skips a file it cannot
	// read (a glob that caught a README) rather than stopping.
	files, kept, skipped, err := results.ReadFiles(paths, keep, len(paths) > 2)
	if errors.Is(err, results.ErrBadInput) {
		return inputError("", err)
	} else if err != nil {
		return unreadable(err)
	}
	if len(mf.opt.Names) > 0 {
		var names []string
		for _, i := range kept {
			names = append(names, mf.opt.Names[i])
		}
		mf.opt.Names = names
	}
	for _, e := range skipped {
		s.o.warn("skipped a file: " + withoutPackages.Replace(e.Error()))
	}
	base, err := mf.selectBaseline(files)
	if err != nil {
		return err
	}
	if len(files) > 2 || mf.matrix || s.o.format == formatBench {
		mf.opt.Baseline = base
		if len(paths) > 2 || mf.matrix {
			if files, err = mf.pool(files); err != nil {
				return err
			}
		}
		return compareMatrix(s.o, s.pf, mf, files)
	}
	a, b := files[base], files[1-base]
	c, err := results.Compare(a, b, opt.Stats)
	if err != nil {
		return libError(err)
	}
	if err := s.o.emit(func(w io.Writer) error { return writeFileComparison(w, s.o.format, c) }); err != nil {
		return err
	}
	if bars, ok := c.Bars(); ok {
		title := fmt.Sprintf("%s against %s", b.Path, a.Path)
		if err := s.pf.write(s.o, func(w io.Writer, f string, opt plot.Options) error { return plot.Compare(w, f, bars, opt) }, plot.Options{Title: title}); err != nil {
			return err
		}
	}
	s.o.warnAll(results.FileWarnings(files))
	if c.Apart != "" {
		s.o.warn(c.Apart)
	}
	return nil
}

// liveComparison is a Compare result with what the CLI knows of each side.
type liveComparison struct {
	harness.Comparison
	A, B results.Measurement
}

func writeLiveComparison(w io.Writer, format string, h results.Header, c liveComparison) error {
	switch format {
	case formatJSON:
		return writeJSON(w, reports.NewPairedReport(h, c.Comparison, c.A, c.B))
	case formatCSV:
		return liveTable(c).WriteCSV(w)
	case formatBench:
		if err := results.WriteBench(w, h, []results.Measurement{c.A, c.B}); err != nil {
			return err
		}
		_, err := io.WriteString(w, strings.Join(reports.ComparisonComments(c.Comparison), "\n")+"\n")
		return err
	}
	d := newDoc(format)
	d.Line(fmt.Sprintf("%s  core: %s cycles/tick", h.Line(), sig(c.A.CyclesPerTick, 5)))
	d.Blank()
	t := reports.ResultTable(results.Header{}, nil)
	t.Cols = append([]col{{Name: "", Left: true}}, t.Cols...)
	for _, m := range []results.Measurement{c.A, c.B} {
		t.Rows = append(t.Rows, append([]any{m.Bench[:1]}, reports.ResultTable(results.Header{}, []results.Measurement{m}).Rows[0]...))
	}
	d.Table(t)
	d.Blank()
	d.Table(kvLines(reports.ComparisonLines(c.Comparison)))
	return d.Render(w)
}

// liveTable is a live comparison as one CSV row.
func liveTable(c liveComparison) *table {
	s := c.Stats
	t := &table{}
	for _, n := range []string{"a", "b", "cycles_a", "cycles_b", "ticks_a", "ticks_b", "ns_a", "ns_b", "ratio", "ratio_lo", "ratio_hi", "p_value", "pairs", "repeat",
		"noise_band", "band_source", "detectable", "best_ratio", "best_ratio_lo", "best_ratio_hi", "verdict", "reason", "summary"} {
		t.Cols = append(t.Cols, col{Name: n})
	}
	t.Add(c.A.Name, c.B.Name, c.A.Cycles, c.B.Cycles, c.A.Ticks, c.B.Ticks, c.A.Nanoseconds, c.B.Nanoseconds,
		s.Ratio, s.Lo, s.Hi, s.PValue, s.N, c.Repeat, s.NoiseBand, s.BandSource, s.Detectable, c.BestRatio, c.BestLo, c.BestHi, c.Verdict, c.Reason, c.Sentence())
	return t
}

// compareCPE sweeps two kernels and compares their slopes.
func (s *session) compareCPE(ka, kb benchexamples.Kernel, sizes []int, logSpaced bool, opt harness.CompareOptions) error {
	if err := s.calibrate("compare"); err != nil {
		return err
	}
	sa, sb := newSwept(ka, sizes), newSwept(kb, sizes)
	nameB := kb.Name
	if ka.Name == kb.Name {
		nameB += "'"
	}
	prog := newProgress(s.o)
	ctx := harness.WithProgress(s.in.ctx, sweepProgress(prog, fmt.Sprintf("compare %s with %s", ka.Name, nameB), "sizes", s.cfg))
	c, err := harness.CompareCPE(ctx, s.cfg, sa.sweep(ka.Name), sb.sweep(nameB), opt.Stats)
	prog.done()
	if err != nil && s.in.exitCode() == 0 {
		return err
	}
	sa.measured(c.A)
	sb.measured(c.B)
	swept := sweepsOf([]*sweptKernel{sa, sb})
	if len(sb.Points) == 0 {
		swept = swept[:1]
	}
	s.h.HoistSweeps(swept)
	s.partial(": the sweeps are incomplete, the slopes not compared", "")
	compared := s.in.exitCode() == 0
	render := func(w io.Writer) error { return writeCPEComparison(w, s.o.format, s.h, swept, c, compared) }
	return s.endSweeps(swept, render, logSpaced, len(sa.Points) > 0, results.SweepFailure(swept, s.o.strict, s.cfg.MaxTime))
}

// writeCPEComparison writes two sweeps and, when compared, their slopes.
func writeCPEComparison(w io.Writer, format string, h results.Header, swept []*results.Sweep, c harness.CPEComparison, compared bool) error {
	s := c.Slopes
	summary := reports.SlopesSummary(c, results.ElementWord(swept[0].Unit))
	if !compared {
		summary = "not compared: the sweeps are incomplete"
	}
	switch format {
	case formatJSON:
		var b *results.Sweep
		if len(swept) > 1 {
			b = swept[1]
		}
		return writeJSON(w, reports.NewSlopesReport(h, swept[0], b, c, compared))
	case formatCSV:
		t := reports.CPETable(swept)
		if compared {
			t.Add("B/A", "slopes", c.Unit, nil, nil, s.Ratio, nil, nil, nil, nil, nil, nil, nil, nil, s.Diff, s.DiffCI, nil, nil, nil, s.Verdict, summary)
		}
		return t.WriteCSV(w)
	}
	if err := writeCPE(w, format, h, swept); err != nil {
		return err
	}
	if format == formatBench {
		_, err := fmt.Fprintf(w, "# compare %s\n", summary)
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", summary)
	return err
}
