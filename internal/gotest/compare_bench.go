package gotest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// CompareBench is the -bench regexp that selects only the benchmarks of
// the package directories pkgs (./x, ./x/...) whose body calls
// harness.ReportCompare: cyclebench compare ./pkg has no use for the
// others, and running them costs their whole time. It is "" when pkgs
// holds an import path, a directory cannot be read, or no such benchmark
// is found: then go test's own selection stands. Sub-benchmarks are run
// whole (the regexp's first level is the function's name).
func CompareBench(pkgs []string) string {
	var names []string
	for _, p := range pkgs {
		dir, all := strings.CutSuffix(p, "/...")
		if !isPathPattern(dir) && !isDir(dir) || strings.Contains(dir, "...") {
			return ""
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != dir && (!all || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata"):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, "_test.go"):
				return nil
			}
			names = append(names, compareBenchmarks(path)...)
			return nil
		})
		if err != nil {
			return ""
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	for i, n := range slices.Compact(names) {
		names[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(slices.Compact(names), "|") + ")$"
}

// compareBenchmarks lists the Benchmark functions of the Go file at path
// that call ReportCompare (of any package name); none when it does not
// parse.
func compareBenchmarks(path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Benchmark") {
			continue
		}
		calls := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "ReportCompare" {
				calls = true
			}
			return !calls
		})
		if calls {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}
