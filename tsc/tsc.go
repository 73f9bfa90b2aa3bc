package tsc

import "math/bits"

// Names returned by [Counter]; the same words appear in `cyclebench info`.
const (
	CounterRDTSC     = "rdtsc"     // x86 time-stamp counter
	CounterCNTVCT    = "cntvct"    // arm64 virtual generic-timer count
	CounterMonotonic = "monotonic" // Go monotonic clock in nanoseconds (fallback)
)

// AuxCPU extracts the CPU number from an IA32_TSC_AUX value returned by
// [StartCPU] or [StopCPU] on Linux (bits 0–11). Other operating systems may
// load TSC_AUX differently or not at all; see [HasAux].
func AuxCPU(aux uint32) int { return int(aux & 0xfff) }

// Elapsed returns stop − start in ticks, or 0 when stop < start (a counter
// that went backwards, possible only across CPUs with unsynchronised
// counters). The boolean reports whether the difference was valid.
func Elapsed(start, stop uint64) (uint64, bool) {
	d, borrow := bits.Sub64(stop, start, 0)
	if borrow != 0 {
		return 0, false
	}
	return d, true
}
