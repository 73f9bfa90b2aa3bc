//go:build arm64 && !noasm

package chain

const exact = true

// addChain adds 1 to x n times with dependent ADD R1, R0, R0 instructions,
// R1 holding 1 (n > 0). Implemented in chain_arm64.s.
func addChain(x uint64, n int) uint64

// addImmChain adds 1 to x n times with dependent ADD $1, R0, R0
// instructions (n > 0). Implemented in chain_arm64.s.
func addImmChain(x uint64, n int) uint64

// imulChain multiplies x by ImulMultiplier n times with dependent 64-bit
// MULs by ImulMultiplier (n > 0). Implemented in chain_arm64.s.
func imulChain(x uint64, n int) uint64

// branchLoop runs n (> 0) iterations of SUB and CBNZ and returns x + n.
// Implemented in chain_arm64.s.
func branchLoop(x uint64, n int) uint64

// wideLoop runs n (> 0) iterations of eight independent ADDs and returns x
// plus the sum of the eight registers. Implemented in chain_arm64.s.
func wideLoop(x uint64, n int) uint64
