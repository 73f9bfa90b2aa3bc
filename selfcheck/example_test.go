package selfcheck_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/selfcheck"
)

// Validate checks the harness on chains of known latency. Without the
// testing.Benchmark comparison it takes about 2 s. (Not run as a test: the
// figures depend on the machine.)
func ExampleValidate() {
	v, err := selfcheck.Validate(context.Background(), selfcheck.Options{Config: harness.DefaultConfig(), SkipBenchmark: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range v.Checks {
		fmt.Printf("%-5v %s: %.3g %s (truth %.3g ± %.3g)\n", c.Pass, c.Name, c.Value, c.Unit, c.Truth, c.Tolerance)
	}
	fmt.Println("pass:", v.Pass)
}

// Options are checked before anything is measured; an error names the
// field and what is allowed.
func ExampleOptions() {
	_, err := selfcheck.Validate(context.Background(), selfcheck.Options{Reps: 2})
	fmt.Println(err)
	fmt.Println(errors.Is(err, harness.ErrBadConfig))
	// Output:
	// harness: bad config: reps 2 (allowed: 3 to 1000)
	// true
}

// A CI job that gates on a quiet runner asks for the spreads to be judged
// too: MaxCV makes the machine's state decide Pass. (Not run as a test.)
func ExampleValidation() {
	v, err := selfcheck.Validate(context.Background(), selfcheck.Options{Config: harness.DefaultConfig(), SkipBenchmark: true, MaxCV: 0.002})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pass:", v.Pass, "—", v.State.Verdict)
	for _, c := range v.Checks {
		if !c.Pass {
			fmt.Println("failed:", c.Name, c.Detail)
		}
	}
}

// A Check is one line of the report: the value, the truth and the
// tolerance (or a bound), and whether it states the machine's state
// rather than a truth about the tool.
func ExampleCheck() {
	c := selfcheck.Check{Name: "cycles per register ADD", Value: 1.004, Truth: 1, Tolerance: 0.03, Unit: "cycles/op", Pass: true}
	fmt.Printf("%s: %.3f %s (truth %g ± %g): pass %v\n", c.Name, c.Value, c.Unit, c.Truth, c.Tolerance, c.Pass)
	// Output:
	// cycles per register ADD: 1.004 cycles/op (truth 1 ± 0.03): pass true
}

// MachineState holds facts about the moment; Resolves is the smallest
// relative difference a comparison can tell now. (Not run as a test.)
func ExampleMachineState() {
	v, err := selfcheck.Validate(context.Background(), selfcheck.Options{Config: harness.DefaultConfig(), SkipBenchmark: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := v.State
	fmt.Printf("quiet %v: resolves %.2g%%, throughput CV %.2g%%, clock moved %.2g%%\n", s.Quiet, 100*s.Resolves, 100*s.ThroughputCV, 100*s.ClockSpread)
}
