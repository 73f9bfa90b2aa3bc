package results

import (
	"errors"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/perf/benchfmt"
)

func readTestdata(t *testing.T, name string) File {
	t.Helper()
	f, err := Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReadTestdata reads every committed file and checks what each holds.
func TestReadTestdata(t *testing.T) {
	tests := []struct {
		file     string
		format   Format
		producer string
		label    string
		entries  int
		runs     int // runs of every entry
		fits     int
		absent   []string
		noCycles NoCycles // of every run
		modes    map[string]int
	}{
		{"kvm-amd-zen5-run.json", FormatRunJSON, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 15, 1, 0, []string{"results[].mode"}, HasCycles, map[string]int{Throughput: 15}},
		{"kvm-amd-zen5-run.txt", FormatBench, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 15, 3, 0, nil, HasCycles, map[string]int{Throughput: 15}},
		{"kvm-amd-zen5-cpe.json", FormatCPEJSON, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 80, 1, 8, []string{"kernels[].points[].mode"}, HasCycles, map[string]int{Throughput: 80}},
		{"kvm-amd-zen4-run.json", FormatRunJSON, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 15, 1, 0, nil, HasCycles, map[string]int{Throughput: 15}},
		{"kvm-amd-zen4-run.txt", FormatBench, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 15, 3, 0, nil, HasCycles, map[string]int{Throughput: 15}},
		{"kvm-amd-zen4-cpe.json", FormatCPEJSON, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 80, 1, 8, nil, HasCycles, map[string]int{Throughput: 80}},
		{"kvm-amd-zen4-modes.txt", FormatBench, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 4, 1, 0, nil, HasCycles, map[string]int{Throughput: 2, Latency: 2}},
		{"kvm-amd-zen4-nocycles.json", FormatRunJSON, ProducerCyclebench, "AMD EPYC (KVM) 2596 MHz rdtsc", 2, 1, 0, nil, NoRuler, map[string]int{Throughput: 2}},
		{"kvm-amd-zen4-gotest.txt", FormatBench, ProducerGoTest, "AMD EPYC", 6, 3, 0, nil, HasCycles, map[string]int{Throughput: 6}},
		{"kvm-amd-zen4-plain.txt", FormatBench, ProducerGoTest, "AMD EPYC", 8, 2, 0, nil, NotReported, map[string]int{Throughput: 8}},
		{"synthetic-arm64-cntvct-nocycles-run.json", FormatRunJSON, ProducerCyclebench, "SYNTHETIC arm64 test machine (invented figures, not a measurement) 25 MHz cntvct", 11, 1, 0, nil, NoRuler, map[string]int{Throughput: 11}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := readTestdata(t, tt.file)
			if f.Format != tt.format || f.Producer != tt.producer {
				t.Errorf("format %v, producer %q; want %v, %q", f.Format, f.Producer, tt.format, tt.producer)
			}
			if got := f.Machine.Label(); got != tt.label {
				t.Errorf("Label() = %q, want %q", got, tt.label)
			}
			if len(f.Entries) != tt.entries || len(f.Fits) != tt.fits {
				t.Errorf("%d entries and %d fits, want %d and %d", len(f.Entries), len(f.Fits), tt.entries, tt.fits)
			}
			if strings.Join(f.Absent, ",") != strings.Join(tt.absent, ",") {
				t.Errorf("Absent = %q, want %q", f.Absent, tt.absent)
			}
			if (len(tt.absent) > 0) != hasWarning(f, ErrAbsentField) {
				t.Errorf("warnings %v: want an ErrAbsentField warning exactly when fields are absent", f.Warnings)
			}
			modes := map[string]int{}
			for _, e := range f.Entries {
				modes[e.Mode]++
				if len(e.Runs) != tt.runs {
					t.Errorf("%s: %d runs, want %d", e.Name, len(e.Runs), tt.runs)
				}
				for i, r := range e.Runs {
					checkRun(t, f, e, i, r)
					if r.NoCycles != tt.noCycles {
						t.Errorf("%s run %d: NoCycles %v, want %v", e.Name, i, r.NoCycles, tt.noCycles)
					}
				}
			}
			for m, n := range tt.modes {
				if modes[m] != n {
					t.Errorf("%d %s entries, want %d (all: %v)", modes[m], m, n, modes)
				}
			}
			for _, fit := range f.Fits {
				if fit.Cycles.N != len(fit.Sizes) || fit.NS.N != len(fit.Sizes) || fit.Cycles.PerElement <= 0 || fit.Cycles.PerElementCI <= 0 || fit.Cycles.R2 <= 0.9 {
					t.Errorf("fit of %s: %+v: want cycles and ns fits over %d sizes", fit.Kernel, fit, len(fit.Sizes))
				}
				if fit.Mode != Throughput || fit.Unit != "elements" {
					t.Errorf("fit of %s: mode %q unit %q", fit.Kernel, fit.Mode, fit.Unit)
				}
			}
		})
	}
}

