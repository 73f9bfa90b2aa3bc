package main

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/reports"
)

// useBuildInfo makes version read bi (ok false: no build information)
// and sys report go1.99.0 on plan9/mips until the test ends.
func useBuildInfo(t *testing.T, bi *debug.BuildInfo, ok bool) {
	t.Helper()
	oldRead, oldSys := readBuildInfo, sys
	t.Cleanup(func() { readBuildInfo, sys = oldRead, oldSys })
	readBuildInfo = func() (*debug.BuildInfo, bool) { return bi, ok }
	sys.goVersion, sys.goos, sys.goarch = "go1.99.0", "plan9", "mips"
}

var releaseBuild = &debug.BuildInfo{
	GoVersion: "go1.26.8",
	Path:      "github.com/cyclebench/cyclebench/cmd/cyclebench",
	Main:      debug.Module{Path: "github.com/cyclebench/cyclebench", Version: "v1.2.3", Sum: "h1:abc="},
	Deps: []*debug.Module{
		{Path: "golang.org/x/sys", Version: "v0.49.0"},
		{Path: "gonum.org/v1/gonum", Version: "v0.17.0", Replace: &debug.Module{Path: "../gonum"}},
	},
	Settings: []debug.BuildSetting{
		{Key: "-compiler", Value: "gc"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		{Key: "vcs.modified", Value: "true"},
	},
}

func TestVersion(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		args []string
		want string
	}{
		{"release", releaseBuild, true, nil, "" +
			"cyclebench     v1.2.3\n" +
			"module         github.com/cyclebench/cyclebench\n" +
			"sum            h1:abc=\n" +
			"go             go1.26.8\n" +
			"platform       plan9/mips\n" +
			"revision       git 0123456789abcdef0123456789abcdef01234567 (modified)\n" +
			"revision time  2026-01-02T03:04:05Z\n"},
		{"release -deps", releaseBuild, true, []string{"-deps"}, "" +
			"cyclebench          v1.2.3\n" +
			"module              github.com/cyclebench/cyclebench\n" +
			"sum                 h1:abc=\n" +
			"go                  go1.26.8\n" +
			"platform            plan9/mips\n" +
			"revision            git 0123456789abcdef0123456789abcdef01234567 (modified)\n" +
			"revision time       2026-01-02T03:04:05Z\n" +
			"\n" +
			"golang.org/x/sys    v0.49.0\n" +
			"gonum.org/v1/gonum  v0.17.0 => ../gonum\n"},
		{"checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/cyclebench/cyclebench", Version: "(devel)"}}, true, nil, "" +
			"cyclebench  (devel)\n" +
			"module      github.com/cyclebench/cyclebench\n" +
			"go          go1.26.8\n" +
			"platform    plan9/mips\n"},
		{"no build info", nil, false, nil, "" +
			"cyclebench  unknown\n" +
			"module      github.com/cyclebench/cyclebench\n" +
			"go          go1.99.0\n" +
			"platform    plan9/mips\n"},
		{"no build info -deps", nil, false, []string{"-deps"}, "" +
			"cyclebench  unknown\n" +
			"module      github.com/cyclebench/cyclebench\n" +
			"go          go1.99.0\n" +
			"platform    plan9/mips\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useBuildInfo(t, tt.bi, tt.ok)
			out, errOut, err := runCLI(t, append([]string{"version"}, tt.args...)...)
			if err != nil || errOut != "" {
				t.Fatalf("run(version %v) = %v, stderr %q", tt.args, err, errOut)
			}
			if out != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", out, tt.want)
			}
		})
	}
}

func TestVersionJSON(t *testing.T) {
	useBuildInfo(t, releaseBuild, true)
	out, _, err := runCLI(t, "version", "-json", "-deps")
	if err != nil {
		t.Fatal(err)
	}
	var got reports.VersionReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	want := reports.VersionReport{
		Module: "github.com/cyclebench/cyclebench", Version: "v1.2.3", Sum: "h1:abc=",
		GoVersion: "go1.26.8", Platform: "plan9/mips",
		VCS: "git", Revision: "0123456789abcdef0123456789abcdef01234567", RevisionTime: "2026-01-02T03:04:05Z", Modified: true,
		Deps: []reports.ModuleVersion{{Path: "golang.org/x/sys", Version: "v0.49.0"}, {Path: "gonum.org/v1/gonum", Version: "v0.17.0", Replace: "../gonum"}},
	}
	if got.Module != want.Module || got.Version != want.Version || got.Sum != want.Sum || got.GoVersion != want.GoVersion ||
		got.Platform != want.Platform || got.VCS != want.VCS || got.Revision != want.Revision ||
		got.RevisionTime != want.RevisionTime || got.Modified != want.Modified || !slices.Equal(got.Deps, want.Deps) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestVersionUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"version", "extra"}, {"version", "-nosuch"}, {"version", "-json=maybe"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, _, err := runCLI(t, args...)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("run(%q) = %v, want a usage error", args, err)
			}
			if !strings.Contains(err.Error(), "version") {
				t.Errorf("error %q does not name the subcommand", err)
			}
		})
	}
}

