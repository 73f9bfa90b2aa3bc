//go:build amd64 && !noasm

package tsc

import "sync/atomic"

// Counter returns the name of the counter in use: "rdtsc" here.
func Counter() string { return CounterRDTSC }

// NominalHz returns the counter frequency when the hardware states it
// exactly, and false otherwise. The TSC's rate must be calibrated (package
// calibrate), so on amd64 it returns 0, false.
func NominalHz() (float64, bool) { return 0, false }

// HasCPUID reports whether [CPUID] executes the instruction: true on amd64.
func HasCPUID() bool { return true }

// CPUID executes the CPUID instruction for leaf and subleaf. It is slow
// (a VM exit under a hypervisor) and serializing: never call it in a timed
// region.
func CPUID(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return cpuid(leaf, sub) }

const (
	modeUnknown int32 = iota
	modeRDTSCP
	modeLFENCE
)

// stopMode selects the stop sequence once, on first use: RDTSCP when the
// processor has it (CPUID 0x80000001 EDX bit 27), else LFENCE;RDTSC;LFENCE.
// An atomic load is a plain MOV on amd64, so the check costs nothing
// measurable in the timed path.
var stopMode atomic.Int32

func mode() int32 {
	if m := stopMode.Load(); m != modeUnknown {
		return m
	}
	m := modeLFENCE
	if maxExt, _, _, _ := cpuid(0x80000000, 0); maxExt >= 0x80000001 {
		if _, _, _, edx := cpuid(0x80000001, 0); edx&(1<<27) != 0 {
			m = modeRDTSCP
		}
	}
	stopMode.Store(m)
	return m
}

// HasAux reports whether [StartCPU] and [StopCPU] return a real
// IA32_TSC_AUX value (the processor has RDTSCP). The first call executes
// CPUID; call it, or any read, before timing.
func HasAux() bool { return mode() == modeRDTSCP }

// Start reads the counter at the beginning of a timed region: LFENCE; RDTSC;
// LFENCE. Earlier instructions have completed, later ones have not begun.
// The result is in TSC ticks; the caller must be pinned to one CPU.
func Start() uint64 { return startTSC() }

// Stop reads the counter at the end of a timed region: RDTSCP; LFENCE
// (LFENCE; RDTSC; LFENCE without RDTSCP). The read waits for every earlier
// instruction to execute. The result is in TSC ticks.
func Stop() uint64 {
	if stopMode.Load() == modeRDTSCP {
		t, _ := stopTSCP()
		return t
	}
	return stopSlow()
}

// stopSlow is Stop's path on first use and on CPUs without RDTSCP.
func stopSlow() uint64 {
	if mode() == modeRDTSCP {
		t, _ := stopTSCP()
		return t
	}
	return startTSC()
}

// StartCPU is [Start] that also returns IA32_TSC_AUX (the CPU number on
// Linux, see [AuxCPU]): LFENCE; RDTSCP; LFENCE. Without RDTSCP aux is 0.
func StartCPU() (ticks uint64, aux uint32) {
	if mode() == modeRDTSCP {
		return startTSCP()
	}
	return startTSC(), 0
}

// StopCPU is [Stop] that also returns IA32_TSC_AUX: RDTSCP; LFENCE. Without
// RDTSCP aux is 0.
func StopCPU() (ticks uint64, aux uint32) {
	if mode() == modeRDTSCP {
		return stopTSCP()
	}
	return startTSC(), 0
}

// Read returns the counter with no serialization at all (plain RDTSC): the
// read may execute before earlier instructions finish. Use it for coarse
// timestamps, never to bracket a short region.
func Read() uint64 { return rdtsc() }

// PairInAsm executes a Start sequence immediately followed by a Stop
// sequence inside one assembly function and returns the difference in
// ticks: the irreducible cost of the serialized pair with no call overhead,
// the reference for the measured overhead of [Start] and [Stop] called from
// Go. Without RDTSCP it returns 0.
func PairInAsm() uint64 {
	if mode() != modeRDTSCP {
		return 0
	}
	return pairTSC()
}

// Fence executes LFENCE: every earlier instruction completes locally
// before any later one begins. The latency mode of package harness puts it
// before each call of the measured function, so consecutive calls cannot
// overlap in the out-of-order core. It reads no counter and costs a few
// core cycles plus the call; callers subtract a fenced empty call.
func Fence() { lfence() }

// Implemented in tsc_amd64.s.

// lfence executes LFENCE.
func lfence()

// cpuid executes CPUID(leaf, sub).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// rdtsc executes RDTSC with no fences; returns TSC ticks.
func rdtsc() uint64

// startTSC executes LFENCE; RDTSC; LFENCE; returns TSC ticks.
func startTSC() uint64

// startTSCP executes LFENCE; RDTSCP; LFENCE; returns TSC ticks and IA32_TSC_AUX.
func startTSCP() (ticks uint64, aux uint32)

// stopTSCP executes RDTSCP; LFENCE; returns TSC ticks and IA32_TSC_AUX.
func stopTSCP() (ticks uint64, aux uint32)

// pairTSC executes LFENCE; RDTSC; LFENCE; RDTSCP; LFENCE and returns the
// difference of the two reads in TSC ticks.
func pairTSC() uint64
