package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"golang.org/x/perf/benchfmt"
)

// Output formats shared by the measuring subcommands.
const (
	formatTable = "table"
	formatBench = "bench"
	formatJSON  = "json"
	formatCSV   = "csv"
)

var resultFormats = []string{formatTable, formatBench, formatJSON, formatCSV}

// measured is one result with what the CLI knows about where it came from.
type measured struct {
	harness.Result
	Kernel string // kernel name
	N      int    // size parameter
	Unit   string // what Elements counts
	Check  string // "ok", or why the kernel's output check failed
	bench  string // benchmark name for -format bench
	elemOK bool   // per-element figures are meaningful
}

// header is the context every output format carries: machine, counter and
// measuring configuration.
type header struct {
	Command       string            `json:"command"`
	CPU           string            `json:"cpu"`
	Vendor        string            `json:"vendor"`
	Hypervisor    string            `json:"hypervisor"`
	Counter       string            `json:"counter"`
	TSCHz         float64           `json:"tsc_hz"`
	TSCHzSource   string            `json:"tsc_hz_source"`
	TSCHzPPM      float64           `json:"tsc_hz_ppm"`
	CyclesPerTick float64           `json:"core_cycles_per_tick"`
	TSCStep       float64           `json:"tsc_step"`
	K             int               `json:"k"`
	Epsilon       float64           `json:"eps"`
	MaxSamples    int               `json:"m"`
	GOOS          string            `json:"goos"`
	GOARCH        string            `json:"goarch"`
	GoVersion     string            `json:"go_version"`
	Extra         map[string]string `json:"extra,omitempty"`
	Warnings      []string          `json:"warnings"`
}

func newHeader(command string, cal *calibrate.Calibration, cfg harness.Config, warnings []error) header {
	h := header{
		Command: command, GOOS: sys.goos, GOARCH: sys.goarch, GoVersion: sys.goVersion,
		K: cfg.K, Epsilon: cfg.Epsilon, MaxSamples: cfg.MaxSamples,
	}
	if h.K == 0 {
		h.K = harness.DefaultK
	}
	if h.Epsilon == 0 {
		h.Epsilon = harness.DefaultEpsilon
	}
	if h.MaxSamples == 0 {
		h.MaxSamples = harness.DefaultMaxSamples
	}
	if cal != nil {
		h.CPU, h.Vendor, h.Hypervisor, h.Counter = cal.CPU.Brand, cal.CPU.Vendor, cal.CPU.Hypervisor, cal.CPU.Counter
		h.TSCHz, h.TSCHzPPM = cal.Frequency.Hz, cal.Frequency.PPM
		h.TSCHzSource = cal.Frequency.Method + ": " + cal.Frequency.Source
		h.CyclesPerTick, h.TSCStep = cal.Core.CyclesPerTick, cal.Step.Step
	}
	h.Warnings = errorStrings(warnings)
	return h
}

// writeResults writes rs in format to w.
func writeResults(w io.Writer, format string, h header, rs []measured) error {
	switch format {
	case formatTable:
		return writeResultTable(w, h, rs)
	case formatBench:
		return writeResultBench(w, h, rs)
	case formatJSON:
		return writeResultJSON(w, h, rs)
	case formatCSV:
		return writeResultCSV(w, h, rs)
	}
	return usageErrorf("-format %q: want one of %s", format, strings.Join(resultFormats, ", "))
}

func perElem(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return sig(v, 4)
}

func convergedWord(r measured) string {
	if r.Converged {
		return "yes"
	}
	return "NO"
}

