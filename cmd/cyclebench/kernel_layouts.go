package main

// run -layouts L for the bundled kernels: from a source checkout of
// cyclebench, the command itself is rebuilt in L code layouts (go build
// -ldflags=-randlayout=N) and each run is a process of the build of its
// layout, so that the spread between runs includes the layout (the
// bundled BubbleSort: 1.72M or 2.45M cycles by layout, issue 33).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/internal/revision"
	"github.com/cyclebench/cyclebench/results"
)

// cyclebenchModule is the module path a source checkout's go.mod names.
const cyclebenchModule = "github.com/cyclebench/cyclebench"

// sourceCheckout is the root of the cyclebench checkout the current
// directory is in, or an error saying that rebuilding needs one.
func sourceCheckout() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if revision.ModulePath(dir) != cyclebenchModule {
			break
		}
		if st, serr := os.Stat(filepath.Join(dir, "cmd", "cyclebench")); serr == nil && st.IsDir() {
			if _, gerr := os.Stat(filepath.Join(dir, "go.mod")); gerr == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", usageErrorf("-layouts: rebuilding the bundled kernels in several code layouts needs cyclebench's source: run this command from a checkout of %s (the go command builds it there); for your own benchmarks, cyclebench run -layouts L ./PKG", cyclebenchModule)
}

// runKernelLayouts measures count runs (at least one per layout), run i
// in a process of cyclebench rebuilt with -randlayout=seeds[i mod L], and
// merges them in order into s.h and the results, as runProcesses does.
// It returns the seed of each run.
func (s *session) runKernelLayouts(count int, seeds []int64) ([]results.Measurement, []int64, error) {
	src, err := sourceCheckout()
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "cyclebench-layouts-")
	if err != nil {
		return nil, nil, fmt.Errorf("a directory for the builds: %w", err)
	}
	defer os.RemoveAll(tmp)
	bins := make([]string, len(seeds))
	for i, seed := range seeds {
		bins[i] = filepath.Join(tmp, "cyclebench-"+strconv.FormatInt(seed, 10))
		args := []string{"build", "-ldflags=-randlayout=" + strconv.FormatInt(seed, 10), "-o", bins[i], "./cmd/cyclebench"}
		s.o.note("go %s (layout %d of %d)", strings.Join(args, " "), i+1, len(seeds))
		cmd := exec.CommandContext(s.in.ctx, "go", args...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			if s.in.exitCode() != 0 {
				return nil, nil, &exitError{code: s.in.exitCode()}
			}
			return nil, nil, fmt.Errorf("building cyclebench in layout %d in %s: %w: %s", seed, src, err, strings.TrimSpace(string(out)))
		}
	}
	runs := max(count, len(seeds))
	args := slices.DeleteFunc(childArgs(s.fs.Name(), s.fs.FlagSet), func(a string) bool { return strings.HasPrefix(a, "-layouts=") })
	var done []gotest.ProcessRun
	var runSeeds []int64
	for i := 0; i < runs && s.in.ctx.Err() == nil; i++ {
		p := gotest.Processes{Path: bins[i%len(bins)], Args: args, Count: 1, Stderr: s.o.stderr,
			Env: func(int) []string { return []string{fmt.Sprintf("%s=%d/%d", childEnv, i, runs)} }}
		prs, err := p.Run(s.in.ctx)
		done = append(done, prs...)
		for range prs {
			runSeeds = append(runSeeds, seeds[i%len(seeds)])
		}
		var pe *gotest.ProcessError
		if errors.As(err, &pe) && s.in.exitCode() == 0 {
			return nil, nil, &exitError{code: max(pe.ExitCode, 1)}
		} else if err != nil && s.in.exitCode() == 0 {
			return nil, nil, err
		}
	}
	if len(done) == 0 {
		return nil, nil, &exitError{code: max(s.in.exitCode(), 1)}
	}
	var rs []results.Measurement
	s.h, rs = gotest.MergeProcessRuns(done)
	s.h.Partial = ""
	s.h.Warnings = slices.DeleteFunc(s.h.Warnings, func(w string) bool { return strings.HasPrefix(w, "interrupted by a signal") })
	return rs, runSeeds, nil
}
