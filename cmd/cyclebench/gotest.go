package main

// Go packages on the command line: cyclebench run, cpe and compare take a
// package pattern (./mypkg, ../x, ., anything with /...) where they would
// take kernels, run the package's benchmarks with go test
// (gotest.GoTest) and show the results as they show their own
// measurements. The measuring happens in the test binary, with the
// harness.Config the benchmark sets (harness.Report, ReportSweep,
// ReportCompare); the command only runs go test and renders.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
)

// positionals returns the arguments of args that are neither flags nor
// flag values, as flagSet.parse would split them: a flag takes the next
// argument as its value unless it is boolean or written -flag=value, and
// "--" ends the flags. The flags are looked up among every flag run, cpe
// and compare define; an unknown one is taken to have a value. It lets the
// subcommands divert package patterns before parsing their own flags.
func positionals(args []string) []string {
	fs := scanFlags()
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(pos, args[i+1:]...)
		case len(a) < 2 || a[0] != '-':
			pos = append(pos, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
		} else if name == "h" || name == "help" {
			continue
		}
		i++ // the flag's value
	}
	return pos
}

// scanFlags is a flag set holding every flag of run, cpe and compare, for
// positionals to tell boolean flags from those with a value.
func scanFlags() *flagSet {
	fs := newFlagSet("scan", "", "", io.Discard)
	addGoTestFlags(fs, &gotest.GoTest{})
	addOutputFlags(fs, io.Discard, io.Discard, true, resultFormats...)
	addMeasureFlags(fs, true)
	addSizeFlags(fs)
	fs.Bool("list", false, "")
	fs.Bool("all-runs", false, "")
	return fs
}

// packageArgs reports whether args hold a package pattern: then run and
// compare hand them to runPackages.
func packageArgs(args []string) bool {
	return slices.ContainsFunc(positionals(args), gotest.IsPackagePattern)
}

// addGoTestFlags defines the flags passed on to go test, bound to g.
func addGoTestFlags(fs *flagSet, g *gotest.GoTest) {
	fs.StringVar(&g.Bench, "bench", ".", "run the benchmarks matching `REGEXP` (go test -bench: one regexp per level of sub-benchmarks, split at '/')")
	fs.IntVar(&g.Count, "count", 1, "run each benchmark `N` times (go test -count, 1 to 10000); a CPE fit and benchstat want 6 or more")
	fs.StringVar(&g.Benchtime, "benchtime", "", "go test -benchtime: `D` (such as 2s) is the measurement's time budget (Config.MaxTime),\nNx its samples (Config.MaxSamples; a comparison's pairs); default: the benchmark's Config")
	fs.Var(layoutsValue{&g.LayoutSeeds}, "layouts", layoutsUsage)
	fs.BoolVar(&g.Benchmem, "benchmem", false, "go test -benchmem: B/op and allocs/op of one call of the measured function")
	fs.BoolVar(&g.InProcess, "in-process", false, "run go test -count N, every run of a package in one test process; by default the test\n"+
		"binary is built once and each run is a process of its own, because a process's memory layout\n"+
		"moves a benchmark by 1-10% between processes, which runs in one process cannot show")
}

// withThisMachine is h, read from go test output, with this machine's
// description and calibration (results.Header.WithMachine): go test ran
// here, moments ago.
func withThisMachine(h results.Header, g *gotest.GoTest) results.Header {
	if h.GoVersion == "" && h.Vendor == "" && h.TSCHz == 0 {
		h.GoVersion = g.GoVersion()
	}
	return h.WithMachine(sys.detectCPU(), func() (*calibrate.Calibration, error) {
		cal, _, err := calibrateOn(-1)
		return cal, err
	})
}

// noLimit is the configuration results read from files are judged by: no
// -max-time to have stopped at.
var noLimit = harness.Config{MaxTime: math.MaxInt64}

// runGoTest runs g for a subcommand: it says the command line on stderr,
// relays go test's stderr (unless -q) and, when go test fails, all it
// printed. After a signal that stopped go test before it wrote a result,
// the signal's exit status.
func (s *session) runGoTest(g *gotest.GoTest) (results.File, error) {
	s.o.note("%s", g.CommandLine())
	f, msgs, err := g.Run(s.in.ctx)
	var ge *gotest.GoTestError
	switch {
	case errors.As(err, &ge):
		s.o.stderr.Write(ge.Output)
	case err == nil && !s.o.quiet:
		s.o.stderr.Write(msgs)
	}
	if err != nil && s.in.exitCode() != 0 {
		return f, s.o.status(s.in, "")
	}
	if errors.Is(err, results.ErrBadInput) {
		return f, inputError("", err)
	}
	return f, libError(err)
}

