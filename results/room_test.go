package results

import (
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

// TestRoomReadBack: harness.Result.Room survives a result file: the JSON's
// "room", harness's ErrRoom warning in go test output and in the benchmark
// format's "# warning:" lines; a file that does not say reads as not in a
// moment of room.
func TestRoomReadBack(t *testing.T) {
	m := Measurement{Result: harness.Result{Name: "AddRestarted/n=1000", Ticks: 790, Nanoseconds: 316, Cycles: 975, CyclesPerTick: 1.234,
		ReferenceConverged: true, Converged: true, Samples: 50, Room: true,
		Warnings: []error{harness.ErrRoom}}, Kernel: "AddRestarted", N: 1000, Check: "ok", Bench: "AddRestarted/n=1000"}
	plain := m
	plain.Result.Name, plain.Bench, plain.Room, plain.Warnings = "Other/n=1000", "Other/n=1000", false, nil
	gotest := "pkg: example.com/m\nBenchmarkAddRestarted/n=1000-2\t1000\t316 ns/op\n--- BENCH: BenchmarkAddRestarted/n=1000-2\n    x_test.go:9: harness.Report: warning: " + harness.ErrRoom.Error() + ": the room probe read low\nBenchmarkOther/n=1000-2\t1000\t316 ns/op\n"
	for name, f := range readBack(t, []Measurement{m, plain}, gotest) {
		for _, e := range f.Entries {
			r := f.Measurement(e, e.Runs[0])
			if want := strings.HasPrefix(e.Name, "AddRestarted"); r.Room != want {
				t.Errorf("%s: %s: Room %v, want %v", name, e.Name, r.Room, want)
			}
		}
	}
}

// TestCompareRoomSide: two files of one unchanged restarted chain, one
// measured in a moment of room (0.3% low, as on the Intel guest): no
// faster verdict rests on those runs, and the reason says so; without the
// label the same figures give a verdict. -strict fails such a result.
func TestCompareRoomSide(t *testing.T) {
	measurements := func(cycles []float64, room bool) []Measurement {
		var ms []Measurement
		for _, c := range cycles {
			ms = append(ms, Measurement{Result: harness.Result{Name: "AddRestarted/n=1000", Ticks: c / 1.24, Nanoseconds: c / 3.1, Cycles: c, CyclesPerTick: 1.24,
				ReferenceConverged: true, Converged: true, Samples: 50, Room: room}, Kernel: "AddRestarted", N: 1000, Check: "ok", Bench: "AddRestarted/n=1000"})
		}
		return ms
	}
	usual := jsonFile(t, "old.json", measurements([]float64{978.3, 978.4, 978.2}, false))
	for _, tt := range []struct {
		name    string
		room    bool
		verdict string
	}{
		{"the fast side in a moment of room: inconclusive", true, stats.VerdictInconclusive},
		{"the same figures unlabelled: a verdict", false, stats.VerdictFaster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(usual, jsonFile(t, "new.json", measurements([]float64{975.1, 975.3, 975.2}, tt.room)), stats.CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Rows) != 1 {
				t.Fatalf("%d rows, want 1", len(c.Rows))
			}
			m := c.Rows[0].Metrics[0]
			if m.Verdict != tt.verdict {
				t.Fatalf("verdict %q (%s), want %q", m.Verdict, m.Reason, tt.verdict)
			}
			if tt.room && !strings.Contains(m.Reason, "3 of 3 runs of B were measured in a moment of room") {
				t.Errorf("reason %q does not say which runs were in a moment of room", m.Reason)
			}
		})
	}
	for _, strict := range []bool{false, true} {
		got := Failure(measurements([]float64{975.1}, true), strict, 0, "results")
		if want := strict; strings.Contains(got, "moment of room") != want {
			t.Errorf("Failure(strict %v) = %q: want it to name the moment of room: %v", strict, got, want)
		}
	}
}
