package results

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/stats"
)

// parseText reads a result file given as text.
func parseText(t *testing.T, name, text string) File {
	t.Helper()
	f, err := Parse(name, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCompareRatios compares committed files and checks what every row
// says: ratios B/A of the sides' centres, the runs counted, the rows only
// one file has.
func TestCompareRatios(t *testing.T) {
	tests := []struct {
		name         string
		a, b         string
		rows         int
		onlyA, onlyB int
		runsA, runsB int
		fits         int
	}{
		{"run json, one run against three", "kvm-amd-zen5-run.json", "kvm-amd-zen4-run-count3.json", 15, 0, 0, 1, 3, 0},
		{"bench, three runs each", "kvm-amd-zen5-run.txt", "kvm-amd-zen4-run.txt", 15, 0, 0, 3, 3, 0},
		{"a file against itself", "kvm-amd-zen4-run.txt", "kvm-amd-zen4-run.txt", 15, 0, 0, 3, 3, 0},
		{"cpe files", "kvm-amd-zen5-cpe.json", "kvm-amd-zen4-cpe.json", -1, 0, 0, 1, 1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := readTestdata(t, tt.a), readTestdata(t, tt.b)
			c, err := Compare(a, b, stats.CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.rows >= 0 && len(c.Rows) != tt.rows || len(c.OnlyA) != tt.onlyA || len(c.OnlyB) != tt.onlyB || len(c.Fits) != tt.fits {
				t.Fatalf("%d rows, only in A %v, only in B %v, %d fits: want %d, %d, %d, %d", len(c.Rows), c.OnlyA, c.OnlyB, len(c.Fits), tt.rows, tt.onlyA, tt.onlyB, tt.fits)
			}
			for _, r := range c.Rows {
				if len(r.Metrics) == 0 || r.Verdict != r.Metrics[0].Verdict || r.Summary == "" {
					t.Errorf("%s: %+v", r.Name, r)
				}
				for _, m := range r.Metrics {
					if m.A <= 0 || m.B <= 0 || math.Abs(m.Ratio-m.B/m.A) > 1e-12*m.Ratio || m.CountA != tt.runsA || m.CountB != tt.runsB {
						t.Errorf("%s %s: %+v", r.Name, m.Unit, m)
					}
					if tt.a == tt.b && (m.Ratio != 1 || m.Verdict == stats.VerdictFaster || m.Verdict == stats.VerdictSlower) {
						t.Errorf("%s %s against itself: ratio %v, verdict %q", r.Name, m.Unit, m.Ratio, m.Verdict)
					}
					if m.Tested() != (tt.runsA > 1 && tt.runsB > 1) {
						t.Errorf("%s %s: tested %v with %d and %d runs", r.Name, m.Unit, m.Tested(), tt.runsA, tt.runsB)
					}
				}
			}
			if !json.Valid(mustJSON(t, c)) {
				t.Error("the comparison does not encode as JSON")
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompareIsTheMatrix: the figures Compare tests are those the
// matrix's cells summarize: with one run per side, each side's figure is
// the cell's median, and the rows are the matrix's rows.
func TestCompareIsTheMatrix(t *testing.T) {
	a, b := readTestdata(t, "kvm-amd-zen5-run.json"), readTestdata(t, "kvm-amd-zen4-run.json")
	c, err := Compare(a, b, stats.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Matrix([]File{a, b}, DefaultMatrixOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rows) != len(c.Rows) {
		t.Fatalf("matrix of %d rows, comparison of %d", len(m.Rows), len(c.Rows))
	}
	for i, r := range m.Rows {
		cr := c.Rows[i]
		if cr.Name != r.Label() {
			t.Errorf("row %d: %q in the comparison, %q in the matrix", i, cr.Name, r.Label())
		}
		for _, u := range cr.Metrics {
			var sa, sb Stat
			switch u.Unit {
			case "cycles/op":
				sa, sb = r.Cells[0].Cycles, r.Cells[1].Cycles
			case "ns/op":
				sa, sb = r.Cells[0].NS, r.Cells[1].NS
			case "cycles/elem":
				sa, sb = r.Cells[0].CyclesPerElem, r.Cells[1].CyclesPerElem
			case "ns/elem":
				sa, sb = r.Cells[0].NsPerElem, r.Cells[1].NsPerElem
			}
			if u.A != sa.Median || u.B != sb.Median {
				t.Errorf("%s %s: A %v, B %v in the comparison; %v, %v in the matrix", cr.Name, u.Unit, u.A, u.B, sa.Median, sb.Median)
			}
		}
	}
}

// TestCompareErrors: files that cannot be compared are an error wrapping
// ErrIncomparable that names the benchmark or the files.
func TestCompareErrors(t *testing.T) {
	ops := `{"command": "run", "results": [{"name": "AddChain/n=1000", "mode": "throughput", "unit": "ops", "cycles": 1000, "ticks": 750, "ns": 300, "elements": 1000,
"cycles_per_element": 1, "ticks_per_element": 0.75, "ns_per_element": 0.3, "converged": true, "core_cycles_per_tick": 1.33}]}`
	elems := strings.Replace(ops, `"unit": "ops"`, `"unit": "elements"`, 1)
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"other element unit", ops, elems, "AddChain/n=1000 counts ops in a but elements in b"},
		{"no figure in common", "BenchmarkX 1 5 ns/op\n", "BenchmarkX 1 5 B/op\n", "no figure to compare"},
		{"no name in common", "BenchmarkX 1 5 ns/op\n", "BenchmarkY 1 5 ns/op\n", "no benchmark name in common"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(parseText(t, "a", tt.a), parseText(t, "b", tt.b), stats.CompareOptions{})
			if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compare = %v, want ErrIncomparable saying %q", err, tt.want)
			}
		})
	}
}

// TestCompareVerdicts: between-run tests of bench files with six runs a
// side: a 10% difference in cycles is slower, the same runs no
// difference, runs that did not converge inconclusive; one run a side is
// no test, with a remedy for the kind of file.
func TestCompareVerdicts(t *testing.T) {
	runs := func(cycles float64, n int, note string) string {
		var b strings.Builder
		for i := range n {
			c := cycles * (1 + 0.001*float64(i%3))
			b.WriteString("BenchmarkSum/n=1000\t1000\t" + num(c/3, 6) + " ns/op\t" + num(c, 6) + " cycles/op\t" + num(c/1.3, 6) + " ticks/op\n")
			b.WriteString(note)
		}
		return b.String()
	}
	notConv := "--- BENCH: BenchmarkSum/n=1000\n    x_test.go:1: harness.Report: warning: harness: did not converge: spread 4%\n"
	tests := []struct {
		name, a, b string
		verdict    string
		remedy     string
	}{
		{"slower", runs(1000, 6, ""), runs(1100, 6, ""), stats.VerdictSlower, ""},
		{"same", runs(1000, 6, ""), runs(1000, 6, ""), stats.VerdictSame, ""},
		{"not converged", runs(1000, 6, ""), runs(1100, 6, notConv), stats.VerdictInconclusive, ""},
		{"one run", runs(1000, 1, ""), runs(1100, 1, ""), stats.VerdictNoTest, "go test -bench ... -count 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(parseText(t, "a.txt", tt.a), parseText(t, "b.txt", tt.b), stats.CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := c.Rows[0]
			if r.Verdict != tt.verdict || r.Metrics[0].Unit != "cycles/op" {
				t.Errorf("verdict %q in %s, want %q in cycles/op (%s)", r.Verdict, r.Metrics[0].Unit, tt.verdict, r.Metrics[0].Reason)
			}
			if tt.remedy != "" && (!strings.Contains(c.Remedy(), tt.remedy) || !strings.Contains(r.Metrics[0].Reason, tt.remedy)) {
				t.Errorf("remedy %q, reason %q: want %q", c.Remedy(), r.Metrics[0].Reason, tt.remedy)
			}
			if c.Benchstat() == "" {
				t.Error("two benchmark files, no benchstat command")
			}
			if bars, ok := c.Bars(); !ok || len(bars.Groups) != 1 || bars.Series[0].Bars[0].Value != r.Metrics[0].Ratio {
				t.Errorf("bars %+v (%v)", bars, ok)
			}
		})
	}
}

func TestUnitComparisonVerdictText(t *testing.T) {
	tests := []struct {
		m    UnitComparison
		want string
	}{
		{UnitComparison{Verdict: stats.VerdictSlower, Ratio: 1.0321}, "slower (+3.21%)"},
		{UnitComparison{Verdict: stats.VerdictFaster, Ratio: 0.5}, "faster (-50%)"},
		{UnitComparison{Verdict: stats.VerdictSame, Ratio: 1.001}, stats.VerdictSame},
		{UnitComparison{Verdict: stats.VerdictNoTest, Reason: "no test: 1 run per side; measure with -count 6"}, "no test: 1 run per side"},
	}
	for _, tt := range tests {
		if got := tt.m.VerdictText(); got != tt.want {
			t.Errorf("VerdictText(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestFileConfig(t *testing.T) {
	f := readTestdata(t, "kvm-amd-zen4-run.json")
	cfg := f.Config()
	if len(cfg) != 17 || cfg[0][0] != "goos" || cfg[16][0] != "go" {
		t.Fatalf("Config() = %v: want the 17 keys from goos to go", cfg)
	}
	for _, tt := range []struct{ key, want string }{{"goarch", "amd64"}, {"counter", "rdtsc"}, {"nope", ""}} {
		if got := f.ConfigValue(tt.key); got != tt.want {
			t.Errorf("ConfigValue(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
