package reports_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

// TestWarningLines: one line per distinct problem per benchmark (a
// problem of several sizes or runs is one line naming them), no doubled
// prefixes, no result named twice in a line, the machine's warnings once
// whichever result carried them, a remedy where there is one.
func TestWarningLines(t *testing.T) {
	hv := "calibrate: running under a hypervisor (KVMKVMKVM): the counter may be virtualised"
	tests := []struct {
		name             string
		ws               []reports.Warning
		want             []string
		problems, benchs int
	}{
		{"none", nil, nil, 0, 0},
		{"sizes, runs, the machine's", []reports.Warning{
			{Text: hv},
			{Subject: "Sum1/n=400 (latency)", Text: "harness.ReportSweep: warning: harness: two modes: BenchmarkSum1/mode=latency/n=400: the samples form two clusters, from 420 cycles"},
			{Subject: "Sum1/n=800 (latency)", Text: "harness.ReportSweep: warning: " + hv},
			{Subject: "Sum1/n=800 (latency)", Text: "harness: two modes: BenchmarkSum1/mode=latency/n=800: the samples form two clusters, from 820 cycles"},
			{Subject: "Sum4/n=400", Text: "harness: did not converge: spread of the 3 best is 3% after 1000 samples; remedy: raise Config.MaxTime"},
			{Subject: "Sum4/n=400", Text: "harness: many samples discarded: 4 of 32"},
		}, []string{
			hv,
			"Sum1 (latency): harness: two modes in 2 results (n=400, n=800); the first, at n=400: the samples form two clusters, from 420 cycles; remedy: " + harness.Remedy("harness: two modes"),
			"Sum4/n=400: harness: did not converge: spread of the 3 best is 3% after 1000 samples; remedy: raise Config.MaxTime",
			"Sum4/n=400: harness: many samples discarded: 4 of 32; remedy: " + harness.Remedy("harness: many samples discarded"),
		}, 3, 2},
		{"the run's own, once", []reports.Warning{{Text: "interrupted by a signal"}, {Text: "interrupted by a signal"}}, []string{"interrupted by a signal"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems, benchs := reports.WarningLines(tt.ws)
			if !slices.Equal(got, tt.want) || problems != tt.problems || benchs != tt.benchs {
				t.Errorf("WarningLines:\n%s\n(%d problems in %d benchmarks)\nwant:\n%s\n(%d in %d)", strings.Join(got, "\n"), problems, benchs, strings.Join(tt.want, "\n"), tt.problems, tt.benchs)
			}
			for _, l := range got {
				if strings.Contains(l, "harness.Report") || strings.Contains(l, "BenchmarkSum1") {
					t.Errorf("line repeats itself: %q", l)
				}
			}
		})
	}
}

// TestReportWarnings: a report's warnings with their subjects: the
// header's first (with those every result shares moved there), then each
// result's failed check and its own, latency results named so.
func TestReportWarnings(t *testing.T) {
	vm, own := errors.New("calibrate: running under a hypervisor"), errors.New("harness: many samples discarded: 4 of 32")
	h := results.Header{Warnings: []string{"priority high asked, normal obtained"}}
	ms := []results.Measurement{
		{Result: harness.Result{Name: "Sum/n=8", Warnings: []error{vm, own}}, Check: "ok"},
		{Result: harness.Result{Name: "Sum/n=8", Mode: harness.Latency, Warnings: []error{vm}}, Check: "wrong sum"},
	}
	sw := &results.Sweep{CPEResult: harness.CPEResult{Name: "Sum", Warnings: []error{vm}, Points: []harness.Result{{Name: "Sum/n=8", Warnings: []error{own}}}}, Check: "n=8: wrong"}
	cs := []results.Paired{{Name: "Sum4vsSum1", Warnings: []string{"harness: did not converge"}}}
	tests := []struct {
		name string
		got  []reports.Warning
		want []reports.Warning
	}{
		{"measurements", reports.Warnings(h, ms), []reports.Warning{
			{Text: "priority high asked, normal obtained"}, {Text: vm.Error()},
			{Subject: "Sum/n=8", Text: own.Error()},
			{Subject: "Sum/n=8 (latency)", Text: "output check failed: wrong sum"}}},
		{"sweeps", reports.SweepWarnings(h, []*results.Sweep{sw}), []reports.Warning{
			{Text: "priority high asked, normal obtained"},
			{Subject: "Sum", Text: "output check failed: n=8: wrong"}, {Subject: "Sum", Text: vm.Error()},
			{Subject: "Sum/n=8", Text: own.Error()}}},
		{"comparisons", reports.PairedWarnings(h, cs), []reports.Warning{
			{Text: "priority high asked, normal obtained"}, {Subject: "Sum4vsSum1", Text: "harness: did not converge"}}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if len(ms[0].Warnings) != 2 {
		t.Errorf("Warnings changed the measurements it was given: %v", ms[0].Warnings)
	}
}
