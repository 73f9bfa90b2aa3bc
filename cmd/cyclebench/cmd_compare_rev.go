package main

// compare -base REF [-head REF] PACKAGE...: two revisions of Go
// packages, each side's test binaries built in several code layouts, the
// processes alternated, the verdict over layouts (internal/revision).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/internal/revision"
	"github.com/cyclebench/cyclebench/results"
)

const compareRevisionsDescription = `Compare two revisions of Go packages: the package's benchmarks at -base REF
(checked out in a temporary git worktree; your working tree and index are
not touched) against the working tree (or -head REF). Each side's test
binary is built in -layouts L code layouts (go test -c
-ldflags=-randlayout=N, N from 1 to L, the same layouts on both sides),
because an edit anywhere moves the code's layout, and the layout alone can
move a branchy kernel by 40%. The processes run alternated, A B B A ..., so
both sides share the host's slow stretches; each process is one layout.

Each benchmark's figure is cycles/op (harness.Report), ns/op (plain
testing.B), or B/A for harness.ReportCompare. A layout's figure is the best
of its -count processes. B/A is the shift between the sides' layouts (the
median ratio over every pair of an A and a B layout), tested by the rank
test over layouts, whose false alarms stay at alpha whatever modes the
layouts fall into; when the modes lie far apart, it needs more layouts
(-layouts) to find a change, and its interval says so. The output shows each
side's layouts grouped into modes, the layout sensitivity (the spread
between layouts against the spread between processes of one layout, with
-count 2 or more), the smallest change the comparison would detect, and a
summary. The base's builds are cached by commit (-no-cache to rebuild).
-threshold makes the exit status 1 when a benchmark is significantly slower
by more than it, for CI.`

// revisionFlagSet reports whether args ask for a comparison of
// revisions: a flag only compare -base has (-base, -head, -threshold,
// -no-cache), or -layouts without a package (with one, -layouts is the
// package mode's).
func revisionFlagSet(args []string) bool {
	layouts := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "base", "head", "threshold", "no-cache":
			return true
		case "layouts":
			layouts = true
		}
	}
	return layouts && !packageArgs(args)
}

// revisionSession is compare -base's session with its flags.
type revisionSession struct {
	s                *session
	g                *gotest.GoTest
	base, head       *string
	layouts          *int
	alpha, threshold *float64
	noCache          *bool
}

// newRevisionSession defines compare -base's flags.
func newRevisionSession(stdout, stderr io.Writer) *revisionSession {
	s := newSession("compare", "-base REF [-head REF] [-layouts L] [-count N] [flags] PACKAGE...", compareRevisionsDescription, stdout)
	fs := s.fs
	fs.packages = true
	r := &revisionSession{s: s, g: &gotest.GoTest{}}
	r.base = fs.String("base", "", "the base revision `REF` (A): a commit, branch or tag git rev-parse takes")
	r.head = fs.String("head", "", "the head revision `REF` (B); default: the working tree as it is")
	r.layouts = fs.Int("layouts", revision.DefaultLayouts, fmt.Sprintf("code layouts per side, `L` from 1 to %d (go test -c -ldflags=-randlayout=1 to L)", revision.MaxLayouts))
	fs.StringVar(&r.g.Bench, "bench", ".", "run the benchmarks matching `REGEXP` (go test -bench)")
	fs.IntVar(&r.g.Count, "count", 1, "processes per layout and side, `N` from 1 to 10000 (the best of them is the layout's figure)")
	fs.StringVar(&r.g.Benchtime, "benchtime", "", "go test -benchtime: `D` (such as 2s) or Nx, per process")
	fs.BoolVar(&r.g.Benchmem, "benchmem", false, "go test -benchmem")
	r.alpha = fs.Float64("alpha", 0.05, "significance level `α` of the test (0 < α < 1)")
	r.threshold = new(math.Inf(1))
	fs.Var(thresholdValue{r.threshold}, "threshold", "exit with status 1 when a benchmark is significantly slower by more than `FRACTION` (0.05: 5%; default: none)")
	r.noCache = fs.Bool("no-cache", false, "build every binary anew, neither reading nor writing the cache of base builds")
	s.o = addOutputFlags(fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	fs.example("cyclebench compare -base main ./mypkg", "the working tree against main, 16 layouts a side")
	fs.example("cyclebench compare -base HEAD~1 -head HEAD -threshold 0.05 ./...", "in CI: exit 1 when a benchmark got more than 5% slower")
	return r
}

// thresholdValue is -threshold: a fraction ≥ 0, +Inf (shown as "") for
// none.
type thresholdValue struct{ v *float64 }

func (t thresholdValue) String() string {
	if t.v == nil || math.IsInf(*t.v, 1) {
		return ""
	}
	return strconv.FormatFloat(*t.v, 'g', -1, 64)
}

func (t thresholdValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return fmt.Errorf("%q: want a fraction ≥ 0, such as 0.05", s)
	}
	*t.v = v
	return nil
}