// packageMode is what a subcommand's -h says of its package mode: the
// synopsis, the description, what it does with a package (for the
// section of packageHelp) and examples.
type packageMode struct {
	synopsis, description, what string
	examples                    [][2]string
}

// packageModes are the package modes of run, cpe and compare.
var packageModes = map[string]packageMode{
	"run": {"PACKAGE...", runPackagesDescription,
		"shows the figures harness.Report and ReportSweep put on its benchmark\nlines, as run shows a kernel's.",
		[][2]string{
			{"cyclebench run ./examples/sums -bench Sum1/ -count 6", "Sum1's sweep, six times, as a table"},
			{"cyclebench run . -bench . -benchmem -format bench -o new.txt", "every benchmark of this package, for benchstat"}}},
	"compare": {"PACKAGE...", comparePackagesDescription,
		"shows each harness.ReportCompare result (B/A with its 95% interval,\np-value, verdict) in a table; -plot draws the ratios.",
		[][2]string{
			{"cyclebench compare ./examples/sums -bench Sum4vsSum1 -count 6", "six interleaved comparisons of Sum4 with Sum1"},
			{"cyclebench compare ./examples/sums -bench Sum1AA -count 20 -format csv", "an A/A test: about 19 of 20 runs should find no difference"}}},
	"cpe": {"FILE|PACKAGE...", cpeSourcesDescription,
		"fits each family of sub-benchmarks Name/n=SIZE (harness.ReportSweep).\n" +
			"A FILE (go test -bench output, cyclebench -format bench or json) is read and\n" +
			"fitted the same way; with files only, -bench selects families by name.",
		[][2]string{
			{"cyclebench cpe out.txt -plot cpe.svg", "fit the sweeps of go test -bench -count 6 > out.txt, with a picture"},
			{"cyclebench cpe ./examples/sums -bench Sum -count 6 -plot cpe.svg", "run the package's sweeps with go test and fit them"}}},
}

// packageSession is the session of subcommand cmd given packages (or, for
// cpe, files): the go test flags bound to g, the output flags, and -plot
// and -all-runs where the subcommand has them.
func packageSession(cmd string, g *gotest.GoTest, stdout, stderr io.Writer) (s *session, allRuns *bool) {
	m := packageModes[cmd]
	s = newSession(cmd, "[flags] "+m.synopsis, m.description, stdout)
	s.fs.packages = true
	s.hint = func(err error) error { return hintPackageFlags(cmd, err) }
	addGoTestFlags(s.fs, g)
	if cmd != "cpe" { // cpe reads files too, where these would not apply
		addPackageSettings(s.fs, g)
	}
	switch cmd {
	case "cpe":
		allRuns = s.fs.Bool("all-runs", false, "fit every run, also those the disturbance rule leaves out (go test output and files)")
		s.pf = addPlotFlags(s.fs, "the runs and fitted lines", plot.DefaultCPESize)
	case "compare":
		s.pf = addPlotFlags(s.fs, "the ratios with their 95% intervals", plot.DefaultCompareSize)
	}
	s.o = addOutputFlags(s.fs, stdout, stderr, true, resultFormats...)
	for _, e := range m.examples {
		s.fs.example(e[0], e[1])
	}
	return s, allRuns
}

