package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"golang.org/x/perf/benchfmt"
)

// TestCompareMatrixFormats: three machines' files (Zen 5, Zen 4, a
// synthetic arm64 without cycles) compare in every format and draw every
// kind of picture in every image format.
func TestCompareMatrixFormats(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{formatTable, formatJSON, formatCSV, formatBench} {
		for _, kind := range []string{"bars", "heat"} {
			for _, img := range []string{"svg", "png", "pdf"} {
				t.Run(format+"/"+kind+"/"+img, func(t *testing.T) {
					out, pic := filepath.Join(dir, "m."+format), filepath.Join(dir, kind+"."+img)
					stdout, errOut, err := runCLI(t, append(append([]string{"compare"}, machineFiles()...), "-format", format, "-o", out, "-plot", pic, "-plot-kind", kind)...)
					if err != nil {
						t.Fatalf("%v (stderr %q)", err, errOut)
					}
					if stdout != "" || !strings.Contains(errOut, "wrote "+out) || !strings.Contains(errOut, "wrote "+pic) {
						t.Errorf("stdout %q, stderr %q", stdout, errOut)
					}
					if st, err := os.Stat(pic); err != nil || st.Size() < 1000 {
						t.Errorf("%s: %v", pic, err)
					}
					data, err := os.ReadFile(out)
					if err != nil || len(data) == 0 {
						t.Fatalf("%s: %v", out, err)
					}
					if format == formatJSON && !json.Valid(data) {
						t.Errorf("not valid JSON")
					}
				})
			}
		}
	}
}

// machineFile writes a run file of a machine: its CPU, counter frequency
// and ruler (1.5 cycles per tick: a 2.1 GHz TSC stepping by 2; 0: measured
// without the ruler), and its kernels' cycles.
func machineFile(t *testing.T, dir, name, format, cpu string, family int, hz, cyclesPerTick float64, runs int, cycles map[string]float64, order ...string) string {
	t.Helper()
	cal := fakeCalibration(cyclesPerTick, hz)
	cal.CPU.Brand, cal.CPU.Family, cal.CPU.Model = cpu, family, 0x11
	switch {
	case strings.HasPrefix(cpu, "Intel"):
		cal.CPU.Vendor, cal.CPU.Hypervisor = "GenuineIntel", ""
	case strings.HasPrefix(cpu, "Neoverse"):
		cal.CPU.Vendor, cal.CPU.Hypervisor, cal.CPU.Counter, cal.CPU.Model = "", "", "cntvct", 0
	}
	path := filepath.Join(dir, name)
	writeRunFile(t, path, format, cal, runs, cycles, order...)
	return path
}