// revisionHelp is the section of compare's -h about two revisions, with
// the flags of compare -base.
func revisionHelp() string {
	r := newRevisionSession(io.Discard, io.Discard)
	var b strings.Builder
	b.WriteString("\nTwo revisions: cyclebench compare -base REF [-head REF] [flags] PACKAGE...\n" +
		"builds the packages' test binaries at REF (in a temporary git worktree) and in the\n" +
		"working tree (or at -head), each in -layouts L code layouts, runs them alternated\n" +
		"and judges each benchmark over the layouts. cyclebench compare -base REF -h tells more.\n" +
		"Flags with -base, besides the go test flags of packages (below; count is the\nprocesses per layout and side):\n")
	defer b.WriteString("\n")
	// The go test flags are the package mode's, below (its count: the
	// processes per layout and side).
	goTest := []string{"bench", "count", "benchtime", "benchmem", "json"}
	r.s.fs.writeFlags(&b, func(name string) bool { return slices.Contains(outputFlagNames, name) || slices.Contains(goTest, name) }, "%s with -base")
	return b.String()
}

func compareRevisions(args []string, stdout, stderr io.Writer) error {
	start := time.Now()
	r0 := newRevisionSession(stdout, stderr)
	s, g, fs := r0.s, r0.g, r0.s.fs
	base, head, layouts, alpha, threshold, noCache := r0.base, r0.head, r0.layouts, r0.alpha, r0.threshold, r0.noCache
	if err := s.open(args, true, func() error {
		if *base == "" {
			return usageErrorf("-base: empty (want a revision, such as main or HEAD~1)")
		}
		if *layouts < 1 || *layouts > revision.MaxLayouts {
			return usageErrorf("-layouts %d: out of range (allowed: 1 to %d)", *layouts, revision.MaxLayouts)
		}
		if a := *alpha; math.IsNaN(a) || a <= 0 || a >= 1 {
			return usageErrorf("-alpha %v: out of range (allowed: 0 < α < 1)", a)
		}
		if len(fs.args) == 0 {
			return usageErrorf("give the packages to compare (./mypkg, ./...)")
		}
		g.Packages = fs.args
		return inputError("", g.Check())
	}); err != nil {
		return err
	}
	defer s.close()
	modDir := g.Dir()
	if modDir == "" {
		modDir, _ = os.Getwd()
	}
	top, err := revision.Toplevel(s.in.ctx, modDir)
	if err != nil {
		return usageErrorf("%s is not in a git working tree: %w", modDir, err)
	}
	modRel, err := filepath.Rel(top, modDir)
	if err != nil {
		return libError(err)
	}
	tc, err := revision.DetectToolchain(s.in.ctx, g.Go, modDir)
	if err != nil {
		return libError(err)
	}
	cache := ""
	if !*noCache {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "cyclebench")
		}
	}
	args2 := g.Args()
	r := revision.Revisions{Toolchain: tc, Repo: top, ModRel: modRel, Patterns: args2[len(args2)-len(g.Packages):], Base: *base, Head: *head,
		Seeds: revision.Seeds(*layouts), Count: g.Count, BinaryArgs: g.BinaryArgs(), CacheDir: cache, Stderr: io.Discard}
	if !s.o.quiet {
		r.Stderr = stderr
	}
	lastWhat := ""
	r.Progress = func(what string, done, total int) {
		if kind, _, _ := strings.Cut(what, " "); kind != lastWhat {
			lastWhat = kind
			s.o.note("%s (%d steps)", what, total)
		}
	}
	o, err := r.Run(s.in.ctx)
	if err != nil {
		if errors.Is(err, results.ErrBadInput) || errors.Is(err, revision.ErrGit) {
			return usageErrorf("%w", err)
		}
		return libError(err)
	}
	h := results.Header{Command: "compare", CPU: sys.detectCPU().Brand, GOOS: tc.GOOS, GOARCH: tc.GOARCH, GoVersion: tc.GoVersion, Warnings: []string{}}
	h.Provenance = packageProvenance(s.in.ctx, modDir, start, r.Seeds)
	h.Provenance.Revision, h.Provenance.Dirty = o.HeadCommit, o.HeadDirty
	if o.Interrupted {
		s.partial(" before every process ran", "")
		h.Partial, h.Warnings = s.h.Partial, append(h.Warnings, s.h.Warnings...)
	}
	rep := revision.Report{Header: h, Base: o.BaseCommit, Head: o.HeadCommit, HeadDirty: o.HeadDirty, Layouts: len(r.Seeds), Seeds: r.Seeds, Count: r.Count,
		Builds: o.Builds, Cached: o.Cached, Took: o.Took.Seconds(), Comparisons: []revision.Comparison{}}
	if !math.IsInf(*threshold, 1) {
		rep.Threshold = *threshold
	}
	slower, err := rep.Judge(o.Benchmarks, revision.Options{Alpha: *alpha}, *threshold)
	if err != nil {
		return libError(err)
	}
	if err := s.o.emit(func(w io.Writer) error { return writeRevisionReport(w, s.o.format, rep) }); err != nil {
		return err
	}
	s.o.warnAll(rep.Warnings)
	failed := ""
	if len(slower) > 0 {
		failed = fmt.Sprintf("significantly slower by more than the threshold %s: %s", pct(*threshold, 3), strings.Join(slower, ", "))
	}
	return s.o.status(s.in, failed)
}

// writeRevisionReport writes rep in format.
func writeRevisionReport(w io.Writer, format string, rep revision.Report) error {
	switch format {
	case formatJSON:
		return writeJSON(w, rep)
	case formatCSV:
		return rep.Table().WriteCSV(w)
	}
	return rep.Doc(format == formatMD).Render(w)
}
