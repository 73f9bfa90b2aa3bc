package results_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
)

// TestMeasurementRoundTrip: measurements written in the benchmark format
// read back as the runs they were, and File.Measurement makes the same
// measurements of them again.
func TestMeasurementRoundTrip(t *testing.T) {
	cal := &calibrate.Calibration{CPU: calibrate.CPU{Brand: "Test CPU", Vendor: "AuthenticAMD", Family: 25, Model: 17, Counter: "rdtsc"},
		Frequency: calibrate.Frequency{Hz: 2596141000, Method: "bracket", Source: "monotonic clock"}, Core: calibrate.CoreClock{CyclesPerTick: 1.4}}
	h := results.NewHeader("run", cal, harness.DefaultConfig(), []error{errors.New("calibrate: running under a hypervisor")})
	r := harness.Result{Name: "Sum/n=1000", Cycles: 1000, Ticks: 1000 / 1.4, Nanoseconds: 275, CyclesPerTick: 1.4, ReferenceConverged: true,
		Converged: true, Samples: 40, Repeat: 10, Elements: 1000, Config: harness.DefaultConfig()}
	r.CyclesPerElement, r.TicksPerElement, r.NsPerElement = r.Cycles/1000, r.Ticks/1000, r.Nanoseconds/1000
	lat := r
	lat.Mode, lat.Converged, lat.Spread = harness.Latency, false, 0.05
	ms := []results.Measurement{
		{Result: r, Kernel: "Sum", N: 1000, Unit: "elements", Check: "ok", Bench: results.BenchName(r.Name, r.Mode), PerElement: true},
		{Result: lat, Kernel: "Sum", N: 1000, Unit: "elements", Check: "wrong sum", Bench: results.BenchName(lat.Name, lat.Mode), PerElement: true},
	}
	if units := unitsOf(ms[0].Values()); units != "ticks/op ns/op cycles/op ticks/elem ns/elem cycles/elem" {
		t.Errorf("Values() in %s", units)
	}
	var b strings.Builder
	if err := results.WriteBench(&b, h, ms); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"cpu: Test CPU\n", "family: 25\n", "k: 3\n", "eps: 0.01\n", "BenchmarkSum/n=1000/mode=latency\t400\t",
		"# not converged: Sum/n=1000 after 40 samples (spread 5%, unusable)", "# error: Sum/n=1000: output check failed: wrong sum", "# warning: calibrate: running under a hypervisor"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	f, err := results.Parse("run.txt", strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 2 || f.Entries[1].Mode != results.Latency || f.Machine.CPU != "Test CPU" || f.Settings.K != 3 {
		t.Fatalf("read back: %+v", f)
	}
	back := f.Measurement(f.Entries[0], f.Entries[0].Runs[0])
	if !back.Read || back.Kernel != "Sum" || back.N != 1000 || back.Bench != "Sum/n=1000" || !back.PerElement || back.NoTicks ||
		math.Abs(back.Cycles-1000) > 1e-9 || math.Abs(back.CyclesPerTick-1.4) > 1e-3 || !back.Converged {
		t.Errorf("Measurement = %+v", back)
	}
	if l := f.Measurement(f.Entries[1], f.Entries[1].Runs[0]); l.Mode != harness.Latency || l.Converged || l.Check != "wrong sum" || l.Bench != "Sum/n=1000/mode=latency" {
		t.Errorf("latency read back: mode %v, converged %v, check %q, bench %q", l.Mode, l.Converged, l.Check, l.Bench)
	}
	h2 := f.Header("run")
	if h2.CPU != "Test CPU" || h2.K != 3 || h2.Epsilon == nil || *h2.Epsilon != 0.01 || h2.ModeUnknown {
		t.Errorf("Header = %+v", h2)
	}
}

func unitsOf(vs []results.Value) string {
	var u []string
	for _, v := range vs {
		u = append(u, v.Unit)
	}
	return strings.Join(u, " ")
}

func TestUsable(t *testing.T) {
	cfg := harness.DefaultConfig() // ε 0.01
	tests := []struct {
		converged bool
		samples   int
		spread    float64
		want      bool
	}{
		{true, 100, 0.005, true},
		{false, 100, 0.0106, true},
		{false, 100, 0.025, false},
		{false, 0, 0, false}, // nothing measured
	}
	for _, tt := range tests {
		r := harness.Result{Converged: tt.converged, Samples: tt.samples, Spread: tt.spread, Config: cfg}
		if got := results.Usable(r); got != tt.want {
			t.Errorf("Usable(converged %v, %d samples, spread %v) = %v, want %v", tt.converged, tt.samples, tt.spread, got, tt.want)
		}
	}
}

func TestBenchConfig(t *testing.T) {
	eps := 0.01
	tests := []struct {
		name string
		h    results.Header
		want string
	}{
		{"measured", results.Header{GOOS: "linux", CPU: "X", Family: 25, K: 3, Epsilon: &eps, MaxSamples: 1000, GoVersion: "go1.26"}, "goos=linux cpu=X family=25 k=3 eps=0.01 m=1000 go=go1.26"},
		{"go test", results.Header{GOOS: "linux", CPU: "X", Extra: map[string]string{"pkg": "p"}}, "goos=linux cpu=X pkg=p"},
	}
	for _, tt := range tests {
		var got []string
		for _, kv := range tt.h.BenchConfig() {
			got = append(got, kv[0]+"="+kv[1])
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, strings.Join(got, " "), tt.want)
		}
	}
}

