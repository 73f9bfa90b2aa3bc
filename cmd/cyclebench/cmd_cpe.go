package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
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
		if sizes, err = harness.ParseSizes(*s.list); err != nil {
			return nil, false, usageErrorf("-sizes %q: %w", *s.list, err)
		}
	case *s.rng != "":
		if !strings.Contains(*s.rng, ":") {
			return nil, false, usageErrorf("-range %q: want from:to:step, e.g. 100:2000:100", *s.rng)
		}
		if sizes, err = harness.ParseSizes(*s.rng); err != nil {
			return nil, false, usageErrorf("-range %q: %w", *s.rng, err)
		}
	case *s.log != "":
		if sizes, err = harness.ParseSizes("log " + *s.log); err != nil {
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
	if s, err := harness.ParseSizes(fmt.Sprintf("%d:%d:%d", max(k.MinN, step), min(k.DefaultN, k.MaxN), step)); err == nil {
		return s
	}
	lo := max(k.MinN, 1)
	return []int{lo, lo + 1, lo + 2}
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

// sweptKernel is one kernel of a sweep measured here, with the targets
// built for it, kept to check their outputs afterwards.
type sweptKernel struct {
	results.Sweep
	kernel    benchexamples.Kernel
	sizes     []int
	instances map[int]harness.Target
}

func newSwept(k benchexamples.Kernel, sizes []int) *sweptKernel {
	return &sweptKernel{Sweep: results.Sweep{Kernel: k.Name, Unit: k.Unit, NotCPE: !k.CPE}, kernel: k, sizes: sizes}
}

// sweep returns the harness.Sweep that builds k's instances into s.
func (s *sweptKernel) sweep(name string) harness.Sweep {
	s.instances = map[int]harness.Target{}
	return harness.Sweep{Name: name, Sizes: s.sizes, Build: func(n int) (harness.Target, error) {
		in, err := s.kernel.New(n)
		if err != nil {
			return harness.Target{}, err
		}
		s.instances[n] = in
		// The outputs are checked here, after the sweep, into the
		// results' Check fields, not by the harness as an error.
		in.Check = nil
		return in, nil
	}}
}

// measured sets the sweep's result and checks the output of every
// measured instance's last run.
func (s *sweptKernel) measured(r harness.CPEResult) {
	s.CPEResult, s.Check = r, "ok"
	for _, n := range s.Sizes {
		if in, ok := s.instances[n]; ok {
			if err := in.Check(); err != nil {
				s.Check = fmt.Sprintf("n=%d: %v", n, err)
				return
			}
		}
	}
}

// sweepsOf are the sweeps of swept.
func sweepsOf(swept []*sweptKernel) []*results.Sweep {
	out := make([]*results.Sweep, len(swept))
	for i, s := range swept {
		out[i] = &s.Sweep
	}
	return out
}

// sweepProgress returns a harness progress callback that draws the sweep
// on the progress line.
func sweepProgress(prog *progress, what, unit string, cfg harness.Config) func(harness.Progress) {
	return func(p harness.Progress) {
		prog.set(step{what: what, done: p.Samples, total: p.Max, unit: unit, elapsed: p.Elapsed, cap: cfg.MaxTime})
	}
}

func runCPE(args []string, stdout, stderr io.Writer) error {
	if err := checkPaths(args); err != nil {
		return err
	}
	if len(positionals(args)) > 0 {
		return cpeSources(args, stdout, stderr)
	}
	s := newSession("cpe", "-bench NAME [-sizes LIST | -range FROM:TO:STEP | -log FROM:TO:COUNT] [-plot FILE] [flags]", cpeDescription, stdout)
	s.fs.more = func() string { return packageHelp("cpe") }
	bench := s.fs.String("bench", "", "kernel `NAME`, or a regexp selecting several (swept one after another); see cyclebench run -list")
	sf := addSizeFlags(s.fs)
	s.pf = addPlotFlags(s.fs, "the points and fitted lines", plot.DefaultCPESize)
	s.o = addOutputFlags(s.fs, stdout, stderr, true, resultFormats...)
	s.mf = addMeasureFlags(s.fs, false)
	s.fs.example("cyclebench cpe -bench Psum -range 100:2000:100 -plot psum.svg", "the CPE of Psum1 and Psum2 over 20 sizes, with a picture")
	s.fs.example("cyclebench cpe -bench Combine4 -log 64:65536:16 -format json -o c4.json", "16 log-spaced sizes (cache steps show), as JSON")
	s.fs.example("cyclebench cpe -bench BubbleSort -range 200:3000:200", "an O(n²) kernel: the verdict says \"not linear in n\"")
	s.fs.example("cyclebench cpe out.txt -plot cpe.svg", "fit the sweeps of go test -bench output (harness.ReportSweep), with a picture")
	var swept []*sweptKernel
	var logSpaced bool
	if err := s.open(args, false, func() error {
		kernels, err := selectKernels("-bench", *bench)
		if err != nil {
			return err
		}
		var sizes []int
		if sizes, logSpaced, err = sf.parse(); err != nil {
			return err
		}
		for _, k := range kernels {
			ks := sizes
			if ks == nil {
				ks = defaultSizes(k)
			}
			if err := checkKernelSizes("-sizes", k, ks); err != nil {
				return err
			}
			swept = append(swept, newSwept(k, ks))
		}
		return nil
	}); err != nil {
		return err
	}
	defer s.close()
	start := time.Now()
	if err := s.calibrate("cpe"); err != nil {
		return err
	}
	sweeps := make([]harness.Sweep, len(swept))
	for i, sk := range swept {
		sweeps[i] = sk.sweep(sk.kernel.Name)
	}
	prog := newProgress(s.o)
	ctx := harness.WithProgress(s.in.ctx, sweepProgress(prog, "cpe "+*bench, "sizes", s.cfg))
	rs, err := harness.CPEAll(ctx, s.cfg, sweeps)
	prog.done()
	if err != nil && s.in.exitCode() == 0 {
		return err
	}
	for i, r := range rs {
		swept[i].measured(r)
	}
	done := sweepsOf(swept[:len(rs)])
	s.h.HoistSweeps(done)
	s.partial(": the sweep is incomplete", "")
	s.h.Provenance = kernelProvenance(start)
	return s.writeSweeps(done, logSpaced, len(done) > 0 && len(done[0].Points) > 0, results.SweepFailure(done, s.o.strict, s.cfg.MaxTime))
}

// writeSweeps writes sweeps in -format, draws them to -plot (when draw),
// says their warnings and returns the exit status: failed is the summary
// line of what was not usable.
func (s *session) writeSweeps(swept []*results.Sweep, logSpaced, draw bool, failed string) error {
	return s.endSweeps(swept, func(w io.Writer) error { return writeCPE(w, s.o.format, s.h, swept) }, logSpaced, draw, failed)
}

// endSweeps is the ending of a subcommand that swept: render's output,
// the sweeps drawn to -plot (when draw), their warnings, the status.
func (s *session) endSweeps(swept []*results.Sweep, render func(io.Writer) error, logSpaced, draw bool, failed string) error {
	if err := s.o.emit(render); err != nil {
		return err
	}
	if draw {
		series, opt, err := results.PlotSweeps(swept, s.h.CPU, logSpaced)
		if err != nil {
			return err
		}
		if err := s.pf.write(s.o, func(w io.Writer, f string, opt plot.Options) error { return plot.CPE(w, f, series, opt) }, opt); err != nil {
			return err
		}
	}
	s.o.warnResults(reports.SweepWarnings(s.h, swept))
	return s.o.status(s.in, failed)
}

func writeCPE(w io.Writer, format string, h results.Header, swept []*results.Sweep) error {
	switch format {
	case formatJSON:
		return writeJSON(w, results.NewCPEReport(h, swept))
	case formatCSV:
		return reports.CPETable(swept).WriteCSV(w)
	case formatBench:
		var rs []results.Measurement
		var b strings.Builder
		for _, s := range swept {
			rs = append(rs, s.Measurements()...)
			for _, l := range s.FitComments() {
				b.WriteString(l + "\n")
			}
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		return results.WriteBench(w, h, rs)
	}
	return reports.CPEDoc(h, swept, format == formatMD).Render(w)
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

Disturbed runs: runs outside the largest cluster of their size (runs within 5%
of each other) are left out of the fit, listed, marked "left out" and drawn
hollow; never half of a size's runs or more, and a warning says when over a
quarter of a family's runs are left out. Other jobs make a run slow, a code
layout or host state fast or slow, and one such run would otherwise tilt the
line. -all-runs keeps them.

-bench is a regexp: with packages it is go test's (one regexp per level of
sub-benchmarks); with files only, it selects families by name.`

// cpeSources is cpe with files or packages as arguments: the files are
// read, go test runs the packages, and every family of sizes is fitted
// (results.FitFiles).
func cpeSources(args []string, stdout, stderr io.Writer) error {
	g := &gotest.GoTest{}
	s, allRuns := packageSession("cpe", g, stdout, stderr)
	var paths []string
	var filter *regexp.Regexp
	var files []results.File
	if err := s.open(args, true, func() error {
		for _, a := range s.fs.args {
			if gotest.IsPackagePattern(a) {
				g.Packages = append(g.Packages, a)
			} else {
				paths = append(paths, a)
			}
		}
		if len(g.Packages) > 0 {
			return inputError("", g.Check())
		}
		if f := given(s.fs, "count", "benchtime", "benchmem", "layouts"); f != "" {
			return usageErrorf("%s: passed on to go test, so it needs a package pattern (./mypkg); files are read as they are", f)
		}
		var err error
		if filter, err = regexp.Compile(g.Bench); err != nil {
			return usageErrorf("-bench %q: not a regexp: %v", g.Bench, err)
		}
		return nil
	}, func() error {
		for _, p := range paths {
			f, err := results.Read(p)
			if errors.Is(err, os.ErrNotExist) {
				return usageErrorf("%q: no such file (and not a package pattern: those start with ./ or ../, or contain /...)", p)
			} else if err != nil {
				return unreadable(err)
			}
			files = append(files, f)
		}
		return nil
	}); err != nil {
		return err
	}
	defer s.close()
	start := time.Now()
	if len(g.Packages) > 0 {
		f, err := s.runGoTest(g)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	swept, notes, err := results.FitFiles(files, filter, *allRuns)
	if err != nil {
		return inputError("", err)
	}
	s.h = files[0].Header("cpe")
	if len(paths) == 0 {
		s.h = withThisMachine(s.h, g) // go test ran here
		s.h.Provenance = packageProvenance(s.in.ctx, g.Dir(), start, g.RunSeeds())
	}
	s.h.Warnings = append(s.h.Warnings, results.FileWarnings(files[1:])...)
	s.h.Warnings = append(s.h.Warnings, notes...)
	s.h.HoistSweeps(swept)
	s.partial(": go test was stopped, the sweeps are incomplete", "")
	return s.writeSweeps(swept, false, true, results.SweepFailure(swept, s.o.strict, noLimit.MaxTime))
}
