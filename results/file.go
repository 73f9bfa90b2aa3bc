package results

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
)

// Format is the kind of file a [File] was read from.
type Format int

// Formats [Parse] recognises.
const (
	// FormatRunJSON is cyclebench run -format json: a header and "results".
	FormatRunJSON Format = iota + 1
	// FormatCPEJSON is cyclebench cpe -format json: a header and
	// "kernels", each with its points (one result per size) and fits.
	FormatCPEJSON
	// FormatBench is the Go benchmark format: cyclebench run or cpe
	// -format bench, or go test -bench (with or without harness.Report).
	FormatBench
)

func (f Format) String() string {
	switch f {
	case FormatRunJSON:
		return "cyclebench run (json)"
	case FormatCPEJSON:
		return "cyclebench cpe (json)"
	case FormatBench:
		return "Go benchmark format"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Producers of a File.
const (
	ProducerCyclebench = "cyclebench"
	ProducerGoTest     = "go test"
)

// Modes of an [Entry]: the harness's two ways of running a kernel.
const (
	// Throughput: calls back to back. Files written before the tool had
	// modes measured this way, and a benchmark name without a mode part
	// means it.
	Throughput = "throughput"
	// Latency: a serializing fence before each call (named
	// ".../mode=latency" in the benchmark format).
	Latency = "latency"
)

// File is one result file: the machine it was measured on and what was
// measured there. Figures the file does not hold are zero; [File.Absent]
// and [File.Warnings] say which were expected and missing.
type File struct {
	// Path is the path given to [Read], or the name given to [Parse].
	Path string
	// Format is the kind of file.
	Format Format
	// Producer is ProducerCyclebench for files cyclebench wrote (JSON, or
	// the benchmark format with its header) and ProducerGoTest for
	// benchmark files without it (go test -bench).
	Producer string
	// Command is the JSON header's "command" ("run", "cpe"); "" in the
	// benchmark format.
	Command string
	// Machine is what the file says about the machine.
	Machine Machine
	// Settings are the measuring settings the file records.
	Settings Settings
	// Entries holds one entry per benchmark (package, name, mode), in the
	// order first seen; the runs of a name that appears several times
	// (-count) are the runs of one entry.
	Entries []Entry
	// Fits are the CPE fits of a cpe file, one per kernel, in file order.
	Fits []Fit
	// Partial, when not "", is why the file says it is partial (the
	// "partial" field of a JSON header, a "# partial:" line): a signal
	// stopped the command that wrote it before it had measured all.
	Partial string
	// Provenance is where the measurements came from (the JSON header's
	// "provenance"); nil when the file does not say (files of earlier
	// versions, the benchmark format).
	Provenance *Provenance
	// Notes are the warnings the file itself records about its
	// measurement (the header's "warnings", "# warning:" lines before the
	// first result): what the tool said when it measured.
	Notes []string
	// Absent lists the fields the reader expected and did not find (JSON
	// keys such as "mode"); they read as zero. Optional fields that newer
	// versions add (family, model, logical_cpus, quantum_ticks) are not listed.
	Absent []string
	// Warnings are soft problems met while reading: skipped lines
	// ([ErrSkippedLine]), absent fields ([ErrAbsentField]), a machine that
	// changes within the file ([ErrMachineChanged]).
	Warnings []error
}

// Settings are the measuring settings a file records; zero when absent.
type Settings struct {
	// K is the number of best samples that had to agree.
	K int
	// Epsilon is the relative tolerance of the K-best rule.
	Epsilon float64
	// MaxSamples is the number of samples after which a measurement gave
	// up.
	MaxSamples int
}

// Machine is what a result file says about the machine it was measured
// on. Every field is zero when the file does not say: a go test file has
// only CPU, GOOS and GOARCH.
type Machine struct {
	// CPU is the processor's brand string ("AMD EPYC").
	CPU string
	// Vendor is the CPUID vendor ("AuthenticAMD", "GenuineIntel").
	Vendor string
	// Family, Model and Stepping are the CPUID family, model and stepping
	// (0 when the file does not say; the files of the tool up to now do
	// not).
	Family, Model, Stepping int
	// Hypervisor is the CPUID hypervisor vendor ("KVMKVMKVM"); "" on bare
	// metal or when unknown.
	Hypervisor string
	// Counter is the counter that timed the runs: "rdtsc", "cntvct" or
	// "monotonic".
	Counter string
	// CounterHz is the counter's frequency in ticks per second ("tsc_hz"),
	// CounterHzSource says where it came from and CounterHzPPM its
	// uncertainty in parts per million.
	CounterHz       float64
	CounterHzSource string
	CounterHzPPM    float64
	// CounterStep is the counter's detected step in ticks ("tsc_step").
	CounterStep float64
	// CyclesPerTick is the core-clock ratio of the run (core cycles per
	// counter tick, measured with the core-clock ruler); 0 when the run had
	// no ruler or it was refused.
	CyclesPerTick float64
	// LogicalCPUs is the number of logical CPUs the process could use.
	LogicalCPUs int
	// GoVersion, GOOS and GOARCH are the Go toolchain and platform.
	GoVersion, GOOS, GOARCH string
}

// HypervisorName is Hypervisor as a reader knows it: "KVM" for
// "KVMKVMKVM", "Hyper-V" for "Microsoft Hv", and so on; other vendor
// strings unchanged, "" on bare metal.
func (m Machine) HypervisorName() string {
	h := strings.Trim(m.Hypervisor, " \x00")
	switch h {
	case "KVMKVMKVM":
		return "KVM"
	case "Microsoft Hv":
		return "Hyper-V"
	case "VMwareVMware":
		return "VMware"
	case "XenVMMXenVMM":
		return "Xen"
	case "TCGTCGTCGTCG":
		return "QEMU TCG"
	case "VBoxVBoxVBox":
		return "VirtualBox"
	case "bhyve bhyve":
		return "bhyve"
	}
	return h
}

// Microarch names the core microarchitecture from the vendor, family and
// model when the file gives them and they are in the package's small
// table (AMD Zen 1–5 by family and model range, as Linux's
// arch/x86/kernel/cpu/amd.c tells them; a few Intel server cores by
// model); "" otherwise.
func (m Machine) Microarch() string {
	f, mo := m.Family, m.Model
	switch m.Vendor {
	case "AuthenticAMD":
		switch f {
		case 0x17:
			if mo < 0x30 {
				return "Zen"
			}
			return "Zen 2"
		case 0x19:
			switch {
			case mo < 0x10, mo >= 0x20 && mo < 0x60:
				return "Zen 3"
			case mo < 0x20, mo >= 0x60 && mo < 0x80, mo >= 0xa0 && mo < 0xb0:
				return "Zen 4"
			}
		case 0x1a:
			if mo < 0x50 || mo >= 0x60 && mo < 0x80 {
				return "Zen 5"
			}
		}
	case "GenuineIntel":
		if f == 6 {
			switch mo {
			case 0x55:
				return "Skylake-SP/Cascade Lake"
			case 0x6a, 0x6c:
				return "Ice Lake-SP"
			case 0x8f:
				return "Sapphire Rapids"
			case 0xcf:
				return "Emerald Rapids"
			case 0xad, 0xae:
				return "Granite Rapids"
			}
		}
	}
	return ""
}

// Label describes the machine in one line: CPU, then in parentheses the
// hypervisor and the core (microarchitecture, family and model), the
// counter's frequency and the counter, for example
//
//	AMD EPYC (KVM, Zen 5 family 26) 2596 MHz rdtsc
//
// Parts the file does not give are left out; a file with no CPU name says
// "unknown CPU" and its platform.
func (m Machine) Label() string {
	var b strings.Builder
	cpu := strings.TrimSpace(m.CPU)
	if cpu == "" {
		cpu = "unknown CPU"
		if m.GOOS != "" || m.GOARCH != "" {
			cpu = "unknown " + strings.Trim(m.GOOS+"/"+m.GOARCH, "/") + " CPU"
		}
	}
	b.WriteString(cpu)
	var in []string
	if h := m.HypervisorName(); h != "" {
		in = append(in, h)
	}
	if m.Family != 0 {
		core := strings.TrimSpace(m.Microarch() + " family " + fmt.Sprint(m.Family))
		if m.Model != 0 {
			core += " model " + fmt.Sprint(m.Model)
		}
		in = append(in, core)
	}
	if len(in) > 0 {
		b.WriteString(" (" + strings.Join(in, ", ") + ")")
	}
	if m.CounterHz > 0 {
		b.WriteString(" " + mhz(m.CounterHz))
	}
	if m.Counter != "" {
		b.WriteString(" " + m.Counter)
	}
	return b.String()
}

// String is the Label followed by the Go version, platform and CPU count
// where known: "AMD EPYC (KVM) 2596 MHz rdtsc, go1.26.8 linux/amd64".
func (m Machine) String() string {
	var more []string
	if m.GoVersion != "" {
		more = append(more, m.GoVersion)
	}
	if p := strings.Trim(m.GOOS+"/"+m.GOARCH, "/"); p != "" {
		more = append(more, p)
	}
	s := m.Label()
	if len(more) > 0 {
		s += ", " + strings.Join(more, " ")
	}
	if m.LogicalCPUs > 0 {
		s += fmt.Sprintf(", %d CPUs", m.LogicalCPUs)
	}
	return s
}

// mhz writes a frequency in MHz, with decimals only below 100 MHz (a
// 25 MHz CNTVCT, a 24 MHz Apple timer).
func mhz(hz float64) string {
	v := hz / 1e6
	if v >= 100 {
		return fmt.Sprintf("%.0f MHz", math.Round(v))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".") + " MHz"
}

// Entry is one benchmark of a file: a name measured once or several times
// (each a [Run]).
type Entry struct {
	// Name is the benchmark's name without its mode part and GOMAXPROCS
	// suffix, and without the "Benchmark" prefix: "Combine4/n=1000". It is
	// how entries of different files are matched.
	Name string
	// Pkg is the "pkg:" of a go test file, "" otherwise.
	Pkg string
	// Kernel is the name without its size part: the JSON "kernel" field,
	// or from the name ("Combine4", "Sum/acc=4").
	Kernel string
	// SizeKey is the key of the size part ("n", "size", "len",
	// "elements"), "" when the name has none; N is its value.
	SizeKey string
	N       int64
	// Mode is Throughput or Latency.
	Mode string
	// Unit is what N and the per-element figures count ("elements",
	// "ops"); "" when the file does not say (the benchmark format).
	Unit string
	// Runs are the measurements of this entry, in file order.
	Runs []Run
}

// Run is one measurement of an entry. Per-call figures have the timing
// overhead subtracted; Cycles are estimated core cycles, Ticks counter
// ticks. Figures the file does not give are 0.
type Run struct {
	// Cycles is estimated core cycles per call; 0 when NoCycles says why
	// there is none.
	Cycles float64
	// NoCycles says why Cycles (and CyclesPerElem) is absent: HasCycles
	// when present.
	NoCycles NoCycles
	// Ticks is counter ticks per call, NS nanoseconds per call.
	Ticks, NS float64
	// Elements is the number of elements per call; 0 when the run has no
	// per-element figures.
	Elements float64
	// CyclesPerElem, TicksPerElem and NsPerElem are the per-call figures
	// over Elements.
	CyclesPerElem, TicksPerElem, NsPerElem float64
	// NotConverged is set when the file says the K best samples did not
	// agree ("converged": false, a "# not converged" line, a go test
	// "did not converge" warning).
	NotConverged bool
	// RulerNotConverged is set when the file says the core-clock ruler
	// behind Cycles did not converge, so the cycle figure is less certain:
	// "ruler_converged": false in JSON, the benchmark format's "# NAME:
	// cycles from a core-clock ruler that did not converge" line, or, in
	// go test output where a logged warning is the only record, harness's
	// warning that the reference chain did not converge.
	RulerNotConverged bool
	// Shared is set when the file says the core was shared to the end of
	// the measurement (harness.Result.Shared: "shared" in JSON, harness's
	// warning in go test output), by ProbeExcess (0 when it does not say).
	Shared      bool
	ProbeExcess float64
	// Room is set when the file says the room probe read the core with
	// more room than usual for longer than the measurement waited
	// (harness.Result.Room: "room" in JSON, harness's ErrRoom warning in
	// go test output): calls that overlap the next may read low.
	Room bool
	// Quantile is harness.Result.Quantile: 0.05 when the file says the
	// figures are the samples' 5th percentile ("quantile" in JSON,
	// harness's ErrNoFloor warning in go test output), else 0.
	Quantile float64
	// Samples is the number of samples taken, Repeat the calls per sample;
	// 0 when the file does not say.
	Samples, Repeat int
	// Iters is the iteration count of a benchmark line.
	Iters int
	// BenchName is the name as the benchmark line gave it, without
	// "Benchmark" and with go test's GOMAXPROCS suffix ("Sum/n=400-2"),
	// so that a file written back names it as go test did and benchstat
	// lines the two up; "" for a run read from JSON.
	BenchName string
	// CyclesPerTick is the run's core-clock ruler; 0 without one.
	CyclesPerTick float64
	// CyclesSource says where Cycles came from when the line did not
	// carry them (a plain testing.B benchmark's ns/op times the core
	// clock read around its run: "ns × ruler"); "" otherwise.
	CyclesSource string
	// CyclesUncertainty is the relative uncertainty of such cycles: half
	// the core clock's movement between the readings before and after the
	// run, over their mean; 0 when not stated.
	CyclesUncertainty float64
	// Quantum is the counter resolution the run was tuned for, in ticks;
	// 0 when the file does not say.
	Quantum float64
	// Check is the kernel's output check: "ok", a failure, or "" when the
	// file does not say.
	Check string
	// Warnings are the file's warnings about this run.
	Warnings []string
	// Other holds figures in units the fields above do not cover (B/op,
	// allocs/op, MB/s, a user's own metrics), in file order.
	Other []Value
	// Line is the run's line in the file (1-based): its benchmark line, or
	// where its JSON object starts.
	Line int
}

// Value is a figure with its unit, as in a benchmark line.
type Value struct {
	Value float64
	Unit  string
}

// NoCycles says why a run has no cycle figure.
type NoCycles int

// Reasons for a missing cycle figure.
const (
	// HasCycles: the run has cycle figures.
	HasCycles NoCycles = iota
	// NoRuler: the run was measured without the core-clock ruler
	// (-no-cycles, Config.NoCycles) or the ruler gave no estimate; the
	// file has ticks and ns.
	NoRuler
	// NotReported: a benchmark line without cycles/op: a go test benchmark
	// that does not call harness.Report, or another tool's file.
	NotReported
	// NotWritten: a cyclebench JSON result without a "cycles" field (a
	// version of the tool that did not write it).
	NotWritten
)

func (n NoCycles) String() string {
	switch n {
	case HasCycles:
		return "has cycles"
	case NoRuler:
		return "measured without the core-clock ruler (-no-cycles)"
	case NotReported:
		return "no cycles/op on its benchmark lines (go test without harness.Report)"
	case NotWritten:
		return "no \"cycles\" field in its file (a version of the tool without cycle figures)"
	}
	return fmt.Sprintf("NoCycles(%d)", int(n))
}

// Fit is a kernel's CPE fit from a cpe file: cost per call = Intercept +
// PerElement·n, least squares over the sweep's sizes.
type Fit struct {
	// Kernel is the kernel's name; Mode its mode; Unit what n counts.
	Kernel, Mode, Unit string
	// Sizes are the sizes swept.
	Sizes []int64
	// Cycles, Ticks and NS are the fits in each unit; a FitLine with N = 0
	// is absent (Cycles without the ruler).
	Cycles, Ticks, NS FitLine
	// CyclesPerTick is the sweep's core-clock ruler; 0 without one.
	CyclesPerTick float64
	// Check is the kernel's output check ("ok", a failure, "").
	Check string
	// Warnings are the file's warnings about this kernel's sweep.
	Warnings []string
	// Line is where the kernel's JSON object starts.
	Line int
}

// FitLine is one unit's straight line: the slope per element with its 95%
// confidence half-width and standard error, the intercept (cost per call
// that does not grow with n) likewise, R², the number of points, and the
// sizes whose residuals were outliers.
type FitLine struct {
	PerElement, PerElementCI, PerElementSE float64
	Intercept, InterceptCI, InterceptSE    float64
	R2                                     float64
	N                                      int
	OutlierSizes                           []int64
}

// MarshalText writes the format's String, so a File encodes as readable
// JSON.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// MarshalText writes the reason's String, so a Run or a Cell encodes as
// readable JSON.
func (n NoCycles) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// Measurement turns run r of entry e of f into a Measurement: its figures
// as a harness.Result (per call and per element, the core-clock ratio,
// convergence and the ruler's, the warnings it was logged with), marked
// Read.
func (f File) Measurement(e Entry, r Run) Measurement {
	res := harness.Result{Name: e.Name, Ticks: r.Ticks, Nanoseconds: r.NS, Cycles: r.Cycles, Converged: !r.NotConverged,
		Samples: r.Samples, Repeat: r.Repeat, CyclesPerTick: r.CyclesPerTick, ReferenceConverged: !r.RulerNotConverged, Quantum: r.Quantum, Shared: r.Shared, Room: r.Room, ProbeExcess: r.ProbeExcess, Quantile: r.Quantile,
		TicksPerSecond: f.Machine.CounterHz, Calls: int64(r.Iters), Elements: r.Elements, CyclesPerElement: r.CyclesPerElem, TicksPerElement: r.TicksPerElem, NsPerElement: r.NsPerElem}
	res.Config.Epsilon = f.Settings.Epsilon
	if r.NoCycles == HasCycles && res.CyclesPerTick == 0 {
		// A go test line has cycles/op and ticks/op: their ratio is the
		// core-clock ratio of the run's ruler (to go test's 4 digits).
		res.CyclesPerTick = 1
		if r.Ticks > 0 {
			res.CyclesPerTick = r.Cycles / r.Ticks
		}
	}
	if e.Mode == Latency {
		res.Mode = harness.Latency
	}
	if r.CyclesSource != "" {
		res.CyclesSource = r.CyclesSource
	}
	for _, w := range r.Warnings {
		res.Warnings = append(res.Warnings, errors.New(w))
	}
	n := int(e.N)
	if int64(n) != e.N {
		n = 0
	}
	unit := e.Unit
	if unit == "" && r.Elements > 0 {
		unit = "elements" // per-element figures without a word for them: harness.Target.Elements counts elements
	}
	check := r.Check
	if check == "" {
		check = "ok"
	}
	bench := r.BenchName
	if bench == "" {
		bench = BenchName(e.Name, res.Mode)
	}
	return Measurement{Result: res, Kernel: e.Kernel, N: n, Unit: unit, Check: check, Bench: bench,
		PerElement: r.Elements > 0, NoTicks: r.Ticks == 0, Other: r.Other, Read: true, CyclesUncertainty: r.CyclesUncertainty}
}

// Config is what f says about its machine and settings under the
// configuration keys of the benchmark format (goos, goarch, cpu, vendor,
// family, model, stepping, logical-cpus, hypervisor, counter, tsc-hz,
// core-cycles-per-tick, tsc-step, k, eps, m, go), always in this order,
// "" for what it does not say.
func (f File) Config() [][2]string {
	m := f.Machine
	num := func(v float64, digits int) string {
		if v == 0 {
			return ""
		}
		return sigfig.Sig(v, digits)
	}
	eps := ""
	if f.Settings.K > 0 {
		eps = strconv.FormatFloat(f.Settings.Epsilon, 'g', -1, 64)
	}
	return [][2]string{
		{"goos", m.GOOS}, {"goarch", m.GOARCH}, {"cpu", m.CPU}, {"vendor", m.Vendor},
		{"family", num(float64(m.Family), 6)}, {"model", num(float64(m.Model), 6)}, {"stepping", num(float64(m.Stepping), 6)},
		{"logical-cpus", num(float64(m.LogicalCPUs), 6)}, {"hypervisor", m.Hypervisor}, {"counter", m.Counter},
		{"tsc-hz", num(math.Round(m.CounterHz), 12)}, {"core-cycles-per-tick", num(m.CyclesPerTick, 5)},
		{"tsc-step", num(m.CounterStep, 4)}, {"k", num(float64(f.Settings.K), 6)}, {"eps", eps},
		{"m", num(float64(f.Settings.MaxSamples), 9)}, {"go", m.GoVersion},
	}
}

// ConfigValue is key's value in [File.Config], "" when absent.
func (f File) ConfigValue(key string) string {
	for _, kv := range f.Config() {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// Keep returns f with only the benchmarks (entries, and the fits of cpe
// files) whose name keep matches.
func (f File) Keep(keep *regexp.Regexp) File {
	f.Entries = slices.DeleteFunc(slices.Clone(f.Entries), func(e Entry) bool { return !keep.MatchString(e.Name) })
	f.Fits = slices.DeleteFunc(slices.Clone(f.Fits), func(fit Fit) bool { return !keep.MatchString(fit.Kernel) })
	return f
}

// Header is the header of command's results read from f: the machine and
// settings it records (a go test file has the CPU and platform only), its
// notes and warnings, and its packages as Extra["pkg"].
func (f File) Header(command string) Header {
	m := f.Machine
	h := Header{Command: command, CPU: m.CPU, Vendor: m.Vendor, Hypervisor: m.Hypervisor, Counter: m.Counter,
		TSCHz: m.CounterHz, TSCHzSource: m.CounterHzSource, TSCHzPPM: m.CounterHzPPM, CyclesPerTick: m.CyclesPerTick, TSCStep: m.CounterStep,
		K: f.Settings.K, MaxSamples: f.Settings.MaxSamples,
		GOOS: m.GOOS, GOARCH: m.GOARCH, GoVersion: m.GoVersion, Warnings: slices.Clone(f.Notes), ModeUnknown: f.Producer == ProducerGoTest}
	if f.Settings.K > 0 {
		eps := f.Settings.Epsilon
		h.Epsilon = &eps
	}
	h.Provenance = f.Provenance
	if h.Warnings == nil {
		h.Warnings = []string{}
	}
	h.Warnings = append(h.Warnings, ErrorStrings(f.Warnings)...)
	var pkgs []string
	for _, e := range f.Entries {
		if e.Pkg != "" && !slices.Contains(pkgs, e.Pkg) {
			pkgs = append(pkgs, e.Pkg)
		}
	}
	if len(pkgs) > 0 {
		h.Extra = map[string]string{"pkg": strings.Join(pkgs, " ")}
	}
	return h
}

// Split separates the runs of f: those of comparisons
// (harness.ReportCompare, [Entry.IsPaired]) as Paired, the others as
// Measurements, in order, with the names of the entries of each kind.
func (f File) Split() (ms []Measurement, msNames []string, cs []Paired, csNames []string) {
	for _, e := range f.Entries {
		for _, r := range e.Runs {
			if e.IsPaired() {
				cs = append(cs, PairedOf(e, r))
			} else {
				ms = append(ms, f.Measurement(e, r))
			}
		}
		if e.IsPaired() {
			csNames = append(csNames, e.Name)
		} else {
			msNames = append(msNames, e.Name)
		}
	}
	return ms, msNames, cs, csNames
}

// Resolution is the resolution a value y of f was written with: go test
// prints whole numbers from 999.95 up and 4 significant digits below
// (testing's prettyPrint), cyclebench's benchmark format 6 significant
// digits; JSON has them all (0).
func (f File) Resolution(y float64) float64 {
	y = math.Abs(y)
	switch {
	case f.Format != FormatBench || y == 0:
		return 0
	case f.Producer == ProducerCyclebench:
		return math.Pow(10, math.Floor(math.Log10(y))-5)
	case y >= 999.95:
		return 1
	}
	return math.Pow(10, math.Floor(math.Log10(y/0.99995))-3)
}
