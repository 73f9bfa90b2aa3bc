package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
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
	gotest := "pkg: example.com/m\nBenchmarkSumLoop/n=100-2\t1000\t500 ns/op\n--- BENCH: BenchmarkSumLoop/n=100-2\n    x_test.go:9: harness.Report: warning: " + harness.ErrSharedCore.Error() + " by 30%\nBenchmarkOther/n=100-2\t1000\t500 ns/op\n"
	for name, f := range readBack(t, []Measurement{m, plain}, gotest) {
		for _, e := range f.Entries {
			r := f.Measurement(e, e.Runs[0])
			if want := strings.HasPrefix(e.Name, "SumLoop"); r.Shared != want {
				t.Errorf("%s: %s: Shared %v, want %v", name, e.Name, r.Shared, want)
			}
		}
		if name == "json" {
			if r := f.Measurement(f.Entries[0], f.Entries[0].Runs[0]); r.ProbeExcess != 0.3 {
				t.Errorf("ProbeExcess %v, want 0.3", r.ProbeExcess)
			}
		}
	}
}

// readBack writes ms as JSON and in the benchmark format, and parses those
// and the go test output gotest, each into a File of len(ms) entries.
func readBack(t *testing.T, ms []Measurement, gotest string) map[string]File {
	t.Helper()
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(NewRunReport(Header{Command: "run"}, ms)); err != nil {
		t.Fatal(err)
	}
	var bench bytes.Buffer
	if err := WriteBench(&bench, Header{Command: "run"}, ms); err != nil {
		t.Fatal(err)
	}
	files := map[string]File{}
	for _, tt := range []struct{ name, text string }{{"json", js.String()}, {"bench", bench.String()}, {"go test", gotest}} {
		f, err := Parse("f", strings.NewReader(tt.text))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(f.Entries) != len(ms) {
			t.Fatalf("%s: %d entries, want %d", tt.name, len(f.Entries), len(ms))
		}
		files[tt.name] = f
	}
	return files
}

// TestCompareSharedSide: two files of one unchanged kernel, one measured
// while the core was shared: no faster or slower verdict rests on the
// shared runs, and the reason says so; without the label the same
// figures give a verdict.
func TestCompareSharedSide(t *testing.T) {
	file := func(name string, cycles []float64, shared bool) File {
		var ms []Measurement
		for _, c := range cycles {
			ms = append(ms, Measurement{Result: harness.Result{Name: "SumLoop/n=20000", Ticks: c / 1.2, Nanoseconds: c / 3, Cycles: c, CyclesPerTick: 1.2,
				ReferenceConverged: true, Converged: true, Samples: 50, Shared: shared, ProbeExcess: 0.9}, Kernel: "SumLoop", N: 20000, Check: "ok", Bench: "SumLoop/n=20000"})
		}
		return jsonFile(t, name, ms)
	}
	quiet := file("new.json", []float64{20025, 20031, 20029}, false)
	for _, tt := range []struct {
		name    string
		shared  bool
		verdict string
	}{
		{"the slow side shared: inconclusive", true, stats.VerdictInconclusive},
		{"the same figures unlabelled: a verdict", false, stats.VerdictFaster},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(file("old.json", []float64{35582, 35610, 35570}, tt.shared), quiet, stats.CompareOptions{})
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
			if tt.shared && !strings.Contains(m.Reason, "3 of 3 runs of A were measured on a shared core") {
				t.Errorf("reason %q does not say which runs were shared", m.Reason)
			}
		})
	}
}

// TestQuantileReadBack: harness.Result.Quantile survives a result file: the
// JSON's "quantile", harness's ErrNoFloor warning in go test output and in
// the benchmark format's "# warning:" lines; a file that does not say reads
// as the best sample's figure.
func TestQuantileReadBack(t *testing.T) {
	m := Measurement{Result: harness.Result{Name: "BubbleSort/n=1000", Ticks: 2.9e6, Nanoseconds: 1.2e6, Cycles: 3.6e6, CyclesPerTick: 1.24,
		ReferenceConverged: true, Converged: true, Samples: 300, Quantile: harness.Quantile, FloorShare: 0.01,
		Warnings: []error{harness.ErrNoFloor}}, Kernel: "BubbleSort", N: 1000, Check: "ok", Bench: "BubbleSort/n=1000"}
	plain := m
	plain.Result.Name, plain.Bench, plain.Quantile, plain.Warnings = "Other/n=1000", "Other/n=1000", 0, nil
	gotest := "pkg: example.com/m\nBenchmarkBubbleSort/n=1000-2\t1000\t500 ns/op\n--- BENCH: BenchmarkBubbleSort/n=1000-2\n    x_test.go:9: harness.Report: warning: " + harness.ErrNoFloor.Error() + ": the figure is the 5th percentile\nBenchmarkOther/n=1000-2\t1000\t500 ns/op\n"
	for name, f := range readBack(t, []Measurement{m, plain}, gotest) {
		for _, e := range f.Entries {
			r := f.Measurement(e, e.Runs[0])
			want := 0.0
			if strings.HasPrefix(e.Name, "BubbleSort") {
				want = harness.Quantile
			}
			if r.Quantile != want {
				t.Errorf("%s: %s: Quantile %v, want %v", name, e.Name, r.Quantile, want)
			}
		}
	}
}

// jsonFile writes ms as cyclebench run -format json does and reads the
// text back as the file called name.
func jsonFile(t *testing.T, name string, ms []Measurement) File {
	t.Helper()
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(NewRunReport(Header{Command: "run"}, ms)); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(name, strings.NewReader(js.String()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
