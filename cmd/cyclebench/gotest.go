package main

// Go packages on the command line: cyclebench run, cpe and compare take a
// package pattern (./mypkg, ../x, ., anything with /...) where they would
// take kernels, run the package's benchmarks with go test, read the
// output with package results and show it as they show their own
// measurements. The measuring happens in the test binary, with the
// harness.Config the benchmark sets (harness.Report, ReportSweep,
// ReportCompare); the command only runs go test and renders.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// isPackagePattern reports whether arg is taken as a Go package pattern:
// ".", "..", a path starting with "./" or "../", or a pattern containing
// "/..." ("./...", "example.com/x/..."), unless it names an existing file
// (so "./out.txt" stays a file when there is one); or the name of an
// existing directory ("examples/sums", "/home/me/mypkg").
func isPackagePattern(arg string) bool {
	st, err := os.Stat(arg)
	switch {
	case err == nil && st.IsDir():
		return true
	case err == nil:
		return false // a file
	}
	return isPathPattern(arg) || strings.Contains(arg, "/...")
}

// isPathPattern reports whether pattern names directories rather than
// import paths: ".", "..", or a path starting with "./" or "../".
func isPathPattern(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

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
	addGoTestFlags(fs, "cpe")
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
	return slices.ContainsFunc(positionals(args), isPackagePattern)
}

// goTest is a go test command line: the flags cyclebench passes on and
// the package patterns.
type goTest struct {
	bench     string
	count     int
	benchtime string
	benchmem  bool
	packages  []string
	cmd       string // the subcommand, for messages
	// dir, when not "", is the root of the module the packages are in
	// (directories given as ./x, /abs/x, x/...): go test runs there, on
	// dirPackages, their patterns relative to it (locate).
	dir         string
	dirPackages []string
}

// addGoTestFlags defines the flags passed on to go test.
func addGoTestFlags(fs *flagSet, cmd string) *goTest {
	g := &goTest{cmd: cmd}
	fs.StringVar(&g.bench, "bench", ".", "run the benchmarks matching `REGEXP` (go test -bench: one regexp per level of sub-benchmarks, split at '/')")
	fs.IntVar(&g.count, "count", 1, "run each benchmark `N` times (go test -count, 1 to 10000); a CPE fit and benchstat want 6 or more")
	fs.StringVar(&g.benchtime, "benchtime", "", "go test -benchtime: `D` (such as 2s) is the measurement's time budget (Config.MaxTime),\nNx its samples (Config.MaxSamples; a comparison's pairs); default: the benchmark's Config")
	fs.BoolVar(&g.benchmem, "benchmem", false, "go test -benchmem: B/op and allocs/op of one call of the measured function")
	return g
}

// benchtimeForm is what go test accepts as -benchtime: a duration or Nx.
var benchtimeForm = regexp.MustCompile(`^[0-9]+x$`)

// check returns a *usageError for a value go test would refuse, before
// running it.
func (g *goTest) check() error {
	if g.bench == "" {
		return usageErrorf("-bench: empty (want a regexp, such as . for every benchmark)")
	}
	if _, err := regexp.Compile(g.bench); err != nil {
		return usageErrorf("-bench %q: not a regexp: %v", g.bench, err)
	}
	if g.count < 1 || g.count > 10000 {
		return usageErrorf("-count %d: out of range (allowed: 1 to 10000)", g.count)
	}
	if g.benchtime != "" && !benchtimeForm.MatchString(g.benchtime) {
		if d, err := time.ParseDuration(g.benchtime); err != nil || d <= 0 {
			return usageErrorf("-benchtime %q: want a duration such as 2s, or a count such as 100x", g.benchtime)
		}
	}
	for _, p := range g.packages {
		if !isPackagePattern(p) {
			return usageErrorf("%q: not a package pattern (want ./dir, ../dir, . or a pattern with /...; give packages only, no files or kernels)", p)
		}
	}
	return g.locate()
}

// args is the go command's argument list.
func (g *goTest) args() []string {
	a := []string{"test", "-run", "^$", "-bench", g.bench}
	if g.count != 1 {
		a = append(a, "-count", strconv.Itoa(g.count))
	}
	if g.benchtime != "" {
		a = append(a, "-benchtime", g.benchtime)
	}
	if g.benchmem {
		a = append(a, "-benchmem")
	}
	if g.dir != "" {
		return append(a, g.dirPackages...)
	}
	return append(a, g.packages...)
}

