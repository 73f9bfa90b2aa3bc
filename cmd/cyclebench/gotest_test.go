package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/results"
)

func TestPositionals(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"./pkg", "-bench", "Sum"}, []string{"./pkg"}},
		{[]string{"-bench", "Sum", "./pkg"}, []string{"./pkg"}},
		{[]string{"-o", "./out.json"}, nil},                  // a flag's value, not a package
		{[]string{"-plot", "./cpe.svg", "-q"}, nil},          // likewise
		{[]string{"-q", "./pkg"}, []string{"./pkg"}},         // -q is boolean
		{[]string{"-list", "-json", "./p"}, []string{"./p"}}, // so are -list and -json
		{[]string{"-benchmem", "-all-runs", "./p"}, []string{"./p"}},
		{[]string{"-format=json", "x"}, []string{"x"}},
		{[]string{"--count", "6", "a", "b"}, []string{"a", "b"}},
		{[]string{"-a", "AddChain", "-b", "ImulChain"}, nil}, // compare's own flags: values
		{[]string{"--", "-x", "./p"}, []string{"-x", "./p"}},
		{[]string{"-h"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := positionals(tt.args); !slices.Equal(got, tt.want) {
				t.Errorf("positionals(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

// TestCPEFile fits results/testdata/kvm-amd-gotest-sums.txt, go test -bench -count 6 of
// examples/sums on a shared KVM guest, in which two runs of Sum1 at
// n = 3200 were slowed by other jobs.
func TestCPEFile(t *testing.T) {
	file := resultsTestdata("kvm-amd-gotest-sums.txt")
	t.Run("table", func(t *testing.T) {
		out, errOut, err := runCLI(t, "cpe", file)
		// One run of the file did not converge: a figure all the same, so
		// exit status 0 (the status does not follow convergence, which
		// changes from run to run); with -strict, 1 after the output.
		if err != nil {
			t.Errorf("err = %v, want exit status 0: every run has a figure", err)
		}
		_, _, err = runCLI(t, "cpe", "-strict", file)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitFailure || !strings.Contains(ee.msg, "1 of 96 runs did not converge") {
			t.Errorf("-strict: err = %v, want exit status 1 for the run that did not converge", err)
		}
		checkOnlyWarnings(t, errOut)
		golden(t, "cpe_gotest.golden", out)
		for _, want := range []string{"Sum1: 8 sizes, 48 runs", "+2809 left out", "left out   n = 3200: 6033, 5321 cycles (4 runs kept: 3219–3221)"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q", want)
			}
		}
		if !strings.Contains(errOut, "left out Sum4vsSum1, Sum1AA: no size part") {
			t.Errorf("stderr does not name the benchmarks without a size:\n%s", errOut)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _, _ := runCLI(t, "cpe", file, "-format", "json")
		var rep results.CPEReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		if len(rep.Kernels) != 2 {
			t.Fatalf("%d kernels, want Sum1 and Sum4", len(rep.Kernels))
		}
		s1 := rep.Kernels[0]
		if s1.Name != "Sum1" || len(s1.Points) != 48 || !slices.Equal(s1.LeftOut, []int{45, 46}) || s1.LeftOutRule == "" {
			t.Errorf("Sum1: name %q, %d points, left out %v (%q); want Sum1, 48, [45 46] and the rule", s1.Name, len(s1.Points), s1.LeftOut, s1.LeftOutRule)
		}
		if f := s1.Fits[0]; f.Unit != "cycles" || math.Abs(f.PerElement-1) > 0.01 || f.R2 < 0.999 || f.N != 46 || len(f.Residuals) != 48 {
			t.Errorf("Sum1 cycle fit %+v: want about 1 cycle per element, R² ≥ 0.999, over 46 runs, a residual for each of 48", f)
		}
		if s4 := rep.Kernels[1]; len(s4.LeftOut) != 0 || s4.Linearity.Verdict != "linear" {
			t.Errorf("Sum4: left out %v, verdict %q; want none and linear", s4.LeftOut, s4.Linearity.Verdict)
		}
	})
	t.Run("all runs", func(t *testing.T) {
		out, _, _ := runCLI(t, "cpe", file, "-all-runs", "-format", "json")
		var rep results.CPEReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if s1 := rep.Kernels[0]; len(s1.LeftOut) != 0 || s1.Fits[0].N != 48 || s1.Fits[0].R2 > 0.99 {
			t.Errorf("with -all-runs: left out %v, %d runs fitted, R² %v; want none left out, 48, and the slow runs pulling R² down", s1.LeftOut, s1.Fits[0].N, s1.Fits[0].R2)
		}
	})
	t.Run("csv", func(t *testing.T) {
		out, _, _ := runCLI(t, "cpe", file, "-format", "csv")
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for _, r := range rows {
			if r[1] == "left out" {
				left++
			}
		}
		if left != 6 { // two runs in cycles, ticks and ns
			t.Errorf("%d rows of kind \"left out\", want 6", left)
		}
	})
	t.Run("bench round trip", func(t *testing.T) {
		// The bench output is a benchmark file itself: fitted again it gives
		// the same lines.
		dir := t.TempDir()
		again := filepath.Join(dir, "again.txt")
		if _, _, err := runCLI(t, "cpe", file, "-format", "bench", "-o", again); err != nil && !isExit1(err) {
			t.Fatal(err)
		}
		f, err := results.Read(again)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Fits) != 2 || math.Abs(f.Fits[0].Cycles.PerElement-1) > 0.01 {
			t.Errorf("fits read back: %+v", f.Fits)
		}
		first, _, _ := runCLI(t, "cpe", file, "-format", "json")
		second, _, _ := runCLI(t, "cpe", again, "-format", "json")
		var a, b results.CPEReport
		if json.Unmarshal([]byte(first), &a) != nil || json.Unmarshal([]byte(second), &b) != nil {
			t.Fatal("not JSON")
		}
		for i := range a.Kernels {
			fa, fb := a.Kernels[i].Fits[0], b.Kernels[i].Fits[0]
			if math.Abs(fa.PerElement/fb.PerElement-1) > 1e-3 || !slices.Equal(a.Kernels[i].LeftOut, b.Kernels[i].LeftOut) {
				t.Errorf("%s: CPE %v then %v, left out %v then %v", a.Kernels[i].Name, fa.PerElement, fb.PerElement, a.Kernels[i].LeftOut, b.Kernels[i].LeftOut)
			}
		}
	})
	t.Run("plot", func(t *testing.T) {
		svg := filepath.Join(t.TempDir(), "cpe.svg")
		_, errOut, _ := runCLI(t, "cpe", file, "-plot", svg)
		data, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("runs left out of the fit")) || !strings.Contains(errOut, "wrote "+svg) {
			t.Errorf("the plot's legend does not list the runs left out, or stderr %q does not say it wrote it", errOut)
		}
	})
	t.Run("select", func(t *testing.T) {
		out, _, _ := runCLI(t, "cpe", file, "-bench", "^Sum4$", "-format", "json")
		var rep results.CPEReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Kernels) != 1 || rep.Kernels[0].Name != "Sum4" {
			t.Errorf("-bench ^Sum4$ selected %+v (%v)", rep.Kernels, err)
		}
	})
}

func isExit1(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == exitFailure
}

// TestCPEFileFamilies checks families with too few sizes, go test output
// without harness.Report (ns/op only), and files without a family.
func TestCPEFileFamilies(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.txt", `goos: linux
pkg: example.com/p
BenchmarkCopy/n=100-2   	 1000	       110.0 ns/op
BenchmarkCopy/n=200-2   	 1000	       210.0 ns/op
BenchmarkCopy/n=400-2   	 1000	       410.0 ns/op
BenchmarkCopy/n=800-2   	 1000	       810.0 ns/op
BenchmarkTwo/size=100-2 	 1000	       50.0 ns/op
BenchmarkTwo/size=200-2 	 1000	       90.0 ns/op
`)
	t.Run("ns only, and two sizes", func(t *testing.T) {
		out, errOut, err := runCLI(t, "cpe", plain)
		if err != nil {
			t.Fatalf("err = %v (stderr %s)", err, errOut)
		}
		for _, want := range []string{"CPE        1 ± 0 ns/element", "intercept  10 ± 0 ns per call", "Two: 2 sizes", "fit        none: 2 sizes, a fit needs 3"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, "warning: no fit for Two (2 sizes): a fit needs 3 sizes or more") {
			t.Errorf("stderr does not name the family with too few sizes:\n%s", errOut)
		}
		if strings.Contains(out, "ticks") {
			t.Errorf("output shows ticks for a file without them:\n%s", out)
		}
	})
	t.Run("ns only, bench", func(t *testing.T) {
		out, _, _ := runCLI(t, "cpe", plain, "-format", "bench")
		if strings.Contains(out, "ticks/op") || !strings.Contains(out, "BenchmarkCopy/n=100\t1000\t110 ns/op") {
			t.Errorf("bench output:\n%s", out)
		}
	})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"two sizes only", []string{"cpe", write("two.txt", "BenchmarkA/n=1 1 5 ns/op\nBenchmarkA/n=2 1 6 ns/op\n")}, "no family with 3 sizes or more: A (2 sizes)"},
		{"no family", []string{"cpe", write("flat.txt", "BenchmarkA 1 5 ns/op\nBenchmarkB 1 6 ns/op\n")}, "no family of sub-benchmarks Name/n=SIZE"},
		{"no match", []string{"cpe", plain, "-bench", "Nope"}, `matching -bench "Nope"`},
		{"missing file", []string{"cpe", filepath.Join(dir, "nope.txt")}, "no such file"},
		{"count without a package", []string{"cpe", plain, "-count", "6"}, "-count: passed on to go test"},
		{"benchmem without a package", []string{"cpe", plain, "-benchmem"}, "-benchmem: passed on to go test"},
		{"measuring flag", []string{"cpe", plain, "-k", "5"}, "flag provided but not defined: -k"},
		{"bad regexp", []string{"cpe", plain, "-bench", "("}, "not a regexp"},
		{"plot extension", []string{"cpe", plain, "-plot", filepath.Join(dir, "x.gif")}, "unknown image format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantUsageError(t, tt.want, tt.args...)
		})
	}
}

// genModule writes a module to a temporary directory whose benchmarks use
// harness.ReportSweep and harness.ReportCompare (package gen, with one
// failing benchmark) and a package that does not compile (broken), with a
// go.mod that replaces cyclebench by this repository; it returns the
// directory. The go command it runs completes go.mod from the module
// cache (-mod=mod), offline.
func genModule(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: builds a module with the go command and runs its benchmarks (seconds)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command in PATH: %v", err)
	}
	out, err := exec.Command(goBin, "env", "GOHOSTOS", "GOHOSTARCH").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	if host, self := strings.Join(strings.Fields(string(out)), "/"), runtime.GOOS+"/"+runtime.GOARCH; host != self {
		t.Skipf("this test binary is %s but the go command's host is %s (an emulated run): the benchmarks could not run natively", self, host)
	}
	if _, err := calibrate.Get(); err != nil {
		t.Skipf("no calibration on this machine, so no benchmark of the harness: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/gen\n\ngo 1.24\n\nrequire github.com/cyclebench/cyclebench v0.0.0-00010101000000-000000000000\n\n" +
			"replace github.com/cyclebench/cyclebench => " + strconv.Quote(root) + "\n",
		"go.sum": string(sum),
		"gen/gen.go": `package gen

// Sum adds up s.
func Sum(s []int64) int64 {
	var t int64
	for _, v := range s {
		t += v
	}
	return t
}
`,
		"gen/gen_test.go": `package gen

import (
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

var sink int64

func build(n int) (harness.Target, error) {
	s := make([]int64, n)
	return harness.Target{Run: func() { sink = Sum(s) }}, nil
}

func BenchmarkSweep(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), []int{100, 200, 400, 800}, build)
}

func BenchmarkPair(b *testing.B) {
	s := make([]int64, 400)
	run := func() { sink = Sum(s) }
	harness.ReportCompare(b, harness.DefaultConfig(), harness.Target{Name: "one", Run: run}, harness.Target{Name: "same", Run: run}, harness.CompareOptions{})
}

func BenchmarkFail(b *testing.B) { b.Fatal("boom: this benchmark fails") }

func BenchmarkPlain(b *testing.B) {
	s := make([]int64, 400)
	for b.Loop() {
		sink = Sum(s)
	}
	b.ReportMetric(3, "widgets/op")
}
`,
		"broken/broken.go":      "package broken\n\nfunc F( {\n",
		"broken/broken_test.go": "package broken\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	t.Setenv("GOFLAGS", strings.Join(append(flags, "-mod=mod"), " "))
	t.Setenv("GOWORK", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	return dir
}

// okOrUnconverged fails unless err is nil or the exit status 1 of a run
// in which some result did not converge (the machine is shared: a test
// does not depend on every measurement converging).
func okOrUnconverged(t *testing.T, err error, stderr string) {
	t.Helper()
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.code == exitFailure && strings.Contains(ee.msg, "did not converge")) {
		t.Fatalf("err = %v\nstderr:\n%s", err, stderr)
	}
}

// TestPackages runs run, cpe and compare on the packages of a generated
// module, through go test, in every format, and go test's failures.
func TestPackages(t *testing.T) {
	dir := genModule(t)
	gen := filepath.Join(dir, "gen")
	out := t.TempDir()
	t.Run("run", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "run", gen, "-bench", "Sweep", "-count", "2")
		okOrUnconverged(t, err, stderr)
		if n := strings.Count(stdout, "\nSweep/n="); n != 8 {
			t.Errorf("%d rows of Sweep/n=..., want 8 (4 sizes, 2 runs):\n%s", n, stdout)
		}
		if !strings.Contains(stderr, "go test -c -o DIR/ ./gen, then in each package's directory, 2 times: DIR/PKG.test -test.run '^$' -test.bench Sweep -test.count 1") {
			t.Errorf("stderr does not give the go test commands:\n%s", stderr)
		}
	})
	t.Run("run -in-process", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "run", gen, "-bench", "Sweep", "-count", "2", "-in-process")
		okOrUnconverged(t, err, stderr)
		if n := strings.Count(stdout, "\nSweep/n="); n != 8 {
			t.Errorf("%d rows of Sweep/n=..., want 8 (4 sizes, 2 runs):\n%s", n, stdout)
		}
		if !strings.Contains(stderr, "cd "+dir+" && go test -run '^$' -bench Sweep -count 2 ./gen") && !strings.Contains(stderr, "go test -run '^$' -bench Sweep -count 2 ./gen") {
			t.Errorf("stderr does not give the go test command:\n%s", stderr)
		}
	})
	t.Run("run plain", func(t *testing.T) {
		// A plain testing.B benchmark gets cycles from its ns/op and the
		// core clock read around its run, keeps its own units, and says
		// that the testing package timed it.
		stdout, stderr, err := runCLI(t, "run", gen, "-bench", "Plain", "-format", "json")
		okOrUnconverged(t, err, stderr)
		var rep struct {
			Extra   map[string]string `json:"extra"`
			Results []struct {
				Cycles       *float64 `json:"cycles"`
				NS           float64  `json:"ns"`
				CyclesSource string   `json:"cycles_source"`
				MeasuredBy   string   `json:"measured_by"`
				Metrics      []struct {
					Unit  string  `json:"unit"`
					Value float64 `json:"value"`
				} `json:"metrics"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if len(rep.Results) != 1 {
			t.Fatalf("%d results, want 1:\n%s", len(rep.Results), stdout)
		}
		r := rep.Results[0]
		if r.Cycles == nil || !(*r.Cycles > r.NS/10) || r.CyclesSource != "ns × ruler" || r.MeasuredBy != "testing.B" {
			t.Errorf("result %+v, want cycles from \"ns × ruler\", measured by testing.B", r)
		}
		if len(r.Metrics) != 1 || r.Metrics[0].Unit != "widgets/op" || r.Metrics[0].Value != 3 {
			t.Errorf("metrics %+v, want 3 widgets/op", r.Metrics)
		}
		if !strings.HasPrefix(rep.Extra["plain-cycles"], "ns × ruler") {
			t.Errorf("extra %v, want plain-cycles saying where the cycles come from", rep.Extra)
		}
		stdout, stderr, err = runCLI(t, "run", gen, "-bench", "Plain")
		okOrUnconverged(t, err, stderr)
		if !strings.Contains(stdout, "n/a (testing.B)") || !strings.Contains(stdout, "widgets/op") {
			t.Errorf("table without \"n/a (testing.B)\" or widgets/op:\n%s", stdout)
		}
	})
	t.Run("run with measuring flags", func(t *testing.T) {
		// The measuring flags reach harness.ReportSweep in the test binary
		// (over its DefaultConfig), and the report says what they were.
		stdout, stderr, err := runCLI(t, "run", gen, "-bench", "Sweep/mode=latency/n=100$", "-mode", "latency", "-k", "5", "-eps", "0.02", "-min-time", "50ms", "-max-time", "2s", "-gc", "on", "-format", "json")
		okOrUnconverged(t, err, stderr)
		var rep struct {
			Extra   map[string]string `json:"extra"`
			Results []struct {
				Name, Mode string
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if len(rep.Results) != 1 || rep.Results[0].Mode != "latency" {
			t.Errorf("results %+v, want one in latency mode", rep.Results)
		}
		for k, v := range map[string]string{"mode": "latency", "k": "5", "eps": "0.02", "min-time": "50ms", "max-time": "2s", "gc": "on"} {
			if rep.Extra[k] != v {
				t.Errorf("extra[%q] = %q, want %q (extra %v)", k, rep.Extra[k], v, rep.Extra)
			}
		}
		if !strings.Contains(stderr, "CYCLEBENCH_MODE=latency CYCLEBENCH_K=5 CYCLEBENCH_EPS=0.02 CYCLEBENCH_MIN_TIME=50ms CYCLEBENCH_MAX_TIME=2s CYCLEBENCH_GC=on go test") {
			t.Errorf("stderr does not give the settings on the go test command line:\n%s", stderr)
		}
	})
	t.Run("run json to a file", func(t *testing.T) {
		path := filepath.Join(out, "run.json")
		_, stderr, err := runCLI(t, "run", gen, "-bench", "Sweep/n=100$", "-format", "json", "-o", path, "-benchmem")
		okOrUnconverged(t, err, stderr)
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) != 1 || f.Entries[0].Name != "Sweep/n=100" || f.Entries[0].Runs[0].NS <= 0 {
			t.Errorf("entries read back: %+v", f.Entries)
		}
		// The file says where it was measured (go test ran on this
		// machine), and leaves out the K-best settings the benchmark's
		// own Config chose rather than writing zeros.
		// (Only when this build reads the brand string go test printed:
		// under -tags noasm it reads none, and its counter is not the test
		// binary's, so the header keeps what go test said.)
		if m := f.Machine; m.GoVersion == "" || m.GOOS == "" {
			t.Errorf("machine read back: %+v: want the Go version and the platform", m)
		}
		if cpu := sys.detectCPU(); cpu.Brand != "" && cpu.Brand == f.Machine.CPU {
			if m := f.Machine; m.CounterHz <= 0 || m.Counter == "" || m.Vendor != cpu.Vendor || m.Family != cpu.Family || m.LogicalCPUs != cpu.LogicalCPUs {
				t.Errorf("machine %+v, want this machine's %+v, its counter and its rate", m, cpu)
			}
		} else {
			t.Logf("this build reads brand %q, go test printed %q: the machine's fields are left as go test gave them", cpu.Brand, f.Machine.CPU)
		}
		data, _ := os.ReadFile(path)
		var head map[string]any
		if err := json.Unmarshal(data, &head); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"k", "eps", "m"} {
			if v, ok := head[k]; ok {
				t.Errorf("header %q: %v, want it absent (the benchmark's Config decides)", k, v)
			}
		}
	})
	t.Run("run bench", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "run", gen, "-bench", "Sweep/n=100$", "-format", "bench", "-benchmem")
		okOrUnconverged(t, err, stderr)
		f, err := results.Parse("bench", strings.NewReader(stdout))
		if err != nil {
			t.Fatal(err)
		}
		if r := f.Entries[0].Runs[0]; r.NS <= 0 || r.Iters <= 1 || !slices.ContainsFunc(r.Other, func(v results.Value) bool { return v.Unit == "allocs/op" }) {
			t.Errorf("run read back: %+v: want ns/op, the calls timed as iterations, and allocs/op from -benchmem", r)
		}
	})
	t.Run("cpe", func(t *testing.T) {
		svg := filepath.Join(out, "cpe.svg")
		stdout, stderr, err := runCLI(t, "cpe", gen, "-bench", "Sweep", "-count", "2", "-format", "json", "-plot", svg)
		okOrUnconverged(t, err, stderr)
		var rep results.CPEReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Kernels) != 1 || rep.Kernels[0].Name != "Sweep" || len(rep.Kernels[0].Points) != 8 || len(rep.Kernels[0].Fits) == 0 {
			t.Fatalf("kernels: %+v", rep.Kernels)
		}
		if f := rep.Kernels[0].Fits[0]; !(f.PerElement > 0) || f.N+len(rep.Kernels[0].LeftOut) != 8 {
			t.Errorf("fit %+v: want a positive CPE over the 8 runs not left out", f)
		}
		if st, err := os.Stat(svg); err != nil || st.Size() == 0 {
			t.Errorf("no plot: %v", err)
		}
	})
	t.Run("compare", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "compare", gen, "-bench", "Pair", "-format", "csv")
		if err != nil {
			t.Fatalf("err = %v\n%s", err, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("CSV: %v, %d rows, want a header and one comparison:\n%s", err, len(rows), stdout)
		}
		row := map[string]string{}
		for i, k := range rows[0] {
			row[k] = rows[1][i]
		}
		ratio, lo, hi := parseF(t, row["ratio"]), parseF(t, row["ratio_lo"]), parseF(t, row["ratio_hi"])
		if row["b_over_a"] != "same/one" || !(lo <= ratio && ratio <= hi) || math.Abs(ratio-1) > 0.1 {
			t.Errorf("comparison %v: want same/one, a ratio near 1 within its interval", row)
		}
		if s := row["summary"]; !strings.Contains(s, "same") || !strings.Contains(s, "one") {
			t.Errorf("summary %q does not name both sides", s)
		}
	})
	tests := []struct {
		name   string
		args   []string
		usage  bool   // exit status 2, else 1
		says   string // in the error
		relays string // in stderr: go test's own output
	}{
		{"benchmark fails", []string{"run", gen, "-bench", "Fail"}, false, "a benchmark failed", "boom: this benchmark fails"},
		{"build fails", []string{"cpe", filepath.Join(dir, "broken")}, false, "build failed", "broken.go:3"},
		{"nothing matched", []string{"run", gen, "-bench", "NoSuch"}, true, `-bench "NoSuch" matched no benchmark`, ""},
		{"only comparisons", []string{"run", gen, "-bench", "Pair"}, true, "matched only comparisons (Pair)", ""},
		{"no comparison", []string{"compare", gen, "-bench", "Sweep/n=100$"}, true, "matched no comparison", ""},
		{"measuring flag", []string{"run", gen, "-m", "100"}, true, "flag provided but not defined: -m", ""},
		{"bad mode", []string{"run", gen, "-mode", "both"}, true, `invalid value "both" for flag -mode: allowed: throughput or latency`, ""},
		{"bad k", []string{"compare", gen, "-k", "0"}, true, `invalid value "0" for flag -k: allowed: a whole number, 1 to 1000`, ""},
		// The same, with each run a process of its own (-count 2): the
		// failing binary and its run are named; a build failure is go
		// test's own report.
		{"benchmark fails, processes", []string{"run", gen, "-bench", "Fail", "-count", "2"}, false, "a benchmark failed (its output is above) (run 1 of 2 of gen.test in " + filepath.Join(dir, "gen") + ")", "boom: this benchmark fails"},
		{"build fails, processes", []string{"cpe", filepath.Join(dir, "broken"), "-count", "2"}, false, "build failed", "broken.go:3"},
		{"nothing matched, processes", []string{"run", gen, "-bench", "NoSuch", "-count", "2"}, true, `-bench "NoSuch" matched no benchmark`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, tt.args...)
			var buf bytes.Buffer
			status := exitStatus(err, &buf)
			if want := map[bool]int{true: exitUsage, false: exitFailure}[tt.usage]; status != want || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v (exit status %d), want exit status %d saying %q", err, status, want, tt.says)
			}
			if !strings.Contains(stderr, tt.relays) {
				t.Errorf("stderr does not relay %q:\n%s", tt.relays, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
