//go:build amd64 && !noasm

package chain

const (
	exact       = true
	imulLatency = 3
	imulKnown   = true
)

// addChain adds 1 to x n times with dependent ADDQ $1 instructions (n > 0). Implemented in chain_amd64.s.
func addChain(x uint64, n int) uint64

// imulChain multiplies x by ImulMultiplier n times with dependent IMULQ by ImulMultiplier (n > 0).
// Implemented in chain_amd64.s.
func imulChain(x uint64, n int) uint64