func hasWarning(f File, target error) bool {
	for _, w := range f.Warnings {
		if errors.Is(w, target) {
			return true
		}
	}
	return false
}

// checkRun asserts what holds for every run of every file: positive
// figures, per-element figures consistent with the per-call ones, cycles
// exactly when NoCycles says so, a line in the file.
func checkRun(t *testing.T, f File, e Entry, i int, r Run) {
	t.Helper()
	where := e.Name + " run " + string(rune('0'+i))
	if !(r.NS > 0) || r.Line < 1 {
		t.Errorf("%s: NS %v line %d: want a positive figure and a line", where, r.NS, r.Line)
	}
	if (r.NoCycles == HasCycles) != (r.Cycles > 0) {
		t.Errorf("%s: Cycles %v with NoCycles %v", where, r.Cycles, r.NoCycles)
	}
	if r.NoCycles != HasCycles && r.CyclesPerElem != 0 {
		t.Errorf("%s: CyclesPerElem %v without cycles", where, r.CyclesPerElem)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 2e-3*math.Abs(b) }
	if r.Elements > 0 {
		if !near(r.NS/r.Elements, r.NsPerElem) || r.NoCycles == HasCycles && !near(r.Cycles/r.Elements, r.CyclesPerElem) {
			t.Errorf("%s: per-element figures %v ns, %v cycles over %v elements disagree with %v ns, %v cycles per call", where, r.NsPerElem, r.CyclesPerElem, r.Elements, r.NS, r.Cycles)
		}
		if e.SizeKey == "n" && f.Producer == ProducerGoTest && r.Elements != float64(e.N) {
			t.Errorf("%s: %v elements, want n = %d", where, r.Elements, e.N)
		}
	}
}

