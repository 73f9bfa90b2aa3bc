package calibrate

import "fmt"

// Fold says what is known of a core folding a dependent chain of ADDs of a
// small immediate (ADD reg, 1; INC; LEA 1(reg)) at register rename.
type Fold int

const (
	FoldUnknown Fold = iota // not documented here
	FoldNo                  // each link costs one cycle
	FoldYes                 // folded: a fraction of a cycle per link
)

func (f Fold) String() string {
	switch f {
	case FoldNo:
		return "no"
	case FoldYes:
		return "yes"
	}
	return "unknown"
}

// Microarch is what the CPU table knows of a core's timing: the facts the
// core-clock ruler relies on, each with where it comes from. Every figure
// the ruler uses is also measured; the table says what to expect.
type Microarch struct {
	// Name names the core ("Zen 4", "Raptor Cove (Emerald Rapids)"); ""
	// when the processor is not in the table.
	Name string
	// ImulLatency is the documented latency in core cycles of a dependent
	// 64-bit IMUL r64, r64 (arm64: MUL, the MADD X-form), the ruler's
	// cross-check; 0 when not documented for this core (the ruler is then
	// "unchecked").
	ImulLatency float64
	// FoldsAddImm says whether the core folds small-immediate ADD chains at
	// rename, as far as documented or measured on this project's machines.
	FoldsAddImm Fold
	// Source says where the figures come from.
	Source string
}

// Sources of the table's figures.
const (
	srcIntel = "Intel 64 and IA-32 Optimization Reference Manual; Agner Fog's instruction tables"
	srcAMD   = "AMD Software Optimization Guides for families 17h, 19h and 1Ah; Agner Fog's instruction tables; small-immediate ADD chains measured at one cycle per link on Zen 3, 4 and 5 guests"
	srcFold  = "small-immediate ADD chains measured at 0.2 cycles per link on a Raptor Cove (Emerald Rapids) guest"
	srcArm   = "the core's Arm Software Optimization Guide (\"Multiply accumulate, X-form\")"
)

// intelBig lists Intel family 6 models with Intel's "big" cores from
// Nehalem to Tiger Lake: IMUL r64 latency 3, no folding. Atom-class cores
// (Silvermont to Crestmont: 4 or 5 cycles by model) and hybrid parts
// (whose E-cores differ from their P-cores; the thread may run on either)
// are left out on purpose: unknown, not guessed.
var intelBig = map[int]string{
	0x1a: "Nehalem", 0x1e: "Nehalem", 0x1f: "Nehalem", 0x2e: "Nehalem",
	0x25: "Westmere", 0x2c: "Westmere", 0x2f: "Westmere",
	0x2a: "Sandy Bridge", 0x2d: "Sandy Bridge",
	0x3a: "Ivy Bridge", 0x3e: "Ivy Bridge",
	0x3c: "Haswell", 0x3f: "Haswell", 0x45: "Haswell", 0x46: "Haswell",
	0x3d: "Broadwell", 0x47: "Broadwell", 0x4f: "Broadwell", 0x56: "Broadwell",
	0x4e: "Skylake", 0x5e: "Skylake", 0x55: "Skylake (server)",
	0x8e: "Kaby/Coffee Lake", 0x9e: "Kaby/Coffee Lake", 0xa5: "Comet Lake", 0xa6: "Comet Lake",
	0x66: "Palm Cove (Cannon Lake)",
	0x7d: "Sunny Cove (Ice Lake)", 0x7e: "Sunny Cove (Ice Lake)", 0x6a: "Sunny Cove (Ice Lake server)", 0x6c: "Sunny Cove (Ice Lake server)",
	0x8c: "Willow Cove (Tiger Lake)", 0x8d: "Willow Cove (Tiger Lake)", 0xa7: "Cypress Cove (Rocket Lake)",
}

// intelFolding lists Intel family 6 server models whose cores (Golden Cove
// and later) fold small-immediate ADDs at rename; all their cores are P-cores.
var intelFolding = map[int]string{
	0x8f: "Golden Cove (Sapphire Rapids)",
	0xcf: "Raptor Cove (Emerald Rapids)",
	0xad: "Redwood Cove (Granite Rapids)", 0xae: "Redwood Cove (Granite Rapids)",
}

// intelHybrid lists Intel family 6 hybrid client models: P-cores of the
// Golden Cove line (IMUL 3, folding) beside E-cores of the Gracemont line.
var intelHybrid = map[int]string{
	0x97: "Alder Lake", 0x9a: "Alder Lake", 0xb7: "Raptor Lake", 0xba: "Raptor Lake", 0xbf: "Raptor Lake",
	0xaa: "Meteor Lake", 0xac: "Meteor Lake", 0xbd: "Lunar Lake", 0xc5: "Arrow Lake", 0xc6: "Arrow Lake",
}

