package reports_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/perfevent"
	"github.com/cyclebench/cyclebench/tsc"
)

// zen4 is a calibration of an EPYC Zen 4 guest, as calibrate.Measure
// leaves it.
func zen4() *calibrate.Calibration {
	return &calibrate.Calibration{
		CPU: calibrate.CPU{Brand: "AMD EPYC 9R14", Vendor: "AuthenticAMD", Family: 25, Model: 17, Hypervisor: "KVMKVMKVM", Virtual: true,
			LogicalCPUs: 2, Counter: "rdtsc", RDTSCP: true, InvariantTSC: true, GOARCH: "amd64"},
		Frequency: calibrate.Frequency{Hz: 2596141819, PPM: 0.07, Method: calibrate.MethodBracket, Source: "monotonic clock", Duration: 100 * time.Millisecond,
			Brackets:    [2]uint64{52, 52},
			CrossChecks: []calibrate.CrossCheck{{Source: "kernel tsc_khz", Hz: 2596142000, DiffPPM: 0.07}}},
		Step: tsc.StepInfo{Step: 26, Quantized: true, GCD: 26},
		Core: calibrate.CoreClock{CyclesPerTick: 1.4, CoreHz: 3.63e9, Checked: true, AddTicksPerOp: 0.71, ImulTicksPerOp: math.NaN(),
			Imm: calibrate.Folding{CyclesPerOp: 1.0, Folded: false}},
		Took: 300 * time.Millisecond, Warnings: []error{errors.New("calibrate: running under a hypervisor")},
	}
}

func TestNewInfoReport(t *testing.T) {
	refused := zen4()
	refused.Core = calibrate.CoreClock{CoreHz: 3.6e9, Err: errors.New("calibrate: the ADD chain did not converge")}
	unchecked := zen4()
	unchecked.Core.Checked, unchecked.Core.Err = false, errors.New("calibrate: no IMUL latency for this core")
	caps := affinity.Capabilities{Pin: true, High: true, Notes: []string{"realtime: not permitted"}}
	tests := []struct {
		name                string
		c                   *calibrate.Calibration
		cpt                 bool // a core-cycles-per-tick figure
		refused, unchecked  string
		coreText, addImmTxt string
	}{
		{"checked", zen4(), true, "", "", "1.4 (core clock ≈ 3.630 GHz; checked by the IMUL chain)", "not folded: 1.000 cycles per link (as the CPU table says)"},
		{"refused", refused, false, "the ADD chain did not converge", "", "none: calibrate: the ADD chain did not converge", "not measured"},
		{"unchecked", unchecked, true, "", "no IMUL latency", "1.4 (core clock ≈ 3.630 GHz; unchecked)", "not folded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reports.NewInfoReport(tt.c, []int{0, 1}, 1, caps)
			if (r.CoreCyclesPerTick != nil) != tt.cpt || !strings.Contains(r.CoreRefused, tt.refused) || !strings.Contains(r.CoreUnchecked, tt.unchecked) {
				t.Errorf("core %v, refused %q, unchecked %q", r.CoreCyclesPerTick, r.CoreRefused, r.CoreUnchecked)
			}
			if r.CPU != "AMD EPYC 9R14" || r.TSCHz != 2596141819 || len(r.CrossChecks) != 1 || r.PinnedCPU != 1 || len(r.AllowedCPUs) != 2 ||
				!r.Priority.High || r.ImulTicksPerOp != 0 || r.Microarch != "Zen 4" || len(r.Warnings) != 1 {
				t.Errorf("report %+v", r)
			}
			if got := reports.CoreClockText(tt.c); got != tt.coreText {
				t.Errorf("CoreClockText = %q, want %q", got, tt.coreText)
			}
			if got := r.AddImmText(); !strings.HasPrefix(got, tt.addImmTxt) {
				t.Errorf("AddImmText = %q, want %q", got, tt.addImmTxt)
			}
		})
	}
	st := []perfevent.Status{{Event: perfevent.ContextSwitches, Available: true}, {Event: perfevent.Cycles, Err: errors.New("perfevent: no PMU"), RDPMC: errors.New("x")}}
	if ev := reports.EventsOf(st); len(ev) != 2 || !ev[0].Available || !ev[0].RDPMC || ev[1].Reason != "perfevent: no PMU" || ev[1].RDPMC {
		t.Errorf("EventsOf = %+v", ev)
	}
}

