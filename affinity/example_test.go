package affinity_test

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
)

// Pin the measuring goroutine to the highest allowed CPU at high priority,
// and put everything back when done, even after a panic.
func ExamplePin() {
	p, err := affinity.Pin(affinity.Options{CPU: -1, Priority: affinity.PriorityHigh})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Restore()
	for _, w := range p.Warnings {
		fmt.Println("warning:", w) // e.g. could not raise priority to high: operation not permitted
	}
	fmt.Printf("pinned to cpu %d at %v priority\n", p.CPU, p.Priority)
}

// Realtime priority is only used when asked for, and is bounded by
// RLIMIT_RTTIME: here a thread running 500ms without blocking would be killed.
func ExamplePin_realtime() {
	p, err := affinity.Pin(affinity.Options{CPU: -1, Priority: affinity.PriorityRealtime, RTTimeLimit: 500 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Restore()
	if p.Priority != affinity.PriorityRealtime {
		fmt.Println("got", p.Priority, "instead:", errors.Join(p.Warnings...))
	}
}

// A CPU outside the allowed set is an error naming it and the set.
func ExamplePin_badCPU() {
	_, err := affinity.Pin(affinity.Options{CPU: 100000})
	fmt.Println(errors.Is(err, affinity.ErrInvalidCPU) || errors.Is(err, errors.ErrUnsupported))
	// Output: true
}

func ExamplePinned_Restore() {
	p, err := affinity.Pin(affinity.Options{CPU: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		if err := p.Restore(); err != nil { // idempotent: safe to call again
			fmt.Println(err)
		}
	}()
	// ... measure ...
}

func ExampleAllowed() {
	cpus, err := affinity.Allowed()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("allowed cpus:", affinity.FormatCPUs(cpus))
}

func ExampleCurrentCPU() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu, err := affinity.CurrentCPU()
	if err != nil {
		fmt.Println(err) // wraps errors.ErrUnsupported outside Linux and Windows
		return
	}
	fmt.Println("running on cpu", cpu)
}

func ExampleProbe() {
	c := affinity.Probe()
	fmt.Println(c) // e.g. pin=yes high=yes realtime=no
	for _, n := range c.Notes {
		fmt.Println(" ", n)
	}
}

// Force a migration of a pinned thread from another goroutine, as a test of
// migration detection would.
func ExampleSetThreadCPU() {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		return
	}
	p, err := affinity.Pin(affinity.Options{CPU: cpus[0]})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Restore()
	tid := affinity.ThreadID()
	done := make(chan error)
	go func() { done <- affinity.SetThreadCPU(tid, cpus[1]) }()
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	// The pinned thread now runs on cpus[1]; Restore puts the old mask back.
}

func ExampleThreadID() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fmt.Println("os thread", affinity.ThreadID()) // 0 where unknown
}

// ThreadState proves restoration: the state after Restore equals the state
// before Pin.
func ExampleThreadState() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := affinity.ThreadState()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := affinity.Pin(affinity.Options{CPU: -1, Priority: affinity.PriorityHigh})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Restore(); err != nil {
		fmt.Println(err)
	}
	after, _ := affinity.ThreadState()
	fmt.Println("restored:", after.Equal(before))
}

func ExampleState_Equal() {
	a := affinity.State{Mask: []int{0, 1}, Nice: 0}
	b := affinity.State{Mask: []int{1}, Nice: -20}
	fmt.Println(a.Equal(a), a.Equal(b))
	// Output: true false
}

func ExampleParsePriority() {
	for _, s := range []string{"high", "Realtime", "max"} {
		p, err := affinity.ParsePriority(s)
		fmt.Println(p, err)
	}
	// Output:
	// high <nil>
	// realtime <nil>
	// normal affinity: invalid option: priority "max": want one of normal, high, realtime
}

func ExamplePriority_String() {
	fmt.Println(affinity.PriorityNormal, affinity.PriorityHigh, affinity.PriorityRealtime)
	// Output: normal high realtime
}

func ExampleFormatCPUs() {
	fmt.Println(affinity.FormatCPUs([]int{0, 1}), affinity.FormatCPUs([]int{0, 1, 2, 3, 8, 10, 11, 12}))
	// Output: [0 1] [0-3 8 10-12]
}

func ExampleCapabilities_String() {
	fmt.Println(affinity.Capabilities{Pin: true, High: true})
	// Output: pin=yes high=yes realtime=no
}
