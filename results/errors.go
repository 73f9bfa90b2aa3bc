package results

import "errors"

// Sentinel errors. Every error the package returns wraps one of them (test
// with errors.Is); the message names the file, the line where there is one,
// and what was expected.
var (
	// ErrFormat: the input is not a result file the package reads: neither
	// cyclebench JSON (from run or cpe) nor the Go benchmark format.
	ErrFormat = errors.New("results: not a result file")
	// ErrSyntax: a result file that is malformed: bad JSON, a value of the
	// wrong type, a result without a name, a file cut short.
	ErrSyntax = errors.New("results: malformed result file")
	// ErrNoResults: a well-formed file without a single result.
	ErrNoResults = errors.New("results: no results")
	// ErrTooLarge: a file larger than 256 MiB.
	ErrTooLarge = errors.New("results: file too large")
	// ErrBadInput: arguments that do not fit: no files, a baseline index
	// out of range, a selector that matches no file or several, an unknown
	// option value.
	ErrBadInput = errors.New("results: bad input")
	// ErrIncomparable: two files that cannot be compared: the same
	// benchmark counts different element units, or shares no figure, or
	// the files have no benchmark in common.
	ErrIncomparable = errors.New("results: not comparable")
	// ErrNoSweep: files without a family of sizes to fit (Sweeps).
	ErrNoSweep = errors.New("results: no sweep to fit")

	// ErrSkippedLine (a warning in File.Warnings): a line of a benchmark
	// file that could not be read was skipped. It wraps the
	// *benchfmt.SyntaxError, which gives the file and the line.
	ErrSkippedLine = errors.New("results: line skipped")
	// ErrAbsentField (a warning in File.Warnings): fields an older version
	// of the tool did not write are absent; they read as zero, and the
	// warning says how they were taken.
	ErrAbsentField = errors.New("results: field absent")
	// ErrPartial (a warning in File.Warnings): the file says it holds
	// less than was asked for (a signal stopped the command that wrote
	// it); File.Partial says why.
	ErrPartial = errors.New("results: partial output")
	// ErrMachineChanged (a warning in File.Warnings): a benchmark file whose
	// machine configuration (cpu:, goarch:, ...) changes part-way; the
	// machine is the one of the first result.
	ErrMachineChanged = errors.New("results: machine changes within the file")
)
