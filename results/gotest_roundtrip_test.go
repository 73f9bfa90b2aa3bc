package results_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
)

// goTestOut is go test's output for a plain benchmark and a comparison,
// as benchstat would be given it beside cyclebench's file of the same run.
const goTestOut = `goos: linux
goarch: amd64
pkg: example.com/sums
cpu: AMD EPYC 9R14
BenchmarkSum/n=400-2   	 1000000	       113.7 ns/op	      16 B/op	       1 allocs/op	     3.000 widgets/op
BenchmarkAvsB-2   	   14160	         0.7770 ratio	      3220 A-cycles/op	      2262 A-ticks/op	      2482 B-cycles/op	      1744 B-ticks/op
--- BENCH: BenchmarkAvsB-2
    bench_test.go:10: harness.ReportCompare: sum4/sum1 = 0.77698 [0.77524, 0.77937], p = 1.4e-13, noise band 0.0012, 60 pairs: faster (the interval lies beyond the noise band)
PASS
`

// Results read from go test output and written back in the benchmark
// format keep go test's names (with the GOMAXPROCS suffix) and its
// configuration keys alone, so that benchstat puts the two files in one
// table; the machine's other keys go to "#" lines and are read back.
func TestGoTestWrittenBackLinesUpWithGoTest(t *testing.T) {
	f, err := results.Parse("go test output", strings.NewReader(goTestOut))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, cs, _ := f.Split()
	h := f.Header("run")
	h.Vendor, h.Counter, h.GoVersion, h.Family = "AuthenticAMD", "TSC", "go1.26.0", 25
	var out bytes.Buffer
	if err := results.WriteBench(&out, h, ms); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for line := range strings.Lines(out.String()) {
		if k, _, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "Benchmark") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if want := []string{"cpu", "goarch", "goos", "pkg"}; !slices.Equal(keys, want) {
		t.Errorf("configuration keys %q, want go test's %q:\n%s", keys, want, out.String())
	}
	if !strings.Contains(out.String(), "\nBenchmarkSum/n=400-2\t") {
		t.Errorf("no line named BenchmarkSum/n=400-2 (go test's name):\n%s", out.String())
	}
	for _, unit := range []string{"B/op", "allocs/op", "widgets/op"} {
		if !strings.Contains(out.String(), " "+unit) {
			t.Errorf("unit %s left out:\n%s", unit, out.String())
		}
	}
	back, err := results.Parse("written back", &out)
	if err != nil {
		t.Fatal(err)
	}
	if m := back.Machine; m.Vendor != "AuthenticAMD" || m.Counter != "TSC" || m.GoVersion != "go1.26.0" || m.Family != 25 || m.CPU != "AMD EPYC 9R14" {
		t.Errorf("machine read back %+v, want the vendor, counter, go version, family and cpu written", m)
	}

	var pout bytes.Buffer
	if err := results.WritePairedBench(&pout, h, cs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pout.String(), "\nBenchmarkAvsB-2\t") {
		t.Errorf("no line named BenchmarkAvsB-2:\n%s", pout.String())
	}
}

// A comparison whose line has only the ratio and the sides' figures takes
// its interval, p-value, noise band and verdict from the log line.
func TestPairedOfStatisticsFromTheLogLine(t *testing.T) {
	f, err := results.Parse("go test output", strings.NewReader(goTestOut))
	if err != nil {
		t.Fatal(err)
	}
	_, _, cs, _ := f.Split()
	if len(cs) != 1 {
		t.Fatalf("%d comparisons, want 1", len(cs))
	}
	c := cs[0]
	if c.Lo != 0.77524 || c.Hi != 0.77937 || c.PValue != 1.4e-13 || c.NoiseBand != 0.0012 || c.Pairs != 60 || !c.Significant || c.Verdict != "faster" || c.A != "sum1" || c.B != "sum4" {
		t.Errorf("read %+v, want [0.77524, 0.77937], p 1.4e-13, noise band 0.0012, 60 pairs, significant, faster, sum4/sum1", c)
	}
}
