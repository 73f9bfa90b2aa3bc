package reports

// The reports that describe the machine, as cyclebench info and calibrate
// write them (-format json): a calibration, the CPUs and priorities the
// process may use, the performance counters it may read. Counter figures
// are in ticks.

import (
	"cmp"
	"fmt"
	"runtime"
	"strconv"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/perfevent"
	"github.com/cyclebench/cyclebench/results"
)

// InfoReport describes the processor, the counter and its calibration,
// and what the process may do ([NewInfoReport]).
type InfoReport struct {
	CPU          string `json:"cpu"`
	Vendor       string `json:"vendor"`
	Family       int    `json:"family"`
	Model        int    `json:"model"`
	Stepping     int    `json:"stepping"`
	Hypervisor   string `json:"hypervisor"`
	Virtual      bool   `json:"virtual"`
	LogicalCPUs  int    `json:"logical_cpus"`
	NominalHz    int64  `json:"nominal_hz"`
	Counter      string `json:"counter"`
	RDTSCP       bool   `json:"rdtscp"`
	InvariantTSC bool   `json:"invariant_tsc"`

	TSCHz       float64      `json:"tsc_hz"`
	TSCHzMethod string       `json:"tsc_hz_method"`
	TSCHzSource string       `json:"tsc_hz_source"`
	TSCHzPPM    float64      `json:"tsc_hz_ppm"`
	Calibration float64      `json:"tsc_hz_interval_seconds"`
	CrossChecks []CrossCheck `json:"cross_checks"`

	TSCStep          float64 `json:"tsc_step"`
	TSCStepQuantized bool    `json:"tsc_step_quantized"`
	TSCStepGCD       uint64  `json:"tsc_step_gcd"`
	TSCStepMinDelta  uint64  `json:"tsc_step_min_delta"`

	OverheadTicks          float64 `json:"overhead_ticks"`
	OverheadTicksMedian    float64 `json:"overhead_ticks_median"`
	OverheadAsmTicks       float64 `json:"overhead_asm_ticks"`
	OverheadAsmTicksMedian float64 `json:"overhead_asm_ticks_median"`
	OverheadPairs          int     `json:"overhead_pairs"`

	// CoreCyclesPerTick is null when the ruler was refused (CoreRefused
	// says why); CoreHz is the core clock the ADD chain implies, also then.
	CoreCyclesPerTick *float64 `json:"core_cycles_per_tick"`
	CoreHz            float64  `json:"core_hz"`
	CoreChecked       bool     `json:"core_cycles_checked"`
	CoreRefused       string   `json:"core_cycles_refused"`   // "" when there is a figure
	CoreUnchecked     string   `json:"core_cycles_unchecked"` // "" when checked or refused
	AddTicksPerOp     float64  `json:"add_ticks_per_op"`
	ImulTicksPerOp    float64  `json:"imul_ticks_per_op"`
	ImulAddRatio      float64  `json:"imul_add_ratio"`
	ImulLatency       float64  `json:"imul_latency"`
	CoreChainsExact   bool     `json:"core_chains_exact"`
	// AddImmCyclesPerOp is the small-immediate ADD chain's cost in register
	// ADDs (one cycle each); AddImmFolded whether that is folding.
	AddImmCyclesPerOp float64 `json:"add_imm_cycles_per_op"`
	AddImmFolded      bool    `json:"add_imm_folded"`
	// Microarch is the CPU table's entry ("" when not in it).
	Microarch       string  `json:"microarch"`
	MicroarchImul   float64 `json:"microarch_imul_latency"`
	MicroarchFolds  string  `json:"microarch_folds_add_imm"`
	MicroarchSource string  `json:"microarch_source"`
	// Emulated reports an emulated processor (qemu-user): the CPU table
	// does not apply.
	Emulated bool `json:"emulated"`

	AllowedCPUs []int          `json:"allowed_cpus"`
	PinnedCPU   int            `json:"pinned_cpu"`
	Priority    PriorityReport `json:"priority"`
	Events      []EventReport  `json:"events"`

	Took      float64  `json:"took_seconds"`
	GoVersion string   `json:"go_version"`
	GOOS      string   `json:"goos"`
	GOARCH    string   `json:"goarch"`
	Warnings  []string `json:"warnings"`
}