func TestReadDetails(t *testing.T) {
	t.Run("zen5 bench file: exact figures from its # lines", func(t *testing.T) {
		f := readTestdata(t, "kvm-amd-zen5-run.txt")
		m := f.Machine
		if m.CounterHz != 2596120117 || m.CounterHzPPM != 0.529 || m.CyclesPerTick != 1.48512 || m.CounterStep != 1 ||
			!strings.HasPrefix(m.CounterHzSource, "bracket: monotonic clock") || m.GoVersion != "go1.26.8" || m.Vendor != "AuthenticAMD" {
			t.Errorf("machine %+v", m)
		}
		if f.Settings != (Settings{K: 3, Epsilon: 0.01, MaxSamples: 1000}) {
			t.Errorf("settings %+v", f.Settings)
		}
		e := f.Entries[0]
		if e.Name != "SumLoop/n=20000" || e.Kernel != "SumLoop" || e.N != 20000 || e.Runs[1].Cycles != 20060.51948051948 || e.Runs[2].Line <= e.Runs[1].Line {
			t.Errorf("first entry %+v", e)
		}
	})
	t.Run("zen5 run json: Factorize's 64-bit n", func(t *testing.T) {
		f := readTestdata(t, "kvm-amd-zen5-run.json")
		e := f.Entries[4]
		if e.Kernel != "Factorize" || e.N != 352700091909229843 || e.Unit != "divisions" {
			t.Errorf("entry %+v", e)
		}
	})
	t.Run("go test: pkg, GOMAXPROCS off, logs under --- BENCH as run warnings", func(t *testing.T) {
		f := readTestdata(t, "kvm-amd-zen4-gotest.txt")
		e := f.Entries[0]
		if e.Name != "Combine/Combine4/n=200" || e.Pkg != "example.com/sweep" || e.Kernel != "Combine/Combine4" || e.Unit != "" {
			t.Errorf("entry %+v", e)
		}
		// The second run's log says it did not converge; the first and
		// third have none.
		if e.Runs[0].NotConverged || !e.Runs[1].NotConverged || e.Runs[2].NotConverged || len(e.Runs[1].Warnings) != 2 || len(e.Runs[2].Warnings) != 0 {
			t.Errorf("runs %+v", e.Runs)
		}
		if !strings.HasPrefix(e.Runs[1].Warnings[1], "harness.Report: warning: harness: did not converge") {
			t.Errorf("warning %q: want the log line without its file:line", e.Runs[1].Warnings[1])
		}
		if f.Machine.GOARCH != "amd64" || f.Machine.Counter != "" || f.Machine.CounterHz != 0 {
			t.Errorf("machine %+v: a go test file says cpu, goos and goarch only", f.Machine)
		}
	})
	t.Run("plain go test: other units kept", func(t *testing.T) {
		f := readTestdata(t, "kvm-amd-zen4-plain.txt")
		r := f.Entries[0].Runs[0]
		if len(r.Other) != 1 || r.Other[0] != (Value{3.328, "ns/element"}) || r.NS != 3328 || r.Iters != 20000 {
			t.Errorf("run %+v", r)
		}
	})
	t.Run("cpe json: points and fits", func(t *testing.T) {
		f := readTestdata(t, "kvm-amd-zen5-cpe.json")
		fit := f.Fits[7]
		if fit.Kernel != "Combine6" || len(fit.Sizes) != 10 || fit.Cycles.PerElement != 0.9958071523964451 || len(fit.Cycles.OutlierSizes) != 1 || fit.Check != "ok" || len(fit.Warnings) != 1 {
			t.Errorf("fit %+v", fit)
		}
	})
}

