package gotest

// Running go test: the benchmarks of Go packages, measured in the test
// binary with the harness.Config each benchmark sets (harness.Report,
// ReportSweep, ReportCompare), read back as a File.

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

	"github.com/cyclebench/cyclebench/results"
)

// MaxCount bounds [GoTest.Count].
const MaxCount = 10000

// GoTest is a go test command line that runs the benchmarks of Go
// packages: go test -run '^$' -bench Bench [-count Count] [-benchtime
// Benchtime] [-benchmem] Packages... Fill it, call [GoTest.Check], then
// [GoTest.Run].
type GoTest struct {
	// Bench is go test's -bench: a regexp per level of sub-benchmarks
	// ("." for every benchmark); it may not be empty.
	Bench string
	// Count is go test's -count, 1 to MaxCount.
	Count int
	// Benchtime is go test's -benchtime, "" for the benchmark's own
	// budget: a duration (2s) or a count (100x).
	Benchtime string
	// Benchmem is go test's -benchmem.
	Benchmem bool
	// Packages are the package patterns ([IsPackagePattern]).
	Packages []string
	// Go is the go command to run; "" means "go" from PATH.
	Go string
	// InProcess, with Count ≥ 2, runs go test -count Count: every run of
	// a package in one test process. By default Run builds each
	// package's test binary once (go test -c) and runs it Count times,
	// each run a process of its own ([Processes] says why).
	InProcess bool
	// Clock, when not nil, gives plain testing.B benchmarks cycles: go
	// test (or each run of a test binary) runs pinned to Clock.CPU, the
	// core clock read there right before and after ([CoreClock]).
	Clock *CoreClock
	// Env holds settings for the test binary, as KEY=VALUE (the harness
	// package's CYCLEBENCH_MODE and the like, harness.ApplyEnv), added to
	// this process's environment for go test and the test binaries.
	Env []string
	// LayoutSeeds, when not empty, builds each package's test binary once
	// per seed with the linker's -randlayout=SEED and takes each run in a
	// process of the binary of its layout, run i in LayoutSeeds[i mod L]
	// ([GoTest.RunSeeds]); the runs are then at least L ([GoTest.Runs]).
	LayoutSeeds []int64

	// dir, when not "", is the root of the module the packages are in
	// (directories given as ./x, /abs/x, x/...): go test runs there, on
	// dirPackages, their patterns relative to it (set by Check).
	dir         string
	dirPackages []string
}

// ErrGoTest: go test ran and failed (a build failure, a failed
// benchmark), or could not be started. A pattern or flag value go test
// refused, and no benchmark matched, wrap [ErrBadInput] instead.
var ErrGoTest = errors.New("gotest: go test failed")

// GoTestError is the error of [GoTest.Run] when go test fails: it wraps
// ErrBadInput (go test refused the patterns or the flags, or no benchmark
// matched) or ErrGoTest (anything else), and holds everything go test
// printed, stdout and stderr in the order written, for the user to read.
type GoTestError struct {
	Err    error
	Output []byte
}

func (e *GoTestError) Error() string { return e.Err.Error() }
func (e *GoTestError) Unwrap() error { return e.Err }

// IsPackagePattern reports whether arg is taken as a Go package pattern:
// ".", "..", a path starting with "./" or "../", or a pattern containing
// "/..." ("./...", "example.com/x/..."), unless it names an existing file
// (so "./out.txt" stays a file when there is one); or the name of an
// existing directory ("examples/sums", "/home/me/mypkg").
func IsPackagePattern(arg string) bool {
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

// benchtimeForm is what go test accepts as -benchtime: a duration or Nx.
var benchtimeForm = regexp.MustCompile(`^[0-9]+x$`)

// Check returns an error wrapping ErrBadInput for a value go test would
// refuse, before running it, naming the value and what is allowed. It
// makes go test run in the module of the packages when they are
// directories (./mypkg, /abs/dir, examples/sums, ./x/...), each pattern
// rewritten relative to the module's root: from the repository's root,
// ./examples/sums is a module of its own, which go test run there would
// not find. Import-path patterns (example.com/x/...) stay as given, run
// in the current directory; all the directories must be in one module,
// and not mixed with import paths of another.
func (g *GoTest) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", results.ErrBadInput, fmt.Sprintf(format, args...))
	}
	if g.Bench == "" {
		return bad("-bench: empty (want a regexp, such as . for every benchmark)")
	}
	if _, err := regexp.Compile(g.Bench); err != nil {
		return bad("-bench %q: not a regexp: %v", g.Bench, err)
	}
	if g.Count < 1 || g.Count > MaxCount {
		return bad("-count %d: out of range (allowed: 1 to %d)", g.Count, MaxCount)
	}
	if g.Benchtime != "" && !benchtimeForm.MatchString(g.Benchtime) {
		if d, err := time.ParseDuration(g.Benchtime); err != nil || d <= 0 {
			return bad("-benchtime %q: want a duration such as 2s, or a count such as 100x", g.Benchtime)
		}
	}
	for _, p := range g.Packages {
		if !IsPackagePattern(p) {
			return bad("%q: not a package pattern (want ./dir, ../dir, . or a pattern with /...; give packages only, no files or kernels)", p)
		}
	}
	return g.locate(bad)
}

