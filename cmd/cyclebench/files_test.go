package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/reports"
)

// TestFileComparisonHeader: the header of a two-file comparison shows the
// settings that differ, one per row, and names in one line those that
// agree; a side with a run measured on a shared core is marked "!", with
// the mark's legend.
func TestFileComparisonHeader(t *testing.T) {
	a, b := filepath.Join("testdata", "compare_a.json"), filepath.Join("testdata", "compare_b.json")
	out, _, err := runCLI(t, "compare", a, b)
	if err != nil {
		t.Fatal(err)
	}
	head := out[:strings.Index(out, "\nname ")]
	if strings.Contains(head, "\ngoos ") || strings.Contains(head, "\nk ") || !strings.Contains(head, "\ntsc-hz ") {
		t.Errorf("header shows rows that agree, or lacks tsc-hz that differs:\n%s", head)
	}
	if !strings.Contains(strings.Join(strings.Fields(head), " "), "the same on both sides: format cyclebench run (json), goos linux") {
		t.Errorf("header does not name what agrees:\n%s", head)
	}
	if strings.Contains(out, "!") {
		t.Errorf("a mark of a shared core without one:\n%s", out)
	}

	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "b.json")
	text := strings.Replace(string(data), `"name": "AddChain/n=1000",`, `"name": "AddChain/n=1000", "shared": true,`, 1)
	if err := os.WriteFile(shared, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCLI(t, "compare", a, shared)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "!1005") || !strings.Contains(out, reports.SharedNote) || strings.Contains(out, "!1008") {
		t.Errorf("B's AddChain (1005 cycles) not marked shared, or A marked:\n%s", out)
	}
}
