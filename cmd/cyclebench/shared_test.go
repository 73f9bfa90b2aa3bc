package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

// TestSharedLabel: a result measured on a shared core is marked "!" in the
// table (on its cycles, or its ns when it has no cycle figure), its JSON
// says "shared", the legend is among the warnings, and -strict fails it
// and asks the harness to refuse its cycle figure (Config.RefuseShared),
// passed on to each run's process as -refuse-shared.
func TestSharedLabel(t *testing.T) {
	cfg := harness.DefaultConfig()
	m := results.Measurement{Result: harness.Result{Name: "SumLoop", Cycles: 25516, Ticks: 17000, Nanoseconds: 8100, CyclesPerTick: 1.5,
		ReferenceConverged: true, CyclesSource: "ruler", CyclesChecked: true, Converged: true, Samples: 100, Config: cfg,
		Shared: true, ProbeExcess: 0.31}, Kernel: "SumLoop", Check: "ok", Bench: "SumLoop"}
	var b strings.Builder
	if err := writeResults(&b, formatTable, results.Header{}, []results.Measurement{m}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "!25516") {
		t.Errorf("table lacks the mark !25516:\n%s", b.String())
	}
	j := m.JSON()
	if !j.Shared || j.ProbeExcess != 0.31 {
		t.Errorf("JSON shared %v, probe_excess %v: want true, 0.31", j.Shared, j.ProbeExcess)
	}
	var legend bool
	for _, w := range reports.ResultWarnings(results.Header{}, []results.Measurement{m}) {
		legend = legend || w.Text == reports.SharedNote
	}
	if !legend {
		t.Error("no legend of the ! mark among the warnings")
	}

	noCycles := m
	noCycles.Cycles, noCycles.CyclesPerTick = 0, 0
	b.Reset()
	if err := writeResults(&b, formatTable, results.Header{}, []results.Measurement{noCycles}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "!8100") {
		t.Errorf("table without cycles lacks the mark !8100 on ns:\n%s", b.String())
	}

	if got := results.Failure([]results.Measurement{m}, false, cfg.MaxTime, "results"); got != "" {
		t.Errorf("shared, not strict: failure %q, want none", got)
	}
	if got := results.Failure([]results.Measurement{m}, true, cfg.MaxTime, "results"); !strings.Contains(got, "1 of 1 results were measured on a shared core") {
		t.Errorf("shared, strict: failure %q", got)
	}

	for _, strict := range []bool{false, true} {
		s := newSession("run", "", "", io.Discard)
		s.o = addOutputFlags(s.fs, io.Discard, io.Discard, true, resultFormats...)
		s.mf = addMeasureFlags(s.fs, true)
		args := []string{"-k", "5"}
		if strict {
			args = append(args, "-strict")
		}
		if err := s.open(args, false); err != nil {
			t.Fatal(err)
		}
		s.close()
		if s.cfg.RefuseShared != strict {
			t.Errorf("strict %v: Config.RefuseShared %v", strict, s.cfg.RefuseShared)
		}
		child := strings.Join(childArgs("run", s.fs.FlagSet), " ")
		if strings.Contains(child, "-refuse-shared=true") != strict {
			t.Errorf("strict %v: a child's arguments %q", strict, child)
		}
	}
}

// TestNoDenialBesideAFigure: a result with a cycle figure from a ruler that
// did not converge gets no "no core-cycle estimate" line on stderr, but
// one saying the cycles are less certain, with the remedy.
func TestNoDenialBesideAFigure(t *testing.T) {
	w := fmt.Errorf("%w: the reference chain did not converge; the cycle estimate is less certain", harness.ErrNoCycles)
	m := results.Measurement{Result: harness.Result{Name: "Sum", Cycles: 1000, Ticks: 700, CyclesPerTick: 1.43, Converged: true, Warnings: []error{w}}, Check: "ok"}
	none := m
	none.Name, none.Cycles, none.CyclesPerTick = "Other", 0, 0
	lines, _, _ := reports.WarningLines(reports.ResultWarnings(results.Header{}, []results.Measurement{m, none}))
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "Sum: harness: cycles less certain: the reference chain did not converge; remedy: a quieter CPU") {
		t.Errorf("warnings lack the reworded line for Sum:\n%s", text)
	}
	if !strings.Contains(text, "Other: harness: no core-cycle estimate") {
		t.Errorf("a result without cycles keeps the library's words:\n%s", text)
	}
	if m.Warnings[0] != w {
		t.Error("the result's own warnings were changed")
	}
}
