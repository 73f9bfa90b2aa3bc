package results

// The reports cyclebench writes (run, cpe, compare -format json and
// bench) and this package reads: a Header and one Measurement per result,
// in one place, so that what is written is what is read.

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
)

// Measurement is one harness.Result as a report gives it: with the kernel
// and size it measured, what its elements count and its output check;
// measured in this process, or read back from a file or from go test
// output ([File.Measurement]).
type Measurement struct {
	harness.Result
	// Kernel is the kernel's name without the size; N its size (0 when
	// none).
	Kernel string
	N      int
	// Unit is what Elements counts ("elements", "ops"); "" when unknown.
	Unit string
	// Check is "ok", or why the kernel's output check failed.
	Check string
	// Bench is the name in the Go benchmark format, without "Benchmark"
	// ([BenchName]).
	Bench string
	// PerElement reports per-element figures that mean something
	// (Elements > 0).
	PerElement bool
	// Read: read from a file or go test output, not measured here; then
	// Samples, Repeat and Spread are unknown unless Samples > 0.
	Read bool
	// NoTicks: the run has no tick figures (go test without
	// harness.Report).
	NoTicks bool
	// Other holds the other figures of its benchmark line (B/op,
	// allocs/op, MB/s, the user's own metrics).
	Other []Value
	// CyclesUncertainty is the relative uncertainty of Cycles where the
	// figure states one (Run.CyclesUncertainty); 0 otherwise.
	CyclesUncertainty float64
	// PID is the id of the process that measured it; 0 when unknown
	// (read from a file or go test output).
	PID int
}

// Usable reports whether r can be used: it converged, or its K best
// samples agree within 2ε (it missed ε by less than ε).
func Usable(r harness.Result) bool {
	return r.Converged || r.Samples > 0 && r.Spread < 2*r.Config.Epsilon
}

// Failure is the summary line of measurements that fail a run ("" when
// none does): how many of them (called what: "results") failed their
// output check, and how many have no figure (no usable sample) or, with
// strict, did not converge or were measured on a shared core or in a
// moment of room (harness.Result.Room), with how many of those stopped
// at maxTime. Without strict, a result that missed
// ε is not a failure however far it missed: whether a measurement
// converges changes from run to run on a busy machine, and an exit status
// that followed it would make a CI job flaky (its warning and its
// converged mark say so instead).
func Failure(rs []Measurement, strict bool, maxTime time.Duration, what string) string {
	bad, shared, room, checks, capped := 0, 0, 0, 0, 0
	for _, r := range rs {
		if r.Check != "" && r.Check != "ok" {
			checks++
		}
		switch {
		case !hasFigure(r.Result) || strict && !r.Converged:
			bad++
			if !r.Converged && r.Wall >= maxTime {
				capped++
			}
		case strict && r.Shared:
			shared++
		case strict && r.Room:
			room++
		}
	}
	var parts []string
	if bad > 0 {
		msg := fmt.Sprintf("%d of %d %s did not converge", bad, len(rs), what)
		if !strict {
			msg = fmt.Sprintf("%d of %d %s have no figure", bad, len(rs), what)
		}
		if capped > 0 {
			msg += fmt.Sprintf(", %d stopped at -max-time %v", capped, maxTime)
		}
		parts = append(parts, msg)
	}
	if shared > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s were measured on a shared core", shared, len(rs), what))
	}
	if room > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s were measured in a moment of room (the core had more room than usual; calls that overlap the next may read low)", room, len(rs), what))
	}
	if checks > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s failed their output check", checks, len(rs), what))
	}
	return strings.Join(parts, "; ")
}

// hasFigure reports whether r has a figure: a per-call cost in ticks or
// nanoseconds (a measurement with no usable sample has none).
func hasFigure(r harness.Result) bool {
	return r.Ticks > 0 || r.Nanoseconds > 0 || r.Cycles > 0
}

// SweepFailure is [Failure] for sweeps, a point per size ("sizes"; "runs"
// for sweeps read from files) and each sweep's check counted once.
func SweepFailure(swept []*Sweep, strict bool, maxTime time.Duration) string {
	what := "sizes"
	var rs []Measurement
	for _, s := range swept {
		for i, p := range s.Points {
			check := "ok"
			if i == 0 { // a sweep's check counts once
				check = s.Check
			}
			rs = append(rs, Measurement{Result: p, Check: check})
		}
		if s.LeftOutRule != "" { // read from a file: a point per run
			what = "runs"
		}
	}
	return Failure(rs, strict, maxTime, what)
}

