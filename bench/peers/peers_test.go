package main

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

// These tests run the table-building code on synthetic inputs: no process
// is started and nothing is timed.

func TestParseFlags(t *testing.T) {
	bad := [][]string{
		{"-bogus"},
		{"-reps", "1"},
		{"-reps", "x"},
		{"-detect-reps", "0"},
		{"-detect-reps", "-3"},
		{"-startup-reps", "100000"},
		{"-peer-count", "1"},
		{"-peer-benchtime", "10us"},
		{"-table-benchtime", "-1s"},
		{"-skip", "cyclebench,nanobench"},
		{"extra"},
	}
	for _, args := range bad {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, err := parseFlags(args)
			if !errors.Is(err, errUsage) {
				t.Fatalf("parseFlags(%q) = %v, want a usage error", args, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Reps != 10 || o.DetectReps != 10 || o.StartupReps != 5 || o.TableBenchtime != 0 || len(o.Pairs) != len(detectionPairs) {
		t.Errorf("full defaults = %+v", o)
	}
	q, err := parseFlags([]string{"-quick", "-skip", "gbench"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Reps != 3 || q.DetectReps != 2 || q.StartupReps != 3 || q.TableBenchtime != 100*time.Millisecond || len(q.Pairs) != 2 || !q.Skip["gbench"] {
		t.Errorf("quick defaults = %+v", q)
	}
	if q, _ := parseFlags([]string{"-quick", "-table-benchtime", "0"}); q.TableBenchtime != 0 {
		t.Errorf("-quick -table-benchtime 0 gave %v, want the peers' defaults (0)", q.TableBenchtime)
	}
	if _, err := parseFlags([]string{"-h"}); !errors.As(err, new(errHelp)) {
		t.Errorf("-h gave %v, want the help text", err)
	}
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want bool
	}{
		{"separated", []float64{100, 101, 100.5, 100.2, 100.8, 100.1}, []float64{110, 111, 110.5, 110.2, 110.8, 110.1}, true},
		{"identical", []float64{100, 100, 100, 100, 100, 100}, []float64{100, 100, 100, 100, 100, 100}, false},
		{"interleaved", []float64{100, 102, 104, 106, 108, 110}, []float64{101, 103, 105, 107, 109, 111}, false},
		{"too few to reject", []float64{1, 2}, []float64{3, 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mannWhitney(tt.a, tt.b)
			if v.Detected != tt.want {
				t.Errorf("detected = %v (p %v, α %v), want %v", v.Detected, v.P, v.Alpha, tt.want)
			}
			if v.Alpha != 0.05 {
				t.Errorf("α = %v, want benchstat's 0.05", v.Alpha)
			}
		})
	}
}

func TestTally(t *testing.T) {
	var tl tally
	for i, d := range []bool{true, false, true, true} {
		tl.add(d, float64(i))
	}
	if got := cellCount(&tl); got != "3/4" {
		t.Errorf("cellCount = %q, want 3/4", got)
	}
	tl.Errs = append(tl.Errs, "boom")
	if got := cellCount(&tl); got != "3/4 (1 gave no verdict: boom)" {
		t.Errorf("cellCount with an error = %q", got)
	}
	tl.More = 2
	if got := cellCount(&tl); got != "3/4 (2 took more blocks) (1 gave no verdict: boom)" {
		t.Errorf("cellCount with more blocks = %q", got)
	}
	if got := cellCount(&tally{Errs: []string{"worker failed"}}); got != "— (worker failed)" {
		t.Errorf("cellCount of failures only = %q", got)
	}
	if got := cellCount(nil); got != "— (not run)" {
		t.Errorf("cellCount(nil) = %q", got)
	}
}

func TestSig(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{1003.27, "1003"}, {943.4, "943"}, {12.345, "12.3"}, {0.04567, "0.0457"}, {0, "0"}, {math.NaN(), "—"}, {-2.5, "-2.5"},
	}
	for _, tt := range tests {
		if got := sig(tt.v); got != tt.want {
			t.Errorf("sig(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := pct(0.0046); got != "0.46%" {
		t.Errorf("pct(0.0046) = %q", got)
	}
}

func TestMedianCV(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(cv([]float64{1})) {
		t.Error("median(nil) and cv of one value must be NaN")
	}
	// Sample standard deviation 1 around a mean of 100: CV 1%.
	if c := cv([]float64{99, 100, 101}); math.Abs(c-0.01) > 1e-12 {
		t.Errorf("cv = %v, want 0.01", c)
	}
}

func TestToCycles(t *testing.T) {
	r := Ruler{TicksPerSecond: 2.5e9, CyclesPerTick: 1.4} // 3.5 cycles/ns
	r2 := Ruler{TicksPerSecond: 2.5e9, CyclesPerTick: 1.44}
	c, why := toCycles(100, r, r2)
	if math.Abs(c-355) > 1e-9 || why != "" {
		t.Errorf("toCycles = %v, %q; want 355 (the mean of both rulers)", c, why)
	}
	if c, why := toCycles(100, r, Ruler{Why: "did not converge"}); c != 0 || !strings.Contains(why, "did not converge") {
		t.Errorf("toCycles with no ruler after = %v, %q; want 0 and the reason", c, why)
	}
}

// synthetic returns accuracy data for two tools, the second missing its
// cycle figures.
func synthetic() ([]tool, []kernels.Kernel, map[string]map[string]*series) {
	tools := []tool{{"a", "tool A", "own"}, {"b", "tool B", "ruler"}}
	ks := []kernels.Kernel{{Key: "add", Name: "ADD", Truth: 1000}, {Key: "sum", Name: "sum"}}
	data := map[string]map[string]*series{"a": {"add": {}, "sum": {}}, "b": {"add": {}}}
	for _, v := range []float64{1001, 999, 1000, 1002} {
		data["a"]["add"].add(v, v/3.7, "")
		data["a"]["sum"].add(v+200, (v+200)/3.7, "")
		data["b"]["add"].add(0, v/3.7, "ruler after: did not converge")
	}
	return tools, ks, data
}

func TestAccuracyTable(t *testing.T) {
	tools, ks, data := synthetic()
	tb := accuracyTable(tools, ks, data, 5)
	var b strings.Builder
	tb.markdown(&b)
	want := `## 1. Accuracy: core cycles per call (median of the processes; range)

| tool | cycles from | ADD (truth 1000) | sum (truth —) |
|---|---|---|---|
| tool A | own | 1000 (999–1002), 4 of 5 results | 1200 (1199–1202), 4 of 5 results |
| tool B | ruler | — (ruler after: did not converge) | — (not measured) |

`
	if b.String() != want {
		t.Errorf("accuracy table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestSpreadTable(t *testing.T) {
	tools, ks, data := synthetic()
	tb := spreadTable(tools, ks, data, byCV)
	if got := tb.Rows[0][1]; !strings.HasPrefix(got, "0.129%; ns 0.129% (n=4)") {
		t.Errorf("tool A ADD spread = %q", got)
	}
	if got := tb.Rows[1][1]; got != "— (ruler after: did not converge); ns 0.129%" {
		t.Errorf("tool B ADD spread = %q", got)
	}
	data["a"]["sum"].Labelled = 1
	if got := spreadTable(tools, ks, data, byCV).Rows[0][2]; !strings.HasSuffix(got, "(n=4, 1 labelled)") {
		t.Errorf("tool A sum spread with a labelled figure = %q", got)
	}
	if got := tb.Rows[1][2]; got != "— (fewer than 2 results)" {
		t.Errorf("tool B sum spread = %q", got)
	}
}

func TestDetectionTable(t *testing.T) {
	tools := []tool{{"c", "cyclebench", "verdict"}}
	pairs := []pair{{"+1%", 10000, 10100}, {"A/A", 10000, 10000}}
	data := map[string]map[string]*tally{"c": {"+1%": {}, "A/A": {}}}
	for i := range 10 {
		data["c"]["+1%"].add(true, 0.04)
		data["c"]["A/A"].add(i == 3, 0.05)
	}
	tb := detectionTable(tools, pairs, data)
	want := []string{"cyclebench", "verdict", "10/10", "1/10", "0.045 s (0.04–0.05)"}
	if strings.Join(tb.Rows[0], "|") != strings.Join(want, "|") {
		t.Errorf("row = %q, want %q", tb.Rows[0], want)
	}
	if h := tb.Header[3]; h != "A/A (10000 vs 10000 ADDs) false positives" {
		t.Errorf("A/A header = %q", h)
	}
}

func TestStartupTable(t *testing.T) {
	tb := startupTable([]startupRow{
		{Label: "x", What: "w", Ms: []float64{20, 16, 18, 30, 17}, Figure: "1000 ns"},
		{Label: "gbench", What: "w", Why: "libbenchmark-dev is not installed"},
		{Label: "y", What: "w", Ms: []float64{9, 260, 100}, Figure: "1000 ns", Waits: []float64{250, 90}, Lagged: 1},
	})
	if got := strings.Join(tb.Rows[0], "|"); got != "x|w|18 (n=5)|16–30|1000 ns" {
		t.Errorf("row = %q", got)
	}
	if got, want := tb.Rows[2][4], "1000 ns; 2 of 3 runs waited for a shared core, 90–250 ms; in 1 of 3 the ruler still lagged (a warning: the cycles may read low)"; got != want {
		t.Errorf("waits = %q, want %q", got, want)
	}
	if got := tb.Rows[1][2]; got != "— (libbenchmark-dev is not installed)" {
		t.Errorf("skipped row = %q", got)
	}
}

func TestMarkdownEscapesPipes(t *testing.T) {
	var b strings.Builder
	table{Title: "t", Header: []string{"a"}, Rows: [][]string{{"x|y"}}}.markdown(&b)
	if !strings.Contains(b.String(), `| x\|y |`) {
		t.Errorf("pipe not escaped:\n%s", b.String())
	}
}

func TestMachineKind(t *testing.T) {
	tests := []struct {
		vendor                  string
		family, model, stepping int
		want                    string
	}{
		{"AuthenticAMD", 25, 17, 0, "amd-zen4"},
		{"AuthenticAMD", 25, 1, 0, "amd-zen3"},
		{"AuthenticAMD", 26, 2, 0, "amd-zen5"},
		{"AuthenticAMD", 23, 49, 0, "amd-zen2"},
		{"GenuineIntel", 6, 207, 0, "intel-emr"},
		{"GenuineIntel", 6, 143, 0, "intel-spr"},
		{"GenuineIntel", 6, 85, 4, "intel-skx"},
		{"GenuineIntel", 6, 85, 7, "intel-clx"},
		{"GenuineIntel", 6, 85, 11, "intel-cpx"},
		{"GenuineIntel", 6, 151, 0, "intel-f6-m151"},
		{"AuthenticAMD", 16, 2, 0, "amd-f16-m2"},
		{"Some CPU!", 1, 2, 0, "somecpu-f1-m2"},
	}
	for _, tt := range tests {
		if got := (machine{Vendor: tt.vendor, Family: tt.family, Model: tt.model, Stepping: tt.stepping}).kind(); got != tt.want {
			t.Errorf("kind(%s %d/%d/%d) = %q, want %q", tt.vendor, tt.family, tt.model, tt.stepping, got, tt.want)
		}
	}
}

func TestParseMachine(t *testing.T) {
	m, err := parseMachine([]byte(`{"cpu":"AMD EPYC","vendor":"AuthenticAMD","family":25,"model":17,"stepping":1,"hypervisor":"KVMKVMKVM","virtual":true,"logical_cpus":2,"tsc_hz":2596143821.03,"tsc_hz_method":"bracket","tsc_hz_ppm":0.52,"tsc_step":25.99,"core_hz":3652655905.8}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "AMD EPYC (AuthenticAMD), family 25 model 17 stepping 1, 2 logical CPUs; TSC 2596.144 MHz (bracket, ±0.52 ppm), step 25.99 ticks; hypervisor KVMKVMKVM; core ≈ 3.65 GHz at `info` time"
	if got := m.line(); got != want {
		t.Errorf("line:\n%s\nwant:\n%s", got, want)
	}
	if _, err := parseMachine([]byte(`{}`)); err == nil {
		t.Error("parseMachine({}) succeeded")
	}
}

const goBenchOut = `goos: linux
goarch: amd64
pkg: github.com/cyclebench/cyclebench/bench/peers/gotest
cpu: AMD EPYC
BenchmarkChain-2   	    6418	      4477 ns/op
BenchmarkChain-2   	    8834	      2741.5 ns/op
BenchmarkKernel/add-continued-2         	 4397766	       272.6 ns/op
PASS
`

func TestParseGoBench(t *testing.T) {
	res := parseGoBench([]byte(goBenchOut))
	if got := res["Chain"]; len(got) != 2 || got[0] != 4477 || got[1] != 2741.5 {
		t.Errorf("Chain = %v", got)
	}
	if got := res["Kernel/add-continued"]; len(got) != 1 || got[0] != 272.6 {
		t.Errorf("Kernel/add-continued = %v", got)
	}
}

func TestParseBenchstat(t *testing.T) {
	const same = `goos: linux
goarch: amd64
cpu: AMD EPYC
        │    A.txt     │             B.txt             │
        │    sec/op    │    sec/op     vs base         │
Chain-2   2.824µ ± 59%   3.740µ ± 39%  ~ (p=0.394 n=6)
`
	const slower = `        │   A.txt    │               B.txt               │
        │   sec/op   │   sec/op     vs base              │
Chain-2   2.745µ ± 0%   2.773µ ± 1%  +1.02% (p=0.002 n=6)
`
	v, err := parseBenchstat([]byte(same))
	if err != nil || v.Detected || v.P != 0.394 {
		t.Errorf("same: %+v, %v", v, err)
	}
	v, err = parseBenchstat([]byte(slower))
	if err != nil || !v.Detected || v.P != 0.002 {
		t.Errorf("slower: %+v, %v", v, err)
	}
	if _, err := parseBenchstat([]byte("goos: linux\n")); err == nil {
		t.Error("no comparison row accepted")
	}
}

func TestParseGBench(t *testing.T) {
	const out = `{"context": {"library_build_type": "debug"}, "benchmarks": [
 {"name": "A/100", "run_name": "A/100", "run_type": "iteration", "repetition_index": 0, "iterations": 507352, "real_time": 2.77e+01, "time_unit": "ns"},
 {"name": "A/100", "run_name": "A/100", "run_type": "iteration", "repetition_index": 1, "iterations": 507352, "real_time": 4.06e+01, "time_unit": "ns"},
 {"name": "A/100_mean", "run_name": "A/100", "run_type": "aggregate", "aggregate_name": "mean", "real_time": 3.4e+01, "time_unit": "ns"},
 {"name": "B/200", "run_name": "B/200", "run_type": "iteration", "iterations": 10, "real_time": 0.5, "time_unit": "us"}
]}`
	res, err := parseGBench([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := res["A"]; len(got) != 2 || got[0] != 27.7 || got[1] != 40.6 {
		t.Errorf("A = %v (the aggregate must be left out)", got)
	}
	if got := res["B"]; len(got) != 1 || got[0] != 500 {
		t.Errorf("B = %v, want 500 ns", got)
	}
	if got := gbBuildType([]byte(out)); got != "debug" {
		t.Errorf("gbBuildType = %q, want debug", got)
	}
	if _, err := parseGBench([]byte(`{"benchmarks": [{"name": "x", "run_type": "iteration", "real_time": 1, "time_unit": "fortnights"}]}`)); err == nil {
		t.Error("unknown unit accepted")
	}
	if _, err := parseGBench([]byte(`{"benchmarks": [{"name": "x", "error_occurred": true, "error_message": "boom"}]}`)); err == nil {
		t.Error("an errored benchmark accepted")
	}
}

func TestRotate(t *testing.T) {
	xs := []int{1, 2, 3}
	for i, want := range [][]int{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}, {1, 2, 3}} {
		got := rotate(xs, i)
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("rotate(%d) = %v, want %v", i, got, want)
		}
	}
	if rotate([]int(nil), 2) != nil {
		t.Error("rotate(nil) not nil")
	}
}

func TestParseKV(t *testing.T) {
	m := parseKV([]byte("ns=988.1 cycles=3651 converged=true\n"))
	if m["ns"] != "988.1" || m["cycles"] != "3651" || m["converged"] != "true" {
		t.Errorf("parseKV = %v", m)
	}
}

// TestSpreadBestPeer: the best peer is the lowest spread in cycles among
// the tools that are not cyclebench, and each cyclebench row says how many
// times below it its own is.
func TestSpreadBestPeer(t *testing.T) {
	tools := []tool{{"cyclebench", "cb", "own"}, {"p1", "peer one", "ruler"}, {"p2", "peer two", "ruler"}}
	ks := []kernels.Kernel{{Key: "add", Name: "ADD", Truth: 1000}}
	data := map[string]map[string]*series{"cyclebench": {"add": {}}, "p1": {"add": {}}, "p2": {"add": {}}}
	for _, d := range []float64{-1, 0, 1} {
		data["cyclebench"]["add"].add(1000+d, 300, "")
		data["p1"]["add"].add(1000+20*d, 300, "")
		data["p2"]["add"].add(1000+10*d, 300, "")
	}
	tb := spreadTable(tools, ks, data, byCV)
	if n := len(tb.Rows); n != 5 {
		t.Fatalf("%d rows, want the 3 tools, the best peer and cyclebench's ratio", n)
	}
	if got := tb.Rows[3][1]; !strings.HasSuffix(got, ": peer two") {
		t.Errorf("best peer = %q, want peer two's", got)
	}
	if got := tb.Rows[4]; got[0] != "cb: times below the best peer" || got[1] != "10×" {
		t.Errorf("ratio row = %q, want 10× (CV 1%% against 0.1%%)", got)
	}
}

// TestRobustSpread: equal to the CV's σ-scale for a symmetric spread, and
// barely moved by one value in ten far off, which moves the CV by far.
func TestRobustSpread(t *testing.T) {
	nine := []float64{998, 999, 999, 1000, 1000, 1000, 1001, 1001, 1002}
	with := append(slices.Clone(nine), 1040)
	if r0, r1 := robustSpread(nine), robustSpread(with); math.Abs(r1-r0) > 0.0005 || r1 <= 0 {
		t.Errorf("robust spread %v without the outlier, %v with it: want nearly the same", r0, r1)
	}
	if c0, c1 := cv(nine), cv(with); c1 < 5*c0 {
		t.Errorf("CV %v without the outlier, %v with it: the outlier should dominate", c0, c1)
	}
	if !math.IsNaN(robustSpread([]float64{1})) || !math.IsNaN(robustSpread([]float64{0, 0, 0})) {
		t.Error("robust spread of one value, or of a median of 0, must be NaN")
	}
}

// TestKernelsNote: a cyclebench process's log note gives each kernel's
// cycles and its waits for a shared core; a peer's kernels (with rulers
// around them) give none.
func TestKernelsNote(t *testing.T) {
	ks := []KernelOut{
		{Key: "add-continued", Cycles: 1009.34},
		{Key: "add-restarted", Cycles: 949.2, RulerWaitMs: 83},
		{Key: "imul-continued", Cycles: 3001.5, RulerWaitMs: 250, Lagged: true},
		{Key: "imul-restarted", Cycles: 2900.1, RulerWaitMs: 250, Shared: true},
		{Key: "sum", Why: "not converged"},
	}
	want := "add-continued 1009.3, add-restarted 949.2 (waited 83 ms for a shared core), imul-continued 3001.5 (waited 250 ms for a shared core) (its ruler's ADD chain still lagged), imul-restarted 2900.1 (waited 250 ms for a shared core) (labelled: the core was shared)"
	if got := kernelsNote(ks); got != want {
		t.Errorf("kernelsNote = %q\nwant %q", got, want)
	}
	if got := kernelsNote([]KernelOut{{Key: "add", Cycles: 1020, Before: &Ruler{}, After: &Ruler{}}}); got != "" {
		t.Errorf("a peer's note = %q, want none", got)
	}
}

// TestReportHasNoTimeOfDay: the report is committed, and git dates it; a
// date or time of day in it would differ on every regeneration.
func TestReportHasNoTimeOfDay(t *testing.T) {
	d := &driver{opt: options{Reps: 1, DetectReps: 1, StartupReps: 1, PeerCount: 1}, started: time.Now(), versions: []string{"Go 1.26"}}
	var b strings.Builder
	d.report(&b, nil, nil, 0)
	if !strings.Contains(b.String(), "run: ") {
		t.Fatalf("report without its run line:\n%s", b.String())
	}
	if m := regexp.MustCompile(`\b\d{1,2}:\d{2}\b|UTC|\b20\d\d-\d\d-\d\d\b`).FindString(b.String()); m != "" {
		t.Errorf("report says %q, a date or time of day:\n%s", m, b.String())
	}
}
