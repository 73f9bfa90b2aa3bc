package gotest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/results"
)

// Run a package's benchmarks with go test and read them as results.
func ExampleGoTest() {
	g := &gotest.GoTest{Bench: "Sum", Count: 6, Packages: []string{"./examples/sums"}}
	if err := g.Check(); err != nil {
		fmt.Println(err)
		return
	}
	f, _, err := g.Run(context.Background())
	if err != nil {
		fmt.Println(err) // a *GoTestError holds what go test printed
		return
	}
	for _, e := range f.Entries {
		if !e.IsPaired() {
			m := f.Measurement(e, e.Runs[0])
			fmt.Println(m.Name, m.Cycles, results.Usable(m.Result))
		}
	}
}

// A child process hands its results back with WriteProcessRun; the
// parent reads each with ReadProcessRun and merges them in order.
func ExampleMergeProcessRuns() {
	var pipes []bytes.Buffer
	for pid := 101; pid <= 102; pid++ { // what two children write on stdout
		m := results.Measurement{Kernel: "AddChain", N: 1000, PID: pid}
		m.Name, m.Cycles, m.Warnings = "AddChain/n=1000", 1000+float64(pid-101), []error{errors.New("harness: a warning")}
		var b bytes.Buffer
		h := results.Header{Command: "run", Warnings: []string{"calibrate: running under a hypervisor"}}
		if err := gotest.WriteProcessRun(&b, gotest.ProcessRun{PID: pid, Header: h, Measurements: []results.Measurement{m}}); err != nil {
			fmt.Println(err)
			return
		}
		pipes = append(pipes, b)
	}
	var runs []gotest.ProcessRun
	for i := range pipes {
		pr, err := gotest.ReadProcessRun(&pipes[i])
		if err != nil {
			fmt.Println(err)
			return
		}
		runs = append(runs, pr)
	}
	h, ms := gotest.MergeProcessRuns(runs)
	fmt.Println(h.Warnings)
	for _, m := range ms {
		fmt.Println(m.Name, m.Cycles, m.PID, m.Warnings)
	}
	// Output:
	// [calibrate: running under a hypervisor]
	// AddChain/n=1000 1000 101 [harness: a warning]
	// AddChain/n=1000 1001 102 [harness: a warning]
}

// With Count ≥ 2 each run is a process of its own: the test binaries are
// built once, then each is run Count times.
func ExampleGoTest_BinaryArgs() {
	g := &gotest.GoTest{Bench: "Sum4$", Count: 6, Packages: []string{"./mypkg"}}
	fmt.Println(g.Separate(), g.BuildArgs("bin"))
	fmt.Println(g.BinaryArgs())
	g.InProcess = true
	fmt.Println(g.Separate(), g.Args())
	// Output:
	// true [test -c -o bin/ ./mypkg]
	// [-test.run ^$ -test.bench Sum4$ -test.count 1 -test.paniconexit0 -test.timeout 10m0s]
	// false [test -run ^$ -bench Sum4$ -count 6 ./mypkg]
}