// BenchName is a result's name in the Go benchmark format: a latency
// figure carries the sub-benchmark key mode=latency, so benchstat keeps
// the two modes apart and compares each with its own kind; a throughput
// figure keeps the plain name results had before modes existed.
func BenchName(name string, mode harness.Mode) string {
	if mode == harness.Latency {
		return name + "/mode=latency"
	}
	return name
}

// Header is the context every report carries: the machine, the counter
// and the measuring settings (the JSON header of run, cpe and compare
// reports, the configuration lines of the benchmark format).
type Header struct {
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
	// Provenance is where the measurements came from; nil when unknown.
	Provenance *Provenance `json:"provenance,omitempty"`
	Warnings   []string    `json:"warnings"`
	// Partial, when not "", says why the output holds less than was asked
	// for (a signal stopped the command): a reader must not take it for a
	// whole run.
	Partial string `json:"partial,omitempty"`
	// ModeUnknown: read from go test output, whose names do not say the
	// mode a benchmark's harness.Config set.
	ModeUnknown bool `json:"-"`
}

// WithMachine fills what a header read from go test output lacks (its
// "cpu:" line is all it says of the machine) with the description of the
// machine cpu and the calibration calibrate returns, when the test ran on
// it, moments ago. It leaves h as it is when h describes its machine
// itself, or when cpu's brand is unknown or not the one h names (-tags
// noasm, whose counter is not the test binary's either). calibrate is
// called only when needed; when it fails, the counter figures stay
// absent. The K-best settings stay absent: each benchmark set its own.
func (h Header) WithMachine(cpu calibrate.CPU, calibrate func() (*calibrate.Calibration, error)) Header {
	if h.Vendor != "" || h.TSCHz > 0 {
		return h
	}
	if cpu.Brand == "" || h.CPU != "" && strings.TrimSpace(cpu.Brand) != strings.TrimSpace(h.CPU) {
		return h
	}
	h.CPU, h.Vendor, h.Hypervisor, h.Counter = cpu.Brand, cpu.Vendor, cpu.Hypervisor, cpu.Counter
	h.Family, h.Model, h.Stepping, h.LogicalCPUs = cpu.Family, cpu.Model, cpu.Stepping, cpu.LogicalCPUs
	if cal, err := calibrate(); err == nil && cal != nil {
		h.TSCHz, h.TSCHzPPM = cal.Frequency.Hz, cal.Frequency.PPM
		h.TSCHzSource = cal.Frequency.Method + ": " + cal.Frequency.Source
		h.CyclesPerTick, h.TSCStep = cal.Core.CyclesPerTick, cal.Step.Step
	}
	return h
}

// Line is the one-line summary of h above a text table: the CPU, the
// counter at its frequency, the K-best settings and the packages, after
// a "PARTIAL: why" line when h is partial. A header read from a go test
// run, which records the CPU only, leaves out the counter and the
// settings.
func (h Header) Line() string {
	s := "cpu: " + h.CPU
	if h.CPU == "" {
		s = "cpu: -"
	}
	if h.Partial != "" {
		s = "PARTIAL: " + h.Partial + "\n" + s
	}
	if h.Counter != "" || h.TSCHz > 0 {
		s += fmt.Sprintf("  counter: %s at %s", h.Counter, sigfig.Hz(h.TSCHz))
	}
	if h.K > 0 && h.Epsilon != nil {
		s += fmt.Sprintf("  k=%d eps=%g m=%d", h.K, *h.Epsilon, h.MaxSamples)
	}
	if p := h.Extra["pkg"]; p != "" {
		s += "  pkg: " + p
	}
	return s
}

// NewHeader is the header of command's results measured here with the
// calibration cal (nil: none) and the settings of cfg, on this platform
// (runtime.GOOS, GOARCH and Version), with warnings.
func NewHeader(command string, cal *calibrate.Calibration, cfg harness.Config, warnings []error) Header {
	h := Header{
		Command: command, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(),
		K: cfg.K, Epsilon: &cfg.Epsilon, MaxSamples: cfg.MaxSamples,
	}
	if cal != nil {
		h.SetMachine(cal.CPU)
		h.SetCalibration(cal)
	}
	h.Warnings = ErrorStrings(warnings)
	return h
}

