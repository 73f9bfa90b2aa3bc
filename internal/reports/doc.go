// Package reports holds what cyclebench's subcommands print beyond the
// figures of a result file: the JSON envelopes and text lines of info and
// calibrate (machine.go), clocks (clocks.go, its text and CSV in
// clocks_table.go) and version (version.go), the reports of comparisons
// measured in this process (live.go), the table of a run's results with
// the marks on its figures (results.go), cpe's sweeps as text and CSV
// (cpe.go), a matrix of files as markdown and CSV (matrix.go), go test
// runs' comparisons as text and CSV (paired.go), and the warnings of a
// report summarized for a person (warnings.go).
//
// Result files themselves (their model, formats and analysis) are
// package results; this package only shapes a command's own output, so it
// may import the packages whose state it reports (calibrate, affinity,
// perfevent, lab, harness). It is a package rather than part of the
// command so that other programs of this module (bench/peers) can read
// the same JSON with the same types.
package reports
