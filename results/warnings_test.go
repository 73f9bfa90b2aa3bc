package results_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
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
		ws               []results.Warning
		want             []string
		problems, benchs int
	}{
		{"none", nil, nil, 0, 0},
		{"sizes, runs, the machine's", []results.Warning{
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
		{"the run's own, once", []results.Warning{{Text: "interrupted by a signal"}, {Text: "interrupted by a signal"}}, []string{"interrupted by a signal"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems, benchs := results.WarningLines(tt.ws)
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
