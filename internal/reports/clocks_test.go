package reports_test

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/lab"
	"github.com/cyclebench/cyclebench/results"
)

// TestClocksReport: every clock's readings in ns, NaN figures as null,
// the kernel's check, K-best figure and unit.
func TestClocksReport(t *testing.T) {
	tsc := lab.ClockInfo{Clock: cputime.ClockTSC, Source: "tsc (rdtsc)", Resolution: 10 * time.Nanosecond, Empty: 60 * time.Nanosecond}
	ms := lab.ClockInfo{Clock: cputime.ClockWallMs, Source: "time.Now truncated to ms", Resolution: time.Millisecond}
	kb := &harness.Result{Name: "Sort/n=10", Nanoseconds: 540000, Cycles: 1.4 * 540000 * 2.6, CyclesPerTick: 1.4, Converged: true}
	res := lab.Result{Reps: 2, Clocks: []lab.ClockInfo{ms, tsc}, Nesting: []cputime.Clock{cputime.ClockWallMs, cputime.ClockTSC}, CPU: 1,
		Kernels: []lab.KernelResult{{Name: "Sort/n=10", Reference: cputime.ClockTSC, HasReference: true, KBest: kb, CheckError: errors.New("not sorted"),
			Methods: []lab.Method{
				{ClockInfo: ms, Readings: []time.Duration{0, 0}, Spread: math.NaN(), Zeros: 2, DiffFromReference: -1},
				{ClockInfo: tsc, Readings: []time.Duration{550 * time.Microsecond, 552 * time.Microsecond}, Min: 550 * time.Microsecond,
					Median: 552 * time.Microsecond, Max: 552 * time.Microsecond, Spread: 0.0036, Resolves: true, Agrees: true},
			}}}}
	r := reports.NewClocksReport("EPYC", res, map[string]string{"Sort/n=10": "elements"})
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	k := r.Kernels[0]
	if r.CPU != "EPYC" || len(r.Clocks) != 2 || r.Nesting[1] != "tsc" || k.Check != "not sorted" || k.Unit != "elements" || k.Reference != "tsc" ||
		k.KBest == nil || k.KBest.Unit != "elements" || k.KBestResult != kb {
		t.Errorf("report %+v, kernel %+v", r, k)
	}
	if m := k.Methods[0]; m.Spread != nil || m.DiffFromReference == nil || m.ReadingsNs[0] != 0 || m.Zeros != 2 {
		t.Errorf("wall-ms %+v: want no spread, the difference from the tsc", m)
	}
	if m := k.Methods[1]; m.Spread == nil || *m.Spread != 0.0036 || m.ReadingsNs[1] != 552000 || m.MedianNs != 552000 {
		t.Errorf("tsc %+v", m)
	}
	for _, tt := range []struct {
		medians []int64
		ref     string
		unit    string
		ns      float64
	}{
		{[]int64{552000, 9e12}, "tsc", "ms", 1e6},
		{[]int64{200e9, 1}, "tsc", "s", 1e9},
		{[]int64{1, 2e9}, "", "ms", 1e6},
		{[]int64{150e9, 2}, "", "s", 1e9},
	} {
		k := reports.ClocksKernel{Reference: tt.ref, Methods: []reports.ClockMethod{{Clock: "wall-ms", MedianNs: tt.medians[0]}, {Clock: "tsc", MedianNs: tt.medians[1]}}}
		if k.Reference != "" {
			k.Methods[0].Clock = "tsc"
			k.Methods[1].Clock = "wall-ms"
		}
		if unit, ns := k.DisplayUnit(); unit != tt.unit || ns != tt.ns {
			t.Errorf("DisplayUnit of %v (reference %q) = %s, %v; want %s, %v", tt.medians, tt.ref, unit, ns, tt.unit, tt.ns)
		}
	}
}

