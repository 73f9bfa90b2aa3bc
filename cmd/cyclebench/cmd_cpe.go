package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/schollz/progressbar/v3"
)

const cpeDescription = `Measure a kernel at several sizes n and fit cost = intercept + CPE·n by least
squares with an intercept: CPE is the cost per element (core cycles, counter
ticks and ns), the intercept the cost per call that does not grow with n.
Every size is measured with the K-best method, all sizes interleaved in one
loop (each round visits them forward and back, until every size has
converged) with one core-clock ruler, so a drift of the machine hits every
size alike. The table lists each size and
the fit: CPE ± its 95% confidence interval, intercept, R², and the sizes
whose residual is an outlier (for example where the data leave a cache).

-bench takes a kernel name (see cyclebench run -list) or a regexp selecting
several; they are swept one after another and fitted separately. Sizes come
from one of -sizes, -range or -log; without them each kernel is swept over
10 sizes from a tenth of its default n to its default n. -plot draws the
points and fitted lines (SVG or PNG by the file's extension; log-log axes
with -log). A progress bar goes to stderr when it is a terminal.

Exits 1 when a kernel's output check fails or a size did not converge (the
results are written first); SIGINT or SIGTERM stops the sweep, writes what
was measured and exits 130 or 143.`

// sizeFlags are the three ways to give a sweep's sizes.
type sizeFlags struct {
	list, rng, log *string
}

func addSizeFlags(fs *flagSet) *sizeFlags {
	return &sizeFlags{
		list: fs.String("sizes", "", "comma-separated sizes, increasing, at least 3: 100,200,400"),
		rng:  fs.String("range", "", "sizes from:to:step, e.g. 100:2000:100"),
		log:  fs.String("log", "", "from:to:count: count sizes spaced evenly on a log scale, e.g. 64:65536:16"),
	}
}

// given reports whether any size flag was set.
func (s *sizeFlags) given() bool { return *s.list != "" || *s.rng != "" || *s.log != "" }

// parse returns the sizes and whether they are log-spaced; nil sizes when
// no flag was given. More than one flag, or a bad value, is a usage error.
func (s *sizeFlags) parse() ([]int, bool, error) {
	var set []string
	for _, f := range []struct{ name, v string }{{"sizes", *s.list}, {"range", *s.rng}, {"log", *s.log}} {
		if f.v != "" {
			set = append(set, "-"+f.name)
		}
	}
	if len(set) > 1 {
		return nil, false, usageErrorf("%s: give the sizes one way only", strings.Join(set, " and "))
	}
	var sizes []int
	var err error
	switch {
	case *s.list != "":
		if sizes, err = harness.ParseSizeList(*s.list); err != nil {
			return nil, false, usageErrorf("-sizes %q: %w", *s.list, err)
		}
	case *s.rng != "":
		if sizes, err = harness.ParseSizeRange(*s.rng); err != nil {
			return nil, false, usageErrorf("-range %q: %w", *s.rng, err)
		}
	case *s.log != "":
		if sizes, err = harness.ParseSizeLog(*s.log); err != nil {
			return nil, false, usageErrorf("-log %q: %w", *s.log, err)
		}
		return sizes, true, nil
	}
	return sizes, false, nil
}

// defaultSizes is the sweep used without a size flag: 10 sizes from a
// tenth of the kernel's default n to its default n.
func defaultSizes(k benchexamples.Kernel) []int {
	step := max(1, k.DefaultN/10)
	if s, err := harness.SizeRange(max(k.MinN, step), min(k.DefaultN, k.MaxN), step); err == nil {
		return s
	}
	s, _ := harness.SizeRange(max(k.MinN, 1), max(k.MinN, 1)+2, 1)
	return s
}

// checkKernelSizes returns a usage error naming the first size outside
// the kernel's range.
func checkKernelSizes(flag string, k benchexamples.Kernel, sizes []int) error {
	for _, n := range sizes {
		if n < k.MinN || n > k.MaxN {
			return usageErrorf("%s: size %d: %s takes n from %d to %d", flag, n, k.Name, k.MinN, k.MaxN)
		}
	}
	return nil
}

// selectKernels resolves -bench: an exact kernel name, else a regexp.
func selectKernels(flag, pattern string) ([]benchexamples.Kernel, error) {
	if pattern == "" {
		return nil, usageErrorf("%s: missing (give a kernel name or a regexp; see cyclebench run -list)", flag)
	}
	if k, err := benchexamples.Lookup(pattern); err == nil {
		return []benchexamples.Kernel{k}, nil
	}
	ks, err := benchexamples.Select(pattern)
	if err != nil {
		return nil, usageErrorf("%s %q: %w", flag, pattern, err)
	}
	return ks, nil
}

