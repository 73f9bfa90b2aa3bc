package main

import (
	"io"

	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

var resultFormats = []string{formatTable, formatBench, formatJSON, formatCSV, formatMD}

// convergedRule says when a result converges, as harness decides it
// (harness/converge.go, decide.go): said once for run -h and README.md,
// which readme_test.go holds to it.
const convergedRule = "with the core-clock ruler (the default), the cycle figures of the even and of the odd rounds " +
	"agree within ε (or two counter quanta), each from at least K samples; with -no-cycles, the K best samples agree within ε"

// writeResults writes rs in format to w.
func writeResults(w io.Writer, format string, h results.Header, rs []results.Measurement) error {
	h, rs = h.HoistMeasurements(rs)
	switch format {
	case formatBench:
		return results.WriteBench(w, h, rs)
	case formatJSON:
		return writeJSON(w, results.NewRunReport(h, rs))
	case formatCSV:
		return reports.ResultTable(h, rs).WriteCSV(w)
	}
	return reports.ResultsDoc(h, rs, format == formatMD).Render(w)
}
