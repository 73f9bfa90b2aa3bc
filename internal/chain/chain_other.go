//go:build (!amd64 && !arm64) || noasm

package chain

const exact = false

// sink defeats constant folding of the fallback loops: the compiler cannot
// know the multiplier, so it cannot replace the loop by a power.
var sink uint64 = 1

//go:noinline
func addChain(x uint64, n int) uint64 {
	c := addend
	for i := 0; i < n; i++ {
		x += c
	}
	return x
}

//go:noinline
func addImmChain(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x++
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

//go:noinline
func branchLoop(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x++
	}
	return x
}

//go:noinline
func wideLoop(x uint64, n int) uint64 {
	c := addend
	var a, b, d, e, f, g, h, k uint64
	for i := 0; i < n; i++ {
		a += c
		b += c
		d += c
		e += c
		f += c
		g += c
		h += c
		k += c
	}
	return x + a + b + d + e + f + g + h + k
}
