// Package kernels holds the kernels the peers benchmark measures with every
// tool: register-operand dependent ADD and IMUL chains of known latency (1
// and 3 core cycles per link on every x86-64 core), each either continued
// across calls or restarted by every call, and a sum of an []int64 compiled
// by gc, as realistic code.
//
// The chains are Go assembly on amd64 (kernels_amd64.s) and are the same
// instructions as the C++ program's (../cpp/peers.cc). Other architectures
// get a pure-Go stand-in so that the module builds and vets everywhere; its
// figures have no known truth, and the benchmark refuses to run there.
package kernels

// Inc is the ADD chain's operand and Mul the IMUL chain's multiplier (odd,
// so the product never collapses to zero). They are variables, passed as
// arguments, so that the compiler cannot make them immediates.
var (
	Inc uint64 = 1
	Mul uint64 = 0x9E3779B97F4A7C15
)

// Sink receives every kernel's result so that no call can be dropped; the
// continued chains read it back as their starting value.
var Sink uint64

// SumLen is the length of the slice Sum adds up.
const SumLen = 1000

var data = func() []int64 {
	d := make([]int64, SumLen)
	for i := range d {
		d[i] = int64(i*7 + 3)
	}
	return d
}()

// AddContinued runs n dependent ADDs that continue the chain of the call
// before: each call's first ADD waits for the previous call's last.
func AddContinued(n int) { Sink = AddChain(Sink, Inc, n) }

// AddRestarted runs n dependent ADDs starting from 0: a new chain each call,
// which the core may overlap with the previous call's.
func AddRestarted(n int) { Sink = AddChain(0, Inc, n) }

// ImulContinued runs n dependent IMULs continuing the previous call's chain.
func ImulContinued(n int) { Sink = ImulChain(Sink|1, Mul, n) }

// ImulRestarted runs n dependent IMULs starting from a constant.
func ImulRestarted(n int) { Sink = ImulChain(3, Mul, n) }

// SumSlice adds up the package's SumLen-element slice with one accumulator,
// as plain Go compiled by gc: every ADD waits for the one before.
func SumSlice() { Sink = uint64(Sum(data)) }

// Sum returns the sum of s.
//
//go:noinline
func Sum(s []int64) int64 {
	var t int64
	for _, v := range s {
		t += v
	}
	return t
}

// Kernel is one kernel of the benchmark at its table size.
type Kernel struct {
	// Key names the kernel in the Go benchmarks, the C++ program and the
	// driver's records ("add-continued", ...).
	Key string
	// Name is the kernel's label in the tables.
	Name string
	// Truth is the known core cycles per call of the chain itself (links ×
	// latency), 0 when unknown.
	Truth float64
	// Run is one call.
	Run func()
}

// ChainLen is the number of links of the table's chain kernels.
const ChainLen = 1000

// Table returns the kernels of the accuracy and spread tables, in order.
func Table() []Kernel {
	return []Kernel{
		{"add-continued", "ADD ×1000, continued", ChainLen, func() { AddContinued(ChainLen) }},
		{"add-restarted", "ADD ×1000, restarted", ChainLen, func() { AddRestarted(ChainLen) }},
		{"imul-continued", "IMUL ×1000, continued", 3 * ChainLen, func() { ImulContinued(ChainLen) }},
		{"imul-restarted", "IMUL ×1000, restarted", 3 * ChainLen, func() { ImulRestarted(ChainLen) }},
		{"sum", "sum of 1000 int64", 0, SumSlice},
	}
}
