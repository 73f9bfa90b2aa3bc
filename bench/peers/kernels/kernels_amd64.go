//go:build amd64

package kernels

// AddChain returns x + n·inc computed by n dependent ADDQ reg, reg
// instructions: n core cycles of latency on every x86-64 core. It is not
// inlined (assembly), so each call is a real call.
func AddChain(x, inc uint64, n int) uint64

// ImulChain returns x·mulⁿ computed by n dependent IMULQ reg, reg
// instructions: 3n core cycles of latency on every x86-64 core.
func ImulChain(x, mul uint64, n int) uint64

// Native reports whether the chains are the assembly ones of known latency.
const Native = true