func TestCalibrateReport(t *testing.T) {
	c := zen4()
	sleep := calibrate.Frequency{Hz: 2596141819 * (1 + 250e-6), Method: calibrate.MethodSleep, Source: "sleep", Duration: 100 * time.Millisecond}
	tests := []struct {
		name    string
		methods []calibrate.Frequency
		ppm     float64 // 0: none
	}{
		{"bracket", []calibrate.Frequency{c.Frequency}, 0},
		{"both", []calibrate.Frequency{c.Frequency, sleep}, 250},
		{"sleep", []calibrate.Frequency{sleep}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r reports.CalibrateReport
			for _, f := range tt.methods {
				r.Methods = append(r.Methods, reports.FrequencyOf(f))
			}
			r.Compare()
			if (r.SleepVsBracketPPM != nil) != (tt.ppm != 0) || r.SleepVsBracketPPM != nil && math.Abs(*r.SleepVsBracketPPM-tt.ppm) > 1e-6 {
				t.Errorf("SleepVsBracketPPM %v, want %v", r.SleepVsBracketPPM, tt.ppm)
			}
			for _, m := range r.Methods {
				if (m.Brackets != nil) != (m.Method == calibrate.MethodBracket) || m.CrossChecks == nil || m.Seconds != 0.1 {
					t.Errorf("method %+v", m)
				}
			}
		})
	}
}

