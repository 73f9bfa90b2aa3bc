package calibrate

import (
	"runtime"
	"strings"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/tsc"
	"github.com/klauspost/cpuid/v2"
)

// CPU describes the processor as far as timing is concerned.
type CPU struct {
	Vendor     string // vendor string ("GenuineIntel", "AuthenticAMD", ...); "" when unknown
	Brand      string // brand string; "" when unknown
	Family     int    // family number (0 when unknown)
	Model      int    // model number (0 when unknown)
	Stepping   int    // stepping (0 when unknown)
	Hypervisor string // hypervisor vendor from CPUID 0x40000000 ("KVMKVMKVM", "Microsoft Hv", ...), "" on bare metal or when unknown
	Virtual    bool   // running under a hypervisor (CPUID.1:ECX[31])
	// Counter is the counter in use: "rdtsc", "cntvct" or "monotonic".
	Counter string
	// RDTSCP reports the RDTSCP instruction (and so migration detection).
	RDTSCP bool
	// InvariantTSC reports CPUID 0x80000007 EDX[8]: the TSC runs at a
	// constant rate in every P-, C- and T-state. Always false when the
	// counter is not the TSC; see [CPU.CounterConstant].
	InvariantTSC bool
	// NominalHz is the processor's nominal frequency from its brand string
	// or CPUID 0x16, 0 when unknown. It is not the TSC frequency.
	NominalHz int64
	// CPUID15Hz is the TSC frequency from CPUID leaf 0x15 (crystal × ratio),
	// 0 when the leaf is absent or zero.
	CPUID15Hz float64
	// CPUID16Hz is the base frequency from CPUID leaf 0x16, 0 when absent or zero.
	CPUID16Hz float64
	// HypervisorTSCHz is the TSC frequency the hypervisor reports in CPUID
	// 0x40000010 (VMware/KVM timing leaf), 0 when absent or zero.
	HypervisorTSCHz float64
	LogicalCPUs     int // runtime.NumCPU()
	GOOS, GOARCH    string
	// ArmImplementer and ArmPart are the MIDR_EL1 implementer code and
	// primary part number Linux reports in /proc/cpuinfo ("CPU implementer",
	// "CPU part") on arm64 when every CPU reports the same; -1 otherwise.
	ArmImplementer, ArmPart int
	// Emulated says why the processor appears to be emulated rather than
	// real (user-mode emulation such as qemu-user), "" when nothing says so.
	// [Measure] also fills it from how the counter advances.
	Emulated string
}

// ImulLatency returns the documented latency in core cycles of one link
// of the IMUL (arm64: MUL) reference chain on this processor and whether
// it is known, from the CPU table ([CPU.Microarch]): 3 on Intel's big
// cores since Nehalem and on AMD Zen; on arm64 the value for the core
// named by ArmImplementer and ArmPart; unknown for other processors, for
// the pure-Go chains and under emulation.
func (c CPU) ImulLatency() (cycles float64, known bool) {
	if !chain.Exact() {
		return 0, false
	}
	m := c.Microarch()
	return m.ImulLatency, m.ImulLatency > 0
}

// CounterConstant reports whether the counter runs at a constant rate, so
// that ticks convert to seconds with one frequency: an invariant TSC, the
// arm64 generic timer, or the monotonic clock.
func (c CPU) CounterConstant() bool {
	switch c.Counter {
	case tsc.CounterRDTSC:
		return c.InvariantTSC
	default:
		return true
	}
}

// DetectCPU describes the processor, using github.com/klauspost/cpuid/v2
// for vendor, brand, family, model and features, and raw CPUID for what
// that package does not read (invariant TSC, leaves 0x15/0x16 as
// frequencies, the hypervisor leaves). It executes CPUID a handful of times:
// under a hypervisor each is a VM exit of a few microseconds. Where
// /proc/cpuinfo exists it also reads the arm64 core's MIDR_EL1 fields and
// whether the processor looks emulated (see [CPU.Emulated]).
func DetectCPU() CPU {
	c := CPU{
		Vendor:         cpuid.CPU.VendorString,
		Brand:          strings.TrimSpace(cpuid.CPU.BrandName),
		Family:         cpuid.CPU.Family,
		Model:          cpuid.CPU.Model,
		Stepping:       cpuid.CPU.Stepping,
		Virtual:        cpuid.CPU.Supports(cpuid.HYPERVISOR),
		Counter:        tsc.Counter(),
		NominalHz:      cpuid.CPU.Hz,
		LogicalCPUs:    runtime.NumCPU(),
		GOOS:           runtime.GOOS,
		GOARCH:         runtime.GOARCH,
		ArmImplementer: -1,
		ArmPart:        -1,
	}
	if f, err := sysRoot.Open(cpuinfoFile); err == nil {
		facts := parseCPUInfoFacts(f)
		f.Close()
		if c.GOARCH == "arm64" && facts.arch == "arm" {
			c.ArmImplementer, c.ArmPart = facts.implementer, facts.part
		}
		c.Emulated = emulationReason(c.GOARCH, facts)
	}
	if !tsc.HasCPUID() {
		return c
	}
	c.RDTSCP = tsc.Counter() == tsc.CounterRDTSC && tsc.HasAux()
	maxStd, _, _, _ := tsc.CPUID(0, 0)
	if maxStd >= 0x15 {
		den, num, crystal, _ := tsc.CPUID(0x15, 0)
		if den != 0 && num != 0 && crystal != 0 {
			c.CPUID15Hz = float64(crystal) * float64(num) / float64(den)
		}
	}
	if maxStd >= 0x16 {
		if base, _, _, _ := tsc.CPUID(0x16, 0); base != 0 {
			c.CPUID16Hz = float64(base) * 1e6
		}
	}
	if maxExt, _, _, _ := tsc.CPUID(0x80000000, 0); maxExt >= 0x80000007 {
		_, _, _, edx := tsc.CPUID(0x80000007, 0)
		c.InvariantTSC = edx&(1<<8) != 0 && tsc.Counter() == tsc.CounterRDTSC
	}
	if c.Virtual {
		maxHV, b, cx, d := tsc.CPUID(0x40000000, 0)
		c.Hypervisor = strings.TrimRight(string(le32(b))+string(le32(cx))+string(le32(d)), "\x00 ")
		if maxHV >= 0x40000010 {
			if khz, _, _, _ := tsc.CPUID(0x40000010, 0); khz != 0 {
				c.HypervisorTSCHz = float64(khz) * 1e3
			}
		}
	}
	return c
}

func le32(v uint32) []byte {
	return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
}
