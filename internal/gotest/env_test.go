package gotest_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/gotest"
)

// GoTest.Env reaches go test's environment (and so the test binary's),
// and the command line shows it.
func TestGoTestEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake go command is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = env ]; then echo go1.99; exit 0; fi\n" +
		"echo 'BenchmarkX-2   10   5.0 ns/op'\necho \"seen: $CYCLEBENCH_MODE $CYCLEBENCH_K\" >&2\n"
	goCmd := filepath.Join(dir, "go")
	if err := os.WriteFile(goCmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := &gotest.GoTest{Bench: ".", Count: 1, Packages: []string{"./x"}, Go: goCmd, Env: []string{"CYCLEBENCH_MODE=latency", "CYCLEBENCH_K=5"}}
	if got, want := g.CommandLine(), "CYCLEBENCH_MODE=latency CYCLEBENCH_K=5 go test -run '^$' -bench . ./x"; got != want {
		t.Errorf("CommandLine() = %q, want %q", got, want)
	}
	_, stderr, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stderr), "seen: latency 5") {
		t.Errorf("go test saw %q, want CYCLEBENCH_MODE=latency and CYCLEBENCH_K=5", stderr)
	}
}