// TestHoistSweeps: the warning both sweeps carry goes to the
// header; each sweep keeps its own.
func TestHoistSweeps(t *testing.T) {
	vm, own := errors.New("vm"), errors.New("own")
	a, b := &results.Sweep{}, &results.Sweep{}
	a.Warnings, b.Warnings = []error{vm, own}, []error{vm}
	h := results.Header{}
	h.HoistSweeps([]*results.Sweep{a, b})
	if strings.Join(h.Warnings, ",") != "vm" || len(a.Warnings) != 1 || a.Warnings[0] != own || len(b.Warnings) != 0 {
		t.Errorf("header %q, sweeps %v and %v; want vm in the header, own left in the first", h.Warnings, a.Warnings, b.Warnings)
	}
}

// TestHeaderWithMachine: a header read from go test output gets the
// machine's description and calibration only when it names that machine
// (or none), and the calibration only when it is asked for.
func TestHeaderWithMachine(t *testing.T) {
	cpu := calibrate.CPU{Brand: "AMD EPYC 9R14", Vendor: "AuthenticAMD", Family: 25, Counter: "rdtsc", LogicalCPUs: 2}
	cal := &calibrate.Calibration{Frequency: calibrate.Frequency{Hz: 2.6e9, PPM: 0.1, Method: "bracket", Source: "monotonic clock"},
		Core: calibrate.CoreClock{CyclesPerTick: 1.4}}
	tests := []struct {
		name       string
		h          results.Header
		cpu        calibrate.CPU
		calErr     error
		vendor     string
		hz         float64
		calibrated bool
	}{
		{"from go test, same brand", results.Header{CPU: " AMD EPYC 9R14"}, cpu, nil, "AuthenticAMD", 2.6e9, true},
		{"no cpu line", results.Header{}, cpu, nil, "AuthenticAMD", 2.6e9, true},
		{"calibration failed", results.Header{CPU: "AMD EPYC 9R14"}, cpu, errors.New("no"), "AuthenticAMD", 0, true},
		{"another brand", results.Header{CPU: "Intel Xeon"}, cpu, nil, "", 0, false},
		{"brand unknown here", results.Header{CPU: "AMD EPYC 9R14"}, calibrate.CPU{}, nil, "", 0, false},
		{"describes itself", results.Header{CPU: "AMD EPYC 9R14", Vendor: "AMD"}, cpu, nil, "AMD", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			got := tt.h.WithMachine(tt.cpu, func() (*calibrate.Calibration, error) {
				called = true
				if tt.calErr != nil {
					return nil, tt.calErr
				}
				return cal, nil
			})
			if got.Vendor != tt.vendor || got.TSCHz != tt.hz || called != tt.calibrated {
				t.Errorf("vendor %q, tsc %g, calibrated %v; want %q, %g, %v", got.Vendor, got.TSCHz, called, tt.vendor, tt.hz, tt.calibrated)
			}
			if tt.hz > 0 && (got.CPU != cpu.Brand || got.TSCHzSource != "bracket: monotonic clock" || got.CyclesPerTick != 1.4) {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestFileWarnings(t *testing.T) {
	files := []results.File{{Warnings: []error{errors.New("a"), errors.New("b")}}, {}, {Warnings: []error{errors.New("c")}}}
	if got := strings.Join(results.FileWarnings(files), ","); got != "a,b,c" {
		t.Errorf("FileWarnings = %q, want a,b,c", got)
	}
	if got := results.FileWarnings(nil); len(got) != 0 {
		t.Errorf("FileWarnings(nil) = %q, want none", got)
	}
}

// TestHeaderLine: the summary line of a measured header, of one read
// from go test (the CPU only) and of a partial one.
func TestHeaderLine(t *testing.T) {
	eps := 0.01
	tests := []struct {
		name string
		h    results.Header
		want string
	}{
		{"measured", results.Header{CPU: "EPYC", Counter: "rdtsc", TSCHz: 2596141819.4, K: 3, Epsilon: &eps, MaxSamples: 1000},
			"cpu: EPYC  counter: rdtsc at 2596141819 Hz (2596.141819 MHz)  k=3 eps=0.01 m=1000"},
		{"from go test", results.Header{CPU: "EPYC", Extra: map[string]string{"pkg": "example.com/sums"}}, "cpu: EPYC  pkg: example.com/sums"},
		{"partial, no cpu", results.Header{Partial: "interrupted by SIGINT"}, "PARTIAL: interrupted by SIGINT\ncpu: -"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.Line(); got != tt.want {
				t.Errorf("Line() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRulerNotConverged: each format records that a run's cycles come from
// a core-clock ruler that did not converge (the JSON field, the benchmark
// format's line, harness's warning in go test output), and a Measurement
// of the run says so in ReferenceConverged.
func TestRulerNotConverged(t *testing.T) {
	r := harness.Result{Name: "Sum/n=1000", Cycles: 1000, Ticks: 700, Nanoseconds: 275, CyclesPerTick: 1.43, Converged: true, Samples: 40, Repeat: 10}
	m := results.Measurement{Result: r, Kernel: "Sum", N: 1000, Check: "ok", Bench: r.Name}
	var bench strings.Builder
	if err := results.WriteBench(&bench, results.Header{Command: "run"}, []results.Measurement{m}); err != nil {
		t.Fatal(err)
	}
	var js strings.Builder
	if err := json.NewEncoder(&js).Encode(results.NewRunReport(results.Header{Command: "run"}, []results.Measurement{m})); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, text string }{
		{"run.txt", bench.String()},
		{"run.json", js.String()},
		{"gotest.txt", "goos: linux\ngoarch: amd64\npkg: example.com/x\nBenchmarkSum/n=1000-2\t1000\t275 ns/op\t1000 cycles/op\t700 ticks/op\n--- BENCH: BenchmarkSum/n=1000-2\n" +
			"    x_test.go:9: harness.Report: warning: harness: no core-cycle estimate: the reference chain did not converge; the cycle estimate is less certain\n"},
	} {
		f, err := results.Parse(tt.name, strings.NewReader(tt.text))
		if err != nil || len(f.Entries) != 1 {
			t.Fatalf("%s: %v, %d entries", tt.name, err, len(f.Entries))
		}
		e := f.Entries[0]
		if !e.Runs[0].RulerNotConverged || f.Measurement(e, e.Runs[0]).ReferenceConverged {
			t.Errorf("%s: RulerNotConverged %v, want true; the Measurement's ReferenceConverged should be false", tt.name, e.Runs[0].RulerNotConverged)
		}
	}
}