// TestVersionBinary builds cyclebench and runs cyclebench version: the
// module path and Go version come from the binary's own build information.
func TestVersionBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: builds the cyclebench binary")
	}
	goBin, err := exec.LookPath("go") // go test puts $GOROOT/bin first in PATH
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	out, err := exec.Command(goBin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	if host := strings.Join(strings.Fields(string(out)), "/"); host != runtime.GOOS+"/"+runtime.GOARCH {
		t.Skipf("this test binary is %s/%s but the go command's host is %s (an emulated run)", runtime.GOOS, runtime.GOARCH, host)
	}
	exe := filepath.Join(t.TempDir(), "cyclebench")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if out, err := exec.Command(goBin, "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err = exec.Command(exe, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("cyclebench version: %v\n%s", err, out)
	}
	t.Logf("cyclebench version:\n%s", out)
	for _, want := range []string{"module      github.com/cyclebench/cyclebench\n", "go          " + runtime.Version() + "\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// helpFlags returns the flags an -h text lists ("  -name PLACEHOLDER"
// lines, each followed by usage lines) with the default a usage ends in,
// "(default value)", or "" when it states none.
func helpFlags(t *testing.T, help string) map[string]string {
	t.Helper()
	flags := map[string]string{}
	var name, usage string
	done := func() {
		if name == "" {
			return
		}
		flags[name] = ""
		if i := strings.LastIndex(usage, "(default "); i >= 0 && strings.HasSuffix(usage, ")") {
			flags[name] = usage[i+len("(default ") : len(usage)-1]
		}
		name, usage = "", ""
	}
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			done()
			name = strings.Fields(line)[0][1:]
		case name != "" && strings.HasPrefix(line, "    \t"):
			usage = strings.TrimSpace(usage + " " + strings.TrimPrefix(line, "    \t"))
		}
	}
	done()
	return flags
}

// definedFlags returns the flag names defined with a string literal in the
// non-test Go files of this package: fs.Bool("name", ...), fs.Var(v,
// "name", ...), choiceFlag(fs, "name", ...) and the like, and "cpu" for
// cpuFlag.
func definedFlags(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// The position of the name among the arguments of each defining call.
	nameArg := map[string]int{
		"Bool": 0, "Int": 0, "Int64": 0, "Uint": 0, "Uint64": 0, "Float64": 0, "String": 0, "Duration": 0,
		"Func": 0, "BoolFunc": 0,
		"BoolVar": 1, "IntVar": 1, "Int64Var": 1, "UintVar": 1, "Uint64Var": 1, "Float64Var": 1,
		"StringVar": 1, "DurationVar": 1, "Var": 1, "TextVar": 1, "choiceFlag": 1,
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch f := call.Fun.(type) {
			case *ast.Ident:
				fn = f.Name
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			}
			if fn == "cpuFlag" {
				names["cpu"] = true
				return true
			}
			i, ok := nameArg[fn]
			if !ok || i >= len(call.Args) {
				return true
			}
			if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					names[s] = true
				}
			}
			return true
		})
	}
	return names
}

// TestHelpListsEveryFlag checks, for every subcommand in the table, that
// each default -h lists is accepted back ("-name=default -h" parses), and
// that every flag defined in this package's source appears in some
// subcommand's -h.
func TestHelpListsEveryFlag(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			help, _, err := runCLI(t, c.name, "-h")
			if err != nil {
				t.Fatalf("run(%s -h) = %v", c.name, err)
			}
			flags := helpFlags(t, help)
			if len(flags) == 0 {
				t.Logf("%s has no flags", c.name)
			}
			for name, def := range flags {
				listed[name] = true
				if def == "" {
					continue
				}
				// -h after the flag stops before the subcommand runs.
				if _, _, err := runCLI(t, c.name, "-"+name+"="+def, "-h"); err != nil {
					t.Errorf("-%s=%s (its listed default) is refused: %v", name, def, err)
				}
			}
			if _, _, err := runCLI(t, c.name, "-no-such-flag", "-h"); err == nil {
				t.Errorf("an undefined flag is accepted: the check above proves nothing")
			}
		})
	}
	defined := definedFlags(t)
	if !defined["json"] || !defined["cpu"] {
		t.Fatalf("the source scan found %v, without -json and -cpu: it no longer sees how flags are defined", defined)
	}
	for name := range defined {
		if !listed[name] {
			t.Errorf("flag -%s is defined in the source but no subcommand's -h lists it", name)
		}
	}
}
