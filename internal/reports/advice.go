package reports

// What info ends with: what to do on this machine for steadier numbers.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Advice is what to do on the machine r describes for steadier numbers,
// as pyperf's system show ends, one line each, most telling first.
// siblings are the CPUs sharing a core with r.PinnedCPU (itself included;
// nil when unknown, [ThreadSiblings]).
func (r *InfoReport) Advice(siblings []int) []string {
	var out []string
	var others []string
	for _, c := range siblings {
		if c != r.PinnedCPU {
			others = append(others, strconv.Itoa(c))
		}
	}
	if len(others) > 0 {
		// A busy SMT sibling slowed SumLoop by 27-65% while the ADD chain
		// barely moved (DESIGN.md, "The host's slow stretches").
		out = append(out, fmt.Sprintf("keep CPU %s idle while measuring: it shares a core with CPU %d, and work on it slows front-end- and branch-bound code (or choose another -cpu)", strings.Join(others, ", "), r.PinnedCPU))
	}
	if r.Hypervisor != "" || r.Virtual {
		out = append(out, "a virtual machine: a vCPU may share its physical core with another guest, which no guest can see; figures from such stretches are marked !: measure again (-count), or ask for dedicated cores")
	}
	if r.CoreCyclesPerTick == nil && r.CoreRefused != "" {
		out = append(out, "no cycle figures here ("+r.CoreRefused+"): compare ticks or ns, on one machine only")
	}
	if !r.InvariantTSC && r.Counter != "" {
		out = append(out, "the counter is not invariant: ticks follow the core clock, and ns may be wrong; fix the core clock (a performance governor) or trust cycles only")
	}
	if len(r.AllowedCPUs) == 1 {
		out = append(out, "this process may use one CPU, which the measuring thread shares with everything else: allow two or more (taskset, the container's cpuset)")
	}
	if r.Priority.Pin && !r.Priority.High {
		out = append(out, "raise the priority: run as root, or grant CAP_SYS_NICE (sudo setcap cap_sys_nice+ep $(which cyclebench))")
	}
	return append(out, "cyclebench validate says how noisy the machine is now")
}

// ThreadSiblings reads the CPUs that share a core with cpu from Linux's
// sysfs (itself included); nil where it cannot tell.
func ThreadSiblings(cpu int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu))
	if err != nil {
		return nil
	}
	return parseCPUList(string(b))
}

// parseCPUList reads a Linux CPU list ("0-1,4"); nil when malformed.
func parseCPUList(s string) []int {
	var cpus []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, ranged := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		if !ranged {
			z, err2 = a, nil
		}
		if err1 != nil || err2 != nil || z < a {
			return nil
		}
		for c := a; c <= z; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
