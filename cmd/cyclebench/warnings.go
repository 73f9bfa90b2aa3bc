package main

// Warnings on stderr: one line per distinct problem per benchmark, each
// with what may cure it (results.WarningLines), and a count at the end.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/results"
)

// warnResults prints ws on stderr unless -q, summarized
// (results.WarningLines), and, when any benchmark had a problem, how many
// problems in how many benchmarks.
func (o *out) warnResults(ws []results.Warning) {
	lines, problems, benches := results.WarningLines(ws)
	for _, l := range lines {
		o.warn(l)
	}
	if problems > 0 {
		o.warn(fmt.Sprintf("%d %s in %d %s, above (-q leaves warnings out)", problems, plural(float64(problems), "problem"), benches, plural(float64(benches), "benchmark")))
	}
}
