package gotest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/results"
)

func TestIsPackagePattern(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg  string
		want bool
	}{
		{".", true},
		{"..", true},
		{"./mypkg", true},
		{"../other/pkg", true},
		{"./...", true},
		{"example.com/x/...", true},
		{dir, true},                         // an existing directory
		{filepath.Join(dir, "nope"), false}, // an absolute path: a directory only when there is one
		{file, false},                       // an existing file
		{"Sum", false},
		{"out.txt", false},
		{"-bench", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			if got := gotest.IsPackagePattern(tt.arg); got != tt.want {
				t.Errorf("IsPackagePattern(%q) = %v, want %v", tt.arg, got, tt.want)
			}
		})
	}
}

func TestGoTestArgs(t *testing.T) {
	tests := []struct {
		g    gotest.GoTest
		want string
	}{
		{gotest.GoTest{Bench: ".", Count: 1, Packages: []string{"./p"}}, "go test -run '^$' -bench . ./p"},
		{gotest.GoTest{Bench: "Sum", Count: 6, InProcess: true, Packages: []string{"./p", "./q/..."}}, "go test -run '^$' -bench Sum -count 6 ./p ./q/..."},
		{gotest.GoTest{Bench: "Sum", Count: 6, Packages: []string{"./p", "./q/..."}},
			"go test -c -o DIR/ ./p ./q/..., then in each package's directory, 6 times: DIR/PKG.test -test.run '^$' -test.bench Sum -test.count 1 -test.paniconexit0 -test.timeout 10m0s"},
		{gotest.GoTest{Bench: "Sum1/n=(400|800)$", Count: 1, Benchtime: "100x", Benchmem: true, Packages: []string{"."}},
			"go test -run '^$' -bench 'Sum1/n=(400|800)$' -benchtime 100x -benchmem ."},
		{gotest.GoTest{Bench: "it's", Count: 2, InProcess: true, Benchtime: "2s", Packages: []string{"./p"}}, `go test -run '^$' -bench 'it'\''s' -count 2 -benchtime 2s ./p`},
		{gotest.GoTest{Bench: "it's", Count: 2, Benchtime: "2s", Benchmem: true, Packages: []string{"./p"}},
			`go test -c -o DIR/ ./p, then in each package's directory, 2 times: DIR/PKG.test -test.run '^$' -test.bench 'it'\''s' -test.count 1 -test.paniconexit0 -test.timeout 10m0s -test.benchtime 2s -test.benchmem`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.g.CommandLine(); got != tt.want {
				t.Errorf("commandLine() = %q, want %q", got, tt.want)
			}
			args := tt.g.Args()
			if args[0] != "test" || !slices.Equal(args[len(args)-len(tt.g.Packages):], tt.g.Packages) {
				t.Errorf("args() = %q: want test first and the packages last", args)
			}
		})
	}
}

func TestGoTestCheck(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		g    gotest.GoTest
		want string // "" for no error
	}{
		{"ok", gotest.GoTest{Bench: ".", Count: 1, Packages: []string{dir}}, ""},
		{"benchtime duration", gotest.GoTest{Bench: ".", Count: 6, Benchtime: "2s", Packages: []string{dir}}, ""},
		{"benchtime count", gotest.GoTest{Bench: ".", Count: 6, Benchtime: "100x", Packages: []string{dir}}, ""},
		{"empty bench", gotest.GoTest{Bench: "", Count: 1, Packages: []string{dir}}, "-bench: empty"},
		{"bad regexp", gotest.GoTest{Bench: "Sum(", Count: 1, Packages: []string{dir}}, `-bench "Sum(": not a regexp`},
		{"count 0", gotest.GoTest{Bench: ".", Count: 0, Packages: []string{dir}}, "-count 0: out of range"},
		{"count huge", gotest.GoTest{Bench: ".", Count: 10001, Packages: []string{dir}}, "-count 10001"},
		{"benchtime no unit", gotest.GoTest{Bench: ".", Count: 1, Benchtime: "10", Packages: []string{dir}}, `-benchtime "10"`},
		{"benchtime zero", gotest.GoTest{Bench: ".", Count: 1, Benchtime: "0s", Packages: []string{dir}}, `-benchtime "0s"`},
		{"benchtime word", gotest.GoTest{Bench: ".", Count: 1, Benchtime: "abc", Packages: []string{dir}}, "such as 2s"},
		{"not a package", gotest.GoTest{Bench: ".", Count: 1, Packages: []string{dir, "Sum"}}, `"Sum": not a package pattern`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Check()
			if tt.want == "" {
				if err != nil {
					t.Errorf("Check() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, results.ErrBadInput) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check() = %v, want an error wrapping ErrBadInput saying %q", err, tt.want)
			}
		})
	}
}

