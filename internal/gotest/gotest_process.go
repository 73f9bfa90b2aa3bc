package gotest

// go test's runs as separate processes: each package's test binary built
// once (go test -c) and run Count times, each run a process of its own,
// because what moves between processes (the memory layout) is what a
// comparison of two runs' files must see ([Processes]). The outputs are
// joined as go test -count Count would have printed them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

// Separate reports whether [GoTest.Run] takes each run in a process of
// its own: Count ≥ 2 and not InProcess.
func (g *GoTest) Separate() bool { return g.Count >= 2 && !g.InProcess }

// BuildArgs is the go command's argument list that builds the test
// binaries of the packages into directory dir ("test", "-c", "-o",
// "dir/", ...).
func (g *GoTest) BuildArgs(dir string) []string {
	a := []string{"test", "-c", "-o", dir + string(filepath.Separator)}
	return append(a, g.patterns()...)
}

// BinaryArgs is the argument list of one run of a test binary: the
// benchmarks only, once, with the flags go test passes on.
func (g *GoTest) BinaryArgs() []string {
	a := []string{"-test.run", "^$", "-test.bench", g.Bench, "-test.count", "1", "-test.paniconexit0", "-test.timeout", "10m0s"}
	if g.Benchtime != "" {
		a = append(a, "-test.benchtime", g.Benchtime)
	}
	if g.Benchmem {
		a = append(a, "-test.benchmem")
	}
	return a
}

// patterns are the packages as the go command takes them where it runs.
func (g *GoTest) patterns() []string {
	if g.dir != "" {
		return g.dirPackages
	}
	return g.Packages
}

// testPackage is a package with tests, as go list gives it.
type testPackage struct {
	importPath, dir string
}

// execName is the name go test -c gives a package's binary, without
// ".test": the last element of its import path, or the one before a
// major version suffix (example.com/x/v2: x).
func execName(importPath string) string {
	dir, elem := path.Split(importPath)
	if regexp.MustCompile(`^v[2-9][0-9]*$`).MatchString(elem) && dir != "" {
		elem = path.Base(strings.TrimSuffix(dir, "/"))
	}
	return elem
}

// listPackages lists the packages with tests among the patterns.
func (g *GoTest) listPackages(ctx context.Context) ([]testPackage, error) {
	args := append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"}, g.patterns()...)
	cmd := exec.CommandContext(ctx, g.command(), args...)
	cmd.Dir = g.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", shellLine(append([]string{"go"}, args...)), err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []testPackage
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) == 4 && (f[2] != "0" || f[3] != "0") {
			pkgs = append(pkgs, testPackage{f[0], f[1]})
		}
	}
	return pkgs, nil
}

// runBinaries is Run with separate processes. When the packages cannot
// be listed or their test binaries built, it runs go test -count Count
// itself, whose output and error say why as they do without separate
// processes (and, should that succeed, a warning in the File says that
// the runs shared a process).
func (g *GoTest) runBinaries(ctx context.Context) (results.File, []byte, error) {
	tmp, err := os.MkdirTemp("", "cyclebench-gotest-")
	if err != nil {
		return results.File{}, nil, fmt.Errorf("%w: a directory for the test binaries: %w", ErrGoTest, err)
	}
	defer os.RemoveAll(tmp)
	pkgs, err := g.listPackages(ctx)
	var msgs []byte
	if err == nil {
		build := exec.CommandContext(ctx, g.command(), g.BuildArgs(tmp)...)
		build.Dir = g.dir
		msgs, err = build.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%s: %w: %s", shellLine(append([]string{"go"}, g.BuildArgs(tmp)...)), err, bytes.TrimSpace(msgs))
		}
	}
	if ctx.Err() != nil {
		return results.File{}, nil, fmt.Errorf("%w: interrupted before go test wrote a result", ErrGoTest)
	}
	if err != nil {
		one := *g
		one.InProcess = true
		f, stderr, rerr := one.Run(ctx)
		if rerr == nil {
			f.Warnings = append(f.Warnings, fmt.Errorf("%w: the runs shared one process per package (go test -count %d), as the test binaries could not be built apart: %w", ErrGoTest, g.Count, err))
		}
		return f, stderr, rerr
	}
	var stdout, stderr bytes.Buffer
	stderr.Write(msgs)
	var brs []bracket
	for _, p := range pkgs {
		bin := filepath.Join(tmp, execName(p.importPath)+".test")
		if _, err := os.Stat(bin); err != nil {
			continue // no test binary: the package has no tests to run
		}
		start := time.Now()
		outs, runBrs, err := g.runBinary(ctx, bin, p, &stderr)
		joined, ends := joinRunsLines(outs, p.importPath, time.Since(start))
		base := bytes.Count(stdout.Bytes(), []byte("\n"))
		for i := range runBrs {
			runBrs[i].from, runBrs[i].to = base+1, base+ends[i]
			if i > 0 {
				runBrs[i].from = base + ends[i-1] + 1
			}
		}
		brs = append(brs, runBrs...)
		stdout.Write(joined)
		if err != nil || ctx.Err() != nil {
			return g.ended(ctx, stdout.Bytes(), stderr.Bytes(), err, brs)
		}
	}
	return g.ended(ctx, stdout.Bytes(), stderr.Bytes(), nil, brs)
}

