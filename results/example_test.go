package results_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/results"
)

// Read a result file of any kind: here a run report written by an older
// version of the tool, which did not write "mode".
func ExampleRead() {
	f, err := results.Read("testdata/kvm-amd-zen5-run.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Format, "from", f.Machine)
	e := f.Entries[len(f.Entries)-1]
	r := e.Runs[0]
	fmt.Printf("%s (%s): %.1f cycles/op, %.3f cycles/%s\n", e.Name, e.Mode, r.Cycles, r.CyclesPerElem, strings.TrimSuffix(e.Unit, "s"))
	fmt.Println(f.Absent)
	// Output:
	// cyclebench run (json) from AMD EPYC (KVM) 2596 MHz rdtsc, go1.26.8 linux/amd64
	// Combine6/n=1000 (throughput): 951.0 cycles/op, 0.951 cycles/element
	// [results[].mode]
}

// Parse reads go test's output too: the runs of each -count repetition
// are the runs of one entry, and go test's "--- BENCH:" log becomes the
// runs' warnings.
func ExampleParse() {
	out := `goos: linux
goarch: amd64
pkg: example.com/sum
cpu: AMD EPYC
BenchmarkSum/n=1000-2   1000000000   250.1 ns/op   1.003 cycles/elem   1003 cycles/op   0.2501 ns/elem   0.7060 ticks/elem   706.0 ticks/op
BenchmarkSum/n=1000-2   1000000000   251.0 ns/op   1.006 cycles/elem   1006 cycles/op   0.2510 ns/elem   0.7085 ticks/elem   708.5 ticks/op
--- BENCH: BenchmarkSum/n=1000-2
    sum_test.go:12: harness.Report: warning: harness: did not converge: spread 2% after 1000 samples
BenchmarkSum/n=1000-2   oops
PASS
`
	f, err := results.Parse("sum.txt", strings.NewReader(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := f.Entries[0]
	fmt.Println(f.Producer, f.Machine.Label(), e.Pkg, e.Name, e.N, len(e.Runs))
	fmt.Println(e.Runs[1].NotConverged, e.Runs[1].Warnings[0])
	fmt.Println(errors.Is(f.Warnings[0], results.ErrSkippedLine), f.Warnings[0])
	// Output:
	// go test AMD EPYC example.com/sum Sum/n=1000 1000 2
	// true harness.Report: warning: harness: did not converge: spread 2% after 1000 samples
	// true results: line skipped: sum.txt:9: parsing iteration count: invalid syntax
}

// Bad input is an error naming the file, the line and what was expected.
func ExampleParse_error() {
	_, err := results.Parse("old.json", strings.NewReader("{\"results\": [\n  {\"name\": \"Sum/n=8\",\n   \"n\": \"eight\"}]}"))
	fmt.Println(errors.Is(err, results.ErrSyntax))
	fmt.Println(err)
	// Output:
	// true
	// results: malformed result file: old.json:3: results[0] "n" is a string, want an integer (int64)
}

func ExampleParseName() {
	for _, s := range []string{"Combine4/n=1000/mode=latency", "Sum/len=64/acc=4-8", "SumLoop"} {
		n := parseNameString(s)
		fmt.Println(n)
	}
	// Output:
	// base "Combine4" size n=1000 mode "latency" procs 0
	// base "Sum/acc=4" size len=64 mode "" procs 8
	// base "SumLoop" size  mode "" procs 0
}

// parseNameString formats what ParseName finds.
func parseNameString(s string) string {
	n := results.ParseName(s)
	return fmt.Sprintf("base %q size %s mode %q procs %d", n.Base, n.Size(), n.Mode, n.Procs)
}

// Three machines side by side: a Zen 5 and a Zen 4 guest, and a synthetic
// arm64 file without cycle figures.
func ExampleMatrix() {
	var files []results.File
	for _, p := range []string{"testdata/kvm-amd-zen5-run.json", "testdata/kvm-amd-zen4-run.json", "testdata/synthetic-arm64-cntvct-nocycles-run.json"} {
		f, err := results.Read(p)
		if err != nil {
			fmt.Println(err)
			return
		}
		files = append(files, f)
	}
	opt := results.DefaultMatrixOptions()
	opt.Names = []string{"zen5", "zen4", "arm64"}
	t, err := results.Matrix(files, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range t.Rows {
		if r.Kernel != "Combine6" {
			continue
		}
		for ci, c := range r.Cells {
			fmt.Printf("%s %s: cycles/elem %.3f, ratio %.2f, ns/elem %.3f, no cycles: %v\n", r.Name, t.Columns[ci].Name, c.CyclesPerElem.Median, c.Ratio, c.NsPerElem.Median, c.NoCycles != results.HasCycles)
		}
	}
	fmt.Println(t.Verdicts[1].Text)
	// Output:
	// Combine6/n=1000 zen5: cycles/elem 0.951, ratio 1.00, ns/elem 0.254, no cycles: false
	// Combine6/n=1000 zen4: cycles/elem 1.459, ratio 1.53, ns/elem 0.396, no cycles: false
	// Combine6/n=1000 arm64: cycles/elem 0.000, ratio 0.00, ns/elem 0.355, no cycles: true
	// Combine n=1000: Combine6 fastest on all 3 machines: zen5 (0.951 cycles/elem, 2.01× Combine5), zen4 (1.46 cycles/elem, 2.00× Combine5), arm64 (0.355 ns/elem, tied with Combine5: 1.01×)
}

// The table as text, for a quick look (the command line has its own
// table format).
func ExampleTable_TextRows() {
	var files []results.File
	for _, p := range []string{"testdata/kvm-amd-zen5-run.txt", "testdata/kvm-amd-zen4-run.txt"} {
		f, err := results.Read(p)
		if err != nil {
			fmt.Println(err)
			return
		}
		files = append(files, f)
	}
	t, err := results.Matrix(files, results.DefaultMatrixOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range t.TextRows()[12:] {
		fmt.Println(strings.Join(row, " | "))
	}
	// Output:
	// Combine3/n=1000 | 12038 ±0.65% | 12.04 | 11655 ±0.023% | 11.66 | 0.97×
	// Combine4/n=1000 | 1942 ±0.026% | 1.942 | 2929 ±0.28% | 2.929 | 1.51×
	// Combine5/n=1000 | 1929 ±0.017% | 1.929 | 2829 ±0.070% | 2.829 | 1.47×
	// Combine6/n=1000 | 951.6 ±0.68% | 0.9516 | 1419 ±0.10% | 1.419 | 1.49×
}

// The baseline from a command line's -baseline FILE|CPU.
func ExampleSelectBaseline() {
	files := []results.File{
		{Path: "results/kvm-amd-zen5-run.json", Machine: results.Machine{CPU: "AMD EPYC", Vendor: "AuthenticAMD", Family: 26}},
		{Path: "results/graviton3-run.json", Machine: results.Machine{CPU: "Neoverse-V1"}},
	}
	for _, sel := range []string{"", "2", "zen5", "neoverse", "EPYC", "Xeon"} {
		i, err := results.SelectBaseline(files, sel)
		fmt.Printf("%q: %d %v\n", sel, i, err != nil)
	}
	// Output:
	// "": 0 false
	// "2": 1 false
	// "zen5": 0 false
	// "neoverse": 1 false
	// "EPYC": 0 false
	// "Xeon": 0 true
}

func ExampleMachine_Label() {
	m := results.Machine{CPU: "AMD EPYC", Vendor: "AuthenticAMD", Family: 26, Hypervisor: "KVMKVMKVM", CounterHz: 2596.12e6, Counter: "rdtsc"}
	fmt.Println(m.Label())
	m = results.Machine{GOOS: "linux", GOARCH: "arm64", Counter: "cntvct", CounterHz: 25e6}
	fmt.Println(m.Label())
	// Output:
	// AMD EPYC (KVM, Zen 5 family 26) 2596 MHz rdtsc
	// unknown linux/arm64 CPU 25 MHz cntvct
}

// Pictures of the table: grouped bars for a few kernels, a heat map for
// many.
func ExampleTable_Comparison() {
	var files []results.File
	for _, p := range []string{"testdata/kvm-amd-zen5-cpe.json", "testdata/kvm-amd-zen4-cpe.json"} {
		f, err := results.Read(p)
		if err != nil {
			fmt.Println(err)
			return
		}
		files = append(files, f)
	}
	t, err := results.Matrix(files, results.DefaultMatrixOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	var fits []int // the CPE rows only
	for i, r := range t.Rows {
		if r.Fit {
			fits = append(fits, i)
		}
	}
	c, err := t.Comparison(results.MetricCyclesPerElem, fits)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(c.Groups), "groups,", len(c.Series), "machines:", plot.Compare(io.Discard, "png", c, plot.Options{Title: "CPE"}))

	h, err := t.HeatMap(results.MetricRatio, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(h.Rows), "rows:", plot.Heat(io.Discard, "svg", h, plot.Options{}))
	// Output:
	// 8 groups, 2 machines: <nil>
	// 88 rows: <nil>
}

// The whole table as plain text: two go test files, one from a machine
// whose benchmarks report cycles with harness.Report and one whose do
// not.
func ExampleTable_String() {
	a, err := results.Parse("a.txt", strings.NewReader(`cpu: Machine A
BenchmarkSum/one/n=64-2  1  50 ns/op  200 cycles/op
BenchmarkSum/four/n=64-2 1  20 ns/op   80 cycles/op
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := results.Parse("b.txt", strings.NewReader(`cpu: Machine B
BenchmarkSum/one/n=64-8  1000  40 ns/op
BenchmarkSum/four/n=64-8 1000  30 ns/op
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := results.Matrix([]results.File{a, b}, results.DefaultMatrixOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(t)
	// Output:
	// machines:
	//   a (baseline)  Machine A
	//                 a.txt (Go benchmark format)
	//   b             Machine B
	//                 b.txt (Go benchmark format)
	//
	//                     a           b
	// benchmark      cycles      cycles  ×a
	// Sum/one/n=64    200.0  (40.00 ns)   -
	// Sum/four/n=64   80.00  (30.00 ns)   -
	//
	// fastest variants:
	//   Sum n=64: four fastest on both machines: a (80.0 cycles/op, 2.50× one), b (30.0 ns/op, 1.33× one)
	//
	// notes:
	//   - cycles are estimated core cycles per call (the core-clock ruler), comparable across machines
	//     whose counters differ; ratios are cycles over the baseline's (a): below 1 is fewer cycles than a
	//   - b has no cycle figures — no cycles/op on its benchmark lines (go test without harness.Report);
	//     its cells give ns
	//   - ±N% is the farther end of a cell's spread from its median; (… ns) is a cell without cycles; *
	//     marks runs that did not converge; - a missing benchmark
}