// CrossCheck is one independent figure for the counter frequency.
type CrossCheck struct {
	Source  string  `json:"source"`
	Hz      float64 `json:"hz"`
	DiffPPM float64 `json:"diff_ppm"` // (hz − the measured figure) / the measured figure
}

// CrossChecksOf lists f's cross-checks, never nil (JSON shows []).
func CrossChecksOf(f calibrate.Frequency) []CrossCheck {
	cc := make([]CrossCheck, 0, len(f.CrossChecks))
	for _, c := range f.CrossChecks {
		cc = append(cc, CrossCheck{Source: c.Source, Hz: c.Hz, DiffPPM: c.DiffPPM})
	}
	return cc
}

// EventReport is what perfevent.Probe found for one performance-counter
// event on this machine.
type EventReport struct {
	Event     string `json:"event"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why not, when not available
	RDPMC     bool   `json:"rdpmc"`            // readable from user space
}

// EventsOf reports the statuses perfevent.Probe returned, never nil.
func EventsOf(st []perfevent.Status) []EventReport {
	out := make([]EventReport, 0, len(st))
	for _, s := range st {
		e := EventReport{Event: s.Event.String(), Available: s.Available, RDPMC: s.RDPMC == nil}
		if s.Err != nil {
			e.Reason = s.Err.Error()
		}
		out = append(out, e)
	}
	return out
}

// PriorityReport is what affinity.Probe found this process could obtain.
type PriorityReport struct {
	Pin      bool     `json:"pin"`
	High     bool     `json:"high"`
	Realtime bool     `json:"realtime"`
	Notes    []string `json:"notes"`
}

// NewInfoReport lays out calibration c and what the process may do: the
// CPUs allowed, the CPU the calibration was pinned to (-1: none) and the
// priorities affinity.Probe found; on this platform (runtime's GOOS,
// GOARCH and version), without events (see [EventsOf]). NaN figures of
// the core-clock chains are 0.
func NewInfoReport(c *calibrate.Calibration, allowed []int, pinnedCPU int, caps affinity.Capabilities) *InfoReport {
	if c == nil {
		c = &calibrate.Calibration{}
	}
	m := c.CPU.Microarch()
	r := &InfoReport{
		CPU: c.CPU.Brand, Vendor: c.CPU.Vendor, Family: c.CPU.Family, Model: c.CPU.Model, Stepping: c.CPU.Stepping,
		Hypervisor: c.CPU.Hypervisor, Virtual: c.CPU.Virtual, LogicalCPUs: c.CPU.LogicalCPUs, NominalHz: c.CPU.NominalHz,
		Counter: c.CPU.Counter, RDTSCP: c.CPU.RDTSCP, InvariantTSC: c.CPU.InvariantTSC,

		TSCHz: c.Frequency.Hz, TSCHzMethod: c.Frequency.Method, TSCHzSource: c.Frequency.Source, TSCHzPPM: c.Frequency.PPM,
		Calibration: c.Frequency.Duration.Seconds(), CrossChecks: CrossChecksOf(c.Frequency),

		TSCStep: c.Step.Step, TSCStepQuantized: c.Step.Quantized, TSCStepGCD: c.Step.GCD, TSCStepMinDelta: c.Step.MinDelta,

		OverheadTicks: c.Overhead.Min, OverheadTicksMedian: c.Overhead.Median, OverheadAsmTicks: c.Overhead.AsmMin,
		OverheadAsmTicksMedian: c.Overhead.AsmMedian, OverheadPairs: c.Overhead.Pairs,

		CoreHz: c.Core.CoreHz, CoreChecked: c.Core.Checked, AddTicksPerOp: finiteOr0(c.Core.AddTicksPerOp),
		ImulTicksPerOp: finiteOr0(c.Core.ImulTicksPerOp), ImulAddRatio: finiteOr0(c.Core.ImulAddRatio), ImulLatency: c.Core.ImulLatency,
		CoreChainsExact: c.Core.Exact, AddImmCyclesPerOp: finiteOr0(c.Core.Imm.CyclesPerOp), AddImmFolded: c.Core.Imm.Folded,
		Microarch: m.Name, MicroarchImul: m.ImulLatency, MicroarchFolds: m.FoldsAddImm.String(), MicroarchSource: m.Source,
		Emulated: c.CPU.Emulated != "",

		AllowedCPUs: append([]int{}, allowed...), PinnedCPU: pinnedCPU,
		Priority: PriorityReport{Pin: caps.Pin, High: caps.High, Realtime: caps.Realtime, Notes: append(make([]string, 0, len(caps.Notes)), caps.Notes...)},

		Took: c.Took.Seconds(), GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Warnings: results.ErrorStrings(c.Warnings),
	}
	if cpt := c.Core.CyclesPerTick; cpt > 0 {
		r.CoreCyclesPerTick = &cpt
	}
	switch {
	case c.Core.Refused() && c.Core.Err != nil:
		r.CoreRefused = c.Core.Err.Error()
	case !c.Core.Checked && c.Core.Err != nil:
		r.CoreUnchecked = c.Core.Err.Error()
	}
	return r
}

// AddImmText says whether the small-immediate ADD chain is folded on this
// core, as measured, beside what the CPU table expects.
func (r *InfoReport) AddImmText() string {
	if r.AddImmCyclesPerOp <= 0 {
		return "not measured"
	}
	measured := fmt.Sprintf("not folded: %.3f cycles per link", r.AddImmCyclesPerOp)
	if r.AddImmFolded {
		measured = fmt.Sprintf("folded at rename: %.3f cycles per link, %.1f× faster than a register ADD", r.AddImmCyclesPerOp, 1/r.AddImmCyclesPerOp)
	}
	switch {
	case r.MicroarchFolds == calibrate.FoldUnknown.String():
		return measured + " (the CPU table does not say)"
	case (r.MicroarchFolds == calibrate.FoldYes.String()) == r.AddImmFolded:
		return measured + " (as the CPU table says)"
	default:
		return measured + " (the CPU table says " + r.MicroarchFolds + ": measured otherwise)"
	}
}

// Lines are r as label and text, in the order cyclebench info lists
// them: the processor, the counter and its calibration, the core clock,
// the CPU table, the CPUs and priorities, the counter events, the
// platform and the time taken.
func (r *InfoReport) Lines() [][2]string {
	var lines [][2]string
	line := func(label, format string, args ...any) {
		lines = append(lines, [2]string{label, fmt.Sprintf(format, args...)})
	}
	line("cpu", "%s", cmp.Or(r.CPU, "unknown"))
	line("vendor", "%s", cmp.Or(r.Vendor, "unknown"))
	line("family/model/stepping", "%d/%d/%d (0x%x/0x%x/0x%x)", r.Family, r.Model, r.Stepping, r.Family, r.Model, r.Stepping)
	line("hypervisor", "%s", r.HypervisorText())
	line("counter", "%s", r.Counter)
	line("rdtscp", "%s", yesNo(r.RDTSCP))
	line("invariant_tsc", "%s", yesNo(r.InvariantTSC))
	line("tsc_hz", "%s", sigfig.Hz(r.TSCHz))
	line("tsc_hz_source", "%s: %s, over %.3fs", r.TSCHzMethod, r.TSCHzSource, r.Calibration)
	line("tsc_hz_ppm", "±%s", sigfig.Sig(r.TSCHzPPM, 3))
	lines = append(lines, CrossCheckLines(r.CrossChecks)...)
	unit := "ticks"
	if r.TSCStep == 1 {
		unit = "tick"
	}
	step := sigfig.Sig(r.TSCStep, 4) + " " + unit
	if r.TSCStepQuantized {
		step += fmt.Sprintf(" (quantized: the counter jumps by the step; gcd %d)", r.TSCStepGCD)
	}
	line("tsc_step", "%s", step)
	line("overhead_ticks", "min %s, median %s (in one assembly function: min %s, median %s)",
		sigfig.Sig(r.OverheadTicks, 4), sigfig.Sig(r.OverheadTicksMedian, 4), sigfig.Sig(r.OverheadAsmTicks, 4), sigfig.Sig(r.OverheadAsmTicksMedian, 4))
	line("core_cycles_per_tick", "%s", r.CoreText())
	line("imul_add_ratio", "%s", r.ImulAddText())
	line("add_imm_chain", "%s", r.AddImmText())
	line("cpu_table", "%s", r.CPUTableText())
	line("allowed_cpus", "%s", affinity.FormatCPUs(r.AllowedCPUs))
	lines = append(lines, PinnedLine(r.PinnedCPU))
	line("priority", "pin=%s high=%s realtime=%s", yesNo(r.Priority.Pin), yesNo(r.Priority.High), yesNo(r.Priority.Realtime))
	for _, n := range r.Priority.Notes {
		line("priority_note", "%s", n)
	}
	for _, e := range r.Events {
		switch {
		case e.Available && e.RDPMC:
			line("event", "%s: available (also read with RDPMC from user space)", e.Event)
		case e.Available:
			line("event", "%s: available", e.Event)
		default:
			line("event", "%s: unavailable: %s", e.Event, e.Reason)
		}
	}
	line("go", "%s %s/%s", r.GoVersion, r.GOOS, r.GOARCH)
	line("took", "%.3fs", r.Took)
	return lines
}

// CrossCheckLines are a line per cross-check of a frequency, or one that
// says there was none.
func CrossCheckLines(checks []CrossCheck) [][2]string {
	if len(checks) == 0 {
		return [][2]string{{"cross_check", "none available"}}
	}
	var lines [][2]string
	for _, c := range checks {
		lines = append(lines, [2]string{"cross_check", fmt.Sprintf("%s ppm: %.0f Hz from %s", sigfig.Signed(c.DiffPPM, 3), c.Hz, c.Source)})
	}
	return lines
}

// PinnedLine names the CPU a thread was pinned to (-1: none).
func PinnedLine(cpu int) [2]string {
	if cpu < 0 {
		return [2]string{"pinned_cpu", "none (pinning unsupported)"}
	}
	return [2]string{"pinned_cpu", strconv.Itoa(cpu)}
}

// yesNo says a boolean as the text reports do.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// HypervisorText names the hypervisor, or says there is one of an
// unknown vendor, or none.
func (r *InfoReport) HypervisorText() string {
	switch {
	case r.Hypervisor != "":
		return r.Hypervisor
	case r.Virtual:
		return "yes (vendor unknown)"
	}
	return "none"
}

// CoreText describes the core-clock ruler in one line: its cycles per
// tick, the core clock they imply and whether the IMUL chain checked
// them, or why there is no figure.
func (r *InfoReport) CoreText() string {
	switch {
	case r.CoreCyclesPerTick == nil && r.CoreRefused != "":
		return "none: " + r.CoreRefused
	case r.CoreCyclesPerTick == nil:
		return "unknown"
	case r.CoreChecked:
		return fmt.Sprintf("%.4f (core clock ≈ %.3f GHz; checked: the register ADD and IMUL chains agree)", *r.CoreCyclesPerTick, r.CoreHz/1e9)
	}
	return fmt.Sprintf("%.4f (core clock ≈ %.3f GHz; %s)", *r.CoreCyclesPerTick, r.CoreHz/1e9, r.CoreUnchecked)
}

// ImulAddText gives the IMUL/ADD chain ratio with the multiply latency
// the CPU table expects, and whether the chains were approximate.
func (r *InfoReport) ImulAddText() string {
	ratio := sigfig.Sig(r.ImulAddRatio, 4)
	if r.ImulAddRatio == 0 {
		ratio = "not measured"
	}
	if r.ImulLatency > 0 {
		ratio += fmt.Sprintf(" (expected %g)", r.ImulLatency)
	} else {
		ratio += " (the multiply latency of this core is not documented: not judged)"
	}
	if !r.CoreChainsExact {
		ratio += " (pure-Go chains, approximate)"
	}
	return ratio
}

// CPUTableText says what the CPU table knows of the core: its entry, or
// why the cycle figure is unchecked (an emulated processor, a core not in
// the table).
func (r *InfoReport) CPUTableText() string {
	switch {
	case r.Emulated:
		return "does not apply: the processor is emulated, so the cycle figure is unchecked"
	case r.Microarch != "":
		m := calibrate.Microarch{Name: r.Microarch, ImulLatency: r.MicroarchImul}
		return fmt.Sprintf("%s; folds ADD-immediate chains: %s (%s)", m, r.MicroarchFolds, r.MicroarchSource)
	}
	return "not in the table: the multiply latency is not vouched for, so the cycle figure is unchecked"
}

// CoreClockText describes a calibration's core-clock ruler in one line:
// its figure and whether it was checked, or why there is none.
func CoreClockText(c *calibrate.Calibration) string {
	if c == nil {
		return "unknown"
	}
	cc := c.Core
	switch {
	case cc.Refused() && cc.Err != nil:
		return "none: " + cc.Err.Error()
	case cc.Refused():
		return "unknown"
	case cc.Checked:
		return fmt.Sprintf("%s (core clock ≈ %.3f GHz; checked by the IMUL chain)", sigfig.Sig(cc.CyclesPerTick, 5), cc.CoreHz/1e9)
	}
	return fmt.Sprintf("%s (core clock ≈ %.3f GHz; unchecked)", sigfig.Sig(cc.CyclesPerTick, 5), cc.CoreHz/1e9)
}

// CalibrateReport is a calibration of the counter frequency by one method
// or more, as cyclebench calibrate writes it.
type CalibrateReport struct {
	Counter   string            `json:"counter"`
	PinnedCPU int               `json:"pinned_cpu"`
	Methods   []FrequencyReport `json:"methods"`
	// SleepVsBracketPPM is (sleep − bracket) / bracket in ppm, when both
	// methods ran ([CalibrateReport.Compare]).
	SleepVsBracketPPM *float64 `json:"sleep_vs_bracket_ppm,omitempty"`
	Warnings          []string `json:"warnings"`
}

// FrequencyReport is one calibrate.Frequency.
type FrequencyReport struct {
	Method      string       `json:"method"`
	Hz          float64      `json:"hz"`
	PPM         float64      `json:"ppm"`
	Source      string       `json:"source"`
	Seconds     float64      `json:"interval_seconds"`
	Ticks       uint64       `json:"ticks"`
	Brackets    *[2]uint64   `json:"bracket_ticks,omitempty"` // start and end widths, bracket only
	CrossChecks []CrossCheck `json:"cross_checks"`
}

// Lines are f as label and text, in the order cyclebench calibrate lists
// them: the method, the frequency with its uncertainty and source, the
// interval, the ticks, the brackets (bracket only), the cross-checks.
func (f FrequencyReport) Lines() [][2]string {
	lines := [][2]string{{"method", f.Method}, {"tsc_hz", sigfig.Hz(f.Hz)}, {"tsc_hz_ppm", "±" + sigfig.Sig(f.PPM, 3)},
		{"source", f.Source}, {"interval", fmt.Sprintf("%.6fs", f.Seconds)}, {"ticks", strconv.FormatUint(f.Ticks, 10)}}
	if f.Brackets != nil {
		lines = append(lines, [2]string{"bracket_ticks", fmt.Sprintf("start %d, end %d", f.Brackets[0], f.Brackets[1])})
	}
	return append(lines, CrossCheckLines(f.CrossChecks)...)
}

// FrequencyOf reports f, the bracket widths when it was measured by the
// bracket method.
func FrequencyOf(f calibrate.Frequency) FrequencyReport {
	r := FrequencyReport{Method: f.Method, Hz: f.Hz, PPM: f.PPM, Source: f.Source, Seconds: f.Duration.Seconds(), Ticks: f.Ticks, CrossChecks: CrossChecksOf(f)}
	if f.Method == calibrate.MethodBracket {
		b := f.Brackets
		r.Brackets = &b
	}
	return r
}

// Compare sets SleepVsBracketPPM when the report holds both a sleep and a
// bracket figure (the first of each).
func (r *CalibrateReport) Compare() {
	var sleep, bracket float64
	for _, m := range r.Methods {
		switch {
		case m.Method == calibrate.MethodSleep && sleep == 0:
			sleep = m.Hz
		case m.Method == calibrate.MethodBracket && bracket == 0:
			bracket = m.Hz
		}
	}
	if sleep > 0 && bracket > 0 {
		d := (sleep - bracket) / bracket * 1e6
		r.SleepVsBracketPPM = &d
	}
}
