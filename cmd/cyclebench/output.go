package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
)

var resultFormats = []string{formatTable, formatBench, formatJSON, formatCSV, formatMD}

// measured is one result with what the CLI knows about where it came from.
type measured struct {
	harness.Result
	Kernel string // kernel name
	N      int    // size parameter
	Unit   string // what Elements counts
	Check  string // "ok", or why the kernel's output check failed
	bench  string // benchmark name for -format bench
	elemOK bool   // per-element figures are meaningful
	// Read from a go test run or a file (cyclebench run, cpe PACKAGE...):
	read    bool            // read, not measured here: samples, R and spread are unknown unless Samples > 0
	noTicks bool            // the run has no tick figures (go test without harness.Report)
	extra   []results.Value // other figures of its benchmark line (B/op, allocs/op, the user's own)
}

// usable reports whether a result can be used: it converged, or its K best
// samples agree within 2ε (it missed ε by less than ε).
func usable(r harness.Result) bool {
	return r.Converged || r.Samples > 0 && r.Spread < 2*r.Config.Epsilon
}

// convergedText says whether r converged: yes, nearly (usable), NO.
func convergedText(r harness.Result) shown {
	switch {
	case r.Converged:
		return shown{true, "yes"}
	case usable(r):
		return shown{false, "nearly"}
	}
	return shown{false, "NO"}
}

// cyclesCell shows a cycle figure, marked "~" when the core-clock ruler
// behind it did not converge and "?" when nothing could check it; "-"
// without cycles (a refused ruler, or none).
func cyclesCell(r harness.Result, v float64, digits int) any {
	if r.CyclesPerTick <= 0 {
		return nil
	}
	mark := ""
	if !r.ReferenceConverged {
		mark = "~"
	}
	if uncheckedRuler(r) {
		mark += "?"
	}
	if mark != "" {
		return shown{v, mark + sig(v, digits)}
	}
	return v
}

// uncheckedRuler reports a cycle figure from a ruler measured in this run
// that no second chain could check (results read from files do not say).
func uncheckedRuler(r harness.Result) bool {
	return r.CyclesPerTick > 0 && r.CyclesSource == harness.CyclesRuler && !r.CyclesChecked && r.Ruler.AddTicksPerOp > 0
}

// rulerNote is the legend of the "~" mark, uncheckedNote of the "?" mark.
const (
	rulerNote     = "~ marks cycles converted with a core-clock ruler (the register ADD chain measured alongside) that did not converge: less certain"
	uncheckedNote = "? marks cycles from a core-clock ruler that no second chain could check on this processor (see the calibration's warning)"
)

// cyclesJSON is a cycle figure for JSON: null when there is none.
func cyclesJSON(r harness.Result, v float64) *float64 {
	if r.CyclesPerTick <= 0 && r.CyclesSource != harness.CyclesPMU {
		return nil
	}
	return &v
}

// header is the context every output format carries: machine, counter and
// measuring configuration.
type header struct {
	Command       string            `json:"command"`
	CPU           string            `json:"cpu"`
	Vendor        string            `json:"vendor"`
	Family        int               `json:"family"` // CPUID family, model and stepping; 0 when unknown (arm64)
	Model         int               `json:"model"`
	Stepping      int               `json:"stepping"`
	LogicalCPUs   int               `json:"logical_cpus"` // runtime.NumCPU
	Hypervisor    string            `json:"hypervisor"`
	Counter       string            `json:"counter"`
	TSCHz         float64           `json:"tsc_hz"`
	TSCHzSource   string            `json:"tsc_hz_source"`
	TSCHzPPM      float64           `json:"tsc_hz_ppm"`
	CyclesPerTick float64           `json:"core_cycles_per_tick"`
	TSCStep       float64           `json:"tsc_step"`
	K             int               `json:"k,omitempty"`   // K-best settings: absent for go test's results,
	Epsilon       *float64          `json:"eps,omitempty"` // whose benchmarks set their own
	MaxSamples    int               `json:"m,omitempty"`
	GOOS          string            `json:"goos"`
	GOARCH        string            `json:"goarch"`
	GoVersion     string            `json:"go_version"`
	Extra         map[string]string `json:"extra,omitempty"`
	Warnings      []string          `json:"warnings"`
	// Partial, when not "", says why the output holds less than was asked
	// for (a signal stopped the command): a reader must not take it for a
	// whole run.
	Partial string `json:"partial,omitempty"`
	// modeUnknown: read from go test output, whose names do not say the
	// mode a benchmark's harness.Config set.
	modeUnknown bool
}

