package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// maxFileSize bounds what [Read] and [Parse] accept from one file: 256 MiB,
// far above any result file (a 16-kernel run is 13 kB, a cpe sweep 100 kB).
const maxFileSize = 256 << 20

// Read reads the result file at path: see [Parse]. Errors name the path.
func Read(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	return Parse(path, f)
}

// ReadFiles reads the files of a comparison, two or more, with [Read],
// and keeps the benchmarks whose name keep matches (nil keeps all). A
// file that cannot be read stops it with Read's error; with skip, it is
// left out instead, its error in skipped (a glob such as results/* that
// caught a README), and the error comes only when fewer than two files
// are left. kept lists the indices in paths of the files returned. Fewer
// than two files, or a keep that matches no benchmark in them, is an
// error wrapping [ErrBadInput].
func ReadFiles(paths []string, keep *regexp.Regexp, skip bool) (files []File, kept []int, skipped []error, err error) {
	for i, p := range paths {
		f, err := Read(p)
		if err != nil && skip {
			skipped = append(skipped, err)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if keep != nil {
			f = f.Keep(keep)
		}
		files, kept = append(files, f), append(kept, i)
	}
	if len(files) < 2 {
		why := make([]string, len(skipped))
		for i, e := range skipped {
			why[i] = "skipped a file: " + e.Error()
		}
		return nil, nil, nil, fmt.Errorf("%w: %d of the %d files given could be read as result files (want two or more; %s)",
			ErrBadInput, len(files), len(paths), strings.Join(why, "; "))
	}
	if keep != nil && !slices.ContainsFunc(files, func(f File) bool { return len(f.Entries)+len(f.Fits) > 0 }) {
		return nil, nil, nil, fmt.Errorf("%w: -bench %q matches no benchmark in the files", ErrBadInput, keep)
	}
	return files, kept, skipped, nil
}

// Parse reads one result file from r; name is the file's name in error
// messages and [File.Path]. It tells the formats apart by the first byte
// that is not blank (a UTF-8 byte-order mark is skipped): '{' is
// cyclebench JSON, anything else the Go benchmark format.
//
// JSON is a report of cyclebench run or cpe (-format json) from any
// version of the tool seen so far: fields an older version did not write
// read as zero and are listed in [File.Absent], with a warning
// ([ErrAbsentField]) that says how they were taken (a result without
// "mode" is throughput: the tool had no other mode then).
//
// The benchmark format is read with golang.org/x/perf/benchfmt: files from
// cyclebench run or cpe -format bench (their "#" lines add the exact
// counter frequency, the warnings, "# not converged" and the cpe fits) and
// from go test -bench, with harness.Report (cycles/op, ticks/op, ns/op and
// the per-element units) or without (ns/op only: the runs' NoCycles is
// NotReported). The machine comes from the configuration lines (cpu:,
// goos:, goarch:, and cyclebench's counter:, tsc-hz:, ...). A name that
// appears several times (-count) is one entry with several runs; the "-N"
// GOMAXPROCS suffix and a "/mode=latency" part are taken off the name
// ([ParseName]). A line benchfmt cannot read is skipped with a warning
// wrapping [ErrSkippedLine] and the *benchfmt.SyntaxError (file and line);
// the lines under "--- BENCH:" (go test's log of a benchmark) become the
// warnings of the run above them, and one with harness.ErrNotConverged's
// text ("harness: did not converge") marks it NotConverged.
//
// Errors wrap [ErrFormat] (neither format), [ErrSyntax] (malformed JSON, a
// value of the wrong type, a result without a name: the message gives the
// file, the line and what was expected), [ErrNoResults] or [ErrTooLarge],
// or are the reader's own error.
func Parse(name string, r io.Reader) (File, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return File{}, fmt.Errorf("results: reading %s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return File{}, fmt.Errorf("%w: %s: larger than %d MiB", ErrTooLarge, name, maxFileSize>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(t) == 0:
		return File{}, fmt.Errorf("%w: %s: the file is empty", ErrFormat, name)
	case t[0] == '{':
		f, err := parseJSON(name, data)
		if err == nil {
			readProvenance(data, &f)
		}
		return f, err
	case t[0] == '[':
		return File{}, fmt.Errorf("%w: %s:%d: a JSON array: want a cyclebench report, a JSON object with \"results\" (run) or \"kernels\" (cpe)", ErrFormat, name, lineAt(data, int64(len(data)-len(t))))
	}
	return parseBench(name, data)
}

// partialWarning adds the ErrPartial warning of a file that says it is
// partial.
func partialWarning(f *File) {
	if f.Partial != "" {
		f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s: %s", ErrPartial, f.Path, f.Partial))
	}
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