// findModule returns the directory of the go.mod that holds dir (dir or
// the nearest parent with one), "" when there is none.
func findModule(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// locate makes go test run in the module of the packages when they are
// directories (./mypkg, /abs/dir, examples/sums, ./x/...), with each
// pattern rewritten relative to the module's root: from the repository's
// root, ./examples/sums is a module of its own, which go test run there
// would not find. Import-path patterns (example.com/x/...) stay as given,
// run in the current directory; all the directories must be in one
// module, and not mixed with import paths of another.
func (g *goTest) locate() error {
	var dir string
	rewritten := make([]string, len(g.packages))
	for i, p := range g.packages {
		path, rest, dots := strings.Cut(p, "...")
		sep := "" // "./x/..." or "./x..."
		if strings.HasSuffix(path, "/") {
			path, sep = strings.TrimSuffix(path, "/"), "/"
		}
		if path == "" || !(isPathPattern(path) || isDir(path)) {
			rewritten[i] = p // an import path: the go command resolves it
			continue
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return usageErrorf("%s: %v", p, err)
		}
		mod := findModule(abs)
		if mod == "" {
			rewritten[i] = p // no module: the go command says so
			continue
		}
		if dir != "" && dir != mod {
			return usageErrorf("%s and %s are in different modules (%s and %s): give the packages of one module at a time", g.packages[0], p, dir, mod)
		}
		dir = mod
		rel, err := filepath.Rel(mod, abs)
		if err != nil {
			return usageErrorf("%s: %v", p, err)
		}
		q := "./" + filepath.ToSlash(rel)
		switch {
		case rel == "." && dots:
			q = "./..." + rest
		case rel == ".":
			q = "."
		case dots:
			q += sep + "..." + rest
		}
		rewritten[i] = q
	}
	if dir == "" {
		return nil
	}
	for i, p := range g.packages {
		if rewritten[i] == p && !isPathPattern(p) && !isDir(strings.TrimSuffix(strings.Split(p, "...")[0], "/")) && findModule(".") != dir {
			return usageErrorf("%s is an import path, %s a directory of module %s: give the packages of one module at a time", p, g.packages[0], dir)
		}
	}
	g.dir, g.dirPackages = dir, rewritten
	return nil
}

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// commandLine is the go test command as a shell would take it.
func (g *goTest) commandLine() string {
	var b strings.Builder
	if cwd, err := os.Getwd(); g.dir != "" && (err != nil || cwd != g.dir) {
		dir := g.dir
		if rel, err := filepath.Rel(cwd, g.dir); err == nil && !strings.HasPrefix(rel, "../../") {
			dir = rel
		}
		fmt.Fprintf(&b, "cd %s && ", dir)
	}
	b.WriteString("go")
	for _, a := range g.args() {
		b.WriteString(" ")
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[](){}|&;<>^!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(a)
	}
	return b.String()
}

// goCommand is the go command cyclebench runs ("go" from PATH).
var goCommand = "go"

// lockedWriter serialises writes to one buffer from the two pipes.
type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// run runs go test and reads its output. On success (and after a signal,
// with what was written until then) it returns the results; go test's
// stderr (downloads, build notes) goes to o's stderr unless -q. When go
// test fails, everything it printed is relayed to stderr as it was, and
// the error says why: exit status 2 when the go command refused the
// patterns or the flags, or no benchmark matched; 1 for a build failure,
// a failed benchmark, or no go command.
func (g *goTest) run(ctx context.Context, o *out) (results.File, error) {
	o.note("%s", g.commandLine())
	cmd := exec.CommandContext(ctx, goCommand, g.args()...)
	cmd.Dir = g.dir
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr, both bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout = io.MultiWriter(&stdout, lockedWriter{&mu, &both})
	cmd.Stderr = io.MultiWriter(&stderr, lockedWriter{&mu, &both})
	err := cmd.Run()
	if ctx.Err() != nil {
		f, perr := results.Parse("go test output", &stdout)
		if perr != nil {
			return results.File{}, fmt.Errorf("interrupted before go test wrote a result")
		}
		return f, nil
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return results.File{}, fmt.Errorf("running go test: %w (is the go command in PATH?)", err)
	}
	f, perr := results.Parse("go test output", bytes.NewReader(stdout.Bytes()))
	if err == nil && perr == nil {
		if stderr.Len() > 0 && !o.quiet {
			o.stderr.Write(stderr.Bytes())
		}
		return f, nil
	}
	o.stderr.Write(both.Bytes())
	return results.File{}, g.failure(stdout.String(), stderr.String(), err)
}

// setupFailed matches go test's line for a package it could not load.
var setupFailed = regexp.MustCompile(`(?m)^FAIL\s+(\S+) \[setup failed\]`)

// failure explains why go test produced no results, from its output and
// exit error (nil when it succeeded without a benchmark line): a
// *usageError (exit status 2) for patterns or flags it refused and for
// no benchmark matched, a plain error (exit status 1) otherwise.
func (g *goTest) failure(stdout, stderr string, runErr error) error {
	all := stdout + stderr
	pkgs := strings.Join(g.packages, " ")
	switch {
	case strings.Contains(all, "testing: invalid regexp"):
		return usageErrorf("-bench %q: go test refused the regexp (its message is above)", g.bench)
	case regexp.MustCompile(`invalid value .* for flag -test\.`).MatchString(all):
		return usageErrorf("go test refused a flag value (its message is above)")
	case strings.Contains(stderr, "no packages to test") || strings.Contains(stderr, "matched no packages"):
		return usageErrorf("%s: no package to test (the go command's message is above)", pkgs)
	}
	if m := setupFailed.FindAllStringSubmatch(stdout, -1); len(m) > 0 && !strings.Contains(stdout, "[build failed]") {
		given := g.args()[len(g.args())-len(g.packages):]
		bad := true
		for _, s := range m {
			bad = bad && slices.Contains(given, s[1])
		}
		if bad {
			return usageErrorf("%s: the go command cannot load the package (its message is above)", pkgs)
		}
	}
	switch {
	case runErr == nil:
		return usageErrorf("-bench %q matched no benchmark in %s", g.bench, pkgs)
	case strings.Contains(stdout, "[build failed]"):
		return fmt.Errorf("go test %s: build failed (its messages are above)", pkgs)
	case strings.Contains(stdout, "[setup failed]"):
		return fmt.Errorf("go test %s: setup failed (its messages are above)", pkgs)
	case strings.Contains(stdout, "--- FAIL"):
		return fmt.Errorf("go test %s: a benchmark failed (its output is above)", pkgs)
	}
	return fmt.Errorf("go test %s: %v (its output is above)", pkgs, runErr)
}

// sourceHeader is the header of results read from f: the machine and
// settings it records (a go test file has the CPU and platform only).
func sourceHeader(cmd string, f results.File) header {
	m := f.Machine
	h := header{Command: cmd, CPU: m.CPU, Vendor: m.Vendor, Hypervisor: m.Hypervisor, Counter: m.Counter,
		TSCHz: m.CounterHz, TSCHzSource: m.CounterHzSource, TSCHzPPM: m.CounterHzPPM, CyclesPerTick: m.CyclesPerTick, TSCStep: m.CounterStep,
		K: f.Settings.K, MaxSamples: f.Settings.MaxSamples,
		GOOS: m.GOOS, GOARCH: m.GOARCH, GoVersion: m.GoVersion, Warnings: slices.Clone(f.Notes), modeUnknown: f.Producer == results.ProducerGoTest}
	if f.Settings.K > 0 {
		eps := f.Settings.Epsilon
		h.Epsilon = &eps
	}
	if h.Warnings == nil {
		h.Warnings = []string{}
	}
	h.Warnings = append(h.Warnings, errorStrings(f.Warnings)...)
	var pkgs []string
	for _, e := range f.Entries {
		if e.Pkg != "" && !slices.Contains(pkgs, e.Pkg) {
			pkgs = append(pkgs, e.Pkg)
		}
	}
	if len(pkgs) > 0 {
		h.Extra = map[string]string{"pkg": strings.Join(pkgs, " ")}
	}
	return h
}

// withThisMachine fills what a header read from go test output lacks
// (its "cpu:" line is all it says of the machine) with this machine's
// description and calibration: go test ran here, moments ago. The K-best
// settings stay absent: each benchmark's harness.Config set its own.
func withThisMachine(h header, g *goTest) header {
	if h.Vendor != "" || h.TSCHz > 0 {
		return h // the file says it itself
	}
	if h.GoVersion == "" {
		h.GoVersion = g.goVersion()
	}
	cpu := sys.detectCPU()
	if cpu.Brand == "" || h.CPU != "" && strings.TrimSpace(cpu.Brand) != strings.TrimSpace(h.CPU) {
		// Not the brand string go test saw, or none read (-tags noasm,
		// whose counter is not the test binary's either): leave it alone.
		return h
	}
	h.CPU, h.Vendor, h.Hypervisor, h.Counter = cpu.Brand, cpu.Vendor, cpu.Hypervisor, cpu.Counter
	h.Family, h.Model, h.Stepping, h.LogicalCPUs = cpu.Family, cpu.Model, cpu.Stepping, cpu.LogicalCPUs
	if cal, _, err := calibrateOn(-1); err == nil && cal != nil {
		h.TSCHz, h.TSCHzPPM = cal.Frequency.Hz, cal.Frequency.PPM
		h.TSCHzSource = cal.Frequency.Method + ": " + cal.Frequency.Source
		h.CyclesPerTick, h.TSCStep = cal.Core.CyclesPerTick, cal.Step.Step
	}
	return h
}

// goVersion is the version of the go command that ran the benchmarks
// (go env GOVERSION where go test ran), "" when it cannot be asked.
func (g *goTest) goVersion() string {
	cmd := exec.Command(goCommand, "env", "GOVERSION")
	cmd.Dir = g.dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// noLimit is the configuration results read from files are judged by: no
// -max-time to have stopped at.
var noLimit = harness.Config{MaxTime: math.MaxInt64}

// isComparison reports whether e is a harness.ReportCompare result.
func isComparison(e results.Entry) bool {
	for _, r := range e.Runs {
		if otherValue(r, "ratio") != nil {
			return true
		}
	}
	return false
}

// otherValue returns a pointer to r's figure in unit, nil when absent.
func otherValue(r results.Run, unit string) *float64 {
	for i := range r.Other {
		if r.Other[i].Unit == unit {
			return &r.Other[i].Value
		}
	}
	return nil
}

// runMeasured turns one run of a file into a result row.
func runMeasured(e results.Entry, r results.Run, f results.File) measured {
	res := harness.Result{Name: e.Name, Ticks: r.Ticks, Nanoseconds: r.NS, Cycles: r.Cycles, Converged: !r.NotConverged,
		Samples: r.Samples, Repeat: r.Repeat, CyclesPerTick: r.CyclesPerTick, ReferenceConverged: true, Quantum: r.Quantum,
		TicksPerSecond: f.Machine.CounterHz, Calls: int64(r.Iters), Elements: r.Elements, CyclesPerElement: r.CyclesPerElem, TicksPerElement: r.TicksPerElem, NsPerElement: r.NsPerElem}
	res.Config.Epsilon = f.Settings.Epsilon
	if r.NoCycles == results.HasCycles && res.CyclesPerTick == 0 {
		// A go test line has cycles/op and ticks/op: their ratio is the
		// core-clock ratio of the run's ruler (to go test's 4 digits).
		res.CyclesPerTick = 1
		if r.Ticks > 0 {
			res.CyclesPerTick = r.Cycles / r.Ticks
		}
	}
	if e.Mode == results.Latency {
		res.Mode = harness.Latency
	}
	for _, w := range r.Warnings {
		res.Warnings = append(res.Warnings, errors.New(w))
		// harness: the cycles come from a ruler that did not converge ("~").
		if strings.Contains(w, "the reference chain did not converge") {
			res.ReferenceConverged = false
		}
	}
	n := int(e.N)
	if int64(n) != e.N {
		n = 0
	}
	unit := e.Unit
	if unit == "" && r.Elements > 0 {
		unit = "elements" // per-element figures without a word for them: Config.Elements counts elements
	}
	m := measured{Result: res, Kernel: e.Kernel, N: n, Unit: unit, Check: cmpOr(r.Check, "ok"), bench: benchName(e.Name, res.Mode), elemOK: r.Elements > 0,
		noTicks: r.Ticks == 0, extra: r.Other, read: true}
	return m
}

// pkgFlags is the flag set of a subcommand given packages (or, for cpe,
// files): the go test flags, the output flags, and -plot and -all-runs
// where the subcommand has them.
type pkgFlags struct {
	fs      *flagSet
	g       *goTest
	o       *out
	pf      *plotFlags // compare and cpe
	allRuns *bool      // cpe
}

// newPackageFlags returns the flag set of cmd given packages, with its
// help.
func newPackageFlags(cmd string, stdout, stderr io.Writer) *pkgFlags {
	var synopsis, description string
	var examples [][2]string
	switch cmd {
	case "run":
		synopsis, description = "[flags] PACKAGE...", runPackagesDescription
		examples = [][2]string{
			{"cyclebench run ./examples/sums -bench Sum1/ -count 6", "Sum1's sweep, six times, as a table"},
			{"cyclebench run . -bench . -benchmem -format bench -o new.txt", "every benchmark of this package, for benchstat"}}
	case "compare":
		synopsis, description = "[flags] PACKAGE...", comparePackagesDescription
		examples = [][2]string{
			{"cyclebench compare ./examples/sums -bench Sum4vsSum1 -count 6", "six interleaved comparisons of Sum4 with Sum1"},
			{"cyclebench compare ./examples/sums -bench Sum1AA -count 20 -format csv", "an A/A test: about 19 of 20 runs should find no difference"}}
	case "cpe":
		synopsis, description = "[flags] FILE|PACKAGE...", cpeSourcesDescription
		examples = [][2]string{
			{"cyclebench cpe out.txt -plot cpe.svg", "fit the sweeps of go test -bench -count 6 > out.txt, with a picture"},
			{"cyclebench cpe ./examples/sums -bench Sum -count 6 -plot cpe.svg", "run the package's sweeps with go test and fit them"}}
	}
	p := &pkgFlags{fs: newFlagSet(cmd, synopsis, description, stdout)}
	p.fs.packages = true
	p.g = addGoTestFlags(p.fs, cmd)
	if cmd == "cpe" {
		p.allRuns = p.fs.Bool("all-runs", false, "fit every run, also those the disturbance rule leaves out (go test output and files)")
	}
	switch cmd {
	case "cpe":
		p.pf = addPlotFlags(p.fs, "the runs and fitted lines", plot.DefaultCPESize)
	case "compare":
		p.pf = addPlotFlags(p.fs, "the ratios with their 95% intervals", plot.DefaultCompareSize)
	}
	p.o = addOutputFlags(p.fs, stdout, stderr, true, resultFormats...)
	for _, e := range examples {
		p.fs.example(e[0], e[1])
	}
	return p
}

// parse parses args: the flags, and the packages (for cpe also files)
// left in fs.args. run and compare check the packages here.
func (p *pkgFlags) parse(args []string) error {
	if err := p.fs.parse(args); err != nil {
		return hintPackageFlags(p.fs.Name(), err)
	}
	if p.fs.Name() != "cpe" {
		p.g.packages = p.fs.args
		if err := p.g.check(); err != nil {
			return err
		}
	}
	if p.pf != nil {
		if err := p.pf.check(); err != nil {
			return err
		}
	}
	return p.o.check()
}

// hintPackageFlags adds to an unknown-flag error what a package pattern
// takes instead.
func hintPackageFlags(cmd string, err error) error {
	if strings.Contains(err.Error(), "flag provided but not defined") {
		return usageErrorf("%v; with a package pattern the benchmark's harness.Config sets how it measures, and cyclebench passes on -bench, -count, -benchtime and -benchmem (see cyclebench %s ./PKG -h)", strings.TrimSuffix(err.Error(), fmt.Sprintf(" (see cyclebench %s -h)", cmd)), cmd)
	}
	return err
}

// outputFlagNames are the flags that shape the output, which apply with
// package patterns too, in the order packageHelp names them.
var outputFlagNames = []string{"format", "o", "q", "strict", "plot"}

// packageHelp is the section of cmd's -h about package patterns ("" for
// the subcommands that take none), with the flags that differ.
func packageHelp(cmd string) string {
	var what, synopsis string
	switch cmd {
	case "run":
		synopsis, what = "PACKAGE...", "shows the figures harness.Report and ReportSweep put on its benchmark\nlines, as run shows a kernel's."
	case "cpe":
		synopsis, what = "FILE|PACKAGE...", "fits each family of sub-benchmarks Name/n=SIZE (harness.ReportSweep).\n"+
			"A FILE (go test -bench output, cyclebench -format bench or json) is read and\n"+
			"fitted the same way; with files only, -bench selects families by name."
	case "compare":
		synopsis, what = "PACKAGE...", "shows each harness.ReportCompare result (B/A with its 95% interval,\np-value, verdict) in a table; -plot draws the ratios."
	default:
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Go packages: cyclebench %s [flags] %s\n", cmd, synopsis)
	fmt.Fprintf(&b, "A package pattern (./mypkg, ../x, ., or any pattern with /...) runs\n"+
		"go test -run '^$' -bench REGEXP [-count N] [-benchtime D] [-benchmem] PACKAGE...\nand %s\n", what)
	// The output flags that apply, as the package mode defines them (run
	// has no -plot there).
	pfs := newPackageFlags(cmd, io.Discard, io.Discard).fs
	var apply []string
	for _, name := range outputFlagNames {
		if pfs.Lookup(name) != nil {
			apply = append(apply, "-"+name)
		}
	}
	b.WriteString("The measuring flags above do not apply (the benchmark's harness.Config\n" +
		"decides); " + strings.Join(apply[:len(apply)-1], ", ") + " and " + apply[len(apply)-1] + " do. A build or benchmark failure\n" +
		"is relayed as go test printed it (exit status 1); patterns or flags it refuses,\n" +
		"or no benchmark matched, exit 2. cyclebench " + cmd + " ./PKG -h tells more.\n" +
		"Flags with packages:\n")
	pfs.writeFlags(&b, func(name string) bool {
		return slices.Contains(outputFlagNames, name) || name == "json" || name == "plot-size"
	}, "%s with packages") // not "(default %s)": without a package the subcommand's own flags apply
	return b.String()
}

// ---- run PACKAGE...

const runPackagesDescription = `Run the benchmarks of Go packages with go test and show their figures:
core cycles, counter ticks and ns per call, and per element, as harness.Report
and harness.ReportSweep report them (a benchmark without them shows ns/op
only). The command is go test -run '^$' -bench REGEXP [-count N]
[-benchtime D] [-benchmem] PACKAGE...; its stderr is relayed (unless -q), and
when it fails, all it printed. -format bench writes the runs in the Go
benchmark format (B/op, allocs/op and the benchmark's own metrics included);
comparisons (harness.ReportCompare) are left to cyclebench compare.`

// runPackages is run with package patterns.
func runPackages(args []string, stdout, stderr io.Writer) error {
	p := newPackageFlags("run", stdout, stderr)
	if err := p.parse(args); err != nil {
		return err
	}
	g, o := p.g, p.o
	in := catchInterrupts()
	defer in.stop()
	f, err := runGoTest(in, o, g)
	if err != nil {
		return err
	}
	h := withThisMachine(sourceHeader("run", f), g)
	var rs []measured
	var comparisons []string
	for _, e := range f.Entries {
		if isComparison(e) {
			comparisons = append(comparisons, e.Name)
			continue
		}
		for _, r := range e.Runs {
			rs = append(rs, runMeasured(e, r, f))
		}
	}
	if len(rs) == 0 {
		return usageErrorf("-bench %q matched only comparisons (%s): see cyclebench compare %s", g.bench, strings.Join(comparisons, ", "), strings.Join(g.packages, " "))
	}
	if in.exitCode() != 0 {
		h.Partial = fmt.Sprintf("interrupted by %s: go test was stopped", in.signal())
		h.Warnings = append(h.Warnings, "interrupted by a signal: go test was stopped")
	}
	if err := o.emit(func(w io.Writer) error { return writeResults(w, o.format, h, rs) }); err != nil {
		return err
	}
	ws := resultWarnings(h, rs)
	if len(comparisons) > 0 {
		ws = append(ws, warning{text: fmt.Sprintf("left out %s: harness.ReportCompare results (see cyclebench compare %s -bench ...)", strings.Join(comparisons, ", "), strings.Join(g.packages, " "))})
	}
	o.warnResults(ws)
	return o.status(in, resultsFailure(rs, o.strict, noLimit, "results"))
}

// runGoTest runs g for a subcommand: after a signal that stopped go test
// before it wrote a result, the signal's exit status.
func runGoTest(in *interrupt, o *out, g *goTest) (results.File, error) {
	f, err := g.run(in.ctx, o)
	if err != nil && in.exitCode() != 0 {
		return f, o.status(in, "")
	}
	return f, err
}

// ---- compare PACKAGE...

const comparePackagesDescription = `Run the comparisons of Go packages with go test and show them: each
benchmark that calls harness.ReportCompare measured two functions (or two
sizes of one) interleaved, ABBA, and reported B/A with its 95% confidence
interval, the Wilcoxon signed-rank p-value, the noise band and whether the
difference is significant. The table has one row per run (-count N gives N
rows), with each side's cycles per call; -plot draws the ratios with their
intervals. The command is go test -run '^$' -bench REGEXP [-count N]
[-benchtime D] [-benchmem] PACKAGE...; its stderr is relayed (unless -q), and
when it fails, all it printed. -format bench writes the comparisons' benchmark
lines as go test printed them.`

// pkgComparison is one run of a harness.ReportCompare benchmark.
type pkgComparison struct {
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
	run         results.Run
}

// compareLog matches ReportCompare's log line, which has the ratio and
// its interval to 5 digits, the side names and the verdict:
// "harness.ReportCompare: Sum4/Sum1 = 0.77698 [0.77524, 0.77937], p = 1.4e-13, 60 pairs: faster (...)".
var compareLog = regexp.MustCompile(`^harness\.ReportCompare: (.+)/(.+) = (\S+) \[(\S+), (\S+)\], p = (\S+), (\d+) pairs: (faster|slower|no significant difference|inconclusive) \((.*)\)$`)

// comparisonOf reads one run of a ReportCompare benchmark: its metrics,
// refined by its log line when there is one.
func comparisonOf(e results.Entry, r results.Run) pkgComparison {
	c := pkgComparison{Name: e.Name, Pkg: e.Pkg, A: "A", B: "B", Calls: r.Iters, Warnings: []string{}, run: r}
	get := func(unit string) float64 {
		if v := otherValue(r, unit); v != nil {
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
		c.Verdict = "no significant difference"
	case c.Ratio < 1:
		c.Verdict = "faster"
	default:
		c.Verdict = "slower"
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
		c.Pairs, _ = strconv.Atoi(m[7])
		c.Verdict, c.Reason = m[8], m[9]
	}
	c.Summary = stats.Sentence(c.A, c.B, c.Ratio, c.Lo, c.Hi, c.Verdict, c.Reason)
	return c
}

// comparisonsTable is the comparisons, one row per run; the text shows
// the main columns, CSV all.
func comparisonsTable(cs []pkgComparison) *table {
	t := &table{cols: []col{{name: "name", left: true}, {name: "B/A", key: "b_over_a", left: true}, {name: "best A", key: "cycles_a"}, {name: "best B", key: "cycles_b"},
		{name: "ticks_a", csv: true}, {name: "ticks_b", csv: true},
		{name: "paired B/A", key: "ratio", digits: 5}, {name: "95% CI", key: "-", left: true}, {name: "ratio_lo", csv: true}, {name: "ratio_hi", csv: true},
		{name: "p", key: "p_value", digits: 2}, {name: "noise band", key: "noise_band", digits: 2}, {name: "pairs", csv: true}, {name: "calls", csv: true},
		{name: "verdict", left: true}, {name: "reason", csv: true}, {name: "summary", csv: true}, {name: "warnings", csv: true}}}
	for _, c := range cs {
		var cycA, cycB any
		if c.CyclesA > 0 {
			cycA, cycB = c.CyclesA, c.CyclesB
		}
		t.add(c.Name, c.B+"/"+c.A, cycA, cycB, c.TicksA, c.TicksB, c.Ratio, fmt.Sprintf("[%s, %s]", sig(c.Lo, 5), sig(c.Hi, 5)), c.Lo, c.Hi,
			shown{c.PValue, pString(c.PValue)}, shown{c.NoiseBand, "±" + pct(c.NoiseBand, 2)}, c.Pairs, c.Calls, c.Verdict, c.Reason, c.Summary, strings.Join(c.Warnings, "\n"))
	}
	return t
}

// writeComparisons writes the comparisons in format.
func writeComparisons(w io.Writer, format string, h header, cs []pkgComparison) error {
	switch format {
	case formatJSON:
		return writeJSON(w, struct {
			header
			Comparisons []pkgComparison `json:"comparisons"`
		}{h, cs})
	case formatCSV:
		return comparisonsTable(cs).writeCSV(w)
	case formatBench:
		var b strings.Builder
		for _, kv := range benchConfig(h) {
			fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
		}
		if h.Partial != "" {
			fmt.Fprintf(&b, "# partial: %s\n", h.Partial)
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "Benchmark%s\t%d", c.Name, max(1, c.Calls))
			for _, v := range c.run.Other {
				fmt.Fprintf(&b, "\t%s %s", benchValue(v.Value), v.Unit)
			}
			fmt.Fprintf(&b, "\n# compare %s: %s/%s = %.5g [%.5g, %.5g], p = %s: %s\n", c.Name, c.B, c.A, c.Ratio, c.Lo, c.Hi, pString(c.PValue), c.Verdict)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	d := newDoc(format)
	d.line(h.partialLine() + h.line())
	d.blank()
	if err := d.table(comparisonsTable(cs)); err != nil {
		return err
	}
	d.blank()
	for _, c := range cs {
		d.item(c.Name + ": " + c.Summary)
	}
	d.blank()
	d.para("best A and best B are each side's cycles per call from its K best samples; paired B/A\n" +
		"is the ratio of typical pairs, measured interleaved (ABBA) in one go test run, with\n" +
		"the Wilcoxon signed-rank test's 95% interval and p-value. When the two disagree\n" +
		"beyond their intervals, or a side did not converge, the verdict is inconclusive.")
	return d.writeTo(w)
}

// comparePackages is compare with package patterns.
func comparePackages(args []string, stdout, stderr io.Writer) error {
	p := newPackageFlags("compare", stdout, stderr)
	if err := p.parse(args); err != nil {
		return err
	}
	g, o, pf := p.g, p.o, p.pf
	in := catchInterrupts()
	defer in.stop()
	f, err := runGoTest(in, o, g)
	if err != nil {
		return err
	}
	h := withThisMachine(sourceHeader("compare", f), g)
	var cs []pkgComparison
	var others []string
	for _, e := range f.Entries {
		if !isComparison(e) {
			others = append(others, e.Name)
			continue
		}
		for _, r := range e.Runs {
			cs = append(cs, comparisonOf(e, r))
		}
	}
	if len(cs) == 0 {
		return usageErrorf("-bench %q matched no comparison in %s (benchmarks that call harness.ReportCompare); it matched %s", g.bench, strings.Join(g.packages, " "), listSome(others, 5))
	}
	if in.exitCode() != 0 {
		h.Partial = fmt.Sprintf("interrupted by %s: go test was stopped", in.signal())
		h.Warnings = append(h.Warnings, "interrupted by a signal: go test was stopped")
	}
	if err := o.emit(func(w io.Writer) error { return writeComparisons(w, o.format, h, cs) }); err != nil {
		return err
	}
	if err := pf.write(o, func(w io.Writer, format string, opt plot.Options) error {
		return plot.Compare(w, format, comparisonBars(cs), opt)
	},
		plot.Options{Title: fmt.Sprintf("%s on %s (paired, 95%% CI)", comparisonTitle(cs), orDash(h.CPU))}); err != nil {
		return err
	}
	var ws []warning
	for _, w := range h.Warnings {
		ws = append(ws, warning{text: w})
	}
	for _, c := range cs {
		for _, w := range c.Warnings {
			ws = append(ws, warning{c.Name, w})
		}
	}
	if len(others) > 0 {
		ws = append(ws, warning{text: fmt.Sprintf("left out %s: not comparisons (see cyclebench run or cpe %s)", listSome(others, 5), strings.Join(g.packages, " "))})
	}
	o.warnResults(ws)
	return o.status(in, "")
}

// listSome lists up to n items and how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// comparisonBars is the plot of the comparisons: one bar per run, B/A
// with its interval, the noise band of the first.
func comparisonBars(cs []pkgComparison) plot.Comparison {
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
	return c
}

// comparisonTitle names what the plot compares.
func comparisonTitle(cs []pkgComparison) string {
	names := []string{}
	for _, c := range cs {
		if n := c.B + " vs " + c.A; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return listSome(names, 3)
}