func newHeader(command string, cal *calibrate.Calibration, cfg harness.Config, warnings []error) header {
	h := header{
		Command: command, GOOS: sys.goos, GOARCH: sys.goarch, GoVersion: sys.goVersion,
		K: cfg.K, Epsilon: &cfg.Epsilon, MaxSamples: cfg.MaxSamples,
	}
	if cal != nil {
		h.CPU, h.Vendor, h.Hypervisor, h.Counter = cal.CPU.Brand, cal.CPU.Vendor, cal.CPU.Hypervisor, cal.CPU.Counter
		h.Family, h.Model, h.Stepping, h.LogicalCPUs = cal.CPU.Family, cal.CPU.Model, cal.CPU.Stepping, cal.CPU.LogicalCPUs
		h.TSCHz, h.TSCHzPPM = cal.Frequency.Hz, cal.Frequency.PPM
		h.TSCHzSource = cal.Frequency.Method + ": " + cal.Frequency.Source
		h.CyclesPerTick, h.TSCStep = cal.Core.CyclesPerTick, cal.Step.Step
	}
	h.Warnings = errorStrings(warnings)
	return h
}

// line is the one-line summary of h above a text table. A header read
// from a go test run, which records the CPU only, leaves out the counter
// and the settings.
func (h header) line() string {
	s := "cpu: " + orDash(h.CPU)
	if h.Counter != "" || h.TSCHz > 0 {
		s += fmt.Sprintf("  counter: %s at %s", h.Counter, formatHz(h.TSCHz))
	}
	if h.K > 0 && h.Epsilon != nil {
		s += fmt.Sprintf("  k=%d eps=%g m=%d", h.K, *h.Epsilon, h.MaxSamples)
	}
	if p := h.Extra["pkg"]; p != "" {
		s += "  pkg: " + p
	}
	return s
}

// partialLine is the line a text output starts with when it is partial
// (with its newline), "" when it is whole.
func (h header) partialLine() string {
	if h.Partial == "" {
		return ""
	}
	return "PARTIAL: " + h.Partial + "\n"
}

// writeResults writes rs in format to w.
func writeResults(w io.Writer, format string, h header, rs []measured) error {
	h, rs = withCommonWarningsHoisted(h, rs)
	switch format {
	case formatBench:
		return writeResultBench(w, h, rs)
	case formatJSON:
		return writeResultJSON(w, h, rs)
	case formatCSV:
		return resultTable(h, rs).writeCSV(w)
	}
	modes := resultModes(rs)
	d := newDoc(format)
	line := h.partialLine() + h.line()
	if len(modes) == 1 && !h.modeUnknown {
		line += "  mode: " + modes[0].String()
	}
	d.line(line)
	t := resultTable(h, rs)
	if len(modes) > 1 {
		t = bothModesTable(rs)
	}
	if err := d.table(t); err != nil {
		return err
	}
	return d.writeTo(w)
}

// resultWarnings lists every warning of a run for stderr: the header's,
// then each result's, named.
func resultWarnings(h header, rs []measured) []warning {
	h, rs = withCommonWarningsHoisted(h, rs)
	var ws []warning
	for _, w := range h.Warnings {
		ws = append(ws, warning{text: w})
	}
	ruler, unchecked := false, false
	for _, r := range rs {
		subject := r.Name
		if r.Mode == harness.Latency {
			subject += " (latency)"
		}
		if r.Check != "" && r.Check != "ok" {
			ws = append(ws, warning{subject, "output check failed: " + r.Check})
		}
		for _, w := range r.Warnings {
			ws = append(ws, warning{subject, w.Error()})
		}
		ruler = ruler || r.CyclesPerTick > 0 && !r.ReferenceConverged
		unchecked = unchecked || uncheckedRuler(r.Result)
	}
	if ruler {
		ws = append(ws, warning{text: rulerNote})
	}
	if unchecked {
		ws = append(ws, warning{text: uncheckedNote})
	}
	return ws
}

