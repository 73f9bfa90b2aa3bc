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

// RoomLinks is the length of each of [Room]'s chains.
const RoomLinks = 200

// Room runs calls IMUL chains of [RoomLinks] links back to back, each
// started again from x|1 (so that a chain does not wait for the last one),
// and returns the sum of their results (x for calls ≤ 0). Alone, a chain
// costs its links' latency, three cycles each; back to back, the next
// chain starts while the last one's links still wait to retire, as far as
// the reorder buffer reaches, so its cost per call depends on how much of
// that buffer the thread has: a sibling that leaves the core gives it more
// room and the calls more overlap (docs/how-it-measures.md, "The room").
func Room(x uint64, calls int) uint64 {
	s := x
	for range calls {
		s += imulChain(x|1, RoomLinks)
	}
	return s
}
