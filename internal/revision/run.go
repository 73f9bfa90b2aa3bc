package revision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

// Revisions is a comparison of two revisions of Go packages over code
// layouts: each side's test binaries built in every layout of Seeds, run
// Count times per layout in the order of [Schedule]. Fill it and call
// [Revisions.Run].
type Revisions struct {
	// Toolchain builds the test binaries.
	Toolchain Toolchain
	// Repo is a directory of the user's git working tree; ModRel the
	// module's root relative to the working tree's top, and Patterns the
	// packages as the go command takes them there (./x, ./...).
	Repo     string
	ModRel   string
	Patterns []string
	// Base is the revision of side A (a ref git rev-parse takes); Head
	// that of side B, "" for the working tree as it is.
	Base, Head string
	// Seeds are the layouts (-randlayout seeds; see [Seeds]).
	Seeds []int64
	// Count is the number of processes per layout and side, at least 1.
	Count int
	// BinaryArgs are the test binary's arguments for one run
	// (gotest.GoTest.BinaryArgs).
	BinaryArgs []string
	// CacheDir, when not "", keeps the builds of commits
	// ([CachePath]): the base's always, the head's when Head is given.
	CacheDir string
	// Stderr receives the test binaries' stderr; nil discards it.
	Stderr io.Writer
	// Progress, when not nil, is told of each step: what, and how many of
	// total are done.
	Progress func(what string, done, total int)
}

// Benchmark is one benchmark's figures over the layouts: Figures[side]
// [layout] holds the figure of each process, in Unit.
type Benchmark struct {
	Name    string
	Unit    string
	Figures [2][][]float64
}

// Outcome is what [Revisions.Run] measured.
type Outcome struct {
	// BaseCommit and HeadCommit are the commits compared; HeadDirty says
	// the head is the working tree with changes the commit does not hold.
	BaseCommit, HeadCommit string
	HeadDirty              bool
	// Module is the module path measured.
	Module string
	// Seeds are the layouts, Count the processes per layout and side.
	Seeds []int64
	Count int
	// Benchmarks are in the order first measured.
	Benchmarks []Benchmark
	// Builds is the number of test binaries built, Cached of them taken
	// from the cache.
	Builds, Cached int
	// Interrupted is set when ctx was cancelled before every process ran;
	// the figures hold what ran.
	Interrupted bool
	// Took is the time from the first build to the last process.
	Took time.Duration
}

type testPkg struct{ importPath, rel string } // rel: the package's directory relative to the module root

// Run builds, runs and collects. The base (and a given head) are checked
// out in temporary worktrees, removed before Run returns, whatever
// happens. After ctx is cancelled it returns what ran, Interrupted set.
func (r *Revisions) Run(ctx context.Context) (Outcome, error) {
	if r.Count < 1 || len(r.Seeds) < 1 || len(r.Seeds) > MaxLayouts {
		return Outcome{}, fmt.Errorf("%w: %d layouts, %d processes per layout (allowed: 1 to %d layouts, at least 1 process)", results.ErrBadInput, len(r.Seeds), r.Count, MaxLayouts)
	}
	start := time.Now()
	top, err := Toplevel(ctx, r.Repo)
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Seeds: r.Seeds, Count: r.Count}
	if o.BaseCommit, err = Commit(ctx, top, r.Base); err != nil {
		return o, fmt.Errorf("%w: -base %q: not a commit of %s", ErrGit, r.Base, top)
	}
	dirs := [2]string{"", top}
	if r.Head != "" {
		if o.HeadCommit, err = Commit(ctx, top, r.Head); err != nil {
			return o, fmt.Errorf("%w: -head %q: not a commit of %s", ErrGit, r.Head, top)
		}
	} else {
		o.HeadCommit, _ = Commit(ctx, top, "HEAD")
		o.HeadDirty, _ = Dirty(ctx, top)
	}
	wa, err := AddWorktree(ctx, top, o.BaseCommit)
	if err != nil {
		return o, err
	}
	defer wa.Remove()
	dirs[A] = wa.Dir
	if r.Head != "" {
		wb, err := AddWorktree(ctx, top, o.HeadCommit)
		if err != nil {
			return o, err
		}
		defer wb.Remove()
		dirs[B] = wb.Dir
	}
	mod := [2]string{filepath.Join(dirs[A], r.ModRel), filepath.Join(dirs[B], r.ModRel)}
	o.Module = ModulePath(mod[B])
	pkgs, err := r.listPackages(ctx, mod[B])
	if err != nil {
		return o, err
	}
	if len(pkgs) == 0 {
		return o, fmt.Errorf("%w: %s: no package with tests at the head", results.ErrBadInput, strings.Join(r.Patterns, " "))
	}
	bins, err := os.MkdirTemp("", "cyclebench-bins-")
	if err != nil {
		return o, fmt.Errorf("%w: a directory for the test binaries: %w", ErrBuild, err)
	}
	defer os.RemoveAll(bins)
	// Every binary first: a build between processes would load the CPU
	// that one side's processes share with the other's.
	binary := func(side Side, l int, p testPkg) string {
		return filepath.Join(bins, fmt.Sprintf("%v-%d-%d.test", side, l, indexOf(pkgs, p)))
	}
	total := 2 * len(r.Seeds) * len(pkgs)
	for _, side := range []Side{A, B} {
		commit := o.BaseCommit
		if side == B {
			commit = ""
			if r.Head != "" {
				commit = o.HeadCommit
			}
		}
		for l, seed := range r.Seeds {
			for _, p := range pkgs {
				if ctx.Err() != nil {
					o.Interrupted = true
					return o, nil
				}
				r.progress(fmt.Sprintf("build %v (%s) in layout %d", side, short(commit, side, o), seed), o.Builds, total)
				cache := ""
				if r.CacheDir != "" && commit != "" {
					cache = CachePath(r.CacheDir, commit, seed, r.Toolchain, p.importPath)
				}
				cached, err := build(ctx, r.Toolchain, mod[side], "./"+p.rel, binary(side, l, p), cache, seed)
				if ctx.Err() != nil {
					o.Interrupted = true
					return o, nil
				}
				if err != nil {
					return o, fmt.Errorf("side %v (%s): %w", side, short(commit, side, o), err)
				}
				o.Builds++
				if cached {
					o.Cached++
				}
			}
		}
	}
	slots, err := Schedule(len(r.Seeds), r.Count)
	if err != nil {
		return o, err
	}
	headCommit := "" // the working tree
	if r.Head != "" {
		headCommit = o.HeadCommit
	}
	index := map[string]int{}
	for i, s := range slots {
		for _, p := range pkgs {
			r.progress(fmt.Sprintf("run %v in layout %d (%d of %d)", s.Side, r.Seeds[s.Layout], i+1, len(slots)), i, len(slots))
			out, err := r.runBinary(ctx, binary(s.Side, s.Layout, p), filepath.Join(mod[s.Side], p.rel))
			if ctx.Err() != nil {
				o.Interrupted = true
				o.Took = time.Since(start)
				return o, nil
			}
			if err != nil {
				return o, fmt.Errorf("side %v (%s), layout %d, %s: %w", s.Side, short(headCommit, s.Side, o), r.Seeds[s.Layout], p.importPath, err)
			}
			f, err := results.Parse(fmt.Sprintf("the output of %s", p.importPath), bytes.NewReader(out))
			if err != nil {
				return o, fmt.Errorf("side %v, layout %d, %s: %w", s.Side, r.Seeds[s.Layout], p.importPath, err)
			}
			o.collect(f, s, len(r.Seeds), len(pkgs) > 1, index)
		}
	}
	o.Took = time.Since(start)
	return o, nil
}

