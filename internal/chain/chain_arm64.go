//go:build arm64 && !noasm

package chain

// The latency of a 64-bit MUL (MADD X-form) differs between arm64 cores,
// so it is not known from the architecture alone: see [ImulLatencyArm].
const (
	exact       = true
	imulLatency = 0
	imulKnown   = false
)

// addChain adds 1 to x n times with dependent ADD instructions (n > 0). Implemented in chain_arm64.s.
func addChain(x uint64, n int) uint64

// imulChain multiplies x by ImulMultiplier n times with dependent 64-bit MULs by ImulMultiplier (n > 0).
// Implemented in chain_arm64.s.
func imulChain(x uint64, n int) uint64
