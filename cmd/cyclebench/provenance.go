package main

// Where a run's measurements came from (results.Provenance): the code
// measured, the date, the command line, the tool, the layouts.

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/internal/revision"
	"github.com/cyclebench/cyclebench/results"
)

// toolVersion is this binary's version for a file's provenance: its
// module version and, when the build recorded one, its revision.
func toolVersion() string {
	r := gatherVersion(false)
	v := r.Version
	if r.Revision != "" {
		v += " " + results.ShortRevision(r.Revision)
		if r.Modified {
			v += " (modified)"
		}
	}
	return v
}

// commandLine is this process's command line as a shell would take it.
func commandLine() string {
	args := append([]string{"cyclebench"}, os.Args[1:]...)
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[](){}|&;<>^!#~") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}

// kernelProvenance is the provenance of the bundled kernels measured
// from start: the code is this binary's, so its module and revision are
// those its build recorded.
func kernelProvenance(start time.Time) *results.Provenance {
	r := gatherVersion(false)
	p := &results.Provenance{Module: r.Module, Revision: r.Revision, Dirty: r.Modified, Date: start.UTC().Truncate(time.Second),
		CommandLine: commandLine(), Tool: toolVersion()}
	return p
}

// packageProvenance is the provenance of the benchmarks of the packages
// in dir ("" for the current directory) measured from start, in the
// layouts seeds (nil: the one binary's layout).
func packageProvenance(ctx context.Context, dir string, start time.Time, seeds []int64) *results.Provenance {
	if dir == "" {
		dir = "."
	}
	p := revision.Describe(ctx, dir, start, commandLine(), toolVersion())
	p.LayoutSeeds = seeds
	return &p
}
