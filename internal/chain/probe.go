package chain

// Probes: loops whose cost per iteration depends on having the core alone,
// unlike the dependent chains above. A core shared with another hardware
// thread (an SMT sibling, busy on the host) splits its front end and its
// issue slots between the two threads: a loop of one taken branch per
// iteration, or of independent ADDs at the core's width, then runs slower,
// while a dependent chain (one link per cycle, far below the core's width)
// does not. Their cost alone is not documented per core: it is whatever
// the best samples on this machine show (package calibrate keeps it).

// Branch runs n iterations of a loop whose body is one taken branch
// (a decrement and a conditional jump back, fused on x86) and returns
// x + n for n > 0 (x for n ≤ 0). Its cost per iteration alone is the
// core's taken-branch rate: one cycle on the cores seen.
func Branch(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return branchLoop(x, n)
}

// Wide runs n iterations of eight independent register ADDs and the loop's
// decrement and jump, and returns a sum of the eight accumulators (so the
// work cannot be discarded) plus x. Its cost per iteration alone is set by
// the core's ALU width: about 2 cycles on a 4-ALU core.
func Wide(x uint64, n int) uint64 {
	if n <= 0 {
		return x
	}
	return wideLoop(x, n)
}
