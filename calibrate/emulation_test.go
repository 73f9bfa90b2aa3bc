package calibrate

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cyclebench/cyclebench/tsc"
)

// Trimmed /proc/cpuinfo texts.
const (
	cpuinfoX86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.432\nflags\t\t: fpu tsc rdtscp constant_tsc tsc_known_freq\n\n" +
		"processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu tsc\n"
	cpuinfoN1 = "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n" +
		"processor\t: 1\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n"
	cpuinfoBigLittle = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nprocessor\t: 4\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n"
	cpuinfoQEMUMax   = "processor\t: 0\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x051\nCPU revision\t: 0\n"
	cpuinfoRISCV     = "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\n"
)

func TestParseCPUInfoFacts(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		arch        string
		impl, part  int
		vendorModel string
	}{
		{"x86", cpuinfoX86, "x86", -1, -1, "AuthenticAMD AMD EPYC"},
		{"neoverse n1", cpuinfoN1, "arm", 0x41, 0xd0c, ""},
		{"big.LITTLE parts differ", cpuinfoBigLittle, "arm", -1, -1, ""},
		{"qemu max", cpuinfoQEMUMax, "arm", 0, 0x51, ""},
		{"riscv", cpuinfoRISCV, "riscv", -1, -1, ""},
		{"empty", "", "", -1, -1, ""},
		{"garbage part", "CPU implementer : 0x41\nCPU part : lots\n", "arm", -1, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := parseCPUInfoFacts(strings.NewReader(tt.text))
			if f.arch != tt.arch || f.implementer != tt.impl || f.part != tt.part || strings.TrimSpace(f.vendor+" "+f.model) != tt.vendorModel {
				t.Fatalf("parseCPUInfoFacts = %+v; want arch %q implementer %#x part %#x vendor/model %q", f, tt.arch, tt.impl, tt.part, tt.vendorModel)
			}
		})
	}
}

func TestEmulationReason(t *testing.T) {
	tests := []struct {
		name, goarch, text string
		want               string // substring; "" means not emulated
	}{
		{"arm64 on an x86 kernel (qemu-user)", "arm64", cpuinfoX86, "user-mode emulation"},
		{"arm64 on qemu's faked cpuinfo", "arm64", cpuinfoQEMUMax, "implementer 0x00"},
		{"arm64 on a neoverse", "arm64", cpuinfoN1, ""},
		{"arm64 on big.LITTLE", "arm64", cpuinfoBigLittle, ""},
		{"amd64 natively", "amd64", cpuinfoX86, ""},
		{"386 on an amd64 kernel", "386", cpuinfoX86, ""},
		{"amd64 on an arm kernel", "amd64", cpuinfoN1, "user-mode emulation"},
		{"riscv64 on an x86 kernel", "riscv64", cpuinfoX86, "user-mode emulation"},
		{"unknown cpuinfo", "arm64", "", ""},
		{"unmapped GOARCH", "s390x", cpuinfoX86, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := emulationReason(tt.goarch, parseCPUInfoFacts(strings.NewReader(tt.text)))
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("emulationReason(%s) = %q, want %q", tt.goarch, got, tt.want)
			}
		})
	}
}

func TestCoarseCounterReason(t *testing.T) {
	tests := []struct {
		name    string
		counter string
		step    tsc.StepInfo
		hz      float64
		want    bool
	}{
		{"qemu 62.5 MHz, 1 µs steps", tsc.CounterCNTVCT, tsc.StepInfo{Step: 62.5, Quantized: true}, 62.5e6, true},
		{"qemu 1 GHz, 1 µs steps", tsc.CounterCNTVCT, tsc.StepInfo{Step: 1000, Quantized: true}, 1e9, true},
		{"hardware 25 MHz", tsc.CounterCNTVCT, tsc.StepInfo{Step: 1}, 25e6, false},
		{"hardware 1 MHz, step 1", tsc.CounterCNTVCT, tsc.StepInfo{Step: 1}, 1e6, false},
		{"armv8.6 scaled 1 GHz, 40 ns steps", tsc.CounterCNTVCT, tsc.StepInfo{Step: 40, Quantized: true}, 1e9, false},
		{"virtual tsc quantum is not arm", tsc.CounterRDTSC, tsc.StepInfo{Step: 2445, Quantized: true}, 2.445e9, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := coarseCounterReason(tt.counter, tt.step, tt.hz); (got != "") != tt.want {
				t.Fatalf("coarseCounterReason = %q, want emulated=%v", got, tt.want)
			}
		})
	}
}

func TestNoMigrationCheck(t *testing.T) {
	for _, c := range []string{tsc.CounterCNTVCT, tsc.CounterMonotonic, tsc.CounterRDTSC} {
		t.Run(c, func(t *testing.T) {
			err := noMigrationCheck(c)
			if !errors.Is(err, ErrNoMigrationCheck) || !strings.HasPrefix(err.Error(), "calibrate: ") || !strings.Contains(err.Error(), "pin") {
				t.Fatalf("noMigrationCheck(%q) = %v", c, err)
			}
		})
	}
}

func TestDetectCPUReadsCPUInfo(t *testing.T) {
	old := sysRoot
	t.Cleanup(func() { sysRoot = old })
	tests := []struct {
		name     string
		text     string
		emulated bool // on an arm64 build
		part     int  // on an arm64 build
	}{
		{"x86 host", cpuinfoX86, true, -1},
		{"neoverse n1", cpuinfoN1, false, 0xd0c},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sysRoot = fstest.MapFS{cpuinfoFile: {Data: []byte(tt.text)}}
			c := DetectCPU()
			want := emulationReason(runtime.GOARCH, parseCPUInfoFacts(strings.NewReader(tt.text)))
			if c.Emulated != want {
				t.Fatalf("Emulated = %q, want %q", c.Emulated, want)
			}
			if runtime.GOARCH == "arm64" && ((c.Emulated != "") != tt.emulated || c.ArmPart != tt.part) {
				t.Fatalf("arm64: Emulated %q, ArmPart %#x; want emulated %v part %#x", c.Emulated, c.ArmPart, tt.emulated, tt.part)
			}
			if runtime.GOARCH != "arm64" && (c.ArmImplementer != -1 || c.ArmPart != -1) {
				t.Fatalf("ArmImplementer/ArmPart = %d/%d on %s, want -1", c.ArmImplementer, c.ArmPart, runtime.GOARCH)
			}
		})
	}
}

func TestMeasureWarnsWhatTheCounterCannotDo(t *testing.T) {
	c, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	has := func(target error) bool {
		for _, w := range c.Warnings {
			if errors.Is(w, target) {
				return true
			}
		}
		return false
	}
	if got, want := has(ErrNoMigrationCheck), !tsc.HasAux(); got != want {
		t.Errorf("ErrNoMigrationCheck warned = %v, want %v (HasAux %v): %v", got, want, tsc.HasAux(), c.Warnings)
	}
	if got, want := has(ErrEmulated), c.CPU.Emulated != ""; got != want {
		t.Errorf("ErrEmulated warned = %v, want %v (Emulated %q)", got, want, c.CPU.Emulated)
	}
	if c.CPU.Emulated != "" {
		t.Logf("emulated: %s", c.CPU.Emulated)
	}
}