// amdZen names AMD's (and Hygon's) Zen families: IMUL r64 latency 3, and
// small-immediate ADD chains at one cycle per link (measured on Zen 3, 4
// and 5 guests: the IMUL/ADD $1 ratio is 3).
var amdZen = map[int]string{0x17: "Zen, Zen+ or Zen 2", 0x18: "Zen (Hygon Dhyana)", 0x19: "Zen 3 or Zen 4", 0x1a: "Zen 5"}

// zen19 names the core of an AMD family 19h model: Zen 4 for models
// 10h–1Fh, 60h–7Fh and A0h–AFh, Zen 3 for the others.
func zen19(model int) string {
	switch {
	case model >= 0x10 && model <= 0x1f, model >= 0x60 && model <= 0x7f, model >= 0xa0 && model <= 0xaf:
		return "Zen 4"
	}
	return "Zen 3"
}

// armMulLatency lists the documented latency of a dependent 64-bit MUL
// (MADD X-form) by MIDR_EL1 primary part number for cores by Arm Limited
// (implementer 0x41): Cortex-A76 and Neoverse N1 (derived from it) 4
// cycles, with the multiply pipeline busy for 3; Neoverse V1 2 cycles.
// Cores not listed are unknown rather than guessed.
var armMulLatency = map[int]struct {
	core   string
	cycles float64
}{
	0xd0b: {"Cortex-A76", 4},
	0xd0c: {"Neoverse N1", 4},
	0xd40: {"Neoverse V1", 2},
}

// Arm's implementer code in MIDR_EL1 bits 31:24.
const armImplementer = 0x41

// LookupX86 returns the table's entry for an x86 processor by CPUID vendor
// string, family and model (as package cpuid/v2 reports them: extended
// family and model folded in). An unlisted processor gives a Microarch
// with Name "" and nothing known.
func LookupX86(vendor string, family, model int) Microarch {
	switch vendor {
	case "GenuineIntel":
		if family != 6 {
			return Microarch{}
		}
		if n, ok := intelBig[model]; ok {
			return Microarch{Name: n, ImulLatency: 3, FoldsAddImm: FoldNo, Source: srcIntel}
		}
		if n, ok := intelFolding[model]; ok {
			return Microarch{Name: n, ImulLatency: 3, FoldsAddImm: FoldYes, Source: srcIntel + "; " + srcFold}
		}
		if n, ok := intelHybrid[model]; ok {
			return Microarch{Name: n + " (hybrid: P- and E-cores differ; the multiply latency is not vouched for)", FoldsAddImm: FoldUnknown, Source: srcIntel}
		}
	case "AuthenticAMD", "HygonGenuine":
		if n, ok := amdZen[family]; ok {
			if family == 0x19 {
				n = zen19(model)
			}
			return Microarch{Name: n, ImulLatency: 3, FoldsAddImm: FoldNo, Source: srcAMD}
		}
	}
	return Microarch{}
}

// LookupArm returns the table's entry for an arm64 core by the MIDR_EL1
// implementer code and primary part number (as Linux prints them in
// /proc/cpuinfo as "CPU implementer" and "CPU part"). An unlisted core
// gives a Microarch with Name "" and nothing known.
func LookupArm(implementer, part int) Microarch {
	if implementer != armImplementer {
		return Microarch{}
	}
	if l, ok := armMulLatency[part]; ok {
		return Microarch{Name: l.core, ImulLatency: l.cycles, Source: srcArm}
	}
	return Microarch{}
}

// Microarch returns the CPU table's entry for c (see [LookupX86] and
// [LookupArm]): on x86 by vendor, family and model; on arm64 by the MIDR
// fields. Under emulation the table does not apply and nothing is known.
func (c CPU) Microarch() Microarch {
	switch {
	case c.Emulated != "":
		return Microarch{}
	case c.GOARCH == "arm64":
		return LookupArm(c.ArmImplementer, c.ArmPart)
	case c.GOARCH == "amd64" || c.GOARCH == "386":
		return LookupX86(c.Vendor, c.Family, c.Model)
	}
	return Microarch{}
}

// String names m's core and its multiply latency.
func (m Microarch) String() string {
	if m.Name == "" {
		return "not in the CPU table"
	}
	if m.ImulLatency > 0 {
		return fmt.Sprintf("%s: IMUL latency %g cycles", m.Name, m.ImulLatency)
	}
	return m.Name + ": multiply latency not documented"
}
