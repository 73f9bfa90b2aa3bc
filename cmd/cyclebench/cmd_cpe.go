package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
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
	var rs []measured
	for _, s := range swept {
		for _, p := range s.res.Points {
			rs = append(rs, measured{Result: p, Check: "ok"})
		}
		if s.check != "" && s.check != "ok" {
			rs = append(rs, measured{Result: harness.Result{Converged: true}, Check: s.check})
		}
	}
	return resultsFailure(rs, strict, cfg, "sizes")
}

func runCPE(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cpe", "-bench NAME [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [-plot FILE] [flags]", cpeDescription, stdout)
	bench := fs.String("bench", "", "kernel `NAME`, or a regexp selecting several (swept one after another); see cyclebench run -list")
	sf := addSizeFlags(fs)
	pf := addPlotFlags(fs, "the points and fitted lines", plot.DefaultCPESize)
	o := addOutputFlags(fs, stdout, stderr, true, resultFormats...)
	mf := addMeasureFlags(fs, false)
	fs.example("cyclebench cpe -bench Psum -range 100:2000:100 -plot psum.svg", "the CPE of Psum1 and Psum2 over 20 sizes, with a picture")
	fs.example("cyclebench cpe -bench Combine4 -log 64:65536:16 -format json -o c4.json", "16 log-spaced sizes (cache steps show), as JSON")
	fs.example("cyclebench cpe -bench BubbleSort -range 200:3000:200", "an O(n²) kernel: the verdict says \"not linear in n\"")
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
	o.warnAll(cpeWarnings(h, done))
	return o.status(in, sweepFailure(done, o.strict, cfg))
}

// cpeWarnings lists the warnings of sweeps for stderr.
func cpeWarnings(h header, swept []*sweptKernel) []string {
	ws := h.Warnings
	for _, s := range swept {
		if s.check != "" && s.check != "ok" {
			ws = append(ws, fmt.Sprintf("%s: output check failed: %s", s.res.Name, s.check))
		}
		ws = append(ws, errorStrings(s.res.Warnings)...)
		for _, p := range s.res.Points {
			ws = append(ws, errorStrings(p.Warnings)...)
		}
	}
	return ws
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
	var b strings.Builder
	b.WriteString(h.line() + "\n")
	for _, s := range swept {
		writeCPEKernel(&b, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// linearityShort names the criteria a fit failed, for a plot's title:
// "curvature, R² 0.942".
func linearityShort(l stats.Linearity) string {
	var why []string
	if l.Curvature.Significant {
		why = append(why, "curvature")
	}
	if l.Break.Significant {
		why = append(why, "a break at n="+sig(l.Break.At, 6))
	}
	if l.Runs.Significant {
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
	if len(r.Points) < harness.MinSizes {
		return []string{fmt.Sprintf("# cpe %s: too few points for a fit", r.Name)}
	}
	out := []string{fmt.Sprintf("# cpe %s: %s", r.Name, linearityText(s))}
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
	lists := make([][]error, len(swept))
	for i, s := range swept {
		lists[i] = s.res.Warnings
	}
	for i, l := range hoist(h, lists) {
		swept[i].res.Warnings = l
	}
}

// writeCPEKernel writes one kernel's verdict, points and fit.
func writeCPEKernel(b *strings.Builder, s *sweptKernel) {
	r := s.res
	elem := elemWord(s.kernel.Unit)
	fmt.Fprintf(b, "\n%s: %d sizes, n in %s, core %s cycles/tick\n", r.Name, len(r.Points), s.kernel.Unit, sig(r.CyclesPerTick, 5))
	if len(r.Points) >= harness.MinSizes {
		fmt.Fprintf(b, "fit        %s\n", linearityText(s))
	}
	pf, unit := primaryFit(r)
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
			res = shown{pf.Residuals[i], text}
		}
		var cyc, cpe any
		if r.HasCycles {
			cyc, cpe = cyclesCell(p, p.Cycles, 6), cyclesCell(p, p.CyclesPerElement, 4)
		}
		t.add(r.Sizes[i], cyc, cpe, p.Ticks, p.Nanoseconds, res, p.Repeat, p.Samples, convergedText(p))
	}
	t.writeText(b)
	if len(r.Points) < harness.MinSizes {
		fmt.Fprintf(b, "fit        none: %d sizes measured, a fit needs %d\n", len(r.Points), harness.MinSizes)
		return
	}
	kv := kvTable()
	kv.kv("CPE", "%s ± %s %s/%s (95%% CI)", sig(pf.Slope, 5), sig(pf.SlopeCI, 2), unit, elem)
	var also []string
	for _, f := range fitsOf(r)[1:] {
		if f.unit != unit {
			also = append(also, fmt.Sprintf("%s ± %s %s/%s", sig(f.fit.Slope, 5), sig(f.fit.SlopeCI, 2), f.unit, elem))
		}
	}
	if len(also) > 0 {
		kv.kv("", "= %s", strings.Join(also, " = "))
	}
	kv.kv("intercept", "%s ± %s %s per call", sig(pf.Intercept, 4), sig(pf.InterceptCI, 2), unit)
	kv.kv("R²", "%s", r2String(pf.R2))
	if o := outlierSizes(r, pf); len(o) > 0 {
		kv.kv("outliers", "n = %s (residual marked *)", joinInts(o))
	} else {
		kv.kv("outliers", "none")
	}
	kv.writeText(b)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
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
}

type cpeKernelJSON struct {
	Name          string        `json:"name"`
	Unit          string        `json:"unit"`
	Linearity     linearityJSON `json:"linearity"`
	Sizes         []int         `json:"sizes"`
	CyclesPerTick float64       `json:"core_cycles_per_tick"`
	Fits          []cpeFitJSON  `json:"fits"`
	Points        []jsonResult  `json:"points"`
	Check         string        `json:"check"`
	Warnings      []string      `json:"warnings"`
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
			CurvatureP: l.Curvature.PValue, BreakP: l.Break.PValue, BreakAt: l.Break.At, RunsP: l.Runs.PValue},
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

// cpeCSV is one tidy table: a "point" row per size and unit, and a "fit"
// row per unit with the linearity verdict.
func cpeCSV(swept []*sweptKernel) *table {
	t := &table{cols: []col{{name: "kernel"}, {name: "kind"}, {name: "unit"}, {name: "n"}, {name: "elements"}, {name: "value"}, {name: "per_element"},
		{name: "residual"}, {name: "outlier"}, {name: "repeat"}, {name: "samples"}, {name: "discarded"}, {name: "converged"}, {name: "usable"},
		{name: "slope"}, {name: "slope_ci95"}, {name: "intercept"}, {name: "intercept_ci95"}, {name: "r2"}, {name: "linearity"}, {name: "linearity_reason"}}}
	for _, s := range swept {
		r := s.res
		fitted := len(r.Points) >= harness.MinSizes
		for _, uf := range fitsOf(r) {
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
				t.add(r.Name, "point", uf.unit, r.Sizes[i], p.Elements, v[0], v[1], res, outl[i], p.Repeat, p.Samples, p.Discarded, p.Converged, usable(p))
			}
		}
		if fitted {
			for _, uf := range fitsOf(r) {
				t.add(r.Name, "fit", uf.unit, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
					uf.fit.Slope, uf.fit.SlopeCI, uf.fit.Intercept, uf.fit.InterceptCI, uf.fit.R2, r.Linearity.Verdict, linearityText(s))
			}
		}
	}
	return t
}
