// Package kernels holds the kernels the peers benchmark measures with every
// tool: register-operand dependent ADD and IMUL chains of known latency (1
// and 3 core cycles per link on every x86-64 core), each either continued
// across calls or restarted by every call, and a sum of an []int64 compiled
// by gc, as realistic code.
//
// The chains are cyclebench's own rulers, [chain.AddFrom] and
// [chain.ImulFrom]: the instructions the C++ program (../cpp/peers.cc)
// repeats in AT&T syntax, so that every tool times the same links. What
// this package adds is what the benchmark needs beside them: the continued
// and restarted shapes, the sum, and each kernel's key, label and truth.
// On other architectures, or with -tags noasm, the chains are pure Go with
// no known truth ([Native] is false), and the benchmark refuses to run.
package kernels

import (
	"runtime"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// Native reports whether the chains are the assembly ones of known latency
// on amd64, where the C++ program's chains are the same instructions.
func Native() bool { return runtime.GOARCH == "amd64" && chain.Exact() }

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
func AddContinued(n int) { Sink = chain.AddFrom(Sink, n) }

// AddRestarted runs n dependent ADDs starting from 0: a new chain each call,
// which the core may overlap with the previous call's.
func AddRestarted(n int) { Sink = chain.AddFrom(0, n) }

// ImulContinued runs n dependent IMULs continuing the previous call's chain.
func ImulContinued(n int) { Sink = chain.ImulFrom(Sink|1, n) }

// ImulRestarted runs n dependent IMULs starting from a constant.
func ImulRestarted(n int) { Sink = chain.ImulFrom(3, n) }

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
