package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
)

// writeRunFile writes what cyclebench run writes in format for kernels
// measured with calibration cal: each kernel's cycles (0: measured
// without the ruler), runs times, 1000 elements a call.
func writeRunFile(t *testing.T, path, format string, cal *calibrate.Calibration, runs int, cycles map[string]float64, order ...string) {
	t.Helper()
	h := newHeader("run", cal, harness.DefaultConfig(), nil)
	var rs []results.Measurement
	for _, name := range order {
		for rep := range runs {
			c := cycles[name] * (1 + 0.002*float64(rep))
			cpt := cal.Core.CyclesPerTick
			ticks := c / cpt
			if c == 0 {
				cpt, ticks = 0, 700*(1+0.002*float64(rep))
			}
			r := harness.Result{Name: name + "/n=1000", Cycles: c, Ticks: ticks, Nanoseconds: ticks / cal.Frequency.Hz * 1e9,
				CyclesPerTick: cpt, ReferenceConverged: true, Converged: true, Samples: 10, Repeat: 4, Quantum: 26, Elements: 1000, TicksPerSecond: cal.Frequency.Hz}
			r.CyclesPerElement, r.TicksPerElement, r.NsPerElement = r.Cycles/1000, r.Ticks/1000, r.Nanoseconds/1000
			rs = append(rs, results.Measurement{Result: r, Kernel: name, N: 1000, Unit: "elements", Check: "ok", Bench: r.Name, PerElement: true})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeResults(f, format, h, rs); err != nil {
		t.Fatal(err)
	}
}

// TestRunFileMachine: the files run writes carry the machine's family,
// model, stepping and logical CPUs, and package results reads them (and
// the counter quantum) back, in JSON and in the benchmark format.
func TestRunFileMachine(t *testing.T) {
	dir := t.TempDir()
	cal := fakeCalibration(1.4, 2596142000)
	for _, format := range []string{formatJSON, formatBench} {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(dir, "run."+format)
			writeRunFile(t, path, format, cal, 2, map[string]float64{"Sum": 1000}, "Sum")
			f, err := results.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			m := f.Machine
			if m.Family != fakeCPU.Family || m.Model != fakeCPU.Model || m.Stepping != fakeCPU.Stepping || m.LogicalCPUs != fakeCPU.LogicalCPUs {
				t.Errorf("family/model/stepping/CPUs %d/%d/%d/%d, want %d/%d/%d/%d", m.Family, m.Model, m.Stepping, m.LogicalCPUs,
					fakeCPU.Family, fakeCPU.Model, fakeCPU.Stepping, fakeCPU.LogicalCPUs)
			}
			if got, want := m.Label(), "AMD EPYC 7B13 64-Core Processor (KVM, Zen 3 family 25 model 1) 2596 MHz rdtsc"; got != want {
				t.Errorf("label %q, want %q", got, want)
			}
			if len(f.Entries) != 1 || len(f.Entries[0].Runs) != 2 {
				t.Fatalf("entries %+v: want Sum/n=1000 with 2 runs", f.Entries)
			}
			if q := f.Entries[0].Runs[0].Quantum; format == formatJSON && q != 26 {
				t.Errorf("quantum %v ticks, want 26 (quantum_ticks)", q)
			}
		})
	}
}
