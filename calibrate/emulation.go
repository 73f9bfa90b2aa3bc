package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/tsc"
)

// cpuinfoFacts is what /proc/cpuinfo says about the processors the kernel
// runs on, as far as timing is concerned.
type cpuinfoFacts struct {
	// arch is the instruction set the text describes: "x86" (vendor_id
	// and flags lines), "arm" (CPU implementer lines), "riscv" (isa lines),
	// or "" when it cannot tell.
	arch   string
	vendor string // x86 vendor_id of the first processor
	model  string // x86 model name of the first processor
	// implementer and part are the arm MIDR_EL1 fields of every processor
	// ("CPU implementer", "CPU part"), -1 when absent or when processors
	// differ (big.LITTLE).
	implementer, part int
}

// parseCPUInfoFacts reads a /proc/cpuinfo text.
func parseCPUInfoFacts(r io.Reader) cpuinfoFacts {
	f := cpuinfoFacts{implementer: -1, part: -1}
	var hasVendor, hasFlags, hasImpl, hasISA, mixed bool
	impl, part := -1, -1
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "vendor_id":
			hasVendor = true
			if f.vendor == "" {
				f.vendor = val
			}
		case "model name":
			if f.model == "" {
				f.model = val
			}
		case "flags":
			hasFlags = true
		case "isa":
			hasISA = true
		case "CPU implementer", "CPU part":
			v, err := strconv.ParseInt(val, 0, 32)
			if err != nil {
				mixed = true
				continue
			}
			dst := &impl
			if key == "CPU part" {
				dst = &part
			} else {
				hasImpl = true
			}
			if *dst >= 0 && *dst != int(v) {
				mixed = true
			}
			*dst = int(v)
		}
	}
	switch {
	case hasImpl:
		f.arch = "arm"
		if !mixed {
			f.implementer, f.part = impl, part
		}
	case hasVendor && hasFlags:
		f.arch = "x86"
	case hasISA:
		f.arch = "riscv"
	}
	return f
}

// archFamily maps a GOARCH to the cpuinfo families of parseCPUInfoFacts,
// "" for the others.
func archFamily(goarch string) string {
	switch goarch {
	case "amd64", "386":
		return "x86"
	case "arm64", "arm":
		return "arm"
	case "riscv64":
		return "riscv"
	}
	return ""
}

// emulationReason returns why a program built for goarch, on a kernel whose
// /proc/cpuinfo says f, runs on an emulated processor, or "".
//
// Under user-mode emulation (qemu-user, qemu-aarch64-static through
// binfmt_misc) the program makes system calls to the host's kernel, so
// /proc/cpuinfo describes the host's processor, not the emulated one (QEMU
// before 8.2). Newer QEMU fakes an arm /proc/cpuinfo from its emulated
// CPU, whose MIDR_EL1 implementer for the default "max" model is 0x00, the
// code the Arm architecture reserves for software use.
func emulationReason(goarch string, f cpuinfoFacts) string {
	want := archFamily(goarch)
	if want != "" && f.arch != "" && f.arch != want {
		host := f.arch
		if d := strings.TrimSpace(f.vendor + " " + f.model); d != "" {
			host += ": " + d
		}
		return fmt.Sprintf("the program is %s but /proc/cpuinfo describes a processor of another architecture (%s): user-mode emulation such as qemu-user", goarch, host)
	}
	if want == "arm" && f.arch == "arm" && f.implementer == 0 {
		return "MIDR_EL1 implementer 0x00 (reserved for software use) in /proc/cpuinfo: an emulated CPU such as QEMU's \"max\""
	}
	return ""
}

// coarseCounterReason returns why the counter looks emulated from how it
// advances, or "": an arm64 generic timer that jumps by whole microseconds.
// A hardware CNTVCT_EL0 counts at CNTFRQ_EL0 (or, on Armv8.6 and later, by
// a few ticks at a time at a rate of tens of MHz); QEMU in user mode
// derives it from the host's microsecond clock, so it advances in steps of
// CNTFRQ/1e6 ticks (62.5 at its 62.5 MHz).
func coarseCounterReason(counter string, step tsc.StepInfo, hz float64) string {
	if counter != tsc.CounterCNTVCT || step.Step < 2 || hz <= 0 {
		return ""
	}
	if sec := step.Step / hz; sec >= 0.5e-6 {
		return fmt.Sprintf("CNTVCT_EL0 advances in steps of %.4g ticks (%.3g µs at %.6g MHz), far coarser than a hardware generic timer: the counter is emulated (QEMU user mode derives it from the host's microsecond clock)", step.Step, sec*1e6, hz/1e6)
	}
	return ""
}

// noMigrationCheck explains, for a counter without a CPU number, why
// migration between start and stop cannot be detected.
func noMigrationCheck(counter string) error {
	var why string
	switch counter {
	case tsc.CounterCNTVCT:
		why = "CNTVCT_EL0 carries no CPU number (arm64 has no equivalent of RDTSCP's TSC_AUX)"
	case tsc.CounterMonotonic:
		why = "the monotonic clock carries no CPU number"
	default:
		why = "this processor has no RDTSCP, so reads carry no CPU number"
	}
	return fmt.Errorf("%w: %s; a sample whose thread moved between CPUs is kept, so pin the thread (package affinity)", ErrNoMigrationCheck, why)
}