// goTestSession opens the session of run or compare given packages (the
// arguments, checked as go test would take them), runs go test and makes
// the header of its results; the caller closes the session.
func goTestSession(cmd string, args []string, stdout, stderr io.Writer) (*session, *gotest.GoTest, results.File, error) {
	g := &gotest.GoTest{}
	s, _ := packageSession(cmd, g, stdout, stderr)
	start := time.Now()
	if err := s.open(args, true, func() error {
		g.Packages = s.fs.args
		if re := gotest.CompareBench(g.Packages); cmd == "compare" && given(s.fs, "bench") == "" && re != "" {
			g.Bench = re // only the comparisons: compare has no use for the others
		}
		if cmd == "run" && s.o.path != "" && given(s.fs, "count") == "" {
			g.Count = results.FileRuns // files compare by the spread between runs
		}
		return inputError("", g.Check())
	}); err != nil {
		return nil, nil, results.File{}, err
	}
	if clk, err := plainClock(); err == nil {
		g.Clock = clk // cycles for plain testing.B benchmarks
	} else {
		s.o.note("no cycles/op for plain testing.B benchmarks: %v", err)
	}
	f, err := s.runGoTest(g)
	if err != nil {
		s.close()
		return nil, nil, results.File{}, err
	}
	s.h = withThisMachine(f.Header(cmd), g)
	s.h.Extra = settingsExtra(s.h.Extra, g)
	if plainCycles(f) {
		if s.h.Extra == nil {
			s.h.Extra = map[string]string{}
		}
		s.h.Extra["plain-cycles"] = plainCyclesSource()
	}
	s.h.Provenance = packageProvenance(s.in.ctx, g.Dir(), start, g.RunSeeds())
	return s, g, f, nil
}

// hintPackageFlags adds to an unknown-flag error what a package pattern
// takes instead.
func hintPackageFlags(cmd string, err error) error {
	if strings.Contains(err.Error(), "flag provided but not defined") {
		return usageErrorf("%v; with a package pattern the benchmark's harness.Config sets how it measures, and cyclebench passes on -bench, -count, -benchtime and -benchmem to go test and -mode, -k, -eps, -min-time and -max-time to the harness helpers (see cyclebench %s ./PKG -h)", strings.TrimSuffix(err.Error(), fmt.Sprintf(" (see cyclebench %s -h)", cmd)), cmd)
	}
	return err
}

// outputFlagNames are the flags that shape the output, which apply with
// package patterns too, in the order packageHelp names them.
var outputFlagNames = []string{"format", "o", "q", "strict", "plot"}

