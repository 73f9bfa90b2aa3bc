package results_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// TestProvenanceRoundTrip: a report's provenance is read back from its
// JSON, and a file without one reads as nil.
func TestProvenanceRoundTrip(t *testing.T) {
	date := time.Date(2026, 11, 27, 18, 20, 0, 0, time.UTC)
	p := &results.Provenance{Module: "example.com/m", Revision: "0123456789abcdef0123", Dirty: true, Date: date,
		CommandLine: "cyclebench run ./pkg -o new.json", Tool: "v0.1.0", LayoutSeeds: []int64{1, 2, 1}}
	h := results.Header{Command: "run", Warnings: []string{}, Provenance: p}
	m := results.Measurement{Result: harness.Result{Name: "Sum/n=100", Ticks: 100, Nanoseconds: 40, Converged: true}, Kernel: "Sum", N: 100, Check: "ok", Bench: "Sum/n=100"}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(results.NewRunReport(h, []results.Measurement{m})); err != nil {
		t.Fatal(err)
	}
	f, err := results.Parse("new.json", &b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Provenance == nil {
		t.Fatal("provenance not read back")
	}
	got := *f.Provenance
	if got.Module != p.Module || got.Revision != p.Revision || !got.Dirty || !got.Date.Equal(date) || got.CommandLine != p.CommandLine || got.Tool != p.Tool || len(got.LayoutSeeds) != 3 {
		t.Errorf("read back %+v, want %+v", got, *p)
	}
	if line := got.Line(); !strings.Contains(line, "example.com/m at 0123456789ab (dirty)") || !strings.Contains(line, "layouts [1 2]") {
		t.Errorf("Line() = %q", line)
	}
	if h := f.Header("run"); h.Provenance == nil || h.Provenance.Revision != p.Revision {
		t.Errorf("File.Header drops the provenance: %+v", h.Provenance)
	}
	h.Provenance = nil
	b.Reset()
	if err := json.NewEncoder(&b).Encode(results.NewRunReport(h, []results.Measurement{m})); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "provenance") {
		t.Errorf("a header without provenance writes one: %s", b.String())
	}
	if f, err := results.Parse("old.json", &b); err != nil || f.Provenance != nil {
		t.Errorf("a file without provenance: %v, %+v", err, f.Provenance)
	}
}

func TestMeasuredApart(t *testing.T) {
	at := func(d time.Time) results.File {
		return results.File{Provenance: &results.Provenance{Date: d}}
	}
	t0 := time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		a, b results.File
		want string
	}{
		{"dates", at(t0), at(t0.Add(90 * time.Minute)), "measured 1h30m0s apart"},
		{"seconds apart", at(t0), at(t0.Add(5 * time.Second)), "measured 5s apart"},
		{"no date", results.File{}, at(t0), "a file does not say when"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := results.MeasuredApart(c.a, c.b)
			if !strings.Contains(got, c.want) || !strings.Contains(got, "cyclebench compare -base REF") {
				t.Errorf("MeasuredApart = %q, want it to hold %q and the revision comparison", got, c.want)
			}
		})
	}
}

// TestCompareEveryUnit: a file comparison compares every unit both sides
// have, B/op and allocs/op and a benchmark's own metric included, after
// the timing units; ticks stay out.
func TestCompareEveryUnit(t *testing.T) {
	const head = "goos: linux\ngoarch: amd64\npkg: example.com/m\n"
	a, err := results.Parse("old.txt", strings.NewReader(head+
		"BenchmarkF-2 100 50.0 ns/op 16 B/op 2 allocs/op 7 widgets/op\n"+
		"BenchmarkF-2 100 51.0 ns/op 16 B/op 2 allocs/op 7 widgets/op\n"+
		"BenchmarkF-2 100 50.5 ns/op 16 B/op 2 allocs/op 7 widgets/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Parse("new.txt", strings.NewReader(head+
		"BenchmarkF-2 100 50.2 ns/op 8 B/op 1 allocs/op 7 widgets/op\n"+
		"BenchmarkF-2 100 50.9 ns/op 8 B/op 1 allocs/op 7 widgets/op\n"+
		"BenchmarkF-2 100 50.4 ns/op 8 B/op 1 allocs/op 7 widgets/op\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := results.Compare(a, b, stats.DefaultCompareOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(c.Rows))
	}
	var units []string
	ratio := map[string]float64{}
	for _, m := range c.Rows[0].Metrics {
		units = append(units, m.Unit)
		ratio[m.Unit] = m.Ratio
	}
	if got, want := strings.Join(units, " "), "ns/op B/op allocs/op widgets/op"; got != want {
		t.Errorf("units %q, want %q", got, want)
	}
	if r := ratio["allocs/op"]; r != 0.5 {
		t.Errorf("allocs/op B/A = %v, want 0.5", r)
	}
	if c.Apart == "" {
		t.Error("no word that the files were measured apart")
	}
}
