//go:build (!amd64 && !arm64) || noasm

package chain

const (
	exact       = false
	imulLatency = 0
	imulKnown   = false
)

// sink defeats constant folding of the fallback loops: the compiler cannot
// know the increment, so it cannot replace the loop by a multiplication.
var sink uint64 = 1

//go:noinline
func addChain(x uint64, n int) uint64 {
	c := sink
	for i := 0; i < n; i++ {
		x += c
	}
	return x
}

//go:noinline
func imulChain(x uint64, n int) uint64 {
	m := uint64(ImulMultiplier) * sink
	for i := 0; i < n; i++ {
		x *= m
	}
	return x
}
