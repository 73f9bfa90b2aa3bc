package results

// Writing the Go benchmark format, which benchstat reads (and this
// package's reader, parseBench): a measurement's figures with their units,
// the header as configuration lines, and the matrix as one stream.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"golang.org/x/perf/benchfmt"
)

// Values are m's figures in the units of the benchmark format, in the
// order a line gives them: ticks/op (unless NoTicks), ns/op, cycles/op
// (with a core-clock ratio), the per-element units when PerElement, then
// Other.
func (m Measurement) Values() []Value {
	cycles := m.CyclesPerTick > 0
	var vs []Value
	if !m.NoTicks {
		vs = append(vs, Value{m.Ticks, "ticks/op"})
	}
	vs = append(vs, Value{m.Nanoseconds, "ns/op"})
	if cycles {
		vs = append(vs, Value{m.Cycles, "cycles/op"})
	}
	if m.PerElement {
		if !m.NoTicks {
			vs = append(vs, Value{m.TicksPerElement, "ticks/elem"})
		}
		vs = append(vs, Value{m.NsPerElement, "ns/elem"})
		if cycles {
			vs = append(vs, Value{m.CyclesPerElement, "cycles/elem"})
		}
	}
	return append(vs, m.Other...)
}

// BenchConfig is the file-level configuration written before the results
// in the Go benchmark format, as key/value pairs, the empty ones left out.
// benchstat splits its tables by every file configuration key whose value
// differs between files, so only what identifies the machine and the
// settings goes here, nothing measured: the counter frequency and core
// cycles per tick follow as "#" lines, which benchfmt readers skip.
func (h Header) BenchConfig() [][2]string {
	kv := [][2]string{
		{"goos", h.GOOS}, {"goarch", h.GOARCH}, {"cpu", h.CPU}, {"vendor", h.Vendor},
		{"family", idText(h.Family)}, {"model", idText(h.Model)}, {"stepping", idText(h.Stepping)}, {"logical-cpus", idText(h.LogicalCPUs)},
		{"hypervisor", h.Hypervisor}, {"counter", h.Counter},
	}
	if h.K != 0 { // 0: read from go test output, whose benchmarks set their own
		eps := ""
		if h.Epsilon != nil {
			eps = strconv.FormatFloat(*h.Epsilon, 'g', -1, 64)
		}
		kv = append(kv, [2]string{"k", strconv.Itoa(h.K)}, [2]string{"eps", eps}, [2]string{"m", strconv.Itoa(h.MaxSamples)})
	}
	kv = append(kv, [2]string{"go", h.GoVersion})
	keys := make([]string, 0, len(h.Extra))
	for k := range h.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv = append(kv, [2]string{k, h.Extra[k]})
	}
	return slices.DeleteFunc(kv, func(p [2]string) bool { return p[1] == "" })
}

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
	for _, kv := range h.BenchConfig() {
		fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
	}
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

// WriteBench writes every run of files, the files t was made of (in the
// same order), as one stream in the Go benchmark format, each file's runs
// under the configuration line "machine: NAME" (its column's name) and
// its machine's own lines (cpu:, family:, ...), in cycles and ns per call
// and per element (ticks are left out: the counters' rates differ), the
// baseline first. benchstat -col machine makes the matrix of it, with its
// own statistics.
func (t *Table) WriteBench(w io.Writer, files []File) error {
	if len(files) != len(t.Columns) || t.Baseline < 0 || t.Baseline >= len(t.Columns) {
		return fmt.Errorf("%w: %d files for a table of %d columns (want the files the table was made of)", ErrBadInput, len(files), len(t.Columns))
	}
	// The baseline first: benchstat compares the other columns with the
	// first.
	order := []int{t.Baseline}
	names := []string{t.Columns[t.Baseline].Name}
	for i, c := range t.Columns {
		if i != t.Baseline {
			order, names = append(order, i), append(names, c.Name)
		}
	}
	fmt.Fprintf(w, "# cyclebench compare: %d files as one benchmark stream, each under \"machine: NAME\" (%s);\n", len(files), strings.Join(names, ", "))
	fmt.Fprintf(w, "# the matrix in benchstat: benchstat -col machine -table \"\" -filter '.unit:(cycles/op OR cycles/elem)' FILE\n")
	bw := benchfmt.NewWriter(w)
	for _, fi := range order {
		f := files[fi]
		m := f.Machine
		for _, e := range f.Entries {
			name := e.Name
			if e.Mode != Throughput {
				name += "/mode=" + e.Mode
			}
			for _, run := range e.Runs {
				r := &benchfmt.Result{Name: benchfmt.Name(name), Iters: max(1, run.Iters, run.Samples*run.Repeat)}
				for _, kv := range [][2]string{{"machine", t.Columns[fi].Name}, {"goos", m.GOOS}, {"goarch", m.GOARCH}, {"cpu", m.CPU}, {"vendor", m.Vendor},
					{"family", idText(m.Family)}, {"model", idText(m.Model)}, {"stepping", idText(m.Stepping)}, {"logical-cpus", idText(m.LogicalCPUs)},
					{"hypervisor", m.Hypervisor}, {"counter", m.Counter}, {"go", m.GoVersion}, {"pkg", e.Pkg}} {
					if kv[1] != "" {
						r.Config = append(r.Config, benchfmt.Config{Key: kv[0], Value: []byte(kv[1]), File: true})
					}
				}
				if run.NoCycles == HasCycles {
					r.Values = append(r.Values, benchfmt.Value{Value: run.Cycles, Unit: "cycles/op"})
				}
				if run.NS != 0 {
					r.Values = append(r.Values, benchfmt.Value{Value: run.NS, Unit: "ns/op"})
				}
				if run.Elements > 0 && run.NoCycles == HasCycles {
					r.Values = append(r.Values, benchfmt.Value{Value: run.CyclesPerElem, Unit: "cycles/elem"})
				}
				if run.Elements > 0 && run.NsPerElem != 0 {
					r.Values = append(r.Values, benchfmt.Value{Value: run.NsPerElem, Unit: "ns/elem"})
				}
				for _, v := range run.Other {
					r.Values = append(r.Values, benchfmt.Value{Value: v.Value, Unit: v.Unit})
				}
				if len(r.Values) == 0 {
					continue
				}
				if err := bw.Write(r); err != nil {
					return err
				}
			}
		}
	}
	var b strings.Builder
	for _, c := range t.Columns {
		if c.NoCycles != HasCycles {
			fmt.Fprintf(&b, "# %s has no cycle figures: %s\n", c.Name, c.NoCycles)
		}
	}
	if slices.ContainsFunc(t.Rows, func(r Row) bool { return r.Fit }) {
		b.WriteString("# the cpe files' fits are not benchmark lines: see -format table, json or csv\n")
	}
	for _, v := range t.Verdicts {
		fmt.Fprintf(&b, "# fastest: %s\n", v.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
