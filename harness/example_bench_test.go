package harness_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

var sumSink int64

// sumOf returns a Target adding up n int64s with one accumulator.
func sumOf(n int) harness.Target {
	data := make([]int64, n)
	return harness.Target{Name: fmt.Sprintf("n=%d", n), Run: func() {
		var s int64
		for _, v := range data {
			s += v
		}
		sumSink = s
	}}
}

// ReportSweep belongs in a benchmark function of a _test.go file:
//
//	func BenchmarkSum(b *testing.B) {
//		harness.ReportSweep(b, harness.DefaultConfig(), []int{1000, 2000, 4000},
//			func(n int) (harness.Target, error) { return sumOf(n), nil })
//	}
//
// go test -bench Sum -count 6 then prints one line per size and run,
// BenchmarkSum/n=1000-2 ... BenchmarkSum/n=4000-2, each with cycles/op and
// cycles/elem (n elements a call, as Target.Elements is 0). Here the
// benchmark runs through testing.Benchmark so that the example is
// self-contained; the build function says when it is called: once per size
// and measurement, however often the testing package calls the
// sub-benchmark's function.
func ExampleReportSweep() {
	build := func(n int) (harness.Target, error) {
		fmt.Println("measuring n =", n)
		return sumOf(n), nil
	}
	testing.Benchmark(func(b *testing.B) {
		harness.ReportSweep(b, harness.DefaultConfig(), []int{1000, 2000, 4000}, build)
	})
	// Output:
	// measuring n = 1000
	// measuring n = 2000
	// measuring n = 4000
}

// ReportCompare measures two functions interleaved and reports B/A and
// each side's cost as benchmark figures; its 95% interval, the p-value and
// the verdict go to the log line under the result. Here A
// and B are two sizes of one function, so B/A is near 2; in a _test.go
// file the call is the body of a benchmark function:
//
//	func BenchmarkSum2000vs1000(b *testing.B) {
//		harness.ReportCompare(b, harness.DefaultConfig(), sumOf(1000), sumOf(2000), harness.CompareOptions{})
//	}
func ExampleReportCompare() {
	r := testing.Benchmark(func(b *testing.B) {
		harness.ReportCompare(b, harness.DefaultConfig(), sumOf(1000), sumOf(2000), harness.CompareOptions{})
	})
	x := r.Extra
	fmt.Println("B/A above 1:", x["ratio"] > 1)
	fmt.Println("units:", slices.Sorted(maps.Keys(x)))
	// Output:
	// B/A above 1: true
	// units: [A-cycles/op A-ticks/op B-cycles/op B-ticks/op B/op allocs/op ns/op ratio]
}
