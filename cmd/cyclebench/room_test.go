package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// TestRoomLabel: a result measured in a moment of room (harness.ErrRoom:
// the core had more room than usual to the end of the wait) is marked "<"
// in the table, its JSON says "room", the legend is among the warnings,
// and comparing a file of such runs marks its side and gives no verdict.
func TestRoomLabel(t *testing.T) {
	cfg := harness.DefaultConfig()
	m := results.Measurement{Result: harness.Result{Name: "AddRestarted", Cycles: 975.2, Ticks: 786, Nanoseconds: 314.6, CyclesPerTick: 1.24,
		ReferenceConverged: true, CyclesSource: "ruler", CyclesChecked: true, Converged: true, Samples: 100, Config: cfg,
		Room: true, Warnings: []error{harness.ErrRoom}}, Kernel: "AddRestarted", Check: "ok", Bench: "AddRestarted"}
	var b strings.Builder
	if err := writeResults(&b, formatTable, results.Header{}, []results.Measurement{m}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<975.2") {
		t.Errorf("table lacks the mark <975.2:\n%s", b.String())
	}
	if !m.JSON().Room {
		t.Error("JSON room false, want true")
	}
	var legend bool
	for _, w := range reports.ResultWarnings(results.Header{}, []results.Measurement{m}) {
		legend = legend || w.Text == reports.RoomNote
	}
	if !legend {
		t.Error("no legend of the < mark among the warnings")
	}

	dir := t.TempDir()
	write := func(name string, cycles []float64, room bool) results.File {
		var ms []results.Measurement
		for _, c := range cycles {
			r := m
			r.Cycles, r.Ticks, r.Nanoseconds, r.Room = c, c/1.24, c/3.1, room
			if !room {
				r.Warnings = nil
			}
			ms = append(ms, r)
		}
		var out strings.Builder
		if err := writeResults(&out, formatJSON, results.Header{Command: "run"}, ms); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	c, err := results.Compare(write("old.json", []float64{978.3, 978.4, 978.2}, false), write("new.json", []float64{975.1, 975.3, 975.2}, true), stats.DefaultCompareOptions)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := writeFileComparison(&b, formatTable, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<975.2", reports.RoomNote, "inconclusive"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}
