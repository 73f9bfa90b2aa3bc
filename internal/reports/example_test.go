package reports_test

import (
	"fmt"
	"strings"

	"github.com/cyclebench/cyclebench/internal/reports"
)

// One line per problem per benchmark, whatever the number of sizes that
// had it, with its remedy (here the one logged with it; else
// harness.Remedy's).
func ExampleWarningLines() {
	lines, problems, benchmarks := reports.WarningLines([]reports.Warning{
		{Subject: "Sum1/n=400", Text: "harness: many samples discarded: 4 of 32; remedy: another CPU (-cpu)"},
		{Subject: "Sum1/n=800", Text: "harness: many samples discarded: 9 of 40; remedy: another CPU (-cpu)"},
	})
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Println(problems, benchmarks)
	// Output:
	// Sum1: harness: many samples discarded in 2 results (n=400, n=800); the first, at n=400: 4 of 32; remedy: another CPU (-cpu)
	// 1 1
}
