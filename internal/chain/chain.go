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
// this architecture and whether it is documented for it: 3 cycles for a
// 64-bit IMUL on every Intel core since Nehalem and every AMD core since
// K8 (Intel and AMD optimization manuals, Agner Fog's tables); 3 for a
// 64-bit MUL (MADD) on Arm Neoverse N1/V1 and Cortex-A76 and later (Arm
// software optimization guides); unknown elsewhere.
func ImulLatency() (cycles float64, known bool) { return imulLatency, imulKnown }

// Add executes n dependent 64-bit ADDs and returns the sum (n for n ≥ 0);
// n ≤ 0 executes none. The result must be used by the caller so the work
// cannot be discarded.
func Add(n int) uint64 {
	if n <= 0 {
		return 0
	}
	return addChain(n)
}

// Imul executes n dependent 64-bit multiplications and returns the product.
// n ≤ 0 executes none and returns 1.
func Imul(n int) uint64 {
	if n <= 0 {
		return 1
	}
	return imulChain(n)
}

// ImulMultiplier is the odd constant Imul multiplies by; Imul(n) equals
// ImulMultiplier to the power n modulo 2⁶⁴.
const ImulMultiplier = 0x9E3779B97F4A7C15
