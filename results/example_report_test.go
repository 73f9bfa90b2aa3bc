package results_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// Compare two machines' run files benchmark by benchmark: here one run
// per kernel on the Zen 5 guest against three on the Zen 4 guest, so
// there is no test between runs, and the reason says how to get one.
func ExampleCompare() {
	a, err := results.Read("testdata/kvm-amd-zen5-run.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := results.Read("testdata/kvm-amd-zen4-run-count3.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := results.Compare(a, b, stats.DefaultCompareOptions)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := c.Rows[len(c.Rows)-1]
	m := r.Metrics[0]
	fmt.Printf("%s %s: A %.1f, B %.1f, B/A %.3f, %s\n", r.Name, m.Unit, m.A, m.B, m.Ratio, m.VerdictText())
	fmt.Println(c.Remedy())
	// Output:
	// Combine6/n=1000 cycles/op: A 951.0, B 1465.4, B/A 1.541, no test: 1 run of A (and 3 of B)
	// measure each side with several runs: cyclebench run -o FILE writes 3, or add -count N (at least 2)
}

// Read go test's output back as measurements, and write them in the
// benchmark format cyclebench writes.
func ExampleFile_Measurement() {
	f, err := results.Parse("go test output", strings.NewReader(`goos: linux
cpu: AMD EPYC
BenchmarkSum/n=1000-2   1000000000   250.1 ns/op   1.003 cycles/elem   1003 cycles/op   0.2501 ns/elem   0.7060 ticks/elem   706.0 ticks/op
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := f.Entries[0]
	m := f.Measurement(e, e.Runs[0])
	fmt.Printf("%s: %.0f cycles, %.4f cycles per tick, %s\n", m.Name, m.Cycles, m.CyclesPerTick, m.Unit)
	if err := results.WriteBench(os.Stdout, f.Header("run"), []results.Measurement{m}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Sum/n=1000: 1003 cycles, 1.4207 cycles per tick, elements
	// goos: linux
	// cpu: AMD EPYC
	// BenchmarkSum/n=1000-2	1000000000	706 ticks/op	250.1 ns/op	1003 cycles/op	0.706 ticks/elem	0.2501 ns/elem	1.003 cycles/elem
}

// A ReportCompare run read back: the ratio, its interval, the verdict
// in a sentence.
func ExamplePairedOf() {
	e := results.Entry{Name: "Sum4vsSum1", Runs: []results.Run{{Iters: 120, Other: []results.Value{{Value: 0.777, Unit: "ratio"}, {Value: 0.775, Unit: "ratio-lo"},
		{Value: 0.779, Unit: "ratio-hi"}, {Value: 1e-13, Unit: "p-value"}, {Value: 1, Unit: "significant"}}}}}
	fmt.Println(e.IsPaired(), results.PairedOf(e, e.Runs[0]).Summary)
	// Output:
	// true B ran 1.287 ± 0.004 times faster than A
}

// Two files of one machine pool into one column's runs.
func ExamplePool() {
	a, err := results.Read("testdata/kvm-amd-zen4-run-count3.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	b := a
	b.Path = "again.json"
	p, err := results.Pool([]results.File{a, b}, nil, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.Files), len(p.Files[0].Entries[0].Runs), p.Names)
	// Output:
	// 1 6 [kvm-amd-zen4-run-count3+again]
}
