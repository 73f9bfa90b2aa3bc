package main

// Tests of the flows a new user walks first (issue 22): saving results and
// comparing them, help texts that hold only flags that exist, bad input
// files.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

func TestFormatOfPath(t *testing.T) {
	all := []string{formatTable, formatBench, formatJSON, formatCSV, formatMD}
	plain := []string{formatTable, formatJSON, formatCSV}
	tests := []struct {
		path    string
		allowed []string
		want    string
	}{
		{"old.json", all, formatJSON},
		{"dir.d/OLD.JSON", all, formatJSON},
		{"r.csv", all, formatCSV},
		{"new.txt", all, formatBench},
		{"new.bench", all, formatBench},
		{"r.md", all, formatMD},
		{"r.out", all, ""},
		{"noext", all, ""},
		{"new.txt", plain, ""}, // no benchmark format: -format's default stays
		{"r.md", plain, ""},
		{"r.json", plain, formatJSON},
	}
	for _, tt := range tests {
		if got := formatOfPath(tt.path, tt.allowed); got != tt.want {
			t.Errorf("formatOfPath(%q, %v) = %q, want %q", tt.path, tt.allowed, got, tt.want)
		}
	}
}

// TestOutputFormatFromExtension: -o FILE picks the format from the
// extension unless -format or -json says otherwise, and writes what the
// same command with that -format prints.
func TestOutputFormatFromExtension(t *testing.T) {
	td := func(name string) string { return filepath.Join("testdata", name) }
	files := []string{td("compare_a.json"), td("compare_b.json")}
	dir := t.TempDir()
	tests := []struct {
		file string
		args []string // after the files
		same []string // the -format flags whose stdout the file must equal
	}{
		{"cmp.json", nil, []string{"-format", "json"}},
		{"cmp.csv", nil, []string{"-format", "csv"}},
		{"cmp.txt", nil, []string{"-format", "bench"}},
		{"cmp2.json", []string{"-format", "table"}, []string{"-format", "table"}},
		{"cmp3.csv", []string{"-json"}, []string{"-format", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			useFake(t)
			path := filepath.Join(dir, tt.file)
			args := append(append([]string{"compare", "-o", path}, files...), tt.args...)
			if out, errOut, err := runCLI(t, args...); err != nil || out != "" {
				t.Fatalf("run(%q) = %v, stdout %q, stderr %q", args, err, out, errOut)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := runCLI(t, append(append([]string{"compare"}, files...), tt.same...)...)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("-o %s wrote\n%s\nwant what %v prints:\n%s", tt.file, got, tt.same, want)
			}
		})
	}
	t.Run("info -o x.txt", func(t *testing.T) {
		useFake(t)
		path := filepath.Join(dir, "info.txt")
		if _, _, err := runCLI(t, "info", "-o", path); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want, _, _ := runCLI(t, "info")
		if string(got) != want {
			t.Errorf("info -o info.txt wrote\n%s\nwant the table info prints", got)
		}
	})
}

// TestRunFileCount: run -o FILE measures each kernel fileCount times unless
// -count says otherwise, so that two saved runs can be compared.
func TestRunFileCount(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, fileCount},
		{[]string{"-count", "1"}, 1},
		{[]string{"-count", "2"}, 2},
	} {
		path := filepath.Join(dir, "r.json")
		args := append([]string{"run", "-bench", "^AddChain$", "-n", "200", "-m", "40", "-q", "-o", path}, tt.args...)
		// Exit status 1 (a result that did not converge in 40 samples) still
		// writes every result: only the count is judged here.
		if _, _, err := runCLI(t, args...); err != nil && !isExit1(err) {
			t.Fatalf("run(%q) = %v", args, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s is not the JSON report the extension asks for: %v", path, err)
		}
		if len(r.Results) != tt.want {
			t.Errorf("run %v: %d results, want %d", tt.args, len(r.Results), tt.want)
		}
	}
}

// TestComparisonOfInconclusive: a ReportCompare line whose verdict is
// inconclusive reads as such, from its log line or, without one, from its
// inconclusive metric; its summary says so instead of "faster".
func TestComparisonOfInconclusive(t *testing.T) {
	metrics := []results.Value{{Value: 0.55517, Unit: "ratio"}, {Value: 0.55126, Unit: "ratio-lo"}, {Value: 0.559, Unit: "ratio-hi"},
		{Value: 0, Unit: "p-value"}, {Value: 0.128, Unit: "noise-band"}, {Value: 0, Unit: "significant"}, {Value: 1, Unit: "inconclusive"},
		{Value: 19844, Unit: "A-cycles/op"}, {Value: 8068, Unit: "B-cycles/op"}}
	e := results.Entry{Name: "Sum4vsSum"}
	withLog := results.Run{Other: metrics, Warnings: []string{"harness.ReportCompare: Sum4/Sum = 0.55517 [0.55126, 0.559], p = 0, 60 pairs: inconclusive (Sum4 did not converge (its 3 best samples spread 12.8%, ε 1%))"}}
	withoutLog := results.Run{Other: metrics}
	for name, r := range map[string]results.Run{"log line": withLog, "metric": withoutLog} {
		c := comparisonOf(e, r)
		if c.Verdict != stats.VerdictInconclusive || c.Significant {
			t.Errorf("%s: verdict %q, significant %v; want inconclusive", name, c.Verdict, c.Significant)
		}
		if !strings.HasPrefix(c.Summary, "inconclusive") {
			t.Errorf("%s: summary %q", name, c.Summary)
		}
	}
	if c := comparisonOf(e, withLog); c.A != "Sum" || c.B != "Sum4" || !strings.Contains(c.Reason, "did not converge") {
		t.Errorf("sides %q/%q, reason %q", c.B, c.A, c.Reason)
	}
}
