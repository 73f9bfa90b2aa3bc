// Package chain holds dependent instruction chains, written in assembly,
// that the rest of cyclebench uses as rulers for the core clock.
//
// A chain is a ruler only when the core must execute every link: its
// values must be unknown to the register renamer. Golden Cove-class Intel
// cores (Sapphire, Emerald and Granite Rapids; Alder and Raptor Lake
// P-cores and later) fold an add of a small immediate into the register
// rename stage, so a chain of `ADD reg, 1` (or INC, or LEA 1(reg)) runs at
// about 0.2 core cycles per link there, and 1 on AMD Zen. [Add] therefore
// adds a register operand, which no renamer can fold: one core cycle per
// link on every x86-64 and arm64 core. [Imul] is a second instruction
// class whose latency is documented per core (package calibrate's CPU
// table), so that a ruler made of [Add] can be cross-checked. [AddImm] is
// the small-immediate chain, kept to show the folding, never as a ruler.
//
// The chains are unrolled 16 times; the loop counter is an independent
// dependency chain that executes in the shadow of the measured one, so the
// critical path is the chain alone.
package chain

// Exact reports whether the chains are the assembly ones, whose links are
// single instructions (false for the pure-Go fallback, whose per-link cost
// includes loop overhead and is only approximately one instruction's
// latency).
func Exact() bool { return exact }

// AddLatency is the latency in core cycles of one link of [Add]: an ADD of
// two registers, one cycle on every x86-64 and arm64 core.
const AddLatency = 1

// Add executes n dependent 64-bit ADDs of a register holding 1 and returns
// the sum (n for n ≥ 0); n ≤ 0 executes none. The result must be used by
// the caller so the work cannot be discarded.
//
// Consecutive calls of Add are independent chains, so an out-of-order core
// overlaps the end of one with the start of the next: R calls back to back
// take fewer than R·n cycles (about 5% fewer for n = 1000 on a Zen 3).
// For a kernel whose cost per call is exactly n cycles, use [AddFrom].
func Add(n int) uint64 { return AddFrom(0, n) }

// AddFrom executes n dependent register ADDs starting from x and returns
// x + n (x for n ≤ 0). Feeding the result of one call into the next, as in
// s = AddFrom(s, n), makes consecutive calls one dependent chain.
func AddFrom(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return addChain(x, n)
}

// AddImm executes n dependent ADDs of the immediate 1 (ADDQ $1 on amd64,
// ADD #1 on arm64) and returns n (0 for n ≤ 0). Its cost per link is what
// the core makes of it: one cycle on most cores, about 0.2 on cores that
// fold small immediates at rename. It is not a ruler; see the package doc.
func AddImm(n int) uint64 { return AddImmFrom(0, n) }

// AddImmFrom is [AddImm] starting from x: it returns x + n (x for n ≤ 0),
// so that consecutive calls form one dependent chain.
func AddImmFrom(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return addImmChain(x, n)
}

// Imul executes n dependent 64-bit multiplications by [ImulMultiplier]
// starting from 1 and returns the product. n ≤ 0 executes none and returns
// 1. As with [Add], consecutive calls overlap; see [ImulFrom]. Its latency
// per link depends on the core (3 cycles on Intel's big cores since
// Nehalem and on AMD Zen, 2 to 4 on Arm cores): package calibrate's CPU
// table says where it is documented.
func Imul(n int) uint64 { return ImulFrom(1, n) }

// ImulFrom executes n dependent multiplications of x by [ImulMultiplier]
// and returns the product (x for n ≤ 0).
func ImulFrom(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return imulChain(x, n)
}

// addend is what each link of [Add] adds. The assembly loads it from
// memory rather than from an immediate, so that no renamer can know it.
var addend uint64 = 1

// ImulMultiplier is the odd constant Imul multiplies by; Imul(n) equals
// ImulMultiplier to the power n modulo 2⁶⁴.
const ImulMultiplier = 0x9E3779B97F4A7C15
