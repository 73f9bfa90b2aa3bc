// Package tsc reads the processor's time-stamp counter with the serialization
// a cycle-accurate measurement needs, in Go assembly.
//
// # Units
//
// Every value returned by this package is a count of counter ticks: TSC
// ticks on amd64, generic-timer ticks (CNTVCT_EL0) on arm64, nanoseconds of
// the monotonic clock elsewhere. Ticks are not core cycles: on a modern x86
// the TSC runs at a constant reference rate while the core clock moves with
// turbo and power management. Package calibrate turns ticks into seconds and
// estimates core cycles per tick.
//
// # Serialization (amd64)
//
// [Start] executes LFENCE; RDTSC; LFENCE: the first fence waits until every
// earlier instruction has completed locally, the second keeps the measured
// code from starting before the counter is read. [Stop] executes RDTSCP;
// LFENCE: RDTSCP itself waits for all earlier instructions to execute before
// it reads the counter, and the fence keeps later instructions from starting
// before the read. Neither uses CPUID: under a hypervisor every CPUID is a VM
// exit costing thousands of ticks with a wide spread. On the rare CPU without
// RDTSCP, Stop falls back to LFENCE; RDTSC; LFENCE; the choice is made once,
// on first use.
//
// [StartCPU] and [StopCPU] also return IA32_TSC_AUX, which Linux loads with
// the CPU number (bits 0–11) and NUMA node (bits 12 and up), so a caller can
// discard a sample whose start and stop ran on different CPUs.
//
// The counter is per-CPU: the caller must pin its OS thread to one CPU (see
// package affinity) for start and stop to be comparable.
//
// # Counter step
//
// A counter need not advance one tick at a time: an Intel guest's TSC
// may show even values only (step 2), and a virtual TSC is often updated
// every 10 ns from a slower reference and scaled, so it jumps by about 24.45
// or 26 ticks; qemu-user derives CNTVCT from the host's microsecond clock.
// [MeasureStep] finds the step from read differences: the GCD when that
// explains them, else the largest grid on which at least 3 differences in 4
// lie within a tick of a multiple, accepted only when differences spread
// over the period could not have landed there by chance. [StepInfo]
// reports how many differences lay off the grid (some virtual TSCs show
// rare 1-tick differences) and how many reads were interrupted.
//
// # Other platforms
//
// On arm64, reads are CNTVCT_EL0 between ISB barriers and the frequency is
// exact from CNTFRQ_EL0 ([NominalHz]). On every other GOARCH, or with the
// build tag noasm, the counter is the Go runtime's monotonic clock in
// nanoseconds and [Counter] says so.
package tsc
