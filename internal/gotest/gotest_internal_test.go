package gotest

import (
	"errors"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
)

// TestGoTestFailure classifies go test's failures by what it printed, as
// go 1.26 prints them.
func TestGoTestFailure(t *testing.T) {
	g := &GoTest{Bench: "Sum", Count: 1, Packages: []string{"./nope"}}
	failed := errors.New("exit status 1")
	tests := []struct {
		name           string
		stdout, stderr string
		err            error
		usage          bool // bad input
		says           string
	}{
		{"no benchmark matched", "PASS\nok  \texample.com/gt\t0.005s\n", "", nil, true, `-bench "Sum" matched no benchmark in ./nope`},
		{"no test files", "?   \texample.com/gt/sub\t[no test files]\n", "", nil, true, "matched no benchmark"},
		{"missing directory", "FAIL\t./nope [setup failed]\nFAIL\n", "# ./nope\nstat /tmp/gt/nope: directory not found\n", failed, true, "cannot load the package"},
		{"no packages", "", "go: warning: \"example.com/zzz/...\" matched no packages\nno packages to test\n", failed, true, "no package to test"},
		{"bad regexp", "testing: invalid regexp for element 0 of -test.bench (\"(\"): error parsing regexp\nexit status 1\nFAIL\texample.com/gt\t0.003s\nFAIL\n", "", failed, true, "refused the regexp"},
		{"bad benchtime", "invalid value \"abc\" for flag -test.benchtime: invalid duration\nexit status 2\nFAIL\texample.com/gt\t0.002s\n", "", failed, true, "refused a flag value"},
		{"build failure", "FAIL\texample.com/gt [build failed]\nFAIL\n", "# example.com/gt [example.com/gt.test]\n./bad.go:2:9: syntax error: unexpected {, expected )\n", failed, false, "build failed"},
		{"import cycle", "FAIL\texample.com/gt [setup failed]\nFAIL\n", "# example.com/gt\npackage example.com/gt imports example.com/gt: import cycle not allowed\n", failed, false, "setup failed"},
		{"benchmark failed", "--- FAIL: BenchmarkFail\n    a_test.go:4: boom\nFAIL\nexit status 1\nFAIL\texample.com/gt\t0.004s\nFAIL\n", "", failed, false, "a benchmark failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.failure(tt.stdout, tt.stderr, tt.err)
			if errors.Is(err, results.ErrBadInput) != tt.usage || errors.Is(err, ErrGoTest) == tt.usage {
				t.Errorf("failure() = %v; bad input (refused, or nothing matched): want %v, else ErrGoTest", err, tt.usage)
			}
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("failure() = %v, want it to say %q", err, tt.says)
			}
		})
	}
}
