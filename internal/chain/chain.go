// Package chain holds dependent instruction chains of known latency, written
// in assembly, that the rest of cyclebench uses as a ruler for the core
// clock: n dependent ADDs take n core cycles on every x86 since the 1990s
// and on every arm64 core, whatever the time-stamp counter's rate.
//
// The chains are unrolled 16 times; the loop counter is an independent
// dependency chain that executes in the shadow of the measured one, so the
// critical path is the chain alone.
package chain

// Exact reports whether Add and Imul are the assembly chains with known
// latency (false for the pure-Go fallback, whose per-op cost includes loop
// overhead and is only approximately one cycle).
func Exact() bool { return exact }

// AddLatency is the latency in core cycles of one link of [Add].
const AddLatency = 1

// ImulLatency returns the latency in core cycles of one link of [Imul] on
// this architecture and whether it is the same on every core of it: 3
// cycles for a 64-bit IMUL on every Intel core since Nehalem and every AMD
// core since K8 (Intel and AMD optimization manuals, Agner Fog's tables).
// On arm64 it returns 0, false: the latency of a 64-bit MUL (MADD X-form)
// depends on the core (4 on Cortex-A76 and Neoverse N1, 2 on Neoverse V1;
// see [ImulLatencyArm]). The pure-Go fallback returns 0, false.
func ImulLatency() (cycles float64, known bool) { return imulLatency, imulKnown }

// Add executes n dependent 64-bit ADDs and returns the sum (n for n ≥ 0);
// n ≤ 0 executes none. The result must be used by the caller so the work
// cannot be discarded.
//
// Consecutive calls of Add are independent chains, so an out-of-order core
// overlaps the end of one with the start of the next: R calls back to back
// take fewer than R·n cycles (about 5% fewer for n = 1000 on a Zen 3).
// For a kernel whose cost per call is exactly n cycles, use [AddFrom].
func Add(n int) uint64 { return AddFrom(0, n) }

// AddFrom executes n dependent ADDs starting from x and returns x + n
// (x for n ≤ 0). Feeding the result of one call into the next, as in
// s = AddFrom(s, n), makes consecutive calls one dependent chain.
func AddFrom(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return addChain(x, n)
}

// Imul executes n dependent 64-bit multiplications by [ImulMultiplier]
// starting from 1 and returns the product. n ≤ 0 executes none and returns
// 1. As with [Add], consecutive calls overlap; see [ImulFrom].
func Imul(n int) uint64 { return ImulFrom(1, n) }

// ImulFrom executes n dependent multiplications of x by [ImulMultiplier]
// and returns the product (x for n ≤ 0).
func ImulFrom(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return imulChain(x, n)
}

// Arm's implementer code in MIDR_EL1 bits 31:24.
const armImplementer = 0x41

// armMulLatency lists the documented latency of a dependent 64-bit MUL
// (MADD X-form) by MIDR_EL1 primary part number for cores by Arm Limited,
// from each core's Software Optimization Guide ("Multiply accumulate,
// X-form"): Cortex-A76 and Neoverse N1 (derived from it) 4 cycles, with the
// multiply pipeline busy for 3; Neoverse V1 2 cycles. Cores not listed are
// unknown rather than guessed.
var armMulLatency = map[int]struct {
	core   string
	cycles float64
}{
	0xd0b: {"Cortex-A76", 4},
	0xd0c: {"Neoverse N1", 4},
	0xd40: {"Neoverse V1", 2},
}

// ImulLatencyArm returns the documented latency in core cycles of one link
// of the arm64 [Imul] chain on the core with the given MIDR_EL1 implementer
// code and primary part number (as Linux prints them in /proc/cpuinfo as
// "CPU implementer" and "CPU part"), the core's name, and whether the core
// is in the table. It is pure data and answers on every GOARCH.
func ImulLatencyArm(implementer, part int) (cycles float64, core string, known bool) {
	if implementer != armImplementer {
		return 0, "", false
	}
	l, ok := armMulLatency[part]
	return l.cycles, l.core, ok
}

// ImulMultiplier is the odd constant Imul multiplies by; Imul(n) equals
// ImulMultiplier to the power n modulo 2⁶⁴.
const ImulMultiplier = 0x9E3779B97F4A7C15
