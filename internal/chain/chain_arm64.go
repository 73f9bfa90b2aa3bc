//go:build arm64 && !noasm

package chain

const (
	exact       = true
	imulLatency = 3
	imulKnown   = true
)

// addChain executes n dependent ADDs (n > 0). Implemented in chain_arm64.s.
func addChain(n int) uint64

// imulChain executes n dependent 64-bit MULs by ImulMultiplier (n > 0).
// Implemented in chain_arm64.s.
func imulChain(n int) uint64
