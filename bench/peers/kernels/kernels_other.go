//go:build !amd64

package kernels

// AddChain is the pure-Go stand-in of the amd64 chain: the compiler may
// fold it, so its time has no known truth.
//
//go:noinline
func AddChain(x, inc uint64, n int) uint64 {
	for range n {
		x += inc
	}
	return x
}

// ImulChain is the pure-Go stand-in of the amd64 chain.
//
//go:noinline
func ImulChain(x, mul uint64, n int) uint64 {
	for range n {
		x *= mul
	}
	return x
}

// Native reports whether the chains are the assembly ones of known latency.
const Native = false
