package main

// This file holds the output: formats, results on stdout or -o FILE
// (written atomically), diagnostics on stderr, and formatting helpers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/cyclebench/cyclebench/internal/atomicfile"

	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/internal/sigfig"
)

// Output formats.
const (
	formatTable = "table"
	formatBench = "bench"
	formatJSON  = "json"
	formatCSV   = "csv"
	formatMD    = "md"
)

// formatOfPath is the output format -o FILE's extension asks for among
// allowed: .json, .csv, .md, and .txt or .bench for the Go benchmark format
// (go test -bench > old.txt is the convention benchstat users know); ""
// without an extension, or for .txt where the subcommand writes no
// benchmark format (then -format's default, text, stays). Any other
// extension, or one of a format the subcommand does not write, is a
// *usageError naming the extensions it knows: a file named out.xyz must
// not silently get a table.
func formatOfPath(path string, allowed []string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	var f string
	switch ext {
	case "":
		return "", nil
	case ".json":
		f = formatJSON
	case ".csv":
		f = formatCSV
	case ".md", ".markdown":
		f = formatMD
	case ".txt", ".bench":
		f = formatBench
	}
	switch {
	case slices.Contains(allowed, f):
		return f, nil
	case ext == ".txt":
		return "", nil
	}
	return "", usageErrorf("-o %s: the extension %q names no format this subcommand writes (%s; or give -format %s)",
		path, filepath.Ext(path), strings.Join(extensions(allowed), ", "), strings.Join(allowed, "|"))
}

// extensions lists the extensions of -o that pick one of formats.
func extensions(formats []string) []string {
	var ext []string
	for _, e := range []struct{ ext, format string }{{".json", formatJSON}, {".csv", formatCSV}, {".txt", formatBench}, {".bench", formatBench}, {".md", formatMD}} {
		if slices.Contains(formats, e.format) || e.ext == ".txt" {
			ext = append(ext, e.ext)
		}
	}
	return ext
}

// out is where a subcommand's output goes: results to stdout or to -o
// FILE (atomically) in -format, warnings and notes to stderr unless -q,
// progress to stderr when it is a terminal.
type out struct {
	stdout, stderr io.Writer
	format, path   string
	quiet, strict  bool
}

// addOutputFlags defines -format (one of formats, the first the default)
// with -json as its synonym, -o and -q; withStrict adds -strict.
func addOutputFlags(fs *flagSet, stdout, stderr io.Writer, withStrict bool, formats ...string) *out {
	o := &out{stdout: stdout, stderr: stderr, format: formats[0]}
	fs.Var(&choiceValue{value: &o.format, allowed: formats}, "format", "output format")
	fs.BoolFunc("json", "the same as -format json", func(v string) error {
		on, err := strconv.ParseBool(v)
		if on {
			o.format = formatJSON
		}
		if err != nil {
			return errors.New("want true or false")
		}
		return nil
	})
	fs.StringVar(&o.path, "o", "", outUsage(formats))
	fs.BoolVar(&o.quiet, "q", false, "quiet: no warnings, progress or \"wrote FILE\" on stderr (errors and the failure summary remain)")
	if withStrict {
		fs.BoolVar(&o.strict, "strict", false, "exit 1 when any result did not converge or was measured on a shared core (and, where this\nprocess measures, give the latter no cycle figure)")
		fs.exits = exitsMeasure
	}
	fs.after = append(fs.after, func() error {
		if o.path == "" || given(fs, "format", "json") != "" {
			return nil
		}
		f, err := formatOfPath(o.path, formats)
		if f != "" {
			o.format = f
		}
		return err
	})
	return o
}

// outUsage is -o's help: what the file's extension selects among formats.
func outUsage(formats []string) string {
	var ext []string
	for _, e := range []struct{ what, format string }{{".json JSON", formatJSON}, {".csv CSV", formatCSV},
		{".txt or .bench the Go benchmark format", formatBench}, {".md markdown", formatMD}} {
		if slices.Contains(formats, e.format) {
			ext = append(ext, e.what)
		}
	}
	return "write the results to `FILE` (atomically: a reader never sees half of it) instead of stdout;\n" +
		"unless -format is given, the extension picks the format: " + strings.Join(ext, ", ")
}

// check fails on a bad -o path before anything is measured.
func (o *out) check() error { return checkWritable(o.path, "-o") }

// warn prints a warning on stderr unless -q.
func (o *out) warn(msg string) {
	if !o.quiet {
		fmt.Fprintf(o.stderr, "warning: %s\n", msg)
	}
}

// warnAll prints each warning once, in order.
func (o *out) warnAll(msgs []string) {
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			o.warn(m)
		}
	}
}