func writeResultTable(w io.Writer, h header, rs []measured) error {
	var b strings.Builder
	modes := resultModes(rs)
	modeWord := ""
	if len(modes) == 1 {
		modeWord = "  mode: " + modes[0].String()
	}
	fmt.Fprintf(&b, "cpu: %s  counter: %s at %s  core: %s cycles/tick  k=%d eps=%g m=%d%s\n",
		orDash(h.CPU), h.Counter, formatHz(h.TSCHz), sig(h.CyclesPerTick, 5), h.K, h.Epsilon, h.MaxSamples, modeWord)
	var rows [][]string
	var left []bool // text columns, left-aligned
	if len(modes) > 1 {
		rows, left = bothModesRows(rs)
	} else {
		left = []bool{true, false, false, false, false, true, false, false, false, false}
		rows = [][]string{{"name", "cycles", "ticks", "ns", "cycles/elem", "unit", "R", "samples", "discarded", "converged"}}
		for _, r := range rs {
			rows = append(rows, []string{
				r.Name, sig(r.Cycles, 6), sig(r.Ticks, 6), sig(r.Nanoseconds, 6),
				perElem(r.CyclesPerElement, r.elemOK), orDash(r.Unit), strconv.Itoa(r.Repeat),
				strconv.Itoa(r.Samples), strconv.Itoa(r.Discarded), convergedWord(r),
			})
		}
	}
	writeAligned(&b, rows, left)
	for _, r := range rs {
		if r.Check != "" && r.Check != "ok" {
			fmt.Fprintf(&b, "error: %s: output check failed: %s\n", r.Name, r.Check)
		}
		for _, wr := range r.Warnings {
			fmt.Fprintf(&b, "warning: %s (%s): %v\n", r.Name, r.Mode, wr)
		}
	}
	for _, wr := range h.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wr)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// bothModesRows lays out results of both modes side by side: one row per
// kernel (and repetition), each figure in a throughput and a latency
// column. A result without its partner (an interrupted run) leaves the
// other columns "-".
func bothModesRows(rs []measured) ([][]string, []bool) {
	rows := [][]string{{"name", "cycles thru", "cycles lat", "ticks thru", "ticks lat", "ns thru", "ns lat", "cycles/elem thru", "cycles/elem lat", "unit", "converged"}}
	left := []bool{true, false, false, false, false, false, false, false, false, true, false}
	dash := measured{}
	for i := 0; i < len(rs); i++ {
		thru, lat := &rs[i], &dash
		if i+1 < len(rs) && rs[i+1].Name == rs[i].Name && rs[i+1].Mode != rs[i].Mode {
			lat = &rs[i+1]
			i++
		}
		if thru.Mode == harness.Latency {
			thru, lat = lat, thru
		}
		fig := func(r *measured, v float64) string {
			if r == &dash {
				return "-"
			}
			return sig(v, 6)
		}
		elem := func(r *measured) string {
			if r == &dash {
				return "-"
			}
			return perElem(r.CyclesPerElement, r.elemOK)
		}
		conv := func(r *measured) string {
			if r == &dash {
				return "-"
			}
			return convergedWord(*r)
		}
		name, unit := thru.Name, thru.Unit
		if thru == &dash {
			name, unit = lat.Name, lat.Unit
		}
		rows = append(rows, []string{name, fig(thru, thru.Cycles), fig(lat, lat.Cycles), fig(thru, thru.Ticks), fig(lat, lat.Ticks),
			fig(thru, thru.Nanoseconds), fig(lat, lat.Nanoseconds), elem(thru), elem(lat), orDash(unit), conv(thru) + "/" + conv(lat)})
	}
	return rows, left
}

// writeAligned writes rows as columns padded to their widest cell, text
// columns (left[i]) left-aligned and figures right-aligned.
func writeAligned(b *strings.Builder, rows [][]string, left []bool) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if left[i] {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
			if i < len(row)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// benchConfig is the file-level configuration written before the results
// in the Go benchmark format. benchstat splits its tables by every file
// configuration key whose value differs between files, so only identity
// and settings go here, with the measured figures rounded so that two runs
// on one machine agree (tsc-hz to 0.1 MHz, core-cycles-per-tick to two
// significant digits); the exact figures follow as "#" lines, which
// benchfmt readers skip.
func benchConfig(h header) []benchfmt.Config {
	kv := [][2]string{
		{"goos", h.GOOS}, {"goarch", h.GOARCH}, {"cpu", h.CPU}, {"vendor", h.Vendor},
		{"hypervisor", h.Hypervisor}, {"counter", h.Counter},
		{"tsc-hz", strconv.FormatFloat(math.Round(h.TSCHz/1e5)*1e5, 'f', 0, 64)},
		{"core-cycles-per-tick", strconv.FormatFloat(h.CyclesPerTick, 'g', 2, 64)},
		{"k", strconv.Itoa(h.K)}, {"eps", strconv.FormatFloat(h.Epsilon, 'g', -1, 64)},
		{"m", strconv.Itoa(h.MaxSamples)}, {"go", h.GoVersion},
	}
	keys := make([]string, 0, len(h.Extra))
	for k := range h.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv = append(kv, [2]string{k, h.Extra[k]})
	}
	var cfg []benchfmt.Config
	for _, p := range kv {
		if p[1] == "" || p[1] == "0" && (p[0] == "tsc-hz" || p[0] == "core-cycles-per-tick") {
			continue
		}
		cfg = append(cfg, benchfmt.Config{Key: p[0], Value: []byte(p[1]), File: true})
	}
	return cfg
}