// TestInfoTexts: the lines of an info report that are decisions in words:
// the hypervisor, the core-clock ruler, the IMUL/ADD ratio, the CPU table.
func TestInfoTexts(t *testing.T) {
	cpt := 1.4
	tests := []struct {
		name string
		r    reports.InfoReport
		got  func(*reports.InfoReport) string
		want string
	}{
		{"hypervisor named", reports.InfoReport{Hypervisor: "KVMKVMKVM", Virtual: true}, (*reports.InfoReport).HypervisorText, "KVMKVMKVM"},
		{"hypervisor unnamed", reports.InfoReport{Virtual: true}, (*reports.InfoReport).HypervisorText, "yes (vendor unknown)"},
		{"no hypervisor", reports.InfoReport{}, (*reports.InfoReport).HypervisorText, "none"},
		{"ruler refused", reports.InfoReport{CoreRefused: "the chains disagree"}, (*reports.InfoReport).CoreText, "none: the chains disagree"},
		{"no ruler", reports.InfoReport{}, (*reports.InfoReport).CoreText, "unknown"},
		{"ruler checked", reports.InfoReport{CoreCyclesPerTick: &cpt, CoreHz: 3.63e9, CoreChecked: true}, (*reports.InfoReport).CoreText,
			"1.4000 (core clock ≈ 3.630 GHz; checked: the register ADD and IMUL chains agree)"},
		{"ruler unchecked", reports.InfoReport{CoreCyclesPerTick: &cpt, CoreHz: 3.63e9, CoreUnchecked: "no IMUL latency known"},
			(*reports.InfoReport).CoreText,
			"1.4000 (core clock ≈ 3.630 GHz; no IMUL latency known)"},
		{"ratio expected", reports.InfoReport{ImulAddRatio: 3.0012, ImulLatency: 3, CoreChainsExact: true},
			(*reports.InfoReport).ImulAddText, "3.001 (expected 3)"},
		{"ratio not measured", reports.InfoReport{}, (*reports.InfoReport).ImulAddText,
			"not measured (the multiply latency of this core is not documented: not judged) (pure-Go chains, approximate)"},
		{"emulated", reports.InfoReport{Emulated: true, Microarch: "Zen 4"}, (*reports.InfoReport).CPUTableText,
			"does not apply: the processor is emulated, so the cycle figure is unchecked"},
		{"not in the table", reports.InfoReport{}, (*reports.InfoReport).CPUTableText,
			"not in the table: the multiply latency is not vouched for, so the cycle figure is unchecked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got(&tt.r); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	r := reports.InfoReport{Microarch: "Zen 4", MicroarchImul: 3, MicroarchFolds: "no", MicroarchSource: "uops.info"}
	if got := r.CPUTableText(); !strings.HasSuffix(got, "; folds ADD-immediate chains: no (uops.info)") || !strings.Contains(got, "Zen 4") {
		t.Errorf("CPUTableText = %q, want the entry, its folding and source", got)
	}
}

// TestInfoLines: every line of an info report, in order, with the
// unknowns, the cross-checks, the pinning and the events in words.
func TestInfoLines(t *testing.T) {
	r := reports.InfoReport{Counter: "rdtsc", TSCStep: 1, PinnedCPU: -1, AllowedCPUs: []int{0, 1},
		CrossChecks: []reports.CrossCheck{{Source: "kernel tsc_khz", Hz: 2596142000, DiffPPM: 0.07}},
		Priority:    reports.PriorityReport{Notes: []string{"no CAP_SYS_NICE"}},
		Events: []reports.EventReport{{Event: "instructions", Available: true, RDPMC: true}, {Event: "cycles", Available: true},
			{Event: "cache-misses", Reason: "not supported"}}}
	lines := r.Lines()
	var labels []string
	got := map[string][]string{}
	for _, l := range lines {
		labels = append(labels, l[0])
		got[l[0]] = append(got[l[0]], l[1])
	}
	want := "cpu vendor family/model/stepping hypervisor counter rdtscp invariant_tsc tsc_hz tsc_hz_source tsc_hz_ppm " +
		"cross_check tsc_step overhead_ticks core_cycles_per_tick imul_add_ratio add_imm_chain cpu_table allowed_cpus " +
		"pinned_cpu priority priority_note event event event go took"
	if strings.Join(labels, " ") != want {
		t.Fatalf("labels %q\nwant %q", labels, want)
	}
	for label, text := range map[string]string{"cpu": "unknown", "rdtscp": "no", "tsc_step": "1 tick",
		"pinned_cpu": "none (pinning unsupported)", "cross_check": "+0.07 ppm: 2596142000 Hz from kernel tsc_khz",
		"allowed_cpus": affinity.FormatCPUs([]int{0, 1}), "priority": "pin=no high=no realtime=no"} {
		if got[label][0] != text {
			t.Errorf("%s: %q, want %q", label, got[label][0], text)
		}
	}
	if e := got["event"]; e[0] != "instructions: available (also read with RDPMC from user space)" || e[1] != "cycles: available" ||
		e[2] != "cache-misses: unavailable: not supported" {
		t.Errorf("events %q", e)
	}
	if l := reports.CrossCheckLines(nil); len(l) != 1 || l[0][1] != "none available" {
		t.Errorf("CrossCheckLines(nil) = %q", l)
	}
	if l := reports.PinnedLine(3); l != [2]string{"pinned_cpu", "3"} {
		t.Errorf("PinnedLine(3) = %q", l)
	}
}

// TestFrequencyLines: a calibration's lines, the brackets only where the
// bracket method measured them.
func TestFrequencyLines(t *testing.T) {
	f := reports.FrequencyReport{Method: "bracket", Hz: 2596141819, PPM: 0.0712, Source: "monotonic clock", Seconds: 0.1, Ticks: 259614181,
		Brackets: &[2]uint64{52, 54}}
	want := [][2]string{{"method", "bracket"}, {"tsc_hz", "2596141819 Hz (2596.141819 MHz)"}, {"tsc_hz_ppm", "±0.0712"},
		{"source", "monotonic clock"}, {"interval", "0.100000s"}, {"ticks", "259614181"}, {"bracket_ticks", "start 52, end 54"},
		{"cross_check", "none available"}}
	if got := f.Lines(); !slices.Equal(got, want) {
		t.Errorf("Lines() = %q\nwant %q", got, want)
	}
	f.Brackets = nil
	if got := f.Lines(); len(got) != len(want)-1 || got[6][0] != "cross_check" {
		t.Errorf("without brackets: %q", got)
	}
}
