//go:build amd64 && !noasm

package chain

const (
	exact       = true
	imulLatency = 3
	imulKnown   = true
)

// addChain executes n dependent ADDQ $1 (n > 0). Implemented in chain_amd64.s.
func addChain(n int) uint64

// imulChain executes n dependent IMULQ by ImulMultiplier (n > 0).
// Implemented in chain_amd64.s.
func imulChain(n int) uint64