// benchComments are the exact calibration figures of this run, written as
// "#" lines after the configuration.
func benchComments(h header) []string {
	return []string{
		fmt.Sprintf("# tsc-hz measured: %.0f Hz ± %s ppm (%s)", h.TSCHz, sig(h.TSCHzPPM, 3), h.TSCHzSource),
		fmt.Sprintf("# core-cycles-per-tick measured: %s (the ADD-chain ruler of each result is in -format json)", sig(h.CyclesPerTick, 6)),
		fmt.Sprintf("# tsc-step: %s ticks", sig(h.TSCStep, 4)),
	}
}

// writeResultBench writes the Go benchmark format through benchfmt, so
// benchstat reads it unchanged. Warnings and non-convergence are written as
// lines starting with "#", which benchfmt readers skip.
func writeResultBench(w io.Writer, h header, rs []measured) error {
	cfg := benchConfig(h)
	for _, line := range append(benchComments(h), warningComments(h.Warnings)...) {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	bw := benchfmt.NewWriter(w) // flushes every record, so "#" lines interleave correctly
	for _, r := range rs {
		res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(r.bench), Iters: max(1, r.Samples*r.Repeat)}
		res.Values = append(res.Values,
			benchfmt.Value{Value: r.Ticks, Unit: "ticks/op"},
			benchfmt.Value{Value: r.Nanoseconds, Unit: "ns/op"})
		if r.CyclesPerTick > 0 {
			res.Values = append(res.Values, benchfmt.Value{Value: r.Cycles, Unit: "cycles/op"})
		}
		if r.elemOK {
			res.Values = append(res.Values,
				benchfmt.Value{Value: r.TicksPerElement, Unit: "ticks/elem"},
				benchfmt.Value{Value: r.NsPerElement, Unit: "ns/elem"})
			if r.CyclesPerTick > 0 {
				res.Values = append(res.Values, benchfmt.Value{Value: r.CyclesPerElement, Unit: "cycles/elem"})
			}
		}
		if err := bw.Write(res); err != nil { // the configuration is written once: it does not change
			return err
		}
		if !r.Converged {
			if _, err := fmt.Fprintf(w, "# not converged: %s after %d samples (spread %.3g%%)\n", r.Name, r.Samples, r.Spread*100); err != nil {
				return err
			}
		}
		if r.Check != "" && r.Check != "ok" {
			if _, err := fmt.Fprintf(w, "# error: %s: output check failed: %s\n", r.Name, r.Check); err != nil {
				return err
			}
		}
		for _, wr := range r.Warnings {
			if _, err := fmt.Fprintf(w, "# warning: %s: %v\n", r.Name, wr); err != nil {
				return err
			}
		}
	}
	return nil
}

func warningComments(ws []string) []string {
	var out []string
	for _, w := range ws {
		out = append(out, "# warning: "+w)
	}
	return out
}

type jsonResult struct {
	Name             string    `json:"name"`
	Mode             string    `json:"mode"`
	Kernel           string    `json:"kernel,omitempty"`
	N                int       `json:"n,omitempty"`
	Unit             string    `json:"unit,omitempty"`
	Cycles           float64   `json:"cycles"`
	Ticks            float64   `json:"ticks"`
	Nanoseconds      float64   `json:"ns"`
	Elements         float64   `json:"elements,omitempty"`
	CyclesPerElement float64   `json:"cycles_per_element,omitempty"`
	TicksPerElement  float64   `json:"ticks_per_element,omitempty"`
	NsPerElement     float64   `json:"ns_per_element,omitempty"`
	Converged        bool      `json:"converged"`
	Samples          int       `json:"samples"`
	Discarded        int       `json:"discarded"`
	Repeat           int       `json:"repeat"`
	Best             []float64 `json:"best_ticks"`
	Spread           float64   `json:"spread"`
	OverheadTicks    float64   `json:"overhead_ticks"`
	CyclesPerTick    float64   `json:"core_cycles_per_tick"`
	TicksPerSecond   float64   `json:"tsc_hz"`
	CPU              int       `json:"cpu"`
	Priority         string    `json:"priority"`
	WallSeconds      float64   `json:"wall_seconds"`
	Check            string    `json:"check,omitempty"`
	Warnings         []string  `json:"warnings"`
}

