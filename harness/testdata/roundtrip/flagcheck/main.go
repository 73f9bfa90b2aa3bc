// Command flagcheck is a program, not a test binary, that imports harness
// (and so testing) and runs Report through testing.Benchmark without
// calling testing.Init. It prints the flags registered on flag.CommandLine
// (none may be the testing package's "test." flags) and what the
// benchmarks reported; Report must not panic although the testing
// package cannot log here.
package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"testing"

	"example.com/roundtrip"
	"github.com/cyclebench/cyclebench/harness"
)

func main() {
	bad := testing.Benchmark(func(b *testing.B) { harness.Report(b, harness.Config{K: -1}, harness.Target{Run: roundtrip.Kernel}) })
	fmt.Println("bad config: N", bad.N)
	good := testing.Benchmark(func(b *testing.B) { harness.Report(b, harness.DefaultConfig(), harness.Target{Run: roundtrip.Kernel}) })
	fmt.Println("kernel: units", slices.Sorted(maps.Keys(good.Extra)))
	flag.CommandLine.VisitAll(func(f *flag.Flag) { fmt.Println("flag", f.Name) })
	fmt.Println("done")
}