// TestCompareMatrixWritten: files the test writes, from machines whose
// counters differ, compare in cycles; a machine without cycles shows ns
// and why; a kernel a machine lacks is missing; the verdicts name the
// fastest variant of each machine.
func TestCompareMatrixWritten(t *testing.T) {
	dir := t.TempDir()
	a := machineFile(t, dir, "xeon.json", formatJSON, "Intel Xeon", 6, 2.1e9, 1.5, 3, map[string]float64{"Sum1": 2000, "Sum2": 1000}, "Sum1", "Sum2")
	b := machineFile(t, dir, "epyc.txt", formatBench, "AMD EPYC", 26, 2.6e9, 1.4, 3, map[string]float64{"Sum1": 1500, "Sum2": 1600, "Other": 10}, "Sum1", "Sum2", "Other")
	c := machineFile(t, dir, "arm.json", formatJSON, "Neoverse", 0, 25e6, 0, 1, map[string]float64{"Sum1": 0}, "Sum1")
	out, _, err := runCLI(t, "compare", "-format", "csv", "-baseline", "epyc", a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := map[string]int{}
	for i, h := range recs[0] {
		head[h] = i
	}
	cell := func(bench, machine, col string) string {
		for _, r := range recs[1:] {
			if r[head["benchmark"]] == bench && r[head["machine"]] == machine {
				return r[head[col]]
			}
		}
		t.Fatalf("no row %s %s", bench, machine)
		return ""
	}
	if got := cell("Sum1/n=1000", "xeon", "ratio"); !strings.HasPrefix(got, "1.333") {
		t.Errorf("Sum1 xeon/epyc = %s, want 2000/1500 (cycles, whatever the counters' rates)", got)
	}
	if got := cell("Sum1/n=1000", "arm", "no_cycles"); !strings.Contains(got, "without the core-clock ruler") || cell("Sum1/n=1000", "arm", "ns") == "" || cell("Sum1/n=1000", "arm", "cycles") != "" {
		t.Errorf("arm: no_cycles %q, ns %q, cycles %q", got, cell("Sum1/n=1000", "arm", "ns"), cell("Sum1/n=1000", "arm", "cycles"))
	}
	if cell("Other/n=1000", "xeon", "missing") != "true" || cell("Sum2/n=1000", "arm", "missing") != "true" || cell("Sum1/n=1000", "epyc", "baseline") != "true" {
		t.Errorf("missing or baseline cells wrong:\n%s", out)
	}
	if got := cell("Sum1/n=1000", "epyc", "runs"); got != "3" {
		t.Errorf("epyc runs %s, want 3", got)
	}
	out, _, err = runCLI(t, "compare", a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Sum n=1000: Sum2 fastest on xeon (1.00 cycles/elem, 2.00× Sum1); Sum1 fastest on epyc (1.50 cycles/elem, 1.07× Sum2); fewer than two variants on arm",
		"Intel Xeon (family 6 model 17) 2100 MHz rdtsc", "AMD EPYC (KVM, Zen 5 family 26 model 17) 2600 MHz rdtsc", "Neoverse 25 MHz cntvct",
		"arm has no cycle figures — measured without the core-clock ruler (-no-cycles); its cells give ns",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) { // lines are wrapped to 100 columns
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestCompareMatrixBench: -format bench writes every run once, each file
// under its own "machine:" line with the baseline first, and results reads
// the stream back (benchstat too, when it can be built).
func TestCompareMatrixBench(t *testing.T) {
	dir := t.TempDir()
	a := machineFile(t, dir, "one.json", formatJSON, "CPU One", 6, 2.1e9, 1.5, 2, map[string]float64{"Sum1": 2000, "Sum2": 1000}, "Sum1", "Sum2")
	b := machineFile(t, dir, "two.json", formatJSON, "CPU Two", 6, 2.6e9, 1.4, 3, map[string]float64{"Sum1": 1500}, "Sum1")
	stream := filepath.Join(dir, "all.txt")
	if _, errOut, err := runCLI(t, "compare", "-format", "bench", "-baseline", "2", "-o", stream, a, b); err != nil {
		t.Fatalf("%v (stderr %q)", err, errOut)
	}
	data, err := os.ReadFile(stream)
	if err != nil {
		t.Fatal(err)
	}
	machines := map[string]int{}
	var order []string
	rd := benchfmt.NewReader(bytes.NewReader(data), stream)
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatal(r)
		case *benchfmt.Result:
			m := r.GetConfig("machine")
			if machines[m] == 0 {
				order = append(order, m+"/"+r.GetConfig("cpu"))
			}
			machines[m]++
			if _, ok := r.Value("cycles/op"); !ok {
				t.Errorf("%s on %s: no cycles/op", r.Name, m)
			}
			if _, ok := r.Value("ticks/op"); ok {
				t.Errorf("%s on %s: ticks/op (counters of different rates)", r.Name, m)
			}
		}
	}
	if strings.Join(order, " ") != "two/CPU Two one/CPU One" || machines["one"] != 4 || machines["two"] != 3 {
		t.Errorf("machines %v in order %v: want two (the baseline, 3 runs) then one (4 runs)", machines, order)
	}
	f, err := results.Parse(stream, bytes.NewReader(data))
	if err != nil || len(f.Entries) != 2 {
		t.Fatalf("results reads the stream back: %v, %d entries", err, len(f.Entries))
	}
	bin := buildBenchstat(t)
	got, err := exec.Command(bin, "-col", "machine", "-table", "", "-filter", ".unit:cycles/op", stream).CombinedOutput()
	if err != nil || !strings.Contains(string(got), "two") || !strings.Contains(string(got), "one") || !strings.Contains(string(got), "vs base") {
		t.Errorf("benchstat -col machine: %v\n%s", err, got)
	}
}