// locate sets g.dir and g.dirPackages (see Check).
func (g *GoTest) locate(bad func(string, ...any) error) error {
	var dir string
	rewritten := make([]string, len(g.Packages))
	for i, p := range g.Packages {
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
			return bad("%s: %v", p, err)
		}
		mod := findModule(abs)
		if mod == "" {
			rewritten[i] = p // no module: the go command says so
			continue
		}
		if dir != "" && dir != mod {
			return bad("%s and %s are in different modules (%s and %s): give the packages of one module at a time", g.Packages[0], p, dir, mod)
		}
		dir = mod
		rel, err := filepath.Rel(mod, abs)
		if err != nil {
			return bad("%s: %v", p, err)
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
	for i, p := range g.Packages {
		if rewritten[i] == p && !isPathPattern(p) && !isDir(strings.TrimSuffix(strings.Split(p, "...")[0], "/")) && findModule(".") != dir {
			return bad("%s is an import path, %s a directory of module %s: give the packages of one module at a time", p, g.Packages[0], dir)
		}
	}
	g.dir, g.dirPackages = dir, rewritten
	return nil
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

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// Dir is the directory go test runs in: the root of the packages' module
// when Check found one, "" for the current directory.
func (g *GoTest) Dir() string { return g.dir }

// Args is the go command's argument list ("test", "-run", ...), with the
// packages as Check rewrote them.
func (g *GoTest) Args() []string {
	a := []string{"test", "-run", "^$", "-bench", g.Bench}
	if g.Count != 1 {
		a = append(a, "-count", strconv.Itoa(g.Count))
	}
	if g.Benchtime != "" {
		a = append(a, "-benchtime", g.Benchtime)
	}
	if g.Benchmem {
		a = append(a, "-benchmem")
	}
	if g.dir != "" {
		return append(a, g.dirPackages...)
	}
	return append(a, g.Packages...)
}

// CommandLine is the go test command as a shell would take it, with a
// "cd DIR && " before it when it runs in another directory; when the
// runs are separate processes ([GoTest.Separate]), the build and the
// test binary's command line.
func (g *GoTest) CommandLine() string {
	var b strings.Builder
	if cwd, err := os.Getwd(); g.dir != "" && (err != nil || cwd != g.dir) {
		dir := g.dir
		if rel, err := filepath.Rel(cwd, g.dir); err == nil && !strings.HasPrefix(rel, "../../") {
			dir = rel
		}
		fmt.Fprintf(&b, "cd %s && ", dir)
	}
	for _, kv := range g.Env {
		b.WriteString(shellLine([]string{kv}) + " ")
	}
	if !g.Separate() {
		b.WriteString(shellLine(append([]string{"go"}, g.Args()...)))
		return b.String()
	}
	fmt.Fprintf(&b, "%s, then in each package's directory, %d times: %s", shellLine(append([]string{"go"}, g.BuildArgs("DIR")...)),
		g.Count, shellLine(append([]string{"DIR/PKG.test"}, g.BinaryArgs()...)))
	return b.String()
}

// shellLine is args as a shell would take them, quoted where needed.
func shellLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(" ")
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[](){}|&;<>^!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(a)
	}
	return b.String()
}

func (g *GoTest) command() string {
	if g.Go == "" {
		return "go"
	}
	return g.Go
}

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

