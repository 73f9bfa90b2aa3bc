package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

// TestSharedReadBack: harness.Result.Shared survives a result file: the
// JSON's "shared" and "probe_excess", harness's warning in go test output
// and in the benchmark format's "# warning:" lines; a file that does not
// say reads as not shared.
func TestSharedReadBack(t *testing.T) {
	m := Measurement{Result: harness.Result{Name: "SumLoop/n=100", Ticks: 1000, Nanoseconds: 500, Cycles: 1500, CyclesPerTick: 1.5,
		ReferenceConverged: true, Converged: true, Samples: 50, Shared: true, ProbeExcess: 0.3,
		Warnings: []error{harness.ErrSharedCore}}, Kernel: "SumLoop", N: 100, Check: "ok", Bench: "SumLoop/n=100"}
	plain := m
	plain.Result.Name, plain.Bench, plain.Shared, plain.ProbeExcess, plain.Warnings = "Other/n=100", "Other/n=100", false, 0, nil
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(NewRunReport(Header{Command: "run"}, []Measurement{m, plain})); err != nil {
		t.Fatal(err)
	}
	var bench bytes.Buffer
	if err := WriteBench(&bench, Header{Command: "run"}, []Measurement{m, plain}); err != nil {
		t.Fatal(err)
	}
	gotest := "pkg: example.com/m\nBenchmarkSumLoop/n=100-2\t1000\t500 ns/op\n--- BENCH: BenchmarkSumLoop/n=100-2\n    x_test.go:9: harness.Report: warning: " + harness.ErrSharedCore.Error() + " by 30%\nBenchmarkOther/n=100-2\t1000\t500 ns/op\n"
	for _, tt := range []struct{ name, text string }{{"json", js.String()}, {"bench", bench.String()}, {"go test", gotest}} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("f", strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Entries) != 2 {
				t.Fatalf("%d entries, want 2", len(f.Entries))
			}
			for _, e := range f.Entries {
				r := f.Measurement(e, e.Runs[0])
				if want := strings.HasPrefix(e.Name, "SumLoop"); r.Shared != want {
					t.Errorf("%s: Shared %v, want %v", e.Name, r.Shared, want)
				}
			}
			if tt.name == "json" {
				if r := f.Measurement(f.Entries[0], f.Entries[0].Runs[0]); r.ProbeExcess != 0.3 {
					t.Errorf("ProbeExcess %v, want 0.3", r.ProbeExcess)
				}
			}
		})
	}
}
