package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, and every error wraps one of the
// package's sentinels; a file it reads can be laid in a matrix.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"kvm-amd-zen4-modes.txt", "kvm-amd-zen4-nocycles.json", "kvm-amd-zen4-plain.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"kernels": [{"name": "K", "points": [{"name": "K/n=1", "ns": 1}], "fits": [{"unit": "ns", "per_element": 1}]}]}`))
	f.Add([]byte("BenchmarkA/n=1-2 1 NaN ns/op\n--- BENCH: BenchmarkA/n=1-2\n    a.go:1: harness: did not converge\n# cpe A: 1 ± 1 ns/element (95%), intercept 0 ± 0 ns, R² 1, outlier sizes [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz", strings.NewReader(string(data)))
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNoResults) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if len(file.Entries) == 0 && len(file.Fits) == 0 {
			t.Fatal("a file without entries or fits and no error")
		}
		for _, e := range file.Entries {
			if len(e.Runs) == 0 {
				t.Fatalf("entry %q without runs", e.Name)
			}
		}
		tb, err := Matrix([]File{file, file}, DefaultMatrixOptions())
		if err != nil {
			t.Fatal(err)
		}
		_ = tb.String()
		if _, err := tb.Comparison(MetricRatio, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tb.HeatMap(MetricCycles, nil); err != nil {
			t.Fatal(err)
		}
		_ = families(file.Entries)
	})
}
