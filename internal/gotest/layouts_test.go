package gotest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/gotest"
)

func TestRunSeeds(t *testing.T) {
	for _, c := range []struct {
		count int
		seeds []int64
		want  string
	}{
		{3, nil, "[]"},
		{3, []int64{1, 2}, "[1 2 1]"},
		{1, []int64{1, 2, 3}, "[1 2 3]"},
		{4, []int64{5}, "[5 5 5 5]"},
	} {
		g := gotest.GoTest{Count: c.count, LayoutSeeds: c.seeds}
		if got := fmt.Sprint(g.RunSeeds()); got != c.want {
			t.Errorf("Count %d, seeds %v: RunSeeds() = %s, want %s", c.count, c.seeds, got, c.want)
		}
	}
	g := gotest.GoTest{Bench: ".", Count: 1, Packages: []string{"./x"}}
	if got := strings.Join(g.LayoutBuildArgs("D", 7), " "); got != "test -c -ldflags=-randlayout=7 -o D"+string(filepath.Separator)+" ./x" {
		t.Errorf("LayoutBuildArgs = %q", got)
	}
}

// TestRunLayouts builds a tiny module's test binary in 3 layouts and
// takes one run from each.
func TestRunLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command: %v", err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"sum/sum.go":      "package sum\n\nfunc Sum(xs []int) (s int) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n",
		"sum/sum_test.go": "package sum\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkSum(b *testing.B) {\n\txs := make([]int, 10)\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Sum(xs)\n\t}\n}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &gotest.GoTest{Bench: ".", Count: 1, Benchtime: "10x", Packages: []string{filepath.Join(dir, "sum")}, LayoutSeeds: []int64{1, 2, 3}}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	f, _, err := g.Run(context.Background())
	if err != nil {
		if strings.Contains(err.Error(), "exec format error") {
			t.Skipf("the test binaries cannot be started here (%v): user-mode emulation without binfmt_misc", err)
		}
		t.Fatal(err)
	}
	if len(f.Entries) != 1 || len(f.Entries[0].Runs) != 3 {
		t.Fatalf("entries %+v: want Sum with 3 runs, one per layout", f.Entries)
	}
}