// TestLocate checks that directories of another module run go test in
// that module, with the patterns rewritten relative to its root.
func TestLocate(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/pkg/sub", "b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(root, m, "go.mod"), []byte("module example.com/"+m+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := filepath.Join(root, "a")
	tests := []struct {
		packages []string
		dir      string
		want     []string
		err      string
	}{
		{[]string{filepath.Join(a, "pkg")}, a, []string{"./pkg"}, ""},
		{[]string{a}, a, []string{"."}, ""},
		{[]string{a + "/..."}, a, []string{"./..."}, ""},
		{[]string{filepath.Join(a, "pkg") + "/...", filepath.Join(a, "pkg", "sub")}, a, []string{"./pkg/...", "./pkg/sub"}, ""},
		{[]string{filepath.Join(a, "pkg"), filepath.Join(root, "b")}, "", nil, "different modules"},
		{[]string{"example.com/x/..."}, "", nil, ""}, // an import path: left to the go command, here
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.packages, " "), func(t *testing.T) {
			g := gotest.GoTest{Bench: ".", Count: 1, Packages: tt.packages}
			err := g.Check()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Check() = %v, want an error saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check() = %v", err)
			}
			args := g.Args()
			if g.Dir() != tt.dir || (tt.dir != "" && !slices.Equal(args[len(args)-len(tt.want):], tt.want)) {
				t.Errorf("Check() made dir %q, args %q; want %q and %q last", g.Dir(), args, tt.dir, tt.want)
			}
		})
	}
}

// fakeGo writes a shell script that stands for the go command: it prints
// stdout and stderr and exits with code; "go env GOVERSION" prints
// go1.99.
func fakeGo(t *testing.T, stdout, stderr string, code int) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake go command is a shell script")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = env ]; then echo go1.99; exit 0; fi\ncat %q\ncat %q >&2\nexit %d\n",
		filepath.Join(dir, "stdout"), filepath.Join(dir, "stderr"), code)
	p := filepath.Join(dir, "go")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoTestRun runs a fake go command: its results are read, its stderr
// returned, and a failure is a *GoTestError with all it printed, wrapping
// ErrBadInput or ErrGoTest as it should.
func TestGoTestRun(t *testing.T) {
	tests := []struct {
		name           string
		stdout, stderr string
		code           int
		sentinel       error // nil: success
		says           string
	}{
		{"results", "pkg: example.com/x\nBenchmarkX/n=10-2 \t100\t5.0 ns/op\nPASS\n", "go: downloading example.com/y\n", 0, nil, ""},
		{"no benchmark matched", "PASS\nok  \texample.com/x\t0.005s\n", "", 0, results.ErrBadInput, `-bench "." matched no benchmark in ./x`},
		{"build failure", "FAIL\texample.com/x [build failed]\nFAIL\n", "# example.com/x\n./bad.go:2:9: syntax error\n", 1, gotest.ErrGoTest, "build failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &gotest.GoTest{Bench: ".", Count: 1, Packages: []string{"./x"}, Go: fakeGo(t, tt.stdout, tt.stderr, tt.code)}
			f, msgs, err := g.Run(context.Background())
			if tt.sentinel == nil {
				if err != nil || len(f.Entries) != 1 || f.Entries[0].Pkg != "example.com/x" || string(msgs) != tt.stderr {
					t.Errorf("Run = %+v, %q, %v: want one entry and the stderr", f, msgs, err)
				}
				if v := g.GoVersion(); v != "go1.99" {
					t.Errorf("GoVersion() = %q", v)
				}
				return
			}
			var ge *gotest.GoTestError
			if !errors.As(err, &ge) || !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Run: %v, want a *GoTestError wrapping %v saying %q", err, tt.sentinel, tt.says)
			}
			if !strings.Contains(string(ge.Output), tt.stdout) || !strings.Contains(string(ge.Output), tt.stderr) {
				t.Errorf("Output %q lacks what go test printed", ge.Output)
			}
		})
	}
	g := &gotest.GoTest{Bench: ".", Count: 1, Packages: []string{"./x"}, Go: filepath.Join(t.TempDir(), "no-go")}
	if _, _, err := g.Run(context.Background()); !errors.Is(err, gotest.ErrGoTest) || !strings.Contains(err.Error(), "is the go command in PATH?") {
		t.Errorf("Run without a go command: %v", err)
	}
}