// resultTable is the table of results: one row per result; the text
// rendering shows the main figures, CSV every column.
func resultTable(h header, rs []measured) *table {
	t := &table{cols: []col{
		{name: "name", left: true}, {name: "mode", csv: true}, {name: "kernel", csv: true}, {name: "n", csv: true},
		{name: "cycles"}, {name: "ticks"}, {name: "ns"},
		{name: "elements", csv: true}, {name: "cycles/elem", key: "cycles_per_element", digits: 4},
		{name: "ticks_per_element", csv: true}, {name: "ns_per_element", csv: true},
		{name: "unit", left: true}, {name: "R", key: "repeat"}, {name: "samples"}, {name: "discarded"},
		{name: "cs/mig/pf", key: "-"}, {name: "disturbed_context_switches", csv: true},
		{name: "disturbed_migrations", csv: true}, {name: "disturbed_page_faults", csv: true},
		{name: "spread", digits: 3}, {name: "converged", left: true}, {name: "usable", csv: true},
		{name: "overhead_ticks", csv: true}, {name: "core_cycles_per_tick", csv: true}, {name: "ruler_converged", csv: true},
		{name: "cycles_source", csv: true}, {name: "tsc_hz", csv: true}, {name: "cpu", csv: true},
	}}
	// One column per extra event counted (Config.Events), when any was.
	events := counterEvents(rs)
	for _, ev := range events {
		t.cols = append(t.cols, col{name: ev + "/op", key: strings.ReplaceAll(ev, "-", "_") + "_per_op"})
	}
	t.cols = append(t.cols, col{name: "check", csv: true}, col{name: "warnings", csv: true})
	if len(rs) == 0 && len(h.Warnings) > 0 {
		// No result to carry them: one row with only the warnings, so that
		// a run interrupted before its first result still says why.
		row := make([]any, len(t.cols))
		row[len(row)-1] = strings.Join(h.Warnings, "\n")
		t.add(row...)
	}
	for _, r := range rs {
		var epc, tpe, npe, elems any
		if r.elemOK {
			elems, epc, tpe, npe = r.Elements, cyclesCell(r.Result, r.CyclesPerElement, 4), r.TicksPerElement, r.NsPerElement
		}
		var ticks any = r.Ticks
		if r.noTicks {
			ticks, tpe = nil, nil
		}
		var repeat, samples, discarded, spread any = r.Repeat, r.Samples, r.Discarded, spreadCell(r.Spread)
		if r.read && r.Samples == 0 { // a go test line does not say
			repeat, samples, discarded, spread = nil, nil, nil, nil
		}
		// The warnings cell holds one warning per line (a quoted CSV field
		// may contain newlines; warnings themselves are single lines).
		warn := strings.Join(append(slices.Clone(h.Warnings), errorStrings(r.Warnings)...), "\n")
		d := r.Disturbed
		var dist any // "-" where the software events could not be read
		if d.Monitored {
			dist = fmt.Sprintf("%d/%d/%d", d.ContextSwitches, d.Migrations, d.PageFaults)
		}
		row := []any{r.Name, r.Mode.String(), r.Kernel, r.N,
			cyclesCell(r.Result, r.Cycles, 6), ticks, r.Nanoseconds,
			elems, epc, tpe, npe,
			orDash(r.Unit), repeat, samples, discarded,
			dist, d.ContextSwitches, d.Migrations, d.PageFaults,
			spread, convergedText(r.Result), usable(r.Result),
			r.OverheadTicks, r.CyclesPerTick, r.ReferenceConverged,
			r.CyclesSource, r.TicksPerSecond, r.CPU}
		for _, ev := range events {
			var v any
			if c, ok := r.CounterValue(ev); ok {
				v = c
			}
			row = append(row, v)
		}
		t.add(append(row, r.Check, warn)...)
	}
	return t
}

// counterEvents lists the extra events any result counted, in order.
func counterEvents(rs []measured) []string {
	var evs []string
	for _, r := range rs {
		for _, c := range r.Counters {
			if !slices.Contains(evs, c.Event) {
				evs = append(evs, c.Event)
			}
		}
	}
	return evs
}

// spreadCell shows a K-best spread as a percentage ("-" before K samples).
func spreadCell(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return shown{v, pct(v, 3)}
}

// resultModes lists the modes of rs in the order they first appear.
func resultModes(rs []measured) []harness.Mode {
	var modes []harness.Mode
	for _, r := range rs {
		if !slices.Contains(modes, r.Mode) {
			modes = append(modes, r.Mode)
		}
	}
	return modes
}

