package gotest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompareBench: only the benchmarks that call harness.ReportCompare
// are selected, in the directory or below it with /...; nothing (go
// test's own -bench) when none is found or a pattern is an import path.
func TestCompareBench(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a_test.go", `package a
import ("testing"; "github.com/cyclebench/cyclebench/harness")
func BenchmarkSum(b *testing.B) { harness.Report(b, harness.DefaultConfig(), harness.Target{}) }
func BenchmarkSum4vsSum1(b *testing.B) { b.Run("n=8", func(b *testing.B) { harness.ReportCompare(b, harness.DefaultConfig(), harness.Target{}, harness.Target{}) }) }
`)
	write("sub/b_test.go", `package b
import ("testing"; h "github.com/cyclebench/cyclebench/harness")
func BenchmarkAB(b *testing.B) { h.ReportCompare(b, h.DefaultConfig(), h.Target{}, h.Target{}) }
`)
	t.Chdir(dir)
	for _, tt := range []struct {
		pkgs []string
		want string
	}{
		{[]string{"."}, "^(BenchmarkSum4vsSum1)$"},
		{[]string{"./..."}, "^(BenchmarkAB|BenchmarkSum4vsSum1)$"},
		{[]string{"./sub"}, "^(BenchmarkAB)$"},
		{[]string{"example.com/x"}, ""},
	} {
		if got := CompareBench(tt.pkgs); got != tt.want {
			t.Errorf("CompareBench(%q) = %q, want %q", tt.pkgs, got, tt.want)
		}
	}
}
