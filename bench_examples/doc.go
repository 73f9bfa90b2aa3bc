// Package benchexamples holds the example kernels cyclebench measures: the
// programs timed in the source articles, two instruction chains of known
// latency, and the cycles-per-element (CPE) kernels of Bryant and
// O'Hallaron, Computer Systems: A Programmer's Perspective, 3rd edition
// (CS:APP), chapter 5.
//
// Each [Kernel] has a name, a size n with a default and an allowed range,
// and a New function that prepares it for one size as a harness.Target,
// the one type of thing to time that harness.Measure, harness.CPE,
// harness.Compare and package lab all take: Setup (restore the input,
// untimed, or nil), Run (the timed work) and Check (verify the output of
// the most recent Run). [All] lists the kernels, [Lookup] finds one by
// name and [Select] picks them by regular expression, as the CLI's `run`
// does. Besides harness (for the Target type) the package imports only
// the assembly chains; it does not time anything itself.
//
// Every Run keeps its result in the kernel's own state, so the compiler cannot
// delete the work, and never allocates (Sleep only sleeps). Inputs are
// generated from fixed PCG seeds, so the same size gives the same input on
// every machine.
//
// # The kernels, in the order of All
//
//   - SumLoop (seed 001): sum += i for i < n, the loop CS:APP's
//     cycle-counter example times; n = 20000 by default. Sum is a Go int.
//   - HashLoop (seed 002): acc += (i·2654435761) ^ (acc>>3) for i = 1 … n in
//     uint64; the seed runs 2·10⁸ iterations, the default here is 10⁶. The
//     seed's acc is volatile; here it stays in a register, so the loop is a
//     3-cycle dependency chain (shift, xor, add) per iteration.
//   - Sleep (seed 002): time.Sleep(n ms), default 800, for CPU-utilisation
//     demos; not in the default selection. Elements counts milliseconds.
//   - SortInts (seed 003): slices.Sort of a shuffled permutation of 0 … n-1,
//     default 10⁶ (the seed sorts 10⁶ shuffled ints with std::sort). Setup
//     restores the shuffled input.
//   - BubbleSort (seed 004): the seed's bubble sort, full passes until a pass
//     makes no swap, over a shuffled permutation of 0 … n-1, default 1000.
//   - Factorize (seed 004): the smallest divisor of n by trial division: by
//     2, then by odd d from 3 while d·d ≤ n (the seed tries every d ≥ 2;
//     skipping even d finds the same divisor with half the divisions). The
//     default n is the seed's 352 700 091 909 229 843 = 7 726 079 ×
//     45 650 593 517, 3 863 040 divisions; where int has 32 bits it is
//     2 146 654 199 = 46 327 × 46 337. Elements counts divisions, found by
//     one untimed dry run in New, so New costs as much as one Run.
//   - AddChain, ImulChain: n dependent 64-bit ADDs of a register (1 core
//     cycle each on every core) or IMULs (3 core cycles each on Intel's big
//     cores and AMD Zen) in assembly, from internal/chain: the two chains of
//     the ruler that converts counter ticks into core cycles, measured here
//     as kernels. Under -tags noasm and on architectures without the
//     assembly, the chains are Go loops whose per-op cost is only
//     approximate.
//   - AddImmChain: n dependent ADDs of the immediate 1 (ADDQ $1): 1 core
//     cycle each on most cores, about 0.2 on Golden Cove-class Intel cores,
//     which fold a small-immediate add at register rename. It shows the
//     folding as measured; it is why the ruler adds a register.
//   - Psum1, Psum2: CS:APP figure 5.1, prefix sums p[i] = p[i-1] + a[i] in
//     float32 as in the book; Psum2 does two elements per iteration and
//     keeps the middle value in a register. Both add in the same order, so
//     they agree to the last bit.
//   - Combine1 … Combine6: CS:APP §5.3–5.9, the sum of a vector with data_t
//     float64 and OP +. Combine1 calls vec_length in the loop test and
//     get_vec_element for every element (both kept out of line with
//     //go:noinline, as if vec.c were compiled separately, as in the book)
//     and keeps the total in *dest; Combine2 hoists vec_length; Combine3
//     reads the data directly, with no calls and no bounds checks (the data
//     are re-sliced to the length so the compiler can prove every index in
//     range) but still loads and stores *dest per element; Combine4
//     accumulates in a local; Combine5 unrolls 2×1; Combine6 unrolls 2×2
//     with two parallel accumulators. Floating-point addition has a latency
//     of 3–4 cycles and a throughput of two per cycle on current cores, so
//     Combine4 and Combine5 are latency-bound at about the add latency per
//     element and Combine6 at about half of it.
//
// Combine and Psum inputs are small integers (0 … 15) stored as floating
// point, so every sum up to the largest size is exact in float64 and the six
// Combine variants, which add in different orders, return identical
// results.
//
// # Sizes and units
//
// Kernel.Unit says what n and Target.Elements count: "iterations"
// (SumLoop, HashLoop), "ms" (Sleep), "elements" (the sorts, Psum, Combine),
// "ops" (the chains) or "divisions" (Factorize, whose n is the number to
// factor). Kernel.CPE marks the kernels whose cost is linear in n with a
// constant cost per element, for which a sweep over n gives a meaningful
// cycles-per-element slope.
package benchexamples