// warnResults prints ws on stderr unless -q, summarized
// (reports.WarningLines), each benchmark's line cut short (reports.ShortLine), and,
// when any benchmark had a problem, how many problems in how many
// benchmarks.
func (o *out) warnResults(ws []reports.Warning) {
	lines, problems, benches := reports.WarningLines(ws)
	for i, l := range lines {
		if i >= len(lines)-problems { // a benchmark's, after the run's own
			l = reports.ShortLine(l, reports.WarningDetail)
		}
		o.warn(l)
	}
	if problems > 0 {
		o.warn(fmt.Sprintf("%d %s in %d %s, above (-q leaves warnings out; -format json has them in full)", problems, plural(float64(problems), "problem"), benches, plural(float64(benches), "benchmark")))
	}
}

// note prints a line on stderr unless -q.
func (o *out) note(format string, args ...any) {
	if !o.quiet {
		fmt.Fprintf(o.stderr, format+"\n", args...)
	}
}

// emit renders the results and writes them to stdout, or atomically to -o
// FILE (then says "wrote FILE" on stderr).
func (o *out) emit(render func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if o.path == "" {
		_, err := o.stdout.Write(b.Bytes())
		return err
	}
	if err := writeFileAtomic(o.path, "-o", b.Bytes()); err != nil {
		return err
	}
	o.note("wrote %s", o.path)
	return nil
}

// emitReport emits v as JSON, or the table t lays it out in as text or CSV.
func (o *out) emitReport(v any, t func() *table) error {
	return o.emit(func(w io.Writer) error {
		if o.format == formatJSON {
			return writeJSON(w, v)
		}
		return t().Write(w, o.format)
	})
}

// report is the ending of a subcommand that writes one report: v as JSON
// or the table t lays it out in, then its warnings, then the exit status
// (a signal's, or success).
func (s *session) report(v any, t func() *table, warnings []string) error {
	if err := s.o.emitReport(v, t); err != nil {
		return err
	}
	s.o.warnAll(warnings)
	return s.o.status(s.in, "")
}

// where says where the results went, for a summary line.
func (o *out) where() string {
	if o.path != "" {
		return "results in " + o.path
	}
	return "results on stdout"
}

// status is a subcommand's last word: the signal's exit status after an
// interrupt, status 1 with the summary line when failed is not "", nil
// otherwise.
func (o *out) status(in *interrupt, failed string) error {
	if code := in.exitCode(); code != 0 {
		return &exitError{code: code, msg: fmt.Sprintf("interrupted by %s; what was measured so far is written (%s)", in.signal(), o.where())}
	}
	if failed != "" {
		return &exitError{code: exitFailure, msg: failed + "; " + o.where()}
	}
	return nil
}

// checkWritable fails when a file cannot be written at path (given by
// flag), before anything is measured; "" is fine.
func checkWritable(path, flag string) error {
	if path == "" {
		return nil
	}
	// A SIGINT or SIGTERM while the probe file exists would leave it
	// behind: hold signals for that moment and raise them again after.
	held := make(chan os.Signal, 2)
	signal.Notify(held, os.Interrupt, syscall.SIGTERM)
	f, err := atomicfile.CreateTemp(path)
	if err == nil {
		f.Close()
		os.Remove(f.Name())
	}
	signal.Stop(held)
	select {
	case s := <-held:
		if p, perr := os.FindProcess(os.Getpid()); perr == nil {
			_ = p.Signal(s) // as if it came now (not possible on Windows: then it is lost)
		}
	default:
	}
	return fileError(flag, err)
}

// writeFileAtomic writes data to path atomically (atomicfile.WriteFile);
// flag names the option in errors.
func writeFileAtomic(path, flag string, data []byte) error {
	return fileError(flag, atomicfile.WriteFile(path, data))
}

// fileError is err of atomicfile.WriteFile or CreateTemp after flag: a
// *usageError for bad input.
func fileError(flag string, err error) error {
	if errors.Is(err, atomicfile.ErrBadPath) {
		return inputError(flag+" ", err)
	}
	if err != nil {
		return fmt.Errorf("%s %w", flag, libError(err))
	}
	return nil
}

// writeJSON writes v as one indented JSON object followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// yesNo formats a boolean for the human tables.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// plural is word, with an s unless n is 1.
func plural(n float64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// sig is results.Sig, the figures of every rendering: 0.0239, 2.98, 237.
func sig(v float64, digits int) string { return sigfig.Sig(v, digits) }

// pct formats a fraction as a percentage with digits significant digits.
func pct(v float64, digits int) string { return sig(v*100, digits) + "%" }
