// Package calibrate measures what turns counter ticks into time and into
// core cycles: the counter's frequency, whether it is invariant, the cost of
// a serialized start/stop pair, the counter's step, and the ratio of core
// cycles to ticks.
//
// # Frequency
//
// Two methods are offered. [Sleep] is the textbook one (CS:APP's mhz(),
// seed 001 and 004): count ticks across a sleep of d and divide by d. It
// is biased high because a sleep always lasts longer than asked; on a KVM
// guest it errs by +100 ppm at 1 s and by thousands of ppm at 100 ms.
// [Bracket], the default, reads the monotonic clock between two counter
// reads many times at the start and at the end of an interval and keeps the
// tightest bracket at each end, so both ends are known to within a few
// ticks: about 0.1 ppm in 100 ms. Each [Frequency] says which method and
// source produced it, its uncertainty, and how it compares with the other
// sources this machine has: CPUID leaf 0x15 (crystal ratio) and 0x16
// (base MHz) when non-zero, the hypervisor's timing leaf 0x40000010, the
// kernel's own figure (/sys/devices/system/cpu/cpu0/tsc_freq_khz, or the
// "cpu MHz" line of /proc/cpuinfo on machines flagged tsc_known_freq), and
// CNTFRQ_EL0 on arm64, which is exact by definition.
//
// # Core cycles
//
// The TSC runs at a constant reference rate while the core clock moves.
// [MeasureCoreClock] times a dependent ADD chain (one core cycle per ADD)
// at two lengths; the slope is ticks per cycle, its inverse core cycles per
// tick. A dependent IMUL chain is timed interleaved with it; where the
// multiply's latency is documented (3 cycles on every x86-64 core; on arm64
// 4 on Cortex-A76 and Neoverse N1, 2 on Neoverse V1, unknown on other
// cores, see [CPU.ImulLatency]) the IMUL/ADD slope ratio should equal it
// and a warning says when it does not.
//
// # Emulation and migration
//
// Under user-mode emulation (qemu-user running an arm64 build on an x86
// host) every figure describes the emulator. [DetectCPU] recognises it when
// /proc/cpuinfo describes a processor of another architecture than the
// build's, or an arm core whose MIDR implementer is 0x00 (reserved for
// software); [Measure] also when the arm64 generic timer advances by whole
// microseconds. It then sets [CPU.Emulated] and warns with [ErrEmulated].
// Where counter reads carry no CPU number (arm64, the monotonic fallback, an
// x86 without RDTSCP) a migration between start and stop cannot be seen,
// and [Measure] warns with [ErrNoMigrationCheck].
//
// # Threads
//
// Timed measurements lock the calling goroutine to its OS thread for their
// duration and discard samples whose start and stop ran on different CPUs
// (where the counter can tell, see tsc.HasAux). They do not pin the thread
// to a CPU: pin it first (package affinity) for the tightest figures.
//
// Nothing is measured at import time. [Get] measures once, on first use,
// and caches; [Refresh] measures again.
package calibrate