func toJSON(r measured) jsonResult {
	j := jsonResult{
		Name: r.Name, Mode: r.Mode.String(), Kernel: r.Kernel, N: r.N, Unit: r.Unit,
		Cycles: r.Cycles, Ticks: r.Ticks, Nanoseconds: r.Nanoseconds,
		Converged: r.Converged, Samples: r.Samples, Discarded: r.Discarded, Repeat: r.Repeat,
		Best: r.Best, Spread: nanToZero(r.Spread), OverheadTicks: r.OverheadTicks,
		CyclesPerTick: r.CyclesPerTick, TicksPerSecond: r.TicksPerSecond, CPU: r.CPU, Priority: r.Priority,
		WallSeconds: r.Wall.Seconds(), Check: r.Check, Warnings: errorStrings(r.Warnings),
	}
	if j.Best == nil {
		j.Best = []float64{}
	}
	if r.elemOK {
		j.Elements, j.CyclesPerElement, j.TicksPerElement, j.NsPerElement = r.Elements, r.CyclesPerElement, r.TicksPerElement, r.NsPerElement
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

func writeResultCSV(w io.Writer, h header, rs []measured) error {
	cw := csv.NewWriter(w)
	// The warnings cell holds one warning per line (a quoted CSV field may
	// contain newlines; warnings themselves are single lines).
	cols := []string{"name", "mode", "kernel", "n", "unit", "cycles", "ticks", "ns", "elements", "cycles_per_element", "ticks_per_element", "ns_per_element",
		"converged", "samples", "discarded", "repeat", "overhead_ticks", "core_cycles_per_tick", "tsc_hz", "cpu", "check", "warnings"}
	if err := cw.Write(cols); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	if len(rs) == 0 && len(h.Warnings) > 0 {
		// No result to carry them: one row with only the warnings, so that
		// a run interrupted before its first result still says why.
		row := make([]string, len(cols))
		row[len(cols)-1] = strings.Join(h.Warnings, "\n")
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	for _, r := range rs {
		j := toJSON(r)
		warn := append(append([]string{}, h.Warnings...), j.Warnings...)
		if err := cw.Write([]string{j.Name, j.Mode, j.Kernel, strconv.Itoa(j.N), j.Unit, f(j.Cycles), f(j.Ticks), f(j.Nanoseconds),
			f(j.Elements), f(j.CyclesPerElement), f(j.TicksPerElement), f(j.NsPerElement),
			strconv.FormatBool(j.Converged), strconv.Itoa(j.Samples), strconv.Itoa(j.Discarded), strconv.Itoa(j.Repeat),
			f(j.OverheadTicks), f(j.CyclesPerTick), f(j.TicksPerSecond), strconv.Itoa(j.CPU), j.Check, strings.Join(warn, "\n")}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// checkOutputPath fails on a bad -o path before anything is measured.
func checkOutputPath(path string) error {
	if path == "" {
		return nil
	}
	probe, err := createAtomic(path)
	if err != nil {
		return err
	}
	probe.Abort()
	return nil
}

// atomicFile writes to a temporary file beside path and renames it over
// path on Commit, so a reader (or a crash, or a signal) never sees a
// half-written file and an existing file is never left truncated.
type atomicFile struct {
	*os.File
	path string
	done bool
}

// createAtomic opens a temporary file in path's directory. Errors name
// the path.
func createAtomic(path string) (*atomicFile, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usageErrorf("-o %s: directory %s does not exist", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usageErrorf("-o %s: is a directory", path)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; results are for others to read.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("-o %s: %w", path, err)
	}
	return &atomicFile{File: f, path: path}, nil
}

// Commit flushes the temporary file to disk and renames it over the path.
func (a *atomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	if err := a.Sync(); err != nil {
		a.Close()
		os.Remove(a.Name())
		return fmt.Errorf("-o %s: %w", a.path, err)
	}
	if err := a.Close(); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("-o %s: %w", a.path, err)
	}
	if err := os.Rename(a.Name(), a.path); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("-o %s: %w", a.path, err)
	}
	return nil
}

// Abort removes the temporary file; the path is left as it was.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.Close()
	os.Remove(a.Name())
}
