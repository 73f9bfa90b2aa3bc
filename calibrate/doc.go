// Package calibrate measures what turns counter ticks into time and into
// core cycles: the counter's frequency, whether it is invariant, the cost of
// a serialized start/stop pair, the counter's step, and the ratio of core
// cycles to ticks.
//
// # Frequency
//
// Every figure is in ticks per second of the system's monotonic clock, the
// best time scale a program can read (as good as its NTP discipline). Two
// methods measure it. [Sleep] is the textbook one (CS:APP's mhz(), seed
// 001 and 004): count ticks across a sleep of d and divide by d. It is
// biased high because a sleep always lasts longer than asked; on a KVM
// guest it errs by +100 ppm at 1 s and by thousands of ppm at 100 ms.
// [Bracket] reads the monotonic clock between two counter reads many times
// at the start and at the end of an interval and keeps the tightest
// bracket at each end, so both ends are known to within a few ticks: its
// worst-case bound is about 10 ppm after 5 ms, 0.5 ppm after 100 ms and
// 0.05 ppm after 1 s (the errors seen are a hundredth of that).
//
// A third figure is the kernel's own ([KernelFrequency]): where Linux
// computes CLOCK_MONOTONIC from the TSC (clocksource tsc) with a TSC
// frequency it states (/sys/devices/system/cpu/cpu0/tsc_freq_khz, or the
// "cpu MHz" of /proc/cpuinfo when the flags include tsc_known_freq), that
// figure, corrected by the NTP adjustment adjtimex(2) reports, is the rate
// of the monotonic clock in ticks to within the kernel's rounding (±2 kHz,
// 0.8 ppm at 2.6 GHz). [MethodAuto], which [Get] uses, takes it once a
// bracket of a few milliseconds confirms it (agreement within both bounds),
// falls back to a 100 ms bracket with a warning when they disagree, and
// elsewhere uses the bracket itself, lengthened until it is within
// [MaxFrequencyPPM]. The bracket opened at the start stays open:
// [Calibration.Refine] (and [Refine] for the cached calibration) closes it
// again later, so a long run ends with a figure measured over the whole
// run.
//
// Each [Frequency] says which method and source produced it, its
// uncertainty, and how it compares with the other sources this machine
// has: CPUID leaf 0x15 (crystal ratio) and 0x16 (base MHz) when non-zero,
// the hypervisor's timing leaf 0x40000010, the kernel's figure, the
// confirming bracket, and CNTFRQ_EL0 on arm64, which is exact by
// definition. A calibration warns ([ErrImprecise]) when its figure is
// known to worse than MaxFrequencyPPM.
//
// # Cost
//
// [Get] measures with [FastOptions]: about 6 ms on a 2.6 GHz KVM guest,
// almost all of it the confirming bracket (the step, overhead and
// core-clock measurements, 1 ms together, run inside its interval); the
// doc of FastOptions gives each part's cost and precision. [Measure] with
// [DefaultOptions] (`cyclebench calibrate`, `cyclebench info`) takes the
// full 100 ms bracket, 20,000 overhead pairs and 100,000-link chains, about
// 100 ms.
//
// # Core cycles
//
// The TSC runs at a constant reference rate while the core clock moves.
// A [Ruler] times a dependent chain of register ADDs (one core cycle each
// on every x86-64 and arm64 core) at two lengths; the slope is ticks per
// cycle, its inverse core cycles per tick. A ruler is a claim about the
// CPU, so a second, independent one stands beside it: a dependent IMUL
// chain, whose latency the CPU table documents per core ([CPU.Microarch]:
// 3 cycles on Intel's big cores since Nehalem and on AMD Zen; on arm64 4 on
// Cortex-A76 and Neoverse N1, 2 on Neoverse V1). [DecideRuler] accepts the
// figure only when the IMUL/ADD slope ratio is within 10% of that latency
// and the core clock implied lies within 0.2–7 GHz; otherwise there is no
// figure (CyclesPerTick 0) and the error names both chains. Where nothing
// documents the multiply the figure is given unchecked ([ErrUnchecked]).
// A chain of ADDs of a small immediate is no ruler: Golden Cove-class
// Intel cores (Sapphire, Emerald and Granite Rapids, Alder Lake P-cores and
// later) fold it at register rename, about 0.2 cycles per link;
// [MeasureCoreClock] measures it beside the ruler and reports the folding
// ([Folding]).
//
// For a measurement with a ruler beside it (package harness),
// [DecideCycles] is the one answer to whether there is a cycle figure: it
// accepts the ruler (through [DecideRuler]), waits while the ADD chain lags
// the IMUL chain as it does on a shared core, falls back to the
// calibration's ratio when the ruler gave no slope, or refuses; its limits
// are [DefaultRulerThresholds], each with its reason.
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
// and caches; [Refine] improves the cached frequency; [Refresh] measures
// again.
package calibrate