// short names a side's revision in a message.
func short(commit string, side Side, o Outcome) string {
	if side == A {
		commit = o.BaseCommit
	}
	switch {
	case commit == "" && o.HeadDirty:
		return "the working tree, with changes"
	case commit == "":
		return "the working tree"
	}
	return results.ShortRevision(commit)
}

func indexOf(pkgs []testPkg, p testPkg) int {
	for i, q := range pkgs {
		if q == p {
			return i
		}
	}
	return -1
}

func (r *Revisions) progress(what string, done, total int) {
	if r.Progress != nil {
		r.Progress(what, done, total)
	}
}

// collect adds the figures of one process's file f to o: cycles per op
// where the run has them (harness.Report), ns per op otherwise, and for
// comparisons (harness.ReportCompare) their ratio B/A. With several
// packages, names are prefixed by their package's import path.
func (o *Outcome) collect(f results.File, s Slot, layouts int, withPkg bool, index map[string]int) {
	for _, e := range f.Entries {
		name := e.Name
		if withPkg && e.Pkg != "" {
			name = e.Pkg + "." + name
		}
		if e.Mode == results.Latency {
			name += "/mode=latency"
		}
		for _, run := range e.Runs {
			unit, v := "ns/op", run.NS
			switch {
			case e.IsPaired():
				unit, v = "B/A", results.PairedOf(e, run).Ratio
			case run.NoCycles == results.HasCycles:
				unit, v = "cycles/op", run.Cycles
			}
			if !(v > 0) {
				continue
			}
			key := name + "\x00" + unit
			i, ok := index[key]
			if !ok {
				i = len(o.Benchmarks)
				index[key] = i
				b := Benchmark{Name: name, Unit: unit}
				for side := range b.Figures {
					b.Figures[side] = make([][]float64, layouts)
				}
				o.Benchmarks = append(o.Benchmarks, b)
			}
			fs := &o.Benchmarks[i].Figures[s.Side]
			(*fs)[s.Layout] = append((*fs)[s.Layout], v)
		}
	}
}

// listPackages lists the packages of r.Patterns that have tests, in
// module directory dir.
func (r *Revisions) listPackages(ctx context.Context, dir string) ([]testPkg, error) {
	args := append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"}, r.Patterns...)
	cmd := exec.CommandContext(ctx, r.Toolchain.command(), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: go %s in %s: %w: %s", results.ErrBadInput, strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []testPkg
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		if len(f) != 4 || f[2] == "0" && f[3] == "0" {
			continue
		}
		rel, err := filepath.Rel(dir, f[1])
		if err != nil {
			return nil, fmt.Errorf("%w: %s is not in module %s", results.ErrBadInput, f[1], dir)
		}
		pkgs = append(pkgs, testPkg{f[0], filepath.ToSlash(rel)})
	}
	return pkgs, nil
}

// runBinary runs one test binary in dir and returns its stdout; its
// stderr goes to r.Stderr. A cancelled ctx interrupts it.
func (r *Revisions) runBinary(ctx context.Context, bin, dir string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, r.BinaryArgs...)
	cmd.Dir = dir
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, r.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.Bytes(), fmt.Errorf("%w: %s exited with status %d: %s", ErrBuild, filepath.Base(bin), ee.ExitCode(), lastLines(out.String(), 5))
	}
	return out.Bytes(), err
}

// lastLines is the last n lines of s, for a message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