// bothModesTable lays out results of both modes side by side: one row per
// kernel (and repetition), each figure in a throughput and a latency
// column. A result without its partner (an interrupted run) leaves the
// other columns "-".
func bothModesTable(rs []measured) *table {
	t := &table{cols: []col{{name: "name", left: true}, {name: "cycles thru"}, {name: "cycles lat"}, {name: "ticks thru"}, {name: "ticks lat"},
		{name: "ns thru"}, {name: "ns lat"}, {name: "cycles/elem thru", digits: 4}, {name: "cycles/elem lat", digits: 4}, {name: "unit", left: true}, {name: "converged", left: true}}}
	for i := 0; i < len(rs); i++ {
		var side [2]*measured // throughput, latency
		side[rs[i].Mode] = &rs[i]
		if i+1 < len(rs) && rs[i+1].Name == rs[i].Name && rs[i+1].Mode != rs[i].Mode {
			side[rs[i+1].Mode] = &rs[i+1]
			i++
		}
		row := []any{rs[i].Name}
		for _, f := range []func(r *measured) any{
			func(r *measured) any { return cyclesCell(r.Result, r.Cycles, 6) },
			func(r *measured) any { return r.Ticks },
			func(r *measured) any { return r.Nanoseconds },
			func(r *measured) any {
				if !r.elemOK {
					return nil
				}
				return cyclesCell(r.Result, r.CyclesPerElement, 4)
			},
		} {
			for _, r := range side {
				if r == nil {
					row = append(row, nil)
				} else {
					row = append(row, f(r))
				}
			}
		}
		conv := []string{"-", "-"}
		for j, r := range side {
			if r != nil {
				conv[j] = convergedText(r.Result).text
			}
		}
		row = append(row, orDash(rs[i].Unit), conv[0]+"/"+conv[1])
		t.add(row...)
	}
	return t
}

