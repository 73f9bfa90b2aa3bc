package reports

import (
	"slices"
	"strings"
	"testing"
)

// TestInfoAdvice: info ends with what to do on this machine, each line
// from what the report shows: the pinned CPU's SMT sibling to keep idle,
// a virtual machine's shared cores, the priority to raise; and always
// validate.
func TestInfoAdvice(t *testing.T) {
	one := 1.3
	vm := &InfoReport{Hypervisor: "KVMKVMKVM", Counter: "rdtsc", InvariantTSC: true, CoreCyclesPerTick: &one,
		AllowedCPUs: []int{0, 1, 2, 3}, PinnedCPU: 3, Priority: PriorityReport{Pin: true}}
	got := vm.Advice([]int{1, 3})
	for _, want := range []string{"keep CPU 1 idle while measuring: it shares a core with CPU 3", "a virtual machine", "CAP_SYS_NICE", "cyclebench validate"} {
		if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("advice %q lacks %q", got, want)
		}
	}
	quiet := &InfoReport{Counter: "rdtsc", InvariantTSC: true, CoreCyclesPerTick: &one, AllowedCPUs: []int{0, 1}, PinnedCPU: 1,
		Priority: PriorityReport{Pin: true, High: true}}
	if got := quiet.Advice([]int{1}); len(got) != 1 || !strings.Contains(got[0], "validate") {
		t.Errorf("advice on a quiet bare machine %q: want only validate", got)
	}
}

func TestParseCPUList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
	}{{"0-1\n", []int{0, 1}}, {"3,7", []int{3, 7}}, {"0-1,4-5", []int{0, 1, 4, 5}}, {"5", []int{5}}, {"x", nil}, {"3-1", nil}} {
		if got := parseCPUList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("parseCPUList(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