// sweptKernel is one kernel of a sweep with the instances built for it,
// kept to check their outputs afterwards.
type sweptKernel struct {
	kernel    benchexamples.Kernel
	sizes     []int
	instances map[int]benchexamples.Instance
	res       harness.CPEResult
	check     string // "ok", or the first failed check
}

// sweep returns the harness.Sweep that builds k's instances into s.
func (s *sweptKernel) sweep(name string) harness.Sweep {
	s.instances = map[int]benchexamples.Instance{}
	return harness.Sweep{Name: name, Sizes: s.sizes, Build: func(n int) (harness.Instance, error) {
		in, err := s.kernel.New(n)
		if err != nil {
			return harness.Instance{}, err
		}
		s.instances[n] = in
		return harness.Instance{Run: in.Run, Setup: in.Setup, Elements: in.Elements}, nil
	}}
}

// runChecks checks the output of every instance's last run.
func (s *sweptKernel) runChecks() bool {
	s.check = "ok"
	for _, n := range s.sizes {
		in, ok := s.instances[n]
		if !ok {
			continue
		}
		if err := in.Check(); err != nil {
			s.check = fmt.Sprintf("n=%d: %v", n, err)
			return false
		}
	}
	return true
}

// newSweepProgress returns a harness progress callback drawing a bar on
// stderr when it is a terminal (nil otherwise), and a function that
// removes the bar.
func newSweepProgress(stderr io.Writer, description string, total int) (func(harness.Progress), func()) {
	if !newProgressLine(stderr).active {
		return nil, func() {}
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(description),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(50*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
	)
	shown := 0
	return func(p harness.Progress) {
		// A size can lose its convergence to a new best sample: the bar
		// does not go back.
		if p.Samples > shown {
			shown = p.Samples
			bar.Set(shown)
		}
	}, func() { bar.Finish() }
}

func runCPE(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cpe", "-bench NAME [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [-plot FILE.svg|.png] [flags]", cpeDescription, stderr)
	bench := fs.String("bench", "", "kernel name, or a regexp selecting several (swept one after another); see cyclebench run -list")
	sf := addSizeFlags(fs)
	plotPath := fs.String("plot", "", "draw the points and fitted lines to this file: .svg or .png")
	format := choiceFlag(fs, "format", formatTable, "output format", resultFormats...)
	out := fs.String("o", "", "write the results to this file (atomically) instead of stdout")
	mf := addMeasureFlags(fs, false)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	kernels, err := selectKernels("-bench", *bench)
	if err != nil {
		return err
	}
	sizes, logSpaced, err := sf.parse()
	if err != nil {
		return err
	}
	swept := make([]*sweptKernel, len(kernels))
	var notLinear []string
	for i, k := range kernels {
		s := sizes
		if s == nil {
			s = defaultSizes(k)
		}
		if err := checkKernelSizes("-sizes", k, s); err != nil {
			return err
		}
		swept[i] = &sweptKernel{kernel: k, sizes: s}
		if !k.CPE {
			notLinear = append(notLinear, k.Name)
		}
	}
	plotFormat := ""
	if *plotPath != "" {
		if plotFormat, err = checkPlotPath(*plotPath); err != nil {
			return err
		}
	}
	if err := checkOutputPath(*out); err != nil {
		return err
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	cfg.Calibration = cal
	h := newHeader("cpe", cal, cfg, warns)
	if len(notLinear) > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%s: cost not linear in n (not a CPE kernel); the slope is an average over the sizes", strings.Join(notLinear, ", ")))
	}

	in := catchInterrupts()
	defer in.stop()
	cfg.Context = in.ctx
	sweeps := make([]harness.Sweep, len(swept))
	total := 0
	for i, s := range swept {
		sweeps[i] = s.sweep(s.kernel.Name)
		total += len(s.sizes)
	}
	var done func()
	cfg.Progress, done = newSweepProgress(stderr, "cpe "+*bench, total)
	results, err := harness.CPEAll(cfg, sweeps)
	done()
	interrupted := in.exitCode() != 0
	if err != nil && !interrupted {
		return err
	}
	failed := false
	for i, s := range swept {
		if i < len(results) {
			s.res = results[i]
		}
		if !interrupted && !s.runChecks() {
			failed = true
		}
		for _, p := range s.res.Points {
			failed = failed || !p.Converged
		}
	}
	hoistSweepWarnings(&h, swept)
	if interrupted {
		h.Warnings = append(h.Warnings, "interrupted by a signal: the sweep is incomplete")
	}
	var b bytes.Buffer
	if err := writeCPE(&b, *format, h, swept); err != nil {
		return err
	}
	if err := writeResult(stdout, *out, b.Bytes()); err != nil {
		return err
	}
	if *plotPath != "" && !interrupted {
		if err := writePlot(*plotPath, plotFormat, cpePlotFor(h, swept, logSpaced)); err != nil {
			return err
		}
	}
	if code := in.exitCode(); code != 0 {
		return silentExit(code)
	}
	if failed {
		return silentExit(exitFailure)
	}
	return nil
}

// writeResult writes data to stdout, or atomically to path: the whole
// output is rendered first, so nothing is half-written.
func writeResult(stdout io.Writer, path string, data []byte) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return f.Commit()
}

// primaryFit is the fit a kernel is reported by: cycles when measured,
// else ticks.
func primaryFit(r harness.CPEResult) (stats.Fit, string) {
	if r.HasCycles {
		return r.Cycles, "cycles"
	}
	return r.Ticks, "ticks"
}

// cpeMeasured turns a sweep's points into the shared result rows.
func cpeMeasured(s *sweptKernel) []measured {
	rs := make([]measured, len(s.res.Points))
	for i, p := range s.res.Points {
		rs[i] = measured{Result: p, Kernel: s.kernel.Name, N: s.res.Sizes[i], Unit: s.kernel.Unit, Check: s.check, bench: p.Name, elemOK: p.Elements > 0}
	}
	return rs
}

func writeCPE(w io.Writer, format string, h header, swept []*sweptKernel) error {
	switch format {
	case formatTable:
		return writeCPETable(w, h, swept)
	case formatJSON:
		return writeJSON(w, cpeReport(h, swept))
	case formatCSV:
		return writeCPECSV(w, swept)
	case formatBench:
		var rs []measured
		for _, s := range swept {
			rs = append(rs, cpeMeasured(s)...)
		}
		if err := writeResultBench(w, h, rs); err != nil {
			return err
		}
		for _, s := range swept {
			for _, line := range cpeFitComments(s) {
				if _, err := fmt.Fprintln(w, line); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return usageErrorf("-format %q: want one of %s", format, strings.Join(resultFormats, ", "))
}

// cpeFitComments are the fits as "#" lines, which benchfmt readers skip.
func cpeFitComments(s *sweptKernel) []string {
	var out []string
	r := s.res
	if len(r.Points) < harness.MinSizes {
		return []string{fmt.Sprintf("# cpe %s: too few points for a fit", r.Name)}
	}
	for _, f := range fitsOf(r) {
		out = append(out, fmt.Sprintf("# cpe %s: %s ± %s %s/%s (95%%), intercept %s ± %s %s, R² %s, outlier sizes %v",
			r.Name, sig(f.fit.Slope, 5), sig(f.fit.SlopeCI, 2), f.unit, elemWord(s.kernel.Unit), sig(f.fit.Intercept, 4), sig(f.fit.InterceptCI, 2), f.unit, r2String(f.fit.R2), outlierSizes(r, f.fit)))
	}
	return out
}

type unitFit struct {
	unit string
	fit  stats.Fit
}

// fitsOf lists the fits of r: cycles (when measured), ticks, ns.
func fitsOf(r harness.CPEResult) []unitFit {
	var fs []unitFit
	if r.HasCycles {
		fs = append(fs, unitFit{"cycles", r.Cycles})
	}
	return append(fs, unitFit{"ticks", r.Ticks}, unitFit{"ns", r.Nanoseconds})
}

func outlierSizes(r harness.CPEResult, f stats.Fit) []int {
	out := []int{}
	for _, i := range f.Outliers {
		if i >= 0 && i < len(r.Sizes) {
			out = append(out, r.Sizes[i])
		}
	}
	return out
}

// elemWord is the singular of a kernel's unit: "element", "op".
func elemWord(unit string) string {
	switch unit {
	case "":
		return "element"
	case "ms":
		return "ms"
	}
	return strings.TrimSuffix(unit, "s")
}

// r2String shows R² with enough nines to tell 0.99990 from 0.999999.
func r2String(r2 float64) string {
	return strconv.FormatFloat(r2, 'f', 7, 64)
}

// hoistSweepWarnings moves the warnings every kernel's sweep carries (the
// calibration's, pinning) into the header, so they are printed once.
func hoistSweepWarnings(h *header, swept []*sweptKernel) {
	count := map[string]int{}
	for _, s := range swept {
		seen := map[string]bool{}
		for _, w := range s.res.Warnings {
			if m := w.Error(); !seen[m] {
				seen[m] = true
				count[m]++
			}
		}
	}
	hoisted := map[string]bool{}
	for _, m := range h.Warnings {
		hoisted[m] = true
	}
	for _, w := range swept[0].res.Warnings {
		if m := w.Error(); count[m] == len(swept) && !hoisted[m] {
			h.Warnings = append(h.Warnings, m)
			hoisted[m] = true
		}
	}
	for _, s := range swept {
		var keep []error
		for _, w := range s.res.Warnings {
			if !hoisted[w.Error()] {
				keep = append(keep, w)
			}
		}
		s.res.Warnings = keep
	}
}

func writeCPETable(w io.Writer, h header, swept []*sweptKernel) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cpu: %s  counter: %s at %s  k=%d eps=%g m=%d\n",
		orDash(h.CPU), h.Counter, formatHz(h.TSCHz), h.K, h.Epsilon, h.MaxSamples)
	for _, s := range swept {
		writeCPEKernel(&b, s)
	}
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wr)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCPEKernel writes one kernel's points and fit.
func writeCPEKernel(b *strings.Builder, s *sweptKernel) {
	r := s.res
	elem := elemWord(s.kernel.Unit)
	fmt.Fprintf(b, "\n%s: %d sizes, n in %s, core %s cycles/tick\n", r.Name, len(r.Points), s.kernel.Unit, sig(r.CyclesPerTick, 5))
	pf, unit := primaryFit(r)
	rows := [][]string{{"n", "cycles", "cycles/" + elem, "ticks", "ns", "residual", "R", "samples", "converged"}}
	outl := map[int]bool{}
	for _, i := range pf.Outliers {
		outl[i] = true
	}
	for i, p := range r.Points {
		res := "-"
		if i < len(pf.Residuals) {
			res = signedSig(pf.Residuals[i], 3)
			if outl[i] {
				res += " *"
			}
		}
		cyc, cpe := "-", "-"
		if r.HasCycles {
			cyc, cpe = sig(p.Cycles, 6), sig(p.CyclesPerElement, 4)
		}
		rows = append(rows, []string{strconv.Itoa(r.Sizes[i]), cyc, cpe, sig(p.Ticks, 6), sig(p.Nanoseconds, 6), res,
			strconv.Itoa(p.Repeat), strconv.Itoa(p.Samples), yesNo(p.Converged)})
	}
	writeColumns(b, rows, 0, 8)
	if len(r.Points) < harness.MinSizes {
		fmt.Fprintf(b, "fit        none: %d sizes measured, a fit needs %d\n", len(r.Points), harness.MinSizes)
	} else {
		t := &table{}
		t.row("CPE", "%s ± %s %s/%s (95%% CI)", sig(pf.Slope, 5), sig(pf.SlopeCI, 2), unit, elem)
		var also []string
		for _, f := range fitsOf(r)[1:] {
			if f.unit != unit {
				also = append(also, fmt.Sprintf("%s ± %s %s/%s", sig(f.fit.Slope, 5), sig(f.fit.SlopeCI, 2), f.unit, elem))
			}
		}
		if len(also) > 0 {
			t.row("", "= %s", strings.Join(also, " = "))
		}
		t.row("intercept", "%s ± %s %s per call", sig(pf.Intercept, 4), sig(pf.InterceptCI, 2), unit)
		t.row("R²", "%s", r2String(pf.R2))
		if o := outlierSizes(r, pf); len(o) > 0 {
			t.row("outliers", "n = %s (residual marked *)", joinInts(o))
		} else {
			t.row("outliers", "none")
		}
		t.write(b)
	}
	if s.check != "" && s.check != "ok" {
		fmt.Fprintf(b, "error: %s: output check failed: %s\n", r.Name, s.check)
	}
	for _, p := range r.Points {
		for _, wr := range p.Warnings {
			fmt.Fprintf(b, "warning: %v\n", wr)
		}
	}
	for _, wr := range r.Warnings {
		fmt.Fprintf(b, "warning: %v\n", wr)
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// writeColumns writes rows aligned in columns: text columns (the indices
// in left) left-aligned, the others right-aligned.
func writeColumns(b *strings.Builder, rows [][]string, left ...int) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	isLeft := map[int]bool{}
	for _, i := range left {
		isLeft[i] = true
	}
	for _, row := range rows {
		var line strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if isLeft[i] {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
			if i < len(row)-1 {
				line.WriteString("  ")
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// JSON form of a sweep.
type cpeFitJSON struct {
	Unit         string    `json:"unit"`
	PerElement   float64   `json:"per_element"`
	PerElementCI float64   `json:"per_element_ci95"`
	PerElementSE float64   `json:"per_element_se"`
	Intercept    float64   `json:"intercept"`
	InterceptCI  float64   `json:"intercept_ci95"`
	InterceptSE  float64   `json:"intercept_se"`
	R2           float64   `json:"r2"`
	N            int       `json:"n"`
	Residuals    []float64 `json:"residuals"`
	OutlierSizes []int     `json:"outlier_sizes"`
}

type cpeKernelJSON struct {
	Name          string       `json:"name"`
	Unit          string       `json:"unit"`
	Sizes         []int        `json:"sizes"`
	CyclesPerTick float64      `json:"core_cycles_per_tick"`
	Fits          []cpeFitJSON `json:"fits"`
	Points        []jsonResult `json:"points"`
	Check         string       `json:"check"`
	Warnings      []string     `json:"warnings"`
}

type cpeReportJSON struct {
	header
	Kernels []cpeKernelJSON `json:"kernels"`
}

func cpeKernelReport(s *sweptKernel) cpeKernelJSON {
	r := s.res
	k := cpeKernelJSON{Name: r.Name, Unit: s.kernel.Unit, Sizes: r.Sizes, CyclesPerTick: r.CyclesPerTick,
		Fits: []cpeFitJSON{}, Points: []jsonResult{}, Check: s.check, Warnings: errorStrings(r.Warnings)}
	if k.Sizes == nil {
		k.Sizes = []int{}
	}
	if len(r.Points) >= harness.MinSizes {
		for _, f := range fitsOf(r) {
			res := f.fit.Residuals
			if res == nil {
				res = []float64{}
			}
			k.Fits = append(k.Fits, cpeFitJSON{Unit: f.unit, PerElement: f.fit.Slope, PerElementCI: f.fit.SlopeCI, PerElementSE: f.fit.SlopeSE,
				Intercept: f.fit.Intercept, InterceptCI: f.fit.InterceptCI, InterceptSE: f.fit.InterceptSE, R2: f.fit.R2, N: f.fit.N,
				Residuals: res, OutlierSizes: outlierSizes(r, f.fit)})
		}
	}
	for _, m := range cpeMeasured(s) {
		k.Points = append(k.Points, toJSON(m))
	}
	return k
}

func cpeReport(h header, swept []*sweptKernel) cpeReportJSON {
	rep := cpeReportJSON{header: h, Kernels: []cpeKernelJSON{}}
	for _, s := range swept {
		rep.Kernels = append(rep.Kernels, cpeKernelReport(s))
	}
	return rep
}

// writeCPECSV writes one tidy table: a "point" row per size and unit, and
// a "fit" row per unit.
func writeCPECSV(w io.Writer, swept []*sweptKernel) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"kernel", "kind", "unit", "n", "elements", "value", "per_element", "residual", "outlier",
		"repeat", "samples", "discarded", "converged", "slope", "slope_ci95", "intercept", "intercept_ci95", "r2"}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, s := range swept {
		r := s.res
		fits := fitsOf(r)
		if len(r.Points) < harness.MinSizes {
			fits = nil
		}
		for _, uf := range fitsOf(r) {
			outl := map[int]bool{}
			for _, i := range uf.fit.Outliers {
				outl[i] = true
			}
			for i, p := range r.Points {
				v := map[string][2]float64{"cycles": {p.Cycles, p.CyclesPerElement}, "ticks": {p.Ticks, p.TicksPerElement}, "ns": {p.Nanoseconds, p.NsPerElement}}[uf.unit]
				res := ""
				if fits != nil && i < len(uf.fit.Residuals) {
					res = f(uf.fit.Residuals[i])
				}
				if err := cw.Write([]string{r.Name, "point", uf.unit, strconv.Itoa(r.Sizes[i]), f(p.Elements), f(v[0]), f(v[1]), res, strconv.FormatBool(outl[i]),
					strconv.Itoa(p.Repeat), strconv.Itoa(p.Samples), strconv.Itoa(p.Discarded), strconv.FormatBool(p.Converged), "", "", "", "", ""}); err != nil {
					return err
				}
			}
		}
		for _, uf := range fits {
			if err := cw.Write([]string{r.Name, "fit", uf.unit, "", "", "", "", "", "", "", "", "", "",
				f(uf.fit.Slope), f(uf.fit.SlopeCI), f(uf.fit.Intercept), f(uf.fit.InterceptCI), f(uf.fit.R2)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
