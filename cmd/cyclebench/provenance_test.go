package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
)

// TestRunPackageFile: run ./pkg -o FILE takes 3 runs, as for kernels,
// and the file says where it came from: module, revision, dirty flag,
// date, command line, tool; with -layouts, each run's layout.
func TestRunPackageFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := revisionRepo(t) // the head has uncommitted changes
	out := filepath.Join(t.TempDir(), "new.json")
	if _, errOut, err := runCLI(t, "run", "-benchtime", "10x", "-layouts", "2", "-o", out, "-q", filepath.Join(dir, "sum")); err != nil {
		skipIfBinariesCannotStart(t, err)
		t.Fatalf("%v\n%s", err, errOut)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 1 || len(f.Entries[0].Runs) != results.FileRuns {
		t.Fatalf("entries %+v: want one benchmark with %d runs", f.Entries, results.FileRuns)
	}
	p := f.Provenance
	if p == nil {
		t.Fatal("the file has no provenance")
	}
	if p.Module != "example.com/m" || len(p.Revision) != 40 || !p.Dirty || p.Date.IsZero() || !strings.Contains(p.CommandLine, "cyclebench ") || p.Tool == "" {
		t.Errorf("provenance %+v: want the module, its commit, dirty, a date, the command line and the tool", *p)
	}
	if got := len(p.LayoutSeeds); got != results.FileRuns || p.LayoutSeeds[0] != 1 || p.LayoutSeeds[1] != 2 || p.LayoutSeeds[2] != 1 {
		t.Errorf("layout seeds %v, want [1 2 1]", p.LayoutSeeds)
	}
}

// skipIfBinariesCannotStart skips a test whose package test binaries
// cannot be started here: under user-mode emulation (qemu-user without
// binfmt_misc) a binary of the emulated architecture cannot be exec'd by
// the emulated process.
func skipIfBinariesCannotStart(t *testing.T, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "exec format error") {
		t.Skipf("the test binaries cannot be started here (%v): user-mode emulation without binfmt_misc", err)
	}
}
