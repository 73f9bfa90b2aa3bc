package gotest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

func TestExecName(t *testing.T) {
	for path, want := range map[string]string{
		"example.com/sums": "sums", "example.com/x/v2": "x", "example.com/x/v2/y": "y", "v3": "v3", "github.com/a/vx": "vx", "example.com/x/v1": "v1",
	} {
		if got := execName(path); got != want {
			t.Errorf("execName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestJoinRuns joins the outputs of separate runs as go test -count N
// prints them, and reads back as N runs of each benchmark.
func TestJoinRuns(t *testing.T) {
	run := func(v string) []byte {
		return []byte("goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: AMD EPYC\nBenchmarkX/n=10-2 \t100\t" + v + " ns/op\n    bench_test.go:9: a log line\nPASS\n")
	}
	got := string(joinRuns([][]byte{run("5.0"), run("6.0")}, "example.com/x", 1500*time.Millisecond))
	want := "goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: AMD EPYC\n" +
		"BenchmarkX/n=10-2 \t100\t5.0 ns/op\n    bench_test.go:9: a log line\n" +
		"BenchmarkX/n=10-2 \t100\t6.0 ns/op\n    bench_test.go:9: a log line\n" +
		"PASS\nok  \texample.com/x\t1.500s\n"
	if got != want {
		t.Errorf("joinRuns =\n%s\nwant\n%s", got, want)
	}
	f, err := results.Parse("joined", strings.NewReader(got))
	if err != nil || len(f.Entries) != 1 || len(f.Entries[0].Runs) != 2 || f.Entries[0].Runs[1].NS != 6 {
		t.Errorf("results.Parse(joined) = %+v, %v; want one benchmark with 2 runs", f.Entries, err)
	}
	failed := string(joinRuns([][]byte{run("5.0"), []byte("goos: linux\n--- FAIL: BenchmarkX\nFAIL\n")}, "example.com/x", 0))
	if strings.Contains(failed, "ok  \t") || !strings.HasSuffix(failed, "--- FAIL: BenchmarkX\nFAIL\n") || strings.Count(failed, "goos:") != 1 {
		t.Errorf("a failed run: %q, want it kept whole, without ok", failed)
	}
	if got := joinRuns(nil, "example.com/x", 0); len(got) != 0 {
		t.Errorf("no runs: %q", got)
	}
}

// TestTextErrorsCycle: a cycle of pointers ends the walk, and the errors
// it reached are text.
func TestTextErrorsCycle(t *testing.T) {
	type node struct {
		Err  error
		Next *node
	}
	n := &node{Err: errors.New("boom")}
	n.Next = n
	v := reflect.ValueOf(n).Elem()
	textErrors(v, 0)
	if te, ok := v.Field(0).Interface().(*TextError); !ok || te.Text != "boom" {
		t.Errorf("error %#v, want a *TextError boom", v.Field(0).Interface())
	}
}