// packageHelp is the section of the -h of run, cpe and compare about
// package patterns, with the flags that differ.
func packageHelp(cmd string) string {
	m, ok := packageModes[cmd]
	if !ok {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Go packages: cyclebench %s [flags] %s\n", cmd, m.synopsis)
	fmt.Fprintf(&b, "A package pattern (./mypkg, ../x, ., or any pattern with /...) runs\n"+
		"go test -run '^$' -bench REGEXP [-count N] [-benchtime D] [-benchmem] PACKAGE...\nand %s\n"+
		"With -count 2 or more, each run is a process of its own (see -in-process).\n", m.what)
	// The output flags that apply, as the package mode defines them (run
	// has no -plot there).
	pfs, _ := packageSession(cmd, &gotest.GoTest{}, io.Discard, io.Discard)
	var apply []string
	for _, name := range outputFlagNames {
		if pfs.fs.Lookup(name) != nil {
			apply = append(apply, "-"+name)
		}
	}
	if pfs.fs.Lookup("mode") != nil {
		b.WriteString("Of the measuring flags above, -mode, -k, -eps, -min-time and -max-time apply\n" +
			"(over the benchmark's harness.Config, through CYCLEBENCH_MODE and the like);\n" +
			"the others do not. ")
	} else {
		b.WriteString("The measuring flags above do not apply (the benchmark's harness.Config\n" +
			"decides, or CYCLEBENCH_MODE and the like in the environment). ")
	}
	b.WriteString(strings.Join(apply[:len(apply)-1], ", ") + " and " + apply[len(apply)-1] + " apply. A build or benchmark failure\n" +
		"is relayed as go test printed it (exit status 1); patterns or flags it refuses,\n" +
		"or no benchmark matched, exit 2. cyclebench " + cmd + " ./PKG -h tells more.\n" +
		"Flags with packages:\n")
	pfs.fs.writeFlags(&b, func(name string) bool {
		return slices.Contains(outputFlagNames, name) || name == "json" || name == "plot-size"
	}, "%s with packages") // not "(default %s)": without a package the subcommand's own flags apply
	return b.String()
}

// ---- run PACKAGE...

const runPackagesDescription = `Run the benchmarks of Go packages with go test and show their figures:
core cycles, counter ticks and ns per call, and per element, as harness.Report
and harness.ReportSweep report them. A plain testing.B benchmark (b.Loop, b.N)
gets cycles/op from its ns/op and the core clock read on its CPU before and
after its run (go test runs pinned to that CPU), and keeps its own units.
-mode, -k, -eps, -min-time, -max-time and -gc set how the harness helpers
measure, over the benchmark's Config. The command is go test -run '^$' -bench REGEXP [-count N]
[-benchtime D] [-benchmem] PACKAGE...; its stderr is relayed (unless -q), and
when it fails, all it printed. -format bench writes the runs in the Go
benchmark format (B/op, allocs/op and the benchmark's own metrics included);
comparisons (harness.ReportCompare) are left to cyclebench compare.`

// runPackages is run with package patterns.
func runPackages(args []string, stdout, stderr io.Writer) error {
	s, g, f, err := goTestSession("run", args, stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	rs, _, _, comparisons := f.Split()
	if len(rs) == 0 {
		return usageErrorf("-bench %q matched only comparisons (%s): see cyclebench compare %s", g.Bench, strings.Join(comparisons, ", "), strings.Join(g.Packages, " "))
	}
	s.partial(": go test was stopped", "")
	if err := s.o.emit(func(w io.Writer) error { return writeResults(w, s.o.format, s.h, rs) }); err != nil {
		return err
	}
	ws := reports.ResultWarnings(s.h, rs)
	if len(comparisons) > 0 {
		ws = append(ws, reports.Warning{Text: fmt.Sprintf("left out %s: harness.ReportCompare results (see cyclebench compare %s -bench ...)", strings.Join(comparisons, ", "), strings.Join(g.Packages, " "))})
	}
	s.o.warnResults(ws)
	return s.o.status(s.in, results.Failure(rs, s.o.strict, noLimit.MaxTime, "results"))
}

// ---- compare PACKAGE...

const comparePackagesDescription = `Run the comparisons of Go packages with go test and show them: each
benchmark that calls harness.ReportCompare measured two functions (or two
sizes of one) interleaved, ABBA, and reported B/A with its 95% confidence
interval, the p-value (of its blocks' weighted ratios), the noise band and whether the
difference is significant. The table has one row per run (-count N gives N
rows), with each side's cycles per call; -plot draws the ratios with their
intervals. The command is go test -run '^$' -bench REGEXP [-count N]
[-benchtime D] [-benchmem] PACKAGE...; its stderr is relayed (unless -q), and
when it fails, all it printed. -format bench writes the comparisons' benchmark
lines as go test printed them.`

// writeComparisons writes the comparisons in format.
func writeComparisons(w io.Writer, format string, h results.Header, cs []results.Paired) error {
	switch format {
	case formatJSON:
		return writeJSON(w, struct {
			results.Header
			Comparisons []results.Paired `json:"comparisons"`
		}{h, cs})
	case formatCSV:
		return reports.PairedTable(cs).WriteCSV(w)
	case formatBench:
		return results.WritePairedBench(w, h, cs)
	}
	return reports.PairedDoc(h, cs, format == formatMD).Render(w)
}

// comparePackages is compare with package patterns.
func comparePackages(args []string, stdout, stderr io.Writer) error {
	s, g, f, err := goTestSession("compare", args, stdout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	_, others, cs, _ := f.Split()
	if len(cs) == 0 {
		return usageErrorf("-bench %q matched no comparison in %s (benchmarks that call harness.ReportCompare); it matched %s", g.Bench, strings.Join(g.Packages, " "), listSome(others, 5))
	}
	s.partial(": go test was stopped", "")
	if err := s.o.emit(func(w io.Writer) error { return writeComparisons(w, s.o.format, s.h, cs) }); err != nil {
		return err
	}
	bars, err := results.PairedBars(cs)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s on %s (paired, 95%% CI)", results.PairedTitle(cs), orDash(s.h.CPU))
	if err := s.pf.write(s.o, func(w io.Writer, format string, opt plot.Options) error { return plot.Compare(w, format, bars, opt) }, plot.Options{Title: title}); err != nil {
		return err
	}
	ws := reports.PairedWarnings(s.h, cs)
	if len(others) > 0 {
		ws = append(ws, reports.Warning{Text: fmt.Sprintf("left out %s: not comparisons (see cyclebench run or cpe %s)", listSome(others, 5), strings.Join(g.Packages, " "))})
	}
	s.o.warnResults(ws)
	return s.o.status(s.in, "")
}

// listSome lists up to n items and how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
