//go:build arm64 && !noasm

package tsc

// Counter returns the name of the counter in use: "cntvct" here.
func Counter() string { return CounterCNTVCT }

// NominalHz returns the generic timer's frequency from CNTFRQ_EL0, which
// the architecture defines as exact, and true (false if it reads 0).
func NominalHz() (float64, bool) {
	f := cntfrq()
	return float64(f), f != 0
}

// HasCPUID reports whether [CPUID] executes the instruction: false on arm64.
func HasCPUID() bool { return false }

// CPUID returns zeros: arm64 has no CPUID instruction.
func CPUID(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }

// HasAux reports whether [StartCPU] and [StopCPU] return the CPU number:
// false on arm64, which has no equivalent of IA32_TSC_AUX, so migration
// between start and stop cannot be detected from the counter.
func HasAux() bool { return false }

// Start reads CNTVCT_EL0 at the beginning of a timed region, between ISB
// barriers so that earlier instructions have completed and later ones have
// not begun. The result is in generic-timer ticks.
func Start() uint64 { return cntvctISB() }

// Stop reads CNTVCT_EL0 at the end of a timed region, between ISB barriers.
func Stop() uint64 { return cntvctISB() }

// StartCPU is [Start]; aux is always 0 on arm64 (see [HasAux]).
func StartCPU() (ticks uint64, aux uint32) { return cntvctISB(), 0 }

// StopCPU is [Stop]; aux is always 0 on arm64 (see [HasAux]).
func StopCPU() (ticks uint64, aux uint32) { return cntvctISB(), 0 }

// Read returns CNTVCT_EL0 with no barrier.
func Read() uint64 { return cntvct() }

// PairInAsm executes the start and stop sequences back to back inside one
// assembly function and returns the difference in ticks.
func PairInAsm() uint64 { return pairCNTVCT() }

// Fence executes ISB: the pipeline is flushed, so every earlier
// instruction completes before any later one is fetched. The latency mode
// of package harness puts it before each call of the measured function.
func Fence() { isb() }

// Implemented in tsc_arm64.s.

// isb executes ISB.
func isb()

// cntvct reads CNTVCT_EL0 with no barrier.
func cntvct() uint64

// cntvctISB executes ISB; MRS CNTVCT_EL0; ISB.
func cntvctISB() uint64

// cntfrq reads CNTFRQ_EL0, the generic timer frequency in Hz.
func cntfrq() uint64

// pairCNTVCT executes two barriered reads back to back and returns their
// difference.
func pairCNTVCT() uint64
