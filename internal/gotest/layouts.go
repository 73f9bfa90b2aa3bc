package gotest

// Runs in code layouts: each run's process from a test binary of its
// own layout (go test -c -ldflags=-randlayout=SEED), so that the spread
// between runs includes what the layout moves (a branchy kernel by 40%
// between layouts, issue 33), which the processes of one binary, sharing
// its layout, cannot show.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

// Runs is the number of runs of each package: Count, or the number of
// layouts when more, so that every layout has a run.
func (g *GoTest) Runs() int { return max(g.Count, len(g.LayoutSeeds)) }

// RunSeeds is the layout seed of each run of a package, in run order: run
// i is built with LayoutSeeds[i mod L]. Nil without layouts.
func (g *GoTest) RunSeeds() []int64 {
	if len(g.LayoutSeeds) == 0 {
		return nil
	}
	s := make([]int64, g.Runs())
	for i := range s {
		s[i] = g.LayoutSeeds[i%len(g.LayoutSeeds)]
	}
	return s
}

// LayoutBuildArgs is BuildArgs with the linker's -randlayout=seed (0:
// the default layout, no flag).
func (g *GoTest) LayoutBuildArgs(dir string, seed int64) []string {
	a := g.BuildArgs(dir)
	if seed == 0 {
		return a
	}
	return append([]string{a[0], a[1], "-ldflags=-randlayout=" + strconv.FormatInt(seed, 10)}, a[2:]...)
}

// runLayouts is Run with LayoutSeeds: the test binaries built once per
// layout, each run a process of the binary of its layout ([GoTest.RunSeeds]).
func (g *GoTest) runLayouts(ctx context.Context) (results.File, []byte, error) {
	tmp, err := os.MkdirTemp("", "cyclebench-layouts-")
	if err != nil {
		return results.File{}, nil, fmt.Errorf("%w: a directory for the test binaries: %w", ErrGoTest, err)
	}
	defer os.RemoveAll(tmp)
	pkgs, err := g.listPackages(ctx)
	if err != nil {
		return results.File{}, nil, &GoTestError{Err: fmt.Errorf("%w: %w", ErrGoTest, err), Output: []byte(err.Error() + "\n")}
	}
	var stdout, stderr bytes.Buffer
	for _, seed := range g.LayoutSeeds {
		dir := filepath.Join(tmp, "seed-"+strconv.FormatInt(seed, 10))
		build := exec.CommandContext(ctx, g.command(), g.LayoutBuildArgs(dir, seed)...)
		build.Dir = g.dir
		msgs, err := build.CombinedOutput()
		if ctx.Err() != nil {
			return results.File{}, nil, fmt.Errorf("%w: interrupted before go test wrote a result", ErrGoTest)
		}
		if err != nil {
			line := shellLine(append([]string{"go"}, g.LayoutBuildArgs(dir, seed)...))
			return results.File{}, nil, &GoTestError{Err: fmt.Errorf("%w: %s: %w", ErrGoTest, line, err), Output: msgs}
		}
		stderr.Write(msgs)
	}
	one := *g
	one.Count = 1
	var brs []bracket
	for _, p := range pkgs {
		start := time.Now()
		var outs [][]byte
		for _, seed := range g.RunSeeds() {
			bin := filepath.Join(tmp, "seed-"+strconv.FormatInt(seed, 10), execName(p.importPath)+".test")
			if _, err := os.Stat(bin); err != nil {
				break // no test binary: the package has no tests to run
			}
			out, br, err := one.runBinary(ctx, bin, p, &stderr)
			outs = append(outs, out...)
			brs = append(brs, br...)
			if err != nil || ctx.Err() != nil {
				stdout.Write(joinRuns(outs, p.importPath, time.Since(start)))
				return g.ended(ctx, stdout.Bytes(), stderr.Bytes(), err, brs)
			}
		}
		if len(outs) > 0 {
			stdout.Write(joinRuns(outs, p.importPath, time.Since(start)))
		}
	}
	return g.ended(ctx, stdout.Bytes(), stderr.Bytes(), nil, brs)
}