func TestUtilisationReport(t *testing.T) {
	u := func(name string, share float64) lab.KernelUtilisation {
		return lab.KernelUtilisation{Name: name, ThreadCPU: time.Millisecond, Utilisation: cputime.Utilisation{Wall: 800 * time.Millisecond, OfOneCPU: share, NumCPU: 2}}
	}
	res := lab.UtilisationResult{CPU: 1, Kernels: []lab.KernelUtilisation{u("HashLoop", 99.9), u("Sleep", 0.03), u("Half", 50)}}
	r := reports.NewUtilisationReport("EPYC", res)
	want := []string{"HashLoop kept one CPU busy (99.9% of one CPU, ≥ 95%) for 800ms: compute-bound",
		"Sleep used 0.03% of one CPU (≤ 2%) over 800ms of wall time: it sleeps or blocks",
		"Half used 50% of one CPU over 800ms: partly busy, or preempted"}
	if strings.Join(r.Verdict, "\n") != strings.Join(want, "\n") || len(r.Kernels) != 3 || r.Kernels[0].Check != "ok" || r.Kernels[0].ThreadCPUNs != 1e6 {
		t.Errorf("report %+v\nverdicts %q", r, r.Verdict)
	}
}

// TestReportNotes: each kernel's failed check and warnings after its
// name, then the report's own; the kernels that failed their check.
func TestReportNotes(t *testing.T) {
	kbOK := &harness.Result{CyclesPerTick: 1.4, ReferenceConverged: true}
	kbLoose := &harness.Result{CyclesPerTick: 1.4}
	clocks := reports.ClocksReport{Warnings: []string{"pinning unsupported"}, Kernels: []reports.ClocksKernel{
		{Name: "Sort", Check: "not sorted", Warnings: []string{"redone twice"}, KBestResult: kbOK},
		{Name: "Factorize", Check: "ok", Warnings: []string{}},
	}}
	util := reports.UtilisationReport{Warnings: []string{"stopped early"}, Kernels: []reports.UtilisationKernel{
		{Name: "HashLoop", Check: "ok", Warnings: []string{"tick-based"}},
		{Name: "Sleep", Check: "woke early"},
	}}
	cw, cf := clocks.Notes()
	uw, uf := util.Notes()
	tests := []struct {
		name                   string
		warnings, failed       []string
		wantWarnings, wantFail []string
	}{
		{"clocks", cw, cf, []string{"Sort: output check failed: not sorted", "Sort: redone twice", "pinning unsupported"}, []string{"Sort"}},
		{"utilisation", uw, uf, []string{"HashLoop: tick-based", "Sleep: output check failed: woke early", "stopped early"}, []string{"Sleep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.warnings, tt.wantWarnings) || !slices.Equal(tt.failed, tt.wantFail) {
				t.Errorf("warnings %q, failed %q; want %q, %q", tt.warnings, tt.failed, tt.wantWarnings, tt.wantFail)
			}
		})
	}
	if clocks.RulerUnconverged() {
		t.Error("RulerUnconverged with every ruler converged")
	}
	clocks.Kernels[1].KBestResult = kbLoose
	if !clocks.RulerUnconverged() {
		t.Error("not RulerUnconverged with a ruler that did not converge")
	}
}

// TestReportHeads: the lines above the clocks' and the demo's tables.
func TestReportHeads(t *testing.T) {
	clocks := reports.ClocksReport{Reps: 5, CPU: "EPYC", PinnedCPU: 1, Priority: "high", TSCHz: 2.6e9, TSCHzSource: "bracket",
		Nesting: []string{"process", "tsc"}, Kernels: []reports.ClocksKernel{{KBest: &results.ResultJSON{}}}}
	util := reports.UtilisationReport{PinnedCPU: -1}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"clocks", clocks.Head(), []string{
			"clocks: 5 repetitions of each kernel, every clock around the same runs; cyclebench's K-best figure beside them",
			"cpu: EPYC  pinned: cpu 1  priority: high", "tsc: 2600000000 Hz (2600.000000 MHz) (bracket)", "nesting, outer to inner: process, tsc"}},
		{"clocks, no K-best, no frequency", reports.ClocksReport{Reps: 3, PinnedCPU: -1}.Head(), []string{
			"clocks: 3 repetitions of each kernel, every clock around the same runs", "cpu: -  pinned: no  priority: -", "nesting, outer to inner: "}},
		{"utilisation", util.Head(), []string{
			"utilisation demo: each kernel once, between two snapshots of the system's and the process's cpu time", "cpu: -  pinned: no  priority: -"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("Head() = %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}
