//go:build (!amd64 && !arm64) || noasm

package tsc

import "time"

// base anchors the monotonic fallback; time.Since reads the runtime's
// monotonic clock. A package-level value costs one clock read at start-up
// and nothing else.
var base = time.Now()

func mono() uint64 { return uint64(time.Since(base)) }

// Counter returns the name of the counter in use: "monotonic" here, the Go
// runtime's monotonic clock in nanoseconds (this GOARCH has no counter
// reader in this package, or the build used -tags noasm).
func Counter() string { return CounterMonotonic }

// NominalHz returns 1e9 and true: the fallback counter counts nanoseconds.
func NominalHz() (float64, bool) { return 1e9, true }

// HasCPUID reports whether [CPUID] executes the instruction: false here.
func HasCPUID() bool { return false }

// CPUID returns zeros: no CPUID instruction is executed on this build.
func CPUID(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }

// HasAux reports whether [StartCPU] and [StopCPU] return the CPU number:
// false for the monotonic fallback.
func HasAux() bool { return false }

// Start returns the monotonic clock in nanoseconds. It is not serialized
// against surrounding instructions.
func Start() uint64 { return mono() }

// Stop returns the monotonic clock in nanoseconds.
func Stop() uint64 { return mono() }

// StartCPU is [Start]; aux is always 0.
func StartCPU() (ticks uint64, aux uint32) { return mono(), 0 }

// StopCPU is [Stop]; aux is always 0.
func StopCPU() (ticks uint64, aux uint32) { return mono(), 0 }

// Read returns the monotonic clock in nanoseconds.
func Read() uint64 { return mono() }

// Fence is a call to a function that does nothing and is not inlined: this
// build has no fence instruction to execute, so the latency mode of package
// harness separates calls by a call only.
//
//go:noinline
func Fence() {}

// PairInAsm returns the difference of two back-to-back reads (there is no
// assembly in this build).
func PairInAsm() uint64 {
	a := mono()
	return mono() - a
}
