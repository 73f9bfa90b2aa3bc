package results

// Writing the Go benchmark format, which benchstat reads (and this
// package's reader, parseBench). The pieces live beside their types:
// Measurement.Values and Header.BenchConfig in measurement.go,
// Table.WriteBench in table_text.go.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
)

// idText is a CPUID number for a configuration line: "" (no line) for 0,
// unknown.
func idText(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// WriteBench writes ms under h in the Go benchmark format: configuration
// lines, the measured calibration as "#" lines, one line per measurement
// with its [Measurement.Values] (the iteration count is the calls timed),
// and warnings, non-convergence and failed output checks as "#" lines.
// Values are written as go test does: at most 6 significant digits, never
// an exponent.
func WriteBench(w io.Writer, h Header, ms []Measurement) error {
	var b strings.Builder
	writeConfig(&b, h)
	if h.TSCHz > 0 { // not in a header read from go test output
		fmt.Fprintf(&b, "# tsc-hz measured: %.0f Hz ± %s ppm (%s)\n", h.TSCHz, sigfig.Sig(h.TSCHzPPM, 3), h.TSCHzSource)
		if h.CyclesPerTick > 0 {
			fmt.Fprintf(&b, "# core-cycles-per-tick measured: %s (the ruler of each result, a register ADD chain checked by an IMUL chain, is in -format json)\n", sigfig.Sig(h.CyclesPerTick, 6))
		} else {
			fmt.Fprintf(&b, "# core-cycles-per-tick: none (the calibration's ruler was refused; see the warnings): no cycles/op\n")
		}
		fmt.Fprintf(&b, "# tsc-step: %s ticks\n", sigfig.Sig(h.TSCStep, 4))
	}
	if h.Partial != "" {
		fmt.Fprintf(&b, "# partial: %s\n", h.Partial)
	}
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", wr)
	}
	for _, m := range ms {
		iters := int64(m.Samples * m.Repeat)
		if iters == 0 { // read from go test: its iteration count
			iters = m.Calls
		}
		fmt.Fprintf(&b, "Benchmark%s\t%d", m.Bench, max(1, iters))
		for _, v := range m.Values() {
			fmt.Fprintf(&b, "\t%s %s", benchValue(v.Value), v.Unit)
		}
		b.WriteString("\n")
		if !m.Converged {
			fmt.Fprintf(&b, "# not converged: %s after %d samples (spread %s, %s)\n", m.Name, m.Samples, sigfig.Percent(finiteOr0(m.Spread), 3), map[bool]string{true: "usable", false: "unusable"}[Usable(m.Result)])
		}
		if m.CyclesPerTick > 0 && !m.ReferenceConverged {
			fmt.Fprintf(&b, "# %s%s\n", m.Name, rulerLine)
		}
		if m.Check != "" && m.Check != "ok" {
			fmt.Fprintf(&b, "# error: %s: output check failed: %s\n", m.Name, m.Check)
		}
		for _, wr := range m.Warnings {
			fmt.Fprintf(&b, "# warning: %s: %v\n", m.Name, wr)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// goTestKeys are the configuration keys go test writes. Results read
// from go test output are written back with these alone as configuration
// lines: benchstat puts results under separate tables wherever a file
// configuration key differs (a key one file lacks included), so any other
// key would keep it from comparing go test's file with cyclebench's.
var goTestKeys = []string{"goos", "goarch", "pkg", "cpu"}

// writeConfig writes h's configuration lines ([Header.BenchConfig]); for
// results read from go test output (h.ModeUnknown), the keys go test does
// not write follow as "# KEY: VALUE" lines, which the reader takes back
// (machineComments) and benchstat skips.
func writeConfig(b *strings.Builder, h Header) {
	var comments [][2]string
	for _, kv := range h.BenchConfig() {
		if h.ModeUnknown && !slices.Contains(goTestKeys, kv[0]) {
			comments = append(comments, kv)
			continue
		}
		fmt.Fprintf(b, "%s: %s\n", kv[0], kv[1])
	}
	for _, kv := range comments {
		fmt.Fprintf(b, "# %s: %s\n", kv[0], kv[1])
	}
}

// rulerLine ends the benchmark format's line that says a run's cycles
// come from a core-clock ruler that did not converge; rulerWarning is
// harness's warning that says so in go test output.
const (
	rulerLine    = ": cycles from a core-clock ruler that did not converge"
	rulerWarning = "the reference chain did not converge"
)

// benchValue formats a value of a benchmark line as go test does: at most
// 6 significant digits, never an exponent.
func benchValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return sigfig.Sig(v, 6)
}
