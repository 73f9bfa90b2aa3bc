//go:build amd64 && !noasm

package chain

const exact = true

// addChain adds 1 to x n times with dependent ADDQ BX, AX instructions, BX
// holding 1 (n > 0). Implemented in chain_amd64.s.
func addChain(x uint64, n int) uint64

// addImmChain adds 1 to x n times with dependent ADDQ $1, AX instructions
// (n > 0). Implemented in chain_amd64.s.
func addImmChain(x uint64, n int) uint64

// imulChain multiplies x by ImulMultiplier n times with dependent IMULQ BX,
// AX instructions, BX holding ImulMultiplier (n > 0). Implemented in
// chain_amd64.s.
func imulChain(x uint64, n int) uint64

// branchLoop runs n (> 0) iterations of DECQ CX; JNZ and returns x + n.
// Implemented in chain_amd64.s.
func branchLoop(x uint64, n int) uint64

// wideLoop runs n (> 0) iterations of eight independent ADDQ BX, Rk and
// returns x plus the sum of the eight registers. Implemented in
// chain_amd64.s.
func wideLoop(x uint64, n int) uint64