// benchConfig is the file-level configuration written before the results
// in the Go benchmark format. benchstat splits its tables by every file
// configuration key whose value differs between files, so only what
// identifies the machine and the settings goes here, nothing measured:
// the counter frequency and core cycles per tick follow as "#" lines,
// which benchfmt readers skip.
func benchConfig(h header) [][2]string {
	id := func(v int) string { // 0 is unknown: no line
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	kv := [][2]string{
		{"goos", h.GOOS}, {"goarch", h.GOARCH}, {"cpu", h.CPU}, {"vendor", h.Vendor},
		{"family", id(h.Family)}, {"model", id(h.Model)}, {"stepping", id(h.Stepping)}, {"logical-cpus", id(h.LogicalCPUs)},
		{"hypervisor", h.Hypervisor}, {"counter", h.Counter},
		{"k", strconv.Itoa(h.K)}, {"eps", epsText(h.Epsilon)},
		{"m", strconv.Itoa(h.MaxSamples)}, {"go", h.GoVersion},
	}
	if h.K == 0 { // read from go test output: the settings are the benchmark's, not recorded
		kv = slices.DeleteFunc(kv, func(p [2]string) bool { return p[0] == "k" || p[0] == "eps" || p[0] == "m" })
	}
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

// epsText is ε for a configuration line, "" when unknown.
func epsText(eps *float64) string {
	if eps == nil {
		return ""
	}
	return strconv.FormatFloat(*eps, 'g', -1, 64)
}

// benchValue formats a value of a benchmark line as go test does: at most
// 6 significant digits, never an exponent.
func benchValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return sig(v, 6)
}

// writeResultBench writes the Go benchmark format, which benchstat reads
// (and package benchfmt, whose reader the tests use): configuration lines,
// the measured calibration as "#" lines, one line per result with its
// figures in ticks/op, ns/op, cycles/op and per element. Warnings and
// non-convergence are "#" lines too.
func writeResultBench(w io.Writer, h header, rs []measured) error {
	var b strings.Builder
	for _, kv := range benchConfig(h) {
		fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
	}
	if h.TSCHz > 0 { // not in a header read from go test output
		fmt.Fprintf(&b, "# tsc-hz measured: %.0f Hz ± %s ppm (%s)\n", h.TSCHz, sig(h.TSCHzPPM, 3), h.TSCHzSource)
		if h.CyclesPerTick > 0 {
			fmt.Fprintf(&b, "# core-cycles-per-tick measured: %s (the ruler of each result, a register ADD chain checked by an IMUL chain, is in -format json)\n", sig(h.CyclesPerTick, 6))
		} else {
			fmt.Fprintf(&b, "# core-cycles-per-tick: none (the calibration's ruler was refused; see the warnings): no cycles/op\n")
		}
		fmt.Fprintf(&b, "# tsc-step: %s ticks\n", sig(h.TSCStep, 4))
	}
	if h.Partial != "" {
		fmt.Fprintf(&b, "# partial: %s\n", h.Partial)
	}
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", wr)
	}
	for _, r := range rs {
		iters := int64(r.Samples * r.Repeat)
		if iters == 0 { // read from go test: its iteration count
			iters = r.Calls
		}
		fmt.Fprintf(&b, "Benchmark%s\t%d", r.bench, max(1, iters))
		if !r.noTicks {
			fmt.Fprintf(&b, "\t%s ticks/op", benchValue(r.Ticks))
		}
		fmt.Fprintf(&b, "\t%s ns/op", benchValue(r.Nanoseconds))
		if r.CyclesPerTick > 0 {
			fmt.Fprintf(&b, "\t%s cycles/op", benchValue(r.Cycles))
		}
		if r.elemOK {
			if !r.noTicks {
				fmt.Fprintf(&b, "\t%s ticks/elem", benchValue(r.TicksPerElement))
			}
			fmt.Fprintf(&b, "\t%s ns/elem", benchValue(r.NsPerElement))
			if r.CyclesPerTick > 0 {
				fmt.Fprintf(&b, "\t%s cycles/elem", benchValue(r.CyclesPerElement))
			}
		}
		for _, v := range r.extra {
			fmt.Fprintf(&b, "\t%s %s", benchValue(v.Value), v.Unit)
		}
		b.WriteString("\n")
		if !r.Converged {
			fmt.Fprintf(&b, "# not converged: %s after %d samples (spread %s, %s)\n", r.Name, r.Samples, pct(nanToZero(r.Spread), 3), map[bool]string{true: "usable", false: "unusable"}[usable(r.Result)])
		}
		if r.CyclesPerTick > 0 && !r.ReferenceConverged {
			fmt.Fprintf(&b, "# %s: cycles from a core-clock ruler that did not converge\n", r.Name)
		}
		if r.Check != "" && r.Check != "ok" {
			fmt.Fprintf(&b, "# error: %s: output check failed: %s\n", r.Name, r.Check)
		}
		for _, wr := range r.Warnings {
			fmt.Fprintf(&b, "# warning: %s: %v\n", r.Name, wr)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonResult struct {
	Name             string    `json:"name"`
	Mode             string    `json:"mode"`
	Kernel           string    `json:"kernel,omitempty"`
	N                int       `json:"n,omitempty"`
	Unit             string    `json:"unit,omitempty"`
	Cycles           *float64  `json:"cycles"` // null when there is no cycle figure
	CyclesChecked    bool      `json:"cycles_checked"`
	Ticks            float64   `json:"ticks"`
	Nanoseconds      float64   `json:"ns"`
	Elements         float64   `json:"elements,omitempty"`
	CyclesPerElement *float64  `json:"cycles_per_element,omitempty"`
	TicksPerElement  float64   `json:"ticks_per_element,omitempty"`
	NsPerElement     float64   `json:"ns_per_element,omitempty"`
	Converged        bool      `json:"converged"`
	Usable           bool      `json:"usable"`
	Samples          int       `json:"samples"`
	Discarded        int       `json:"discarded"`
	Repeat           int       `json:"repeat"`
	Best             []float64 `json:"best_ticks"`
	Spread           float64   `json:"spread"`
	OverheadTicks    float64   `json:"overhead_ticks"`
	CyclesPerTick    float64   `json:"core_cycles_per_tick"`
	RulerConverged   bool      `json:"ruler_converged"`
	CyclesSource     string    `json:"cycles_source,omitempty"`

	Disturbed      harness.Disturbances `json:"disturbed"`
	Counters       []harness.Counter    `json:"counters,omitempty"`
	QuantumTicks   float64              `json:"quantum_ticks,omitempty"`
	TicksPerSecond float64              `json:"tsc_hz"`
	CPU            int                  `json:"cpu"`
	Priority       string               `json:"priority"`
	WallSeconds    float64              `json:"wall_seconds"`
	Check          string               `json:"check,omitempty"`
	Warnings       []string             `json:"warnings"`
}

func toJSON(r measured) jsonResult {
	j := jsonResult{
		Name: r.Name, Mode: r.Mode.String(), Kernel: r.Kernel, N: r.N, Unit: r.Unit,
		Cycles: cyclesJSON(r.Result, r.Cycles), CyclesChecked: r.CyclesChecked, Ticks: r.Ticks, Nanoseconds: r.Nanoseconds,
		Converged: r.Converged, Usable: usable(r.Result), Samples: r.Samples, Discarded: r.Discarded, Repeat: r.Repeat,
		Best: r.Best, Spread: nanToZero(r.Spread), OverheadTicks: nanToZero(r.OverheadTicks),
		CyclesPerTick: r.CyclesPerTick, RulerConverged: r.ReferenceConverged, QuantumTicks: r.Quantum,
		CyclesSource: r.CyclesSource, Disturbed: r.Disturbed, Counters: r.Counters,
		TicksPerSecond: r.TicksPerSecond, CPU: r.CPU, Priority: r.Priority,
		WallSeconds: r.Wall.Seconds(), Check: r.Check, Warnings: errorStrings(r.Warnings),
	}
	if j.Best == nil {
		j.Best = []float64{}
	}
	if r.elemOK {
		j.Elements, j.CyclesPerElement, j.TicksPerElement, j.NsPerElement = r.Elements, cyclesJSON(r.Result, r.CyclesPerElement), r.TicksPerElement, r.NsPerElement
	}
	return j
}

func nanToZero(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func writeResultJSON(w io.Writer, h header, rs []measured) error {
	out := struct {
		header
		Results []jsonResult `json:"results"`
	}{header: h, Results: []jsonResult{}}
	for _, r := range rs {
		out.Results = append(out.Results, toJSON(r))
	}
	return writeJSON(w, out)
}

// withCommonWarningsHoisted returns a copy of rs, and of h, with the
// warnings every result carries (such as the calibration's) moved into the
// header, so that they are printed once; rs is not changed.
func withCommonWarningsHoisted(h header, rs []measured) (header, []measured) {
	h.Warnings = slices.Clone(h.Warnings)
	rs = slices.Clone(rs)
	lists := make([][]error, len(rs))
	for i := range rs {
		lists[i] = rs[i].Warnings
	}
	common := hoist(&h, lists)
	for i := range rs {
		rs[i].Warnings = common[i]
	}
	return h, rs
}

// hoist moves the warnings that every list holds into h and returns the
// lists without them (and without those h already has).
func hoist(h *header, lists [][]error) [][]error {
	inHeader := map[string]bool{}
	for _, s := range h.Warnings {
		inHeader[s] = true
	}
	if len(lists) > 0 {
		count := map[string]int{}
		for _, l := range lists {
			seen := map[string]bool{}
			for _, w := range l {
				if s := w.Error(); !seen[s] {
					seen[s] = true
					count[s]++
				}
			}
		}
		for _, w := range lists[0] {
			if s := w.Error(); count[s] == len(lists) && !inHeader[s] {
				h.Warnings = append(h.Warnings, s)
				inHeader[s] = true
			}
		}
	}
	out := make([][]error, len(lists))
	for i, l := range lists {
		for _, w := range l {
			if !inHeader[w.Error()] {
				out[i] = append(out[i], w)
			}
		}
	}
	return out
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
	f, err := createTemp(path, flag)
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
	return err
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path, so a reader (or a crash, or a signal) never sees a
// half-written file and an existing file is never left truncated; flag
// names the option in errors.
func writeFileAtomic(path, flag string, data []byte) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		// A device or a pipe (-o /dev/null, -o /dev/stdout): written in
		// place; a rename would put a regular file where it was.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		}
		return nil
	}
	f, err := createTemp(path, flag)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// createTemp opens a temporary file, mode 0644, in path's directory. A
// missing directory, a directory in the way or one that cannot be written
// is a usage error naming the flag and the path.
func createTemp(path, flag string) (*os.File, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usageErrorf("%s %s: directory %s does not exist", flag, path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErrorf("%s %s: is a directory (want a file name)", flag, path)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, usageErrorf("%s %s: cannot write in %s: %v", flag, path, dir, err)
	}
	// CreateTemp makes the file 0600; results are for others to read.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return f, nil
}