// TestParseErrors: every bad input is an error wrapping its sentinel, and
// names the file, the line and what was expected.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
		contains []string
	}{
		{"empty", "", ErrFormat, []string{"x.json", "empty"}},
		{"blank", " \n\t\n", ErrFormat, []string{"empty"}},
		{"JSON array", "\n[1, 2]", ErrFormat, []string{"x.json:2:", "array", `"results"`}},
		{"prose", "hello\nworld\n", ErrFormat, []string{"neither cyclebench JSON", "Benchmark"}},
		{"cyclebench's text table", "cpu: AMD EPYC  counter: rdtsc at 2596144000 Hz (2596.144000 MHz)  k=3 eps=0.01 m=1000  mode: throughput\n" +
			"name             cycles    ticks       ns  cycles/elem  unit     R  samples  discarded  cs/mig/pf  spread  converged\n" +
			"AddChain/n=100  94.2779  66.7961  25.7289       0.9428  ops   1519       32          1      1/0/0  0.308%  yes\n",
			ErrFormat, []string{"a cyclebench text table", "-o FILE.json"}},
		{"bad JSON", "{\n  \"results\": [\n    {\"name\": \"A\",,}\n  ]\n}", ErrSyntax, []string{"x.json:3:", "bad JSON"}},
		{"cut short", "{\n  \"results\": [\n    {\"name\": \"A\"", ErrSyntax, []string{"x.json:3:", "cut short"}},
		{"trailing data", "{\"results\": [{\"name\": \"A\", \"ns\": 1}]}\n\n{}", ErrSyntax, []string{"x.json:3:", "after the report"}},
		{"no results or kernels", "{\"command\": \"compare\", \"a\": {}}", ErrFormat, []string{`"results" or "kernels"`}},
		{"results not an array", "{\n\"results\": {}}", ErrSyntax, []string{"x.json:2:", `"results" is an object, want an array`}},
		{"result not an object", "{\"results\": [\n 5]}", ErrSyntax, []string{"x.json:2:", "results[0] is a number (5), want a JSON object"}},
		{"string n", "{\"results\": [\n {\"name\": \"A\",\n  \"n\": \"big\"}]}", ErrSyntax, []string{"x.json:3:", `results[0] "n" is a string, want an integer`}},
		{"fractional n", "{\"results\": [{\"name\": \"A\", \"n\": 1.5}]}", ErrSyntax, []string{`"n" is a number (1.5), want an integer`}},
		{"bool cycles", "{\"results\": [{\"name\": \"A\", \"cycles\": true}]}", ErrSyntax, []string{`"cycles" is a boolean, want a number`}},
		{"header type", "{\"cpu\": 5,\n \"results\": []}", ErrSyntax, []string{"x.json:1:", `header "cpu" is a number (5), want a string`}},
		{"no name", "{\"results\": [\n{\"name\": \"A\", \"ns\": 1},\n{\"ns\": 2}]}", ErrSyntax, []string{"x.json:3:", `results[1] has no "name"`}},
		{"kernel without name", "{\"kernels\": [\n{\"unit\": \"elements\"}]}", ErrSyntax, []string{"x.json:2:", `kernels[0] has no "name"`}},
		{"fit unit", "{\"kernels\": [{\"name\": \"K\", \"fits\": [\n{\"unit\": \"furlongs\"}]}]}", ErrSyntax, []string{"x.json:2:", `unit "furlongs", want cycles, ticks or ns`}},
		{"fit type", "{\"kernels\": [{\"name\": \"K\", \"fits\": [{\"unit\": \"ns\",\n\"r2\": \"high\"}]}]}", ErrSyntax, []string{"x.json:2:", `"r2"`}},
		{"units differ", "{\"results\": [\n{\"name\": \"A\", \"unit\": \"ops\", \"ns\": 1},\n{\"name\": \"A\", \"unit\": \"elements\", \"ns\": 1}]}", ErrSyntax, []string{"x.json:3:", "A counts elements here but ops at line 2"}},
		{"no results", "{\"command\": \"run\", \"results\": []}", ErrNoResults, []string{"no result"}},
		{"only bad benchmark lines", "goos: linux\nBenchmarkA 12\n", ErrNoResults, []string{"x.json:2", "missing measurements"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("x.json", strings.NewReader(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse = %+v, %v; want an error wrapping %v", f, err, tt.want)
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("error %q does not say %q", err, c)
				}
			}
			if !strings.HasPrefix(err.Error(), "results: ") {
				t.Errorf("error %q: want the package prefix", err)
			}
		})
	}
	t.Run("reader error", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := Parse("x", iotest.ErrReader(boom)); !errors.Is(err, boom) {
			t.Errorf("err %v, want the reader's error", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := Read(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
			t.Errorf("err %v, want one naming the file", err)
		}
	})
}

