package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/perfevent"
)

const infoDescription = `
info describes the processor, the counter and its calibration on a thread
pinned to one CPU: the counter frequency with its method, source,
uncertainty and every cross-check, the counter step, the cost of an empty
start/stop pair, core cycles per tick with the verdict of its two rulers
(a register ADD chain checked against an IMUL chain), whether this core
folds small-immediate ADD chains at rename, what the CPU table knows of the
core, the CPUs this process may use and the priority it could obtain.
Counter figures are in ticks, not cycles.`

func runInfo(args []string, stdout, stderr io.Writer) error {
	s := newSession("info", "[-format table|json|csv] [-cpu N] [-duration D]", infoDescription, stdout)
	s.o = addOutputFlags(s.fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	cpu := cpuFlag(s.fs)
	duration := calibrationFlag(s.fs, "interval of the frequency calibration (a number with a unit: 100ms, 1s)")
	s.fs.example("cyclebench info", "the machine and the counter, as a table")
	s.fs.example("cyclebench info -cpu 0 -duration 1s -json", "on CPU 0, the frequency over 1 s, as JSON")
	if err := s.open(args, false, duration.check); err != nil {
		return err
	}
	defer s.close()
	o, in := s.o, s.in
	sys.begin()
	var r *infoReport
	err := untilSignal(in, o, "info: calibrating", duration.d, func() (err error) { r, err = gatherInfo(*cpu, duration.d); return err })
	if errors.Is(err, errInterrupted) {
		// The frequency measured so far, over the bracket opened when the
		// process started.
		c, serr := sys.soFar()
		if serr != nil {
			return o.status(in, "")
		}
		r = newInfoReport(c, nil, -1, affinity.Capabilities{})
		r.Warnings = append(r.Warnings, fmt.Sprintf("interrupted by a signal: the frequency is the one measured over the %v since the command started", c.Frequency.Duration.Round(time.Millisecond)))
	} else if err != nil {
		return err
	}
	return s.report(r, r.table, r.Warnings)
}

// infoReport is what info prints, as JSON and as the table. Counter figures
// are in ticks.
type infoReport struct {
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

	TSCHz       float64          `json:"tsc_hz"`
	TSCHzMethod string           `json:"tsc_hz_method"`
	TSCHzSource string           `json:"tsc_hz_source"`
	TSCHzPPM    float64          `json:"tsc_hz_ppm"`
	Calibration float64          `json:"tsc_hz_interval_seconds"`
	CrossChecks []crossCheckJSON `json:"cross_checks"`

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

	AllowedCPUs []int        `json:"allowed_cpus"`
	PinnedCPU   int          `json:"pinned_cpu"`
	Priority    priorityJSON `json:"priority"`
	Events      []eventJSON  `json:"events"`

	Took      float64  `json:"took_seconds"`
	GoVersion string   `json:"go_version"`
	GOOS      string   `json:"goos"`
	GOARCH    string   `json:"goarch"`
	Warnings  []string `json:"warnings"`
}

// crossCheckJSON is one independent figure for the counter frequency.
type crossCheckJSON struct {
	Source  string  `json:"source"`
	Hz      float64 `json:"hz"`
	DiffPPM float64 `json:"diff_ppm"` // (hz − the measured figure) / the measured figure
}

func crossChecks(f calibrate.Frequency) []crossCheckJSON {
	cc := make([]crossCheckJSON, 0, len(f.CrossChecks))
	for _, c := range f.CrossChecks {
		cc = append(cc, crossCheckJSON{Source: c.Source, Hz: c.Hz, DiffPPM: c.DiffPPM})
	}
	return cc
}

// eventJSON is what perfevent.Probe found for one performance-counter
// event on this machine.
type eventJSON struct {
	Event     string `json:"event"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why not, when not available
	RDPMC     bool   `json:"rdpmc"`            // readable from user space
}

func eventsJSON(st []perfevent.Status) []eventJSON {
	out := make([]eventJSON, 0, len(st))
	for _, s := range st {
		e := eventJSON{Event: s.Event.String(), Available: s.Available, RDPMC: s.RDPMC == nil}
		if s.Err != nil {
			e.Reason = withoutPackages.Replace(s.Err.Error())
		}
		out = append(out, e)
	}
	return out
}

// priorityJSON is what affinity.Probe found this process could obtain.
type priorityJSON struct {
	Pin      bool     `json:"pin"`
	High     bool     `json:"high"`
	Realtime bool     `json:"realtime"`
	Notes    []string `json:"notes"`
}

// gatherInfo reads the allowed CPU set and the priority capabilities, then
// calibrates on a thread pinned to cpu.
func gatherInfo(cpu int, d time.Duration) (*infoReport, error) {
	// Before pinning: once pinned, the thread's allowed set is one CPU.
	allowed, err := sys.allowed()
	if err != nil {
		return nil, err
	}
	var c *calibrate.Calibration
	var th pinned.Thread
	if err := onThread(cpu, func(t *pinned.Thread) error {
		th = *t
		var err error
		c, err = sys.measure(calibrate.Options{Duration: d})
		return err
	}); err != nil {
		return nil, err
	}
	// After restoring: Probe tries the priorities on a thread of its own.
	r := newInfoReport(c, allowed, th.CPU, sys.probe())
	r.Events = eventsJSON(sys.events())
	r.Warnings = errorStrings(append(append([]error(nil), th.Warnings...), c.Warnings...))
	return r, nil
}

// newInfoReport lays out a calibration and what the process may do.
func newInfoReport(c *calibrate.Calibration, allowed []int, pinnedCPU int, caps affinity.Capabilities) *infoReport {
	m := c.CPU.Microarch()
	r := &infoReport{
		CPU:          c.CPU.Brand,
		Vendor:       c.CPU.Vendor,
		Family:       c.CPU.Family,
		Model:        c.CPU.Model,
		Stepping:     c.CPU.Stepping,
		Hypervisor:   c.CPU.Hypervisor,
		Virtual:      c.CPU.Virtual,
		LogicalCPUs:  c.CPU.LogicalCPUs,
		NominalHz:    c.CPU.NominalHz,
		Counter:      c.CPU.Counter,
		RDTSCP:       c.CPU.RDTSCP,
		InvariantTSC: c.CPU.InvariantTSC,

		TSCHz:       c.Frequency.Hz,
		TSCHzMethod: c.Frequency.Method,
		TSCHzSource: c.Frequency.Source,
		TSCHzPPM:    c.Frequency.PPM,
		Calibration: c.Frequency.Duration.Seconds(),
		CrossChecks: crossChecks(c.Frequency),

		TSCStep:          c.Step.Step,
		TSCStepQuantized: c.Step.Quantized,
		TSCStepGCD:       c.Step.GCD,
		TSCStepMinDelta:  c.Step.MinDelta,

		OverheadTicks:          c.Overhead.Min,
		OverheadTicksMedian:    c.Overhead.Median,
		OverheadAsmTicks:       c.Overhead.AsmMin,
		OverheadAsmTicksMedian: c.Overhead.AsmMedian,
		OverheadPairs:          c.Overhead.Pairs,

		CoreHz:            c.Core.CoreHz,
		CoreChecked:       c.Core.Checked,
		AddTicksPerOp:     nanToZero(c.Core.AddTicksPerOp),
		ImulTicksPerOp:    nanToZero(c.Core.ImulTicksPerOp),
		ImulAddRatio:      nanToZero(c.Core.ImulAddRatio),
		ImulLatency:       c.Core.ImulLatency,
		CoreChainsExact:   c.Core.Exact,
		AddImmCyclesPerOp: nanToZero(c.Core.Imm.CyclesPerOp),
		AddImmFolded:      c.Core.Imm.Folded,
		Microarch:         m.Name,
		MicroarchImul:     m.ImulLatency,
		MicroarchFolds:    m.FoldsAddImm.String(),
		MicroarchSource:   m.Source,
		Emulated:          c.CPU.Emulated != "",

		AllowedCPUs: append([]int{}, allowed...),
		PinnedCPU:   pinnedCPU,
		Priority: priorityJSON{
			Pin:      caps.Pin,
			High:     caps.High,
			Realtime: caps.Realtime,
			Notes:    append(make([]string, 0, len(caps.Notes)), caps.Notes...),
		},

		Took:      c.Took.Seconds(),
		GoVersion: sys.goVersion,
		GOOS:      sys.goos,
		GOARCH:    sys.goarch,
		Warnings:  errorStrings(c.Warnings),
	}
	if cpt := c.Core.CyclesPerTick; cpt > 0 {
		r.CoreCyclesPerTick = &cpt
	}
	switch {
	case c.Core.Refused() && c.Core.Err != nil:
		r.CoreRefused = withoutPackages.Replace(c.Core.Err.Error())
	case !c.Core.Checked && c.Core.Err != nil:
		r.CoreUnchecked = withoutPackages.Replace(c.Core.Err.Error())
	}
	return r
}

// table lays r out as a key/value table.
func (r *infoReport) table() *table {
	t := kvTable()
	row := t.kv
	row("cpu", "%s", orUnknown(r.CPU))
	row("vendor", "%s", orUnknown(r.Vendor))
	row("family/model/stepping", "%d/%d/%d (0x%x/0x%x/0x%x)", r.Family, r.Model, r.Stepping, r.Family, r.Model, r.Stepping)
	switch {
	case r.Hypervisor != "":
		row("hypervisor", "%s", r.Hypervisor)
	case r.Virtual:
		row("hypervisor", "yes (vendor unknown)")
	default:
		row("hypervisor", "none")
	}
	row("counter", "%s", r.Counter)
	row("rdtscp", "%s", yesNo(r.RDTSCP))
	row("invariant_tsc", "%s", yesNo(r.InvariantTSC))
	row("tsc_hz", "%s", formatHz(r.TSCHz))
	row("tsc_hz_source", "%s: %s, over %.3fs", r.TSCHzMethod, r.TSCHzSource, r.Calibration)
	row("tsc_hz_ppm", "±%s", sig(r.TSCHzPPM, 3))
	if len(r.CrossChecks) == 0 {
		row("cross_check", "none available")
	}
	for _, c := range r.CrossChecks {
		row("cross_check", "%s ppm: %.0f Hz from %s", signedSig(c.DiffPPM, 3), c.Hz, c.Source)
	}
	step := fmt.Sprintf("%s %s", sig(r.TSCStep, 4), plural(r.TSCStep, "tick", "ticks"))
	if r.TSCStepQuantized {
		step += fmt.Sprintf(" (quantized: the counter jumps by the step; gcd %d)", r.TSCStepGCD)
	}
	row("tsc_step", "%s", step)
	row("overhead_ticks", "min %s, median %s (in one assembly function: min %s, median %s)",
		sig(r.OverheadTicks, 4), sig(r.OverheadTicksMedian, 4), sig(r.OverheadAsmTicks, 4), sig(r.OverheadAsmTicksMedian, 4))
	switch {
	case r.CoreCyclesPerTick == nil && r.CoreRefused != "":
		row("core_cycles_per_tick", "none: %s", r.CoreRefused)
	case r.CoreCyclesPerTick == nil:
		row("core_cycles_per_tick", "unknown")
	case r.CoreChecked:
		row("core_cycles_per_tick", "%.4f (core clock ≈ %.3f GHz; checked: the register ADD and IMUL chains agree)", *r.CoreCyclesPerTick, r.CoreHz/1e9)
	default:
		row("core_cycles_per_tick", "%.4f (core clock ≈ %.3f GHz; %s)", *r.CoreCyclesPerTick, r.CoreHz/1e9, r.CoreUnchecked)
	}
	ratio := sig(r.ImulAddRatio, 4)
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
	row("imul_add_ratio", "%s", ratio)
	row("add_imm_chain", "%s", addImmText(r))
	switch {
	case r.Emulated:
		row("cpu_table", "does not apply: the processor is emulated, so the cycle figure is unchecked")
	case r.Microarch != "":
		m := calibrate.Microarch{Name: r.Microarch, ImulLatency: r.MicroarchImul}
		row("cpu_table", "%s; folds ADD-immediate chains: %s (%s)", m, r.MicroarchFolds, r.MicroarchSource)
	default:
		row("cpu_table", "not in the table: the multiply latency is not vouched for, so the cycle figure is unchecked")
	}
	row("allowed_cpus", "%s", affinity.FormatCPUs(r.AllowedCPUs))
	if r.PinnedCPU >= 0 {
		row("pinned_cpu", "%d", r.PinnedCPU)
	} else {
		row("pinned_cpu", "none (pinning unsupported)")
	}
	row("priority", "pin=%s high=%s realtime=%s", yesNo(r.Priority.Pin), yesNo(r.Priority.High), yesNo(r.Priority.Realtime))
	for _, n := range r.Priority.Notes {
		row("priority_note", "%s", n)
	}
	for _, e := range r.Events {
		switch {
		case e.Available && e.RDPMC:
			row("event", "%s: available (also read with RDPMC from user space)", e.Event)
		case e.Available:
			row("event", "%s: available", e.Event)
		default:
			row("event", "%s: unavailable: %s", e.Event, e.Reason)
		}
	}
	row("go", "%s %s/%s", r.GoVersion, r.GOOS, r.GOARCH)
	row("took", "%.3fs", r.Took)
	return t
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// plural returns one when n is 1, else many.
func plural(n float64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// addImmText says whether the small-immediate ADD chain is folded on this
// core, as measured, beside what the CPU table expects.
func addImmText(r *infoReport) string {
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

// coreClockText describes a calibration's core-clock ruler in one line:
// its figure and whether it was checked, or why there is none.
func coreClockText(c *calibrate.Calibration) string {
	cc := c.Core
	switch {
	case cc.Refused() && cc.Err != nil:
		return "none: " + withoutPackages.Replace(cc.Err.Error())
	case cc.Refused():
		return "unknown"
	case cc.Checked:
		return fmt.Sprintf("%s (core clock ≈ %.3f GHz; checked by the IMUL chain)", sig(cc.CyclesPerTick, 5), cc.CoreHz/1e9)
	}
	return fmt.Sprintf("%s (core clock ≈ %.3f GHz; unchecked)", sig(cc.CyclesPerTick, 5), cc.CoreHz/1e9)
}
