package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

const cpeDescription = `Measure a kernel at several sizes n and fit cost = intercept + CPE·n by least
squares with an intercept: CPE is the cost per element (core cycles, counter
ticks and ns), the intercept the cost per call that does not grow with n.
All sizes are measured interleaved in one loop with one core-clock ruler, so a
drift of the machine hits every size alike.

A CPE means something only if the cost is a straight line in n. Each fit is
tested first, and the verdict heads its output in every format: "not linear
in n" when a quadratic term is significant (an O(n²) kernel), two lines fit
better than one (a cache-size step), the residuals' signs form long runs, or
R² < 0.999; the slope is then an average over the sizes, not a cost per
element. Below the verdict: each size (residual marked * when it is an
outlier), CPE ± its 95% confidence interval, the intercept and R².

-bench takes a kernel name (see cyclebench run -list) or a regexp selecting
several, swept one after another and fitted separately. Sizes come from one
of -sizes, -range or -log; without them each kernel is swept over 10 sizes
from a tenth of its default n to its default n. -plot draws the points, the
fitted lines with their 95% bands, and cost per element against n below.`

// sizeFlags are the three ways to give a sweep's sizes.
type sizeFlags struct {
	list, rng, log *string
}

func addSizeFlags(fs *flagSet) *sizeFlags {
	return &sizeFlags{
		list: fs.String("sizes", "", "comma-separated sizes, increasing, at least 3: `LIST` such as 100,200,400"),
		rng:  fs.String("range", "", "sizes `FROM:TO:STEP`, such as 100:2000:100"),
		log:  fs.String("log", "", "`FROM:TO:COUNT`: COUNT sizes spaced evenly on a log scale, such as 64:65536:16"),
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
			return usageErrorf("%s: size %d out of range (%s takes n from %d to %d)", flag, n, k.Name, k.MinN, k.MaxN)
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
		return nil, kernelError(flag, pattern, err)
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
	// A sweep read from go test output or a file (cpe FILE|PACKAGE...)
	// has a point per run, several per size with -count:
	leftOut  []bool // the runs the fit left out as disturbed, by point
	leftRule string // the rule that left them out, for the output
}

// fitted reports whether the sweep has a fit (at least MinSizes sizes).
func (s *sweptKernel) fitted() bool {
	r := s.res
	return r.Cycles.N > 0 || r.Ticks.N > 0 || r.Nanoseconds.N > 0
}

// sizeCount is the number of distinct sizes of the sweep.
func (s *sweptKernel) sizeCount() int {
	n := 0
	for i, size := range s.res.Sizes {
		if i == 0 || size != s.res.Sizes[i-1] {
			n++
		}
	}
	return n
}

// isLeftOut reports whether point i was left out of the fit.
func (s *sweptKernel) isLeftOut(i int) bool { return i < len(s.leftOut) && s.leftOut[i] }

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

// runChecks checks the output of every measured instance's last run.
func (s *sweptKernel) runChecks() {
	s.check = "ok"
	for _, n := range s.res.Sizes {
		if in, ok := s.instances[n]; ok {
			if err := in.Check(); err != nil {
				s.check = fmt.Sprintf("n=%d: %v", n, err)
				return
			}
		}
	}
}

// sweepProgress returns a harness progress callback that draws the sweep
// on the progress line.
func sweepProgress(prog *progress, what, unit string, cfg harness.Config) func(harness.Progress) {
	return func(p harness.Progress) {
		prog.set(step{what: what, done: p.Samples, total: p.Max, unit: unit, elapsed: p.Elapsed, cap: cfg.MaxTime})
	}
}

// sweepFailure is the summary line of sweeps with unusable points or
// failed checks ("" when every point is usable).
func sweepFailure(swept []*sweptKernel, strict bool, cfg harness.Config) string {
	what := "sizes"
	var rs []measured
	for _, s := range swept {
		for _, p := range s.res.Points {
			rs = append(rs, measured{Result: p, Check: "ok"})
		}
		if s.check != "" && s.check != "ok" {
			rs = append(rs, measured{Result: harness.Result{Converged: true}, Check: s.check})
		}
		if s.leftRule != "" { // read from a file: a point per run
			what = "runs"
		}
	}
	return resultsFailure(rs, strict, cfg, what)
}

func runCPE(args []string, stdout, stderr io.Writer) error {
	if len(positionals(args)) > 0 {
		return cpeSources(args, stdout, stderr)
	}
	fs := newFlagSet("cpe", "-bench NAME [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [-plot FILE] [flags]", cpeDescription, stdout)
	bench := fs.String("bench", "", "kernel `NAME`, or a regexp selecting several (swept one after another); see cyclebench run -list")
	sf := addSizeFlags(fs)
	pf := addPlotFlags(fs, "the points and fitted lines", plot.DefaultCPESize)
	o := addOutputFlags(fs, stdout, stderr, true, resultFormats...)
	mf := addMeasureFlags(fs, false)
	fs.example("cyclebench cpe -bench Psum -range 100:2000:100 -plot psum.svg", "the CPE of Psum1 and Psum2 over 20 sizes, with a picture")
	fs.example("cyclebench cpe -bench Combine4 -log 64:65536:16 -format json -o c4.json", "16 log-spaced sizes (cache steps show), as JSON")
	fs.example("cyclebench cpe -bench BubbleSort -range 200:3000:200", "an O(n²) kernel: the verdict says \"not linear in n\"")
	fs.example("cyclebench cpe out.txt -plot cpe.svg", "fit the sweeps of go test -bench output (harness.ReportSweep), with a picture")
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
	for i, k := range kernels {
		s := sizes
		if s == nil {
			s = defaultSizes(k)
		}
		if err := checkKernelSizes("-sizes", k, s); err != nil {
			return err
		}
		swept[i] = &sweptKernel{kernel: k, sizes: s}
	}
	if err := pf.check(); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	in := catchInterrupts()
	defer in.stop()
	cal, warns, err := calibrateOn(cfg.CPU)
	if err != nil {
		return err
	}
	cfg.Calibration, cfg.Context = cal, in.ctx
	h := newHeader("cpe", cal, cfg, warns)
	sweeps := make([]harness.Sweep, len(swept))
	for i, s := range swept {
		sweeps[i] = s.sweep(s.kernel.Name)
	}
	prog := newProgress(o)
	cfg.Progress = sweepProgress(prog, "cpe "+*bench, "sizes", cfg)
	results, err := harness.CPEAll(cfg, sweeps)
	prog.done()
	if err != nil && in.exitCode() == 0 {
		return err
	}
	var done []*sweptKernel
	for i, s := range swept {
		if i < len(results) {
			s.res = results[i]
			s.runChecks()
			done = append(done, s)
		}
	}
	hoistSweepWarnings(&h, done)
	if in.exitCode() != 0 {
		h.Partial = fmt.Sprintf("interrupted by %s: the sweep is incomplete", in.signal())
		h.Warnings = append(h.Warnings, "interrupted by a signal: the sweep is incomplete")
	}
	if err := o.emit(func(w io.Writer) error { return writeCPE(w, o.format, h, done) }); err != nil {
		return err
	}
	if len(done) > 0 && len(done[0].res.Points) > 0 {
		series, opt := cpePlot(h, done, logSpaced)
		if err := pf.write(o, func(w io.Writer, f string, opt plot.Options) error { return plot.CPE(w, f, series, opt) }, opt); err != nil {
			return err
		}
	}
	o.warnResults(cpeWarnings(h, done))
	return o.status(in, sweepFailure(done, o.strict, cfg))
}

// cpeWarnings lists the warnings of sweeps for stderr.
func cpeWarnings(h header, swept []*sweptKernel) []warning {
	var ws []warning
	for _, w := range h.Warnings {
		ws = append(ws, warning{text: w})
	}
	for _, s := range swept {
		if s.check != "" && s.check != "ok" {
			ws = append(ws, warning{s.res.Name, "output check failed: " + s.check})
		}
		for _, w := range s.res.Warnings {
			ws = append(ws, warning{s.res.Name, w.Error()})
		}
		for _, p := range s.res.Points {
			for _, w := range p.Warnings {
				ws = append(ws, warning{p.Name, w.Error()})
			}
		}
	}
	return ws
}

// cpeMeasured turns a sweep's points into the shared result rows.
func cpeMeasured(s *sweptKernel) []measured {
	rs := make([]measured, len(s.res.Points))
	for i, p := range s.res.Points {
		rs[i] = measured{Result: p, Kernel: s.kernel.Name, N: s.res.Sizes[i], Unit: s.kernel.Unit, Check: s.check, bench: benchName(p.Name, p.Mode), elemOK: p.Elements > 0, noTicks: s.res.NoTicks}
	}
	return rs
}

func writeCPE(w io.Writer, format string, h header, swept []*sweptKernel) error {
	switch format {
	case formatJSON:
		return writeJSON(w, cpeReport(h, swept))
	case formatCSV:
		return cpeCSV(swept).writeCSV(w)
	case formatBench:
		var rs []measured
		var lines []string
		for _, s := range swept {
			rs = append(rs, cpeMeasured(s)...)
			lines = append(lines, cpeFitComments(s)...)
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return writeResultBench(w, h, rs)
	}
	d := newDoc(format)
	d.line(h.partialLine() + h.line())
	for _, s := range swept {
		if err := writeCPEKernel(d, s); err != nil {
			return err
		}
	}
	return d.writeTo(w)
}

// linearityText is the verdict line of a fit: "not linear in n: curvature
// (...)", or "linear in n: no curvature (p = 0.4), ...".
func linearityText(s *sweptKernel) string {
	l := s.res.Linearity
	text := l.Reason
	if rest, ok := strings.CutPrefix(text, stats.LinearityLinear+": "); ok {
		text = "linear in n: " + rest
	}
	switch {
	case text == "":
		text = "not tested: fewer than 3 sizes"
	case l.Verdict == stats.LinearityNotLinear:
		text += "; the CPE is an average over the sizes, not a cost per element"
	}
	if !s.kernel.CPE {
		text += " (this kernel's cost is not linear in n by design)"
	}
	return text
}

// growthText offers, for a cost that is not linear in n, the fits of
// other growth laws, best first: "n² fits best: 1.2e+03 + 0.5·n² cycles
// (residuals 0.4% rms, R² 0.99998); n log n: 12% rms; n: 30% rms".
func growthText(fits []stats.ComplexityFit, unit, elem string) string {
	if len(fits) == 0 {
		return ""
	}
	b := fits[0]
	s := fmt.Sprintf("%s fits best: %s %s %s·%s %s (residuals %s rms, R² %s)", b.Growth, sig(b.Intercept, 4), map[bool]string{true: "−", false: "+"}[b.Coef < 0],
		sig(math.Abs(b.Coef), 4), b.Growth, unit, pct(b.RMSRel, 2), sig(b.R2, 6))
	for _, f := range fits[1:] {
		s += fmt.Sprintf("; %s: %s rms", f.Growth, pct(f.RMSRel, 2))
	}
	return s + " (n in " + elem + "s)"
}

// linearityShort names the criteria a fit failed, for a plot's title:
// "curvature, R² 0.942".
func linearityShort(l stats.Linearity) string {
	var why []string
	if l.Curvature.Fails {
		why = append(why, "curvature")
	}
	if l.Break.Fails {
		why = append(why, "a break at n="+sig(l.Break.At, 6))
	}
	if l.Runs.Fails {
		why = append(why, "residual signs in runs")
	}
	if l.R2 < l.MinR2 {
		why = append(why, "R² "+sig(l.R2, 4))
	}
	return strings.Join(why, ", ")
}

// cpeFitComments are the linearity verdict and the fits as "#" lines,
// which benchfmt readers skip.
func cpeFitComments(s *sweptKernel) []string {
	r := s.res
	if !s.fitted() {
		return []string{fmt.Sprintf("# cpe %s: too few sizes for a fit", r.Name)}
	}
	out := []string{fmt.Sprintf("# cpe %s: %s", r.Name, linearityText(s))}
	if l := leftOutText(s); l != "" {
		out = append(out, fmt.Sprintf("# cpe %s: left out of the fit: %s", r.Name, l))
	}
	for _, f := range fitsOf(s) {
		out = append(out, fmt.Sprintf("# cpe %s: %s ± %s %s/%s (95%%), intercept %s ± %s %s, R² %s, outlier sizes %v",
			r.Name, sig(f.fit.Slope, 5), sig(f.fit.SlopeCI, 2), f.unit, elemWord(s.kernel.Unit), sig(f.fit.Intercept, 4), sig(f.fit.InterceptCI, 2), f.unit, r2String(f.fit.R2), r.SizesOf(f.fit.Outliers)))
	}
	return out
}

type unitFit struct {
	unit string
	fit  stats.Fit
}

// fitsOf lists the fits of a sweep: cycles (when measured), ticks (when
// there are), ns.
func fitsOf(s *sweptKernel) []unitFit {
	r := s.res
	var fs []unitFit
	if r.HasCycles {
		fs = append(fs, unitFit{"cycles", r.Cycles})
	}
	if !s.res.NoTicks {
		fs = append(fs, unitFit{"ticks", r.Ticks})
	}
	return append(fs, unitFit{"ns", r.Nanoseconds})
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
	lists := make([][]error, len(swept))
	for i, s := range swept {
		lists[i] = s.res.Warnings
	}
	for i, l := range hoist(h, lists) {
		swept[i].res.Warnings = l
	}
}

// writeCPEKernel writes one kernel's verdict, points and fit.
func writeCPEKernel(d *doc, s *sweptKernel) error {
	r := s.res
	elem := elemWord(s.kernel.Unit)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d sizes", r.Name, s.sizeCount())
	if len(r.Points) > s.sizeCount() {
		fmt.Fprintf(&b, ", %d runs", len(r.Points))
	}
	fmt.Fprintf(&b, ", n in %s", s.kernel.Unit)
	if r.CyclesPerTick > 0 {
		fmt.Fprintf(&b, ", core %s cycles/tick", sig(r.CyclesPerTick, 5))
	}
	d.blank()
	d.heading(b.String())
	pf, unit := s.res.Primary()
	if s.fitted() {
		d.line("fit        " + linearityText(s))
		if g := growthText(s.res.Linearity.Complexity, unit, elem); g != "" {
			d.line("growth     " + g)
		}
	}
	t := &table{cols: []col{{name: "n"}, {name: "cycles"}, {name: "cycles/" + elem, digits: 4}, {name: "ticks"}, {name: "ns"},
		{name: "residual", digits: 3}, {name: "R"}, {name: "samples"}, {name: "converged", left: true}}}
	outl := map[int]bool{}
	for _, i := range pf.Outliers {
		outl[i] = true
	}
	for i, p := range r.Points {
		var res any
		if i < len(pf.Residuals) {
			text := signedSig(pf.Residuals[i], 3)
			if outl[i] {
				text += " *"
			}
			if s.isLeftOut(i) {
				text += " left out"
			}
			res = shown{pf.Residuals[i], text}
		}
		var cyc, cpe, ticks, repeat, samples any
		if r.HasCycles {
			cyc, cpe = cyclesCell(p, p.Cycles, 6), cyclesCell(p, p.CyclesPerElement, 4)
		}
		if !s.res.NoTicks {
			ticks = p.Ticks
		}
		if p.Samples > 0 { // a go test line does not say
			repeat, samples = p.Repeat, p.Samples
		}
		t.add(r.Sizes[i], cyc, cpe, ticks, p.Nanoseconds, res, repeat, samples, convergedText(p))
	}
	if s.leftRule != "" { // read from a file: no column of figures it does not hold
		for j := range t.cols {
			t.cols[j].csv = !slices.ContainsFunc(t.rows, func(row []any) bool { return row[j] != nil })
		}
	}
	if err := d.table(t); err != nil {
		return err
	}
	if !s.fitted() {
		d.line(fmt.Sprintf("fit        none: %d sizes, a fit needs %d", s.sizeCount(), harness.MinSizes))
		return nil
	}
	kv := kvTable()
	kv.kv("CPE", "%s ± %s %s/%s (95%% CI)", sig(pf.Slope, 5), sig(pf.SlopeCI, 2), unit, elem)
	var also []string
	for _, f := range fitsOf(s)[1:] {
		if f.unit != unit {
			also = append(also, fmt.Sprintf("%s ± %s %s/%s", sig(f.fit.Slope, 5), sig(f.fit.SlopeCI, 2), f.unit, elem))
		}
	}
	if len(also) > 0 {
		kv.kv("", "= %s", strings.Join(also, " = "))
	}
	kv.kv("intercept", "%s ± %s %s per call", sig(pf.Intercept, 4), sig(pf.InterceptCI, 2), unit)
	kv.kv("R²", "%s", r2String(pf.R2))
	if o := r.SizesOf(pf.Outliers); len(o) > 0 {
		kv.kv("outliers", "n = %s (residual marked *)", joinInts(o))
	} else {
		kv.kv("outliers", "none")
	}
	if l := leftOutText(s); l != "" {
		kv.kv("left out", "%s", l)
	}
	return d.table(kv)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// JSON form of a sweep.
// linearityJSON is a fit's linearity verdict.
type linearityJSON struct {
	Verdict    string  `json:"verdict"`
	Linear     bool    `json:"linear"`
	Reason     string  `json:"reason"`
	R2         float64 `json:"r2"`
	CurvatureP float64 `json:"curvature_p"`
	BreakP     float64 `json:"break_p"`
	BreakAt    float64 `json:"break_at,omitempty"`
	RunsP      float64 `json:"runs_p"`
	// MaxDeviation is the largest departure from the line a test found,
	// relative to the line, and MinChange the practical threshold it was
	// held to (ε).
	MaxDeviation float64 `json:"max_deviation"`
	MinChange    float64 `json:"practical_threshold"`
	// Growth, when the cost is not linear, holds the fits of cost =
	// intercept + coef·f(n) for f = n, n log n, n², best first.
	Growth []stats.ComplexityFit `json:"growth,omitempty"`
}

type cpeKernelJSON struct {
	Name          string            `json:"name"`
	Unit          string            `json:"unit"`
	Linearity     linearityJSON     `json:"linearity"`
	Sizes         []int             `json:"sizes"`
	CyclesPerTick float64           `json:"core_cycles_per_tick"`
	Fits          []results.FitJSON `json:"fits"`
	Points        []jsonResult      `json:"points"`
	Check         string            `json:"check"`
	Warnings      []string          `json:"warnings"`
	// LeftOut lists the points (by index) the fit left out as disturbed
	// runs, and LeftOutRule the rule; absent for a measured sweep.
	LeftOut     []int  `json:"left_out,omitempty"`
	LeftOutRule string `json:"left_out_rule,omitempty"`
}

type cpeReportJSON struct {
	header
	Kernels []cpeKernelJSON `json:"kernels"`
}

func cpeKernelReport(s *sweptKernel) cpeKernelJSON {
	r := s.res
	l := r.Linearity
	k := cpeKernelJSON{Name: r.Name, Unit: s.kernel.Unit, Sizes: r.Sizes, CyclesPerTick: r.CyclesPerTick,
		Linearity: linearityJSON{Verdict: cmpOr(l.Verdict, stats.LinearityUnchecked), Linear: l.Linear, Reason: linearityText(s), R2: l.R2,
			CurvatureP: l.Curvature.PValue, BreakP: l.Break.PValue, BreakAt: l.Break.At, RunsP: l.Runs.PValue,
			MaxDeviation: max(l.Curvature.MaxRel, l.Break.MaxRel, l.MaxRel), MinChange: l.MinChange, Growth: l.Complexity},
		Fits: []results.FitJSON{}, Points: []jsonResult{}, Check: s.check, Warnings: errorStrings(r.Warnings)}
	if k.Sizes == nil {
		k.Sizes = []int{}
	}
	for i := range r.Points {
		if s.isLeftOut(i) {
			k.LeftOut = append(k.LeftOut, i)
		}
	}
	if len(k.LeftOut) > 0 {
		k.LeftOutRule = s.leftRule
	}
	if s.fitted() {
		for _, f := range fitsOf(s) {
			k.Fits = append(k.Fits, results.NewFitJSON(f.unit, f.fit, r.SizesOf(f.fit.Outliers)))
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

// cpeCSV is one tidy table: a "point" row per size and unit, and a "fit"
// row per unit with the linearity verdict.
func cpeCSV(swept []*sweptKernel) *table {
	t := &table{cols: []col{{name: "kernel"}, {name: "kind"}, {name: "unit"}, {name: "n"}, {name: "elements"}, {name: "value"}, {name: "per_element"},
		{name: "residual"}, {name: "outlier"}, {name: "repeat"}, {name: "samples"}, {name: "discarded"}, {name: "converged"}, {name: "usable"},
		{name: "slope"}, {name: "slope_ci95"}, {name: "intercept"}, {name: "intercept_ci95"}, {name: "r2"}, {name: "linearity"}, {name: "linearity_reason"}}}
	for _, s := range swept {
		r := s.res
		fitted := s.fitted()
		for _, uf := range fitsOf(s) {
			outl := map[int]bool{}
			for _, i := range uf.fit.Outliers {
				outl[i] = true
			}
			for i, p := range r.Points {
				v := map[string][2]float64{"cycles": {p.Cycles, p.CyclesPerElement}, "ticks": {p.Ticks, p.TicksPerElement}, "ns": {p.Nanoseconds, p.NsPerElement}}[uf.unit]
				var res any
				if fitted && i < len(uf.fit.Residuals) {
					res = uf.fit.Residuals[i]
				}
				kind := "point"
				if s.isLeftOut(i) {
					kind = "left out"
				}
				t.add(r.Name, kind, uf.unit, r.Sizes[i], p.Elements, v[0], v[1], res, outl[i], p.Repeat, p.Samples, p.Discarded, p.Converged, usable(p))
			}
		}
		if fitted {
			for _, uf := range fitsOf(s) {
				t.add(r.Name, "fit", uf.unit, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
					uf.fit.Slope, uf.fit.SlopeCI, uf.fit.Intercept, uf.fit.InterceptCI, uf.fit.R2, r.Linearity.Verdict, linearityText(s))
			}
		}
	}
	return t
}

// ---- cpe FILE|PACKAGE...

const cpeSourcesDescription = `Fit cost = intercept + CPE·n to sweeps measured elsewhere: Go benchmark files
(go test -bench with harness.ReportSweep or harness.Report, cyclebench run or
cpe -format bench), cyclebench JSON (run or cpe -format json), or Go packages,
whose benchmarks cyclebench runs with go test -run '^$' -bench REGEXP
[-count N] [-benchtime D] [-benchmem] PACKAGE... An argument is a package
when it is ., .., starts with ./ or ../, or contains /..., and is not a file.

A family is one benchmark over sizes: sub-benchmarks Name/n=SIZE (also size=,
len=, elements=) of the same package and mode. Each needs 3 sizes or more.
Every run of every size is a point of the fit (-count 6 gives six per size),
so the confidence interval of the CPE holds the spread between runs; the
output, the linearity verdict and -plot are those of a measured sweep.

Disturbed runs: a run more than 5% slower than the fastest run of its size is
left out of the fit, listed, marked "left out" and drawn hollow. Other jobs on
the machine make a run slow (6033 cycles instead of 3219 were seen; never
fast), and one such run would otherwise tilt the line. -all-runs keeps them.

-bench is a regexp: with packages it is go test's (one regexp per level of
sub-benchmarks); with files only, it selects families by name.`

// Disturbed runs: a run is left out of a fit when it is more than
// disturbedShare slower than the fastest run of its size. The rule is
// one-sided because other work on the machine only ever adds time (a
// K-best measurement taken while another job held the core agrees on a
// slow figure: 6033 cycles instead of 3219 were seen); it keeps working
// with two runs of a size and when half the runs of a size are slow (seen
// on this project's shared machine, where a median-based rule would keep
// the slow ones and leave out the right one). Within the share, runs stay
// in the fit, and their spread is in its interval.
const disturbedShare = 0.05 // runs of a K-best figure agree within ε (1%) run to run; a busy machine moves them by tens of percent

// disturbedRule is the rule in words, for the output.
var disturbedRule = fmt.Sprintf("runs more than %g%% slower than the fastest run of their size", disturbedShare*100)

// disturbed returns, for the runs ys of one size (costs per call), which
// are disturbed by the rule above.
func disturbed(ys []float64) []bool {
	out := make([]bool, len(ys))
	if len(ys) < 2 {
		return out
	}
	fastest := slices.Min(ys)
	for i, y := range ys {
		out[i] = y > fastest*(1+disturbedShare)
	}
	return out
}

// leftOutText lists the runs a fit left out: "n = 3200: 6033, 5321
// cycles (fastest of 6 runs 3219)"; "" when none.
func leftOutText(s *sweptKernel) string {
	_, unit := s.res.Primary()
	var parts []string
	for i := 0; i < len(s.res.Points); {
		j := i
		var vals, all []float64
		for ; j < len(s.res.Points) && s.res.Sizes[j] == s.res.Sizes[i]; j++ {
			y := s.res.Points[j].In(unit)
			all = append(all, y)
			if s.isLeftOut(j) {
				vals = append(vals, y)
			}
		}
		if len(vals) > 0 {
			vs := make([]string, len(vals))
			for k, v := range vals {
				vs[k] = sig(v, 4)
			}
			parts = append(parts, fmt.Sprintf("n = %d: %s %s (fastest of %d runs %s)", s.res.Sizes[i], strings.Join(vs, ", "), unit, len(all), sig(slices.Min(all), 4)))
		}
		i = j
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "; disturbed: " + s.leftRule
}

// sourceFamily is a family of a file with what its sweep needs to know of
// the file it came from.
type sourceFamily struct {
	fam  results.Family
	file results.File
}

// fileSweep fits one family read from a file: every run a point, the
// disturbed ones left out (unless allRuns), in cycles, ticks and ns as a
// measured sweep is (the same outlier rule and linearity test).
func fileSweep(sf sourceFamily, name string, allRuns bool) *sweptKernel {
	fam, f := sf.fam, sf.file
	s := &sweptKernel{kernel: benchexamples.Kernel{Name: name, Unit: cmpOr(fam.Unit, "elements"), CPE: true}, check: "ok", leftRule: disturbedRule}
	r := &s.res
	r.Name = name
	hasCycles, hasTicks := true, true
	var xs, cpts []float64
	var notConv []string
	for _, p := range fam.Points {
		e := results.Entry{Name: p.Name, Kernel: fam.Name, Pkg: fam.Pkg, SizeKey: fam.SizeKey, N: p.N, Mode: fam.Mode, Unit: fam.Unit}
		for _, run := range p.Runs {
			m := runMeasured(e, run, f)
			x := run.Elements
			if x <= 0 {
				x = float64(p.N)
			}
			res := m.Result
			res.Elements = x
			if run.Elements <= 0 { // per-element figures from the size
				res.NsPerElement, res.TicksPerElement, res.CyclesPerElement = res.Nanoseconds/x, res.Ticks/x, res.Cycles/x
			}
			r.Sizes = append(r.Sizes, int(p.N))
			r.Points = append(r.Points, res)
			xs = append(xs, x)
			hasCycles = hasCycles && run.NoCycles == results.HasCycles
			hasTicks = hasTicks && run.Ticks > 0
			if res.CyclesPerTick > 0 {
				cpts = append(cpts, res.CyclesPerTick)
			}
			if run.NotConverged {
				notConv = append(notConv, strconv.FormatInt(p.N, 10))
			}
			if run.Check != "" && run.Check != "ok" && s.check == "ok" {
				s.check = fmt.Sprintf("n=%d: %s", p.N, run.Check)
			}
		}
	}
	r.HasCycles, r.NoTicks = hasCycles, !hasTicks
	if len(cpts) > 0 {
		r.CyclesPerTick = stats.Median(cpts)
	}
	if !hasCycles {
		for i := range r.Points {
			r.Points[i].CyclesPerTick = 0
		}
	}
	if len(notConv) > 0 {
		r.Warnings = append(r.Warnings, fmt.Errorf("%s: %d of %d runs did not converge (n = %s)", name, len(notConv), len(r.Points), strings.Join(slices.Compact(notConv), ", ")))
	}
	_, unit := s.res.Primary()
	s.leftOut = make([]bool, len(r.Points))
	for i := 0; i < len(r.Points) && !allRuns; {
		j := i
		var ys []float64
		for ; j < len(r.Points) && r.Sizes[j] == r.Sizes[i]; j++ {
			ys = append(ys, r.Points[j].In(unit))
		}
		copy(s.leftOut[i:j], disturbed(ys))
		i = j
	}
	if s.sizeCount() < harness.MinSizes {
		return s
	}
	eps := f.Settings.Epsilon
	if eps == 0 {
		eps = harness.DefaultConfig().Epsilon
	}
	o := harness.FitOptions{Step: f.Machine.CounterStep, Hz: f.Machine.CounterHz, Epsilon: eps, LeftOut: s.leftOut,
		Resolution: func(y float64) float64 { return printed(f, y) }}
	if err := r.Fit(xs, o); err != nil {
		r.Warnings = append(r.Warnings, err)
	}
	return s
}

// printed is the resolution a value y of file f was written with: go test
// prints whole numbers from 999.95 up and 4 significant digits below
// (testing's prettyPrint), cyclebench's benchmark format 6 significant
// digits; JSON has them all (0).
func printed(f results.File, y float64) float64 {
	y = math.Abs(y)
	switch {
	case f.Format != results.FormatBench || y == 0:
		return 0
	case f.Producer == results.ProducerCyclebench:
		return math.Pow(10, math.Floor(math.Log10(y))-5)
	case y >= 999.95:
		return 1
	}
	return math.Pow(10, math.Floor(math.Log10(y/0.99995))-3)
}

// cpeSources is cpe with files or packages as arguments.
func cpeSources(args []string, stdout, stderr io.Writer) error {
	p := newPackageFlags("cpe", stdout, stderr)
	if err := p.parse(args); err != nil {
		return err
	}
	g, o, pf := p.g, p.o, p.pf
	set := map[string]bool{}
	p.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var paths []string
	for _, a := range p.fs.args {
		if isPackagePattern(a) {
			g.packages = append(g.packages, a)
		} else {
			paths = append(paths, a)
		}
	}
	if len(g.packages) == 0 {
		for _, name := range []string{"count", "benchtime", "benchmem"} {
			if set[name] {
				return usageErrorf("-%s: passed on to go test, so it needs a package pattern (./mypkg); files are read as they are", name)
			}
		}
	}
	var filter *regexp.Regexp
	if len(g.packages) > 0 {
		if err := g.check(); err != nil {
			return err
		}
	} else {
		var err error
		if filter, err = regexp.Compile(g.bench); err != nil {
			return usageErrorf("-bench %q: not a regexp: %v", g.bench, err)
		}
	}
	var files []results.File
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return usageErrorf("%q: no such file (and not a package pattern: those start with ./ or ../, or contain /...)", p)
			}
			return unreadable(err)
		}
		files = append(files, f)
	}
	in := catchInterrupts()
	defer in.stop()
	if len(g.packages) > 0 {
		f, err := runGoTest(in, o, g)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	swept, ws, err := sourceSweeps(files, filter, *p.allRuns)
	if err != nil {
		return err
	}
	h := sourceHeader("cpe", files[0])
	if len(paths) == 0 {
		h = withThisMachine(h, g) // go test ran here
	}
	for _, f := range files[1:] {
		h.Warnings = append(h.Warnings, errorStrings(f.Warnings)...)
		if f.Machine.CPU != files[0].Machine.CPU {
			h.Warnings = append(h.Warnings, fmt.Sprintf("%s was measured on %q, %s on %q: families of both are fitted together", files[0].Path, files[0].Machine.CPU, f.Path, f.Machine.CPU))
		}
	}
	h.Warnings = append(h.Warnings, ws...)
	hoistSweepWarnings(&h, swept)
	if in.exitCode() != 0 {
		h.Partial = fmt.Sprintf("interrupted by %s: go test was stopped, the sweeps are incomplete", in.signal())
		h.Warnings = append(h.Warnings, "interrupted by a signal: go test was stopped, the sweeps are incomplete")
	}
	if err := o.emit(func(w io.Writer) error { return writeCPE(w, o.format, h, swept) }); err != nil {
		return err
	}
	series, opt := cpePlot(h, swept, false)
	if err := pf.write(o, func(w io.Writer, f string, opt plot.Options) error { return plot.CPE(w, f, series, opt) }, opt); err != nil {
		return err
	}
	o.warnResults(cpeWarnings(h, swept))
	return o.status(in, sweepFailure(swept, o.strict, noLimit))
}

// sourceSweeps fits every family of files (selected by filter when not
// nil). Families with fewer than MinSizes sizes are kept, without a fit,
// and named in a warning; none with enough sizes is a usage error, as is
// a file without families. The names carry the package when the files
// hold several, and /mode=latency for latency families.
func sourceSweeps(files []results.File, filter *regexp.Regexp, allRuns bool) ([]*sweptKernel, []string, error) {
	var fams []sourceFamily
	var unsized []string
	pkgs := map[string]bool{}
	for _, f := range files {
		for _, e := range f.Entries {
			if e.SizeKey == "" && !slices.Contains(unsized, e.Name) {
				unsized = append(unsized, e.Name)
			}
		}
		for _, fam := range results.Families(f.Entries) {
			if filter != nil && !filter.MatchString(fam.Name) {
				continue
			}
			pkgs[fam.Pkg] = true
			// Families of several files of one machine pool their runs.
			if i := slices.IndexFunc(fams, func(s sourceFamily) bool {
				return s.fam.Name == fam.Name && s.fam.Pkg == fam.Pkg && s.fam.Mode == fam.Mode && s.fam.SizeKey == fam.SizeKey
			}); i >= 0 {
				merged := results.Families(append(familyEntries(fams[i].fam), familyEntries(fam)...))
				fams[i].fam = merged[0]
				continue
			}
			fams = append(fams, sourceFamily{fam, f})
		}
	}
	var ws []string
	if len(unsized) > 0 {
		ws = append(ws, fmt.Sprintf("left out %s: no size part in the name (Name/n=SIZE, size=, len=, elements=), so no family to fit", listSome(unsized, 5)))
	}
	var swept []*sweptKernel
	var few []string
	for _, sf := range fams {
		name := sf.fam.Name
		if len(pkgs) > 1 && sf.fam.Pkg != "" {
			name = sf.fam.Pkg + "." + name
		}
		if sf.fam.Mode == results.Latency {
			name += "/mode=latency"
		}
		if len(sf.fam.Points) < harness.MinSizes {
			few = append(few, fmt.Sprintf("%s (%d %s)", name, len(sf.fam.Points), map[bool]string{true: "size", false: "sizes"}[len(sf.fam.Points) == 1]))
		}
		swept = append(swept, fileSweep(sf, name, allRuns))
	}
	if len(few) > 0 {
		ws = append(ws, fmt.Sprintf("no fit for %s: a fit needs %d sizes or more", strings.Join(few, ", "), harness.MinSizes))
	}
	if len(few) == len(swept) {
		var names []string
		for _, f := range files {
			names = append(names, f.Path)
		}
		what := "no family of sub-benchmarks Name/n=SIZE"
		if filter != nil && filter.String() != "." {
			what += fmt.Sprintf(" matching -bench %q", filter)
		}
		if len(few) > 0 {
			what = "no family with " + strconv.Itoa(harness.MinSizes) + " sizes or more: " + strings.Join(few, ", ")
		}
		return nil, nil, usageErrorf("%s: %s (a fit needs sub-benchmarks Name/n=SIZE at %d sizes or more, such as harness.ReportSweep writes)", strings.Join(names, ", "), what, harness.MinSizes)
	}
	return swept, ws, nil
}

// familyEntries turns a family back into entries, for Families to pool.
func familyEntries(f results.Family) []results.Entry {
	var es []results.Entry
	for _, p := range f.Points {
		es = append(es, results.Entry{Name: p.Name, Pkg: f.Pkg, Kernel: f.Name, SizeKey: f.SizeKey, N: p.N, Mode: f.Mode, Unit: f.Unit, Runs: p.Runs})
	}
	return es
}
