package main

// Warnings on stderr: one line per distinct problem per benchmark, each
// with what may cure it (reports.WarningLines), and a count at the end.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/internal/reports"
)

// warnResults prints ws on stderr unless -q, summarized
// (reports.WarningLines), and, when any benchmark had a problem, how many
// problems in how many benchmarks.
func (o *out) warnResults(ws []reports.Warning) {
	lines, problems, benches := reports.WarningLines(ws)
	for _, l := range lines {
		o.warn(l)
	}
	if problems > 0 {
		o.warn(fmt.Sprintf("%d %s in %d %s, above (-q leaves warnings out)", problems, plural(float64(problems), "problem"), benches, plural(float64(benches), "benchmark")))
	}
}