// TestParseBenchSkipsBadLines: a bad benchmark line is a warning, not an
// error, and names its line.
func TestParseBenchSkipsBadLines(t *testing.T) {
	in := "cpu: X\nBenchmarkA-2 10 5 ns/op\nBenchmarkB 10 five ns/op\nBenchmarkA-2 10 7 ns/op\n"
	f, err := Parse("b.txt", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 1 || len(f.Entries[0].Runs) != 2 || f.Entries[0].Runs[1].NS != 7 {
		t.Errorf("entries %+v", f.Entries)
	}
	if len(f.Warnings) != 1 || !errors.Is(f.Warnings[0], ErrSkippedLine) {
		t.Fatalf("warnings %v, want one ErrSkippedLine", f.Warnings)
	}
	var se *benchfmt.SyntaxError
	if !errors.As(f.Warnings[0], &se) || se.Line != 3 || !strings.Contains(f.Warnings[0].Error(), "b.txt:3") {
		t.Errorf("warning %v: want the *benchfmt.SyntaxError of b.txt:3", f.Warnings[0])
	}
}

// TestParseVersions reads the fields older and newer versions of the tool
// write, or do not.
func TestParseVersions(t *testing.T) {
	t.Run("family, model and CPUs of a newer header", func(t *testing.T) {
		in := `{"command": "run", "cpu": "AMD EPYC 9R45", "vendor": "AuthenticAMD", "family": 26, "model": 2, "logical_cpus": 2,
			"hypervisor": "KVMKVMKVM", "counter": "rdtsc", "tsc_hz": 2596120128.9, "goos": "linux", "goarch": "amd64", "go_version": "go1.26.8",
			"results": [{"name": "A/n=1", "mode": "latency", "cycles": 3, "ticks": 2, "ns": 1, "converged": true, "core_cycles_per_tick": 1.5, "quantum": 26}]}`
		f, err := Parse("new.json", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := f.Machine.Label(), "AMD EPYC 9R45 (KVM, Zen 5 family 26 model 2) 2596 MHz rdtsc"; got != want {
			t.Errorf("Label() = %q, want %q", got, want)
		}
		if got, want := f.Machine.String(), "AMD EPYC 9R45 (KVM, Zen 5 family 26 model 2) 2596 MHz rdtsc, go1.26.8 linux/amd64, 2 CPUs"; got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
		if r := f.Entries[0].Runs[0]; f.Entries[0].Mode != Latency || r.Quantum != 26 || r.Cycles != 3 {
			t.Errorf("entry %+v", f.Entries[0])
		}
	})
	t.Run("no cycles field", func(t *testing.T) {
		f, err := Parse("old.json", strings.NewReader(`{"results": [{"name": "A", "ticks": 2, "ns": 1}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if r := f.Entries[0].Runs[0]; r.NoCycles != NotWritten || r.NotConverged {
			t.Errorf("run %+v: want NotWritten, and no claim about convergence", r)
		}
		if !hasWarning(f, ErrAbsentField) || !strings.Contains(strings.Join(f.Absent, " "), "results[].cycles") {
			t.Errorf("absent %v, warnings %v", f.Absent, f.Warnings)
		}
	})
	t.Run("a ruler of 0 is no ruler", func(t *testing.T) {
		f, err := Parse("x.json", strings.NewReader(`{"results": [{"name": "A", "cycles": 0, "core_cycles_per_tick": 0, "ns": 1, "elements": 4, "cycles_per_element": 0, "ns_per_element": 0.25}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if r := f.Entries[0].Runs[0]; r.NoCycles != NoRuler || r.Elements != 4 || r.NsPerElem != 0.25 {
			t.Errorf("run %+v", r)
		}
	})
	t.Run("several runs of one name in JSON (-count)", func(t *testing.T) {
		f, err := Parse("x.json", strings.NewReader(`{"results": [{"name": "A/n=2", "ns": 1}, {"name": "B", "ns": 5}, {"name": "A/n=2", "ns": 2}, {"name": "A/n=2", "mode": "latency", "ns": 3}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) != 3 || len(f.Entries[0].Runs) != 2 || f.Entries[0].Runs[1].NS != 2 || f.Entries[2].Mode != Latency {
			t.Errorf("entries %+v", f.Entries)
		}
	})
	t.Run("benchmark file whose machine changes", func(t *testing.T) {
		f, err := Parse("x.txt", strings.NewReader("cpu: A\nBenchmarkX 1 2 ns/op\ncpu: B\nBenchmarkY 1 2 ns/op\n"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine.CPU != "A" || !hasWarning(f, ErrMachineChanged) {
			t.Errorf("machine %q, warnings %v", f.Machine.CPU, f.Warnings)
		}
	})
	t.Run("cyclebench bench lines: not converged, check, warnings, cpe fits", func(t *testing.T) {
		in := "# warning: header warning\ncounter: rdtsc\n" +
			"BenchmarkK/n=10 1 20 ticks/op 10 ns/op 30 cycles/op 2 ticks/elem 1 ns/elem 3 cycles/elem\n" +
			"# not converged: K/n=10 after 1000 samples (spread 2%)\n# error: K/n=10: output check failed: sum 5, want 6\n# warning: K/n=10: noisy\n" +
			"BenchmarkK/n=20 1 40 ticks/op 20 ns/op 60 cycles/op 2 ticks/elem 1 ns/elem 3 cycles/elem\n" +
			"BenchmarkK/n=30 1 60 ticks/op 30 ns/op\n" +
			"# cpe K: 3 ± 0.01 cycles/element (95%), intercept 0.5 ± 0.2 cycles, R² 0.9999990, outlier sizes [20]\n" +
			"# cpe K: 1 ± 0.01 ns/element (95%), intercept 0.1 ± 0.2 ns, R² 0.9999980, outlier sizes []\n"
		f, err := Parse("x.txt", strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		runs := f.Entries[0].Runs
		if !runs[0].NotConverged || runs[0].Check != "sum 5, want 6" || len(runs[0].Warnings) != 2 || len(f.Notes) != 1 || f.Notes[0] != "header warning" {
			t.Errorf("run %+v, notes %q", runs[0], f.Notes)
		}
		if r := f.Entries[2].Runs[0]; r.NoCycles != NoRuler || r.Elements != 0 {
			t.Errorf("third entry's run %+v: want NoRuler (cyclebench file) and no elements", r)
		}
		if len(f.Fits) != 1 {
			t.Fatalf("fits %+v", f.Fits)
		}
		fit := f.Fits[0]
		if fit.Kernel != "K" || fit.Unit != "elements" || len(fit.Sizes) != 3 || fit.Cycles.PerElement != 3 || fit.Cycles.OutlierSizes[0] != 20 || fit.NS.R2 != 0.999998 || fit.Ticks.N != 0 {
			t.Errorf("fit %+v", fit)
		}
	})
}

// TestReadFiles: the files of a comparison, with a file that cannot be
// read stopping it or, with skip, left out; too few files and a filter
// that matches nothing are bad input.
func TestReadFiles(t *testing.T) {
	zen4, zen5 := filepath.Join("testdata", "kvm-amd-zen4-run.json"), filepath.Join("testdata", "kvm-amd-zen5-run.json")
	readme := filepath.Join("testdata", "README.md")
	tests := []struct {
		name    string
		paths   []string
		keep    string
		skip    bool
		kept    []int
		skipped int
		err     error // nil, ErrBadInput or ErrFormat
	}{
		{"two files", []string{zen4, zen5}, "", false, []int{0, 1}, 0, nil},
		{"a README skipped", []string{zen4, readme, zen5}, "", true, []int{0, 2}, 1, nil},
		{"a README stops it", []string{zen4, readme, zen5}, "", false, nil, 0, ErrFormat},
		{"one left", []string{zen4, readme}, "", true, nil, 0, ErrBadInput},
		{"filter matches nothing", []string{zen4, zen5}, "^NoSuchKernel$", false, nil, 0, ErrBadInput},
		{"filter", []string{zen4, zen5}, "Psum", false, []int{0, 1}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keep *regexp.Regexp
			if tt.keep != "" {
				keep = regexp.MustCompile(tt.keep)
			}
			files, kept, skipped, err := ReadFiles(tt.paths, keep, tt.skip)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(kept, tt.kept) || len(skipped) != tt.skipped || len(files) != len(kept) {
				t.Fatalf("kept %v, %d skipped, err %v; want %v, %d", kept, len(skipped), err, tt.kept, tt.skipped)
			}
			for _, f := range files {
				if len(f.Entries) == 0 {
					t.Errorf("%s: no benchmark kept", f.Path)
				}
				for _, e := range f.Entries {
					if keep != nil && !keep.MatchString(e.Name) {
						t.Errorf("%s: kept %s, which %s does not match", f.Path, e.Name, keep)
					}
				}
			}
		})
	}
}