// ended is what Run returns after the binaries ran: stdout read with
// Parse, or the failure runErr (an *exec.ExitError of the binary named in
// its message) or no result explains.
func (g *GoTest) ended(ctx context.Context, stdout, stderr []byte, runErr error, brs []bracket) (results.File, []byte, error) {
	f, perr := results.Parse("go test output", bytes.NewReader(stdout))
	if ctx.Err() != nil {
		if perr != nil {
			return results.File{}, nil, fmt.Errorf("%w: interrupted before go test wrote a result", ErrGoTest)
		}
		return f, nil, nil
	}
	if runErr == nil && perr == nil {
		applyClock(&f, g.Clock, brs)
		return f, stderr, nil
	}
	var be *binaryError
	if errors.As(runErr, &be) {
		err := g.failure(string(stdout), string(stderr), be.err)
		return results.File{}, nil, &GoTestError{Err: fmt.Errorf("%w (%s)", err, be.line), Output: append(stdout, stderr...)}
	}
	if runErr != nil {
		return results.File{}, nil, &GoTestError{Err: fmt.Errorf("%w: %w", ErrGoTest, runErr), Output: append(stdout, stderr...)}
	}
	return results.File{}, nil, &GoTestError{Err: g.failure(string(stdout), string(stderr), nil), Output: append(stdout, stderr...)}
}

// binaryError is a test binary that exited non-zero: its command line
// and directory, for the message.
type binaryError struct {
	line string
	err  error
}

func (e *binaryError) Error() string { return e.line + ": " + e.err.Error() }
func (e *binaryError) Unwrap() error { return e.err }

// runBinary runs the test binary bin of package p Count times, in p's
// directory, and returns each run's stdout; their stderr goes to stderr.
// It stops at the first run that fails (a *binaryError) or a cancelled
// ctx (the run gets an interrupt; its output so far is kept).
func (g *GoTest) runBinary(ctx context.Context, bin string, p testPackage, stderr *bytes.Buffer) ([][]byte, []bracket, error) {
	var outs [][]byte
	var brs []bracket
	for i := 0; i < g.Count && ctx.Err() == nil; i++ {
		cmd := exec.CommandContext(ctx, bin, g.BinaryArgs()...)
		cmd.Dir = p.dir
		cmd.Env = g.environ()
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 10 * time.Second
		var out bytes.Buffer
		var mu sync.Mutex
		cmd.Stdout, cmd.Stderr = &out, lockedWriter{&mu, stderr}
		br, err := g.Clock.run(cmd)
		outs, brs = append(outs, out.Bytes()), append(brs, br)
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
		case errors.As(err, &ee):
			return outs, brs, &binaryError{fmt.Sprintf("run %d of %d of %s.test in %s", i+1, g.Count, execName(p.importPath), p.dir), err}
		case err != nil:
			return outs, brs, fmt.Errorf("running the test binary of %s: %w", p.importPath, err)
		}
	}
	return outs, brs, nil
}

// configLine matches the lines a test binary prints before its
// benchmarks (goos:, goarch:, pkg:, cpu:).
var configLine = regexp.MustCompile(`^(goos|goarch|pkg|cpu): `)

// joinRuns joins the outputs of runs of one package's test binary as go
// test -count N prints them: the configuration lines of the first run,
// then every run's benchmark and log lines in order (runs after the first
// without their configuration lines), each run's final PASS left out,
// then one PASS and go test's "ok" line with the package's import path
// and the time elapsed (0: none). A run that failed keeps all it wrote.
func joinRuns(outs [][]byte, importPath string, elapsed time.Duration) []byte {
	b, _ := joinRunsLines(outs, importPath, elapsed)
	return b
}

// joinRunsLines is joinRuns, with the number of lines written up to the
// end of each run's part (one per run of outs), so that a line of the
// joined output can be traced to the run that wrote it.
func joinRunsLines(outs [][]byte, importPath string, elapsed time.Duration) ([]byte, []int) {
	var b bytes.Buffer
	var ends []int
	n := 0
	passed := len(outs) > 0
	for i, out := range outs {
		lines := strings.SplitAfter(string(out), "\n")
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		last := ""
		if len(lines) > 0 {
			last = strings.TrimSpace(lines[len(lines)-1])
		}
		if last == "PASS" {
			lines = lines[:len(lines)-1]
		} else {
			passed = false
		}
		for _, l := range lines {
			if i > 0 && configLine.MatchString(l) {
				continue
			}
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n")
			}
			n++
		}
		ends = append(ends, n)
	}
	if passed {
		fmt.Fprintf(&b, "PASS\nok  \t%s\t%ss\n", importPath, strconv.FormatFloat(elapsed.Seconds(), 'f', 3, 64))
	}
	return b.Bytes(), ends
}