// SetMachine fills the processor's description from cpu.
func (h *Header) SetMachine(cpu calibrate.CPU) {
	h.CPU, h.Vendor, h.Hypervisor, h.Counter = cpu.Brand, cpu.Vendor, cpu.Hypervisor, cpu.Counter
	h.Family, h.Model, h.Stepping, h.LogicalCPUs = cpu.Family, cpu.Model, cpu.Stepping, cpu.LogicalCPUs
}

// SetCalibration fills the counter's figures from cal: its frequency with
// source and uncertainty, the core-clock ratio, the step.
func (h *Header) SetCalibration(cal *calibrate.Calibration) {
	h.TSCHz, h.TSCHzPPM = cal.Frequency.Hz, cal.Frequency.PPM
	h.TSCHzSource = cal.Frequency.Method + ": " + cal.Frequency.Source
	h.CyclesPerTick, h.TSCStep = cal.Core.CyclesPerTick, cal.Step.Step
}

// FileWarnings are the warnings of files (lines skipped, fields an older
// version did not write), in order: what a report of them says on stderr.
func FileWarnings(files []File) []string {
	var ws []string
	for _, f := range files {
		ws = append(ws, ErrorStrings(f.Warnings)...)
	}
	return ws
}

// hoistWarnings moves the warnings that every list holds (such as the
// calibration's, which every result carries) into h.Warnings, so that
// they are said once, and returns the lists without them and without
// those h already has.
func hoistWarnings(h *Header, lists [][]error) [][]error {
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

// HoistMeasurements returns copies of h and ms with the warnings every
// measurement carries moved into the header; ms itself
// is not changed.
func (h Header) HoistMeasurements(ms []Measurement) (Header, []Measurement) {
	h.Warnings = slices.Clone(h.Warnings)
	ms = slices.Clone(ms)
	lists := make([][]error, len(ms))
	for i := range ms {
		lists[i] = ms[i].Warnings
	}
	for i, l := range hoistWarnings(&h, lists) {
		ms[i].Warnings = l
	}
	return h, ms
}

// HoistSweeps moves the warnings every sweep carries (the calibration's,
// pinning) into h.Warnings, so that they are said once;
// each sweep keeps its own.
func (h *Header) HoistSweeps(swept []*Sweep) {
	lists := make([][]error, len(swept))
	for i, s := range swept {
		lists[i] = s.Warnings
	}
	for i, l := range hoistWarnings(h, lists) {
		swept[i].Warnings = l
	}
}

// ResultJSON is one result of a run report (-format json): "results[]",
// and the points of a cpe report's kernels.
type ResultJSON struct {
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
	// CyclesUncertainty is Measurement.CyclesUncertainty; absent when 0.
	CyclesUncertainty float64 `json:"cycles_uncertainty,omitempty"`
	// MeasuredBy is "testing.B" for a benchmark timed by the testing
	// package (go test without the harness helpers), whose "converged"
	// means nothing (no K best samples); absent otherwise.
	MeasuredBy string `json:"measured_by,omitempty"`
	// Metrics are the other figures of its benchmark line (B/op,
	// allocs/op, MB/s, the user's own units); absent when none.
	Metrics []MetricJSON `json:"metrics,omitempty"`

	Disturbed      harness.Disturbances `json:"disturbed"`
	Counters       []harness.Counter    `json:"counters,omitempty"`
	QuantumTicks   float64              `json:"quantum_ticks,omitempty"`
	TicksPerSecond float64              `json:"tsc_hz"`
	CPU            int                  `json:"cpu"`
	Priority       string               `json:"priority"`
	WallSeconds    float64              `json:"wall_seconds"`
	// RulerWaitSeconds is harness.Result.RulerWait: how long the
	// measurement went on for its ruler's chains to agree; absent when 0.
	RulerWaitSeconds float64 `json:"ruler_wait_seconds,omitempty"`
	// Shared is harness.Result.Shared: the core was shared to the end of
	// the measurement, by ProbeExcess (0.3: the core-state probe ran 30%
	// slower than its best); absent when not shared.
	Shared      bool    `json:"shared,omitempty"`
	ProbeExcess float64 `json:"probe_excess,omitempty"`
	// Room is harness.Result.Room: the host's other thread left the core
	// for longer than the measurement waited, and calls that overlap the
	// next may read low; absent when not.
	Room bool `json:"room,omitempty"`
	// Quantile is harness.Result.Quantile: 0.05 when the figures are the
	// 5th percentile of the samples (the code has no floor: its best
	// sample was a rare call), absent when they are the best sample's;
	// FloorShare is harness.Result.FloorShare, the share of the samples
	// within ε of the best (absent when not judged).
	Quantile   float64 `json:"quantile,omitempty"`
	FloorShare float64 `json:"floor_share,omitempty"`
	// StoppedBy is harness.Result.StoppedBy: the limit that ended a
	// measurement that did not converge ("MaxSamples", "MaxTime").
	StoppedBy string   `json:"stopped_by,omitempty"`
	Check     string   `json:"check,omitempty"`
	Warnings  []string `json:"warnings"`
	// PID is the id of the process that measured the result (each run of
	// cyclebench run -count N is a process of its own); absent when
	// unknown.
	PID int `json:"pid,omitempty"`
}

// MetricJSON is one figure of a benchmark line with its unit.
type MetricJSON struct {
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
}

// TestingB reports whether m was timed by the testing package: read from
// go test output without the harness helpers' units (no ticks/op, and no
// cycles/op but those given from the ns/op).
func (m Measurement) TestingB() bool {
	return m.Read && m.NoTicks && m.Samples == 0
}

// RunReport is a run report: the header and the results.
type RunReport struct {
	Header
	Results []ResultJSON `json:"results"`
}

// NewRunReport is the report of ms under h.
func NewRunReport(h Header, ms []Measurement) RunReport {
	rep := RunReport{Header: h, Results: []ResultJSON{}}
	for _, m := range ms {
		rep.Results = append(rep.Results, m.JSON())
	}
	return rep
}

// cyclesJSON is a cycle figure v of r for JSON: nil (null) when r has
// none.
func cyclesJSON(r harness.Result, v float64) *float64 {
	if r.CyclesPerTick <= 0 && r.CyclesSource != "pmu" {
		return nil
	}
	return &v
}

// JSON is m as a report writes it; NaN and infinite figures are 0.
func (m Measurement) JSON() ResultJSON {
	j := ResultJSON{
		Name: m.Name, Mode: m.Mode.String(), Kernel: m.Kernel, N: m.N, Unit: m.Unit,
		Cycles: cyclesJSON(m.Result, m.Cycles), CyclesChecked: m.CyclesChecked, Ticks: m.Ticks, Nanoseconds: m.Nanoseconds,
		Converged: m.Converged, Usable: Usable(m.Result), Samples: m.Samples, Discarded: m.Discarded, Repeat: m.Repeat,
		Best: m.Best, Spread: finiteOr0(m.Spread), OverheadTicks: finiteOr0(m.OverheadTicks),
		CyclesPerTick: m.CyclesPerTick, RulerConverged: m.ReferenceConverged, QuantumTicks: m.Quantum,
		CyclesSource: m.CyclesSource, Disturbed: m.Disturbed, Counters: m.Counters,
		TicksPerSecond: m.TicksPerSecond, CPU: m.CPU, Priority: m.Priority,
		WallSeconds: m.Wall.Seconds(), RulerWaitSeconds: m.RulerWait.Seconds(), Shared: m.Shared, Room: m.Room, Quantile: m.Quantile, FloorShare: finiteOr0(m.FloorShare), StoppedBy: m.StoppedBy, Check: m.Check, Warnings: ErrorStrings(m.Warnings), PID: m.PID,
	}
	if j.Best == nil {
		j.Best = []float64{}
	}
	j.CyclesUncertainty = finiteOr0(m.CyclesUncertainty)
	if m.TestingB() {
		j.MeasuredBy = "testing.B"
	}
	for _, v := range m.Other {
		j.Metrics = append(j.Metrics, MetricJSON{Unit: v.Unit, Value: finiteOr0(v.Value)})
	}
	if m.Shared {
		j.ProbeExcess = finiteOr0(m.ProbeExcess)
	}
	if m.PerElement {
		j.Elements, j.CyclesPerElement, j.TicksPerElement, j.NsPerElement = m.Elements, cyclesJSON(m.Result, m.CyclesPerElement), m.TicksPerElement, m.NsPerElement
	}
	return j
}

// finiteOr0 is v, or 0 when v is NaN or infinite (JSON has neither).
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// ErrorStrings returns the messages of errs, never nil (so JSON shows
// []): the warnings of a report.
func ErrorStrings(errs []error) []string {
	s := make([]string, 0, len(errs))
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return s
}

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