// Run runs go test and reads its output with [Parse]. On success it
// returns the File and what go test wrote on stderr (downloads, build
// notes). When ctx is cancelled, go test gets an interrupt and Run
// returns the results it wrote until then, without its stderr (an error
// wrapping ErrGoTest when it wrote none). When go test fails, the error is a *[GoTestError] holding all it
// printed, and says why: it wraps ErrBadInput when the go command refused
// the patterns or the flags, or no benchmark matched; ErrGoTest for a
// build failure, a failed benchmark, or no go command.
func (g *GoTest) Run(ctx context.Context) (results.File, []byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(g.LayoutSeeds) > 0 {
		return g.runLayouts(ctx)
	}
	if g.Separate() {
		return g.runBinaries(ctx)
	}
	cmd := exec.CommandContext(ctx, g.command(), g.Args()...)
	cmd.Dir = g.dir
	cmd.Env = g.environ()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr, both bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout = io.MultiWriter(&stdout, lockedWriter{&mu, &both})
	cmd.Stderr = io.MultiWriter(&stderr, lockedWriter{&mu, &both})
	br, err := g.Clock.run(cmd)
	br.from, br.to = 1, math.MaxInt
	if ctx.Err() != nil {
		f, perr := results.Parse("go test output", &stdout)
		if perr != nil {
			return results.File{}, nil, fmt.Errorf("%w: interrupted before go test wrote a result", ErrGoTest)
		}
		return f, nil, nil
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return results.File{}, nil, fmt.Errorf("%w: running go test: %w (is the go command in PATH?)", ErrGoTest, err)
	}
	f, perr := results.Parse("go test output", bytes.NewReader(stdout.Bytes()))
	if err == nil && perr == nil {
		applyClock(&f, g.Clock, []bracket{br})
		return f, stderr.Bytes(), nil
	}
	return results.File{}, nil, &GoTestError{Err: g.failure(stdout.String(), stderr.String(), err), Output: both.Bytes()}
}

// environ is the environment of go test and the test binaries: this
// process's with Env added; nil (this process's) without Env.
func (g *GoTest) environ() []string {
	if len(g.Env) == 0 {
		return nil
	}
	return append(os.Environ(), g.Env...)
}

// setupFailed matches go test's line for a package it could not load.
var setupFailed = regexp.MustCompile(`(?m)^FAIL\s+(\S+) \[setup failed\]`)

// failure explains why go test produced no results, from its output and
// exit error (nil when it succeeded without a benchmark line): ErrBadInput
// for patterns or flags it refused and for no benchmark matched,
// ErrGoTest otherwise.
func (g *GoTest) failure(stdout, stderr string, runErr error) error {
	all := stdout + stderr
	pkgs := strings.Join(g.Packages, " ")
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", results.ErrBadInput, fmt.Sprintf(format, args...))
	}
	failed := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrGoTest, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.Contains(all, "testing: invalid regexp"):
		return bad("-bench %q: go test refused the regexp (its message is above)", g.Bench)
	case regexp.MustCompile(`invalid value .* for flag -test\.`).MatchString(all):
		return bad("go test refused a flag value (its message is above)")
	case strings.Contains(stderr, "no packages to test") || strings.Contains(stderr, "matched no packages"):
		return bad("%s: no package to test (the go command's message is above)", pkgs)
	}
	if m := setupFailed.FindAllStringSubmatch(stdout, -1); len(m) > 0 && !strings.Contains(stdout, "[build failed]") {
		given := g.Args()[len(g.Args())-len(g.Packages):]
		allGiven := true
		for _, s := range m {
			allGiven = allGiven && slices.Contains(given, s[1])
		}
		if allGiven {
			return bad("%s: the go command cannot load the package (its message is above)", pkgs)
		}
	}
	switch {
	case runErr == nil:
		return bad("-bench %q matched no benchmark in %s", g.Bench, pkgs)
	case strings.Contains(stdout, "[build failed]"):
		return failed("go test %s: build failed (its messages are above)", pkgs)
	case strings.Contains(stdout, "[setup failed]"):
		return failed("go test %s: setup failed (its messages are above)", pkgs)
	case strings.Contains(stdout, "--- FAIL"):
		return failed("go test %s: a benchmark failed (its output is above)", pkgs)
	}
	return failed("go test %s: %v (its output is above)", pkgs, runErr)
}

// GoVersion is the version of the go command that runs the benchmarks
// (go env GOVERSION where go test runs), "" when it cannot be asked.
func (g *GoTest) GoVersion() string {
	cmd := exec.Command(g.command(), "env", "GOVERSION")
	cmd.Dir = g.dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
