package perfevent_test

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/perfevent"
)

func ExampleParse() {
	evs, err := perfevent.Parse("cs, migrations, page-faults")
	fmt.Println(evs, err)
	_, err = perfevent.Parse("cycles,cycels")
	fmt.Println(errors.Is(err, perfevent.ErrUnknownEvent))
	fmt.Println(err)
	// Output:
	// [context-switches cpu-migrations page-faults] <nil>
	// true
	// perfevent: unknown event "cycels" (known: cycles, instructions, branch-misses, branches, cache-misses, cache-references, context-switches, cpu-migrations, page-faults, minor-faults, major-faults, task-clock; aliases cs, migrations, faults, cpu-cycles, branch-instructions)
}

func ExampleKnown() {
	for _, e := range perfevent.Known() {
		fmt.Printf("%s hardware=%v\n", e, e.Hardware())
	}
	// Output:
	// cycles hardware=true
	// instructions hardware=true
	// branch-misses hardware=true
	// branches hardware=true
	// cache-misses hardware=true
	// cache-references hardware=true
	// context-switches hardware=false
	// cpu-migrations hardware=false
	// page-faults hardware=false
	// minor-faults hardware=false
	// major-faults hardware=false
	// task-clock hardware=false
}

// The measuring engine's use: read software events around each sample,
// outside the timed region, and drop the samples they moved in.
func ExampleOpen() {
	runtime.LockOSThread() // the group counts this thread only
	defer runtime.UnlockOSThread()
	g, err := perfevent.Open([]perfevent.Event{perfevent.ContextSwitches, perfevent.CPUMigrations, perfevent.PageFaults})
	if err != nil {
		fmt.Println(err) // errors.Is(err, perfevent.ErrUnavailable)
		return
	}
	defer g.Close()
	if err := g.Enable(); err != nil {
		fmt.Println(err)
		return
	}
	var before, after perfevent.Counts
	kept := 0
	for range 100 {
		_ = g.Read(&before)
		// ... timed sample ...
		_ = g.Read(&after)
		if after.Changed(&before) {
			continue // a context switch, migration or page fault: discard
		}
		kept++
	}
	fmt.Println("samples kept:", kept)
}

func ExampleGroup_Read() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g, err := perfevent.Open([]perfevent.Event{perfevent.ContextSwitches, perfevent.TaskClock})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	_ = g.Enable()
	time.Sleep(time.Millisecond)
	_ = g.Disable()
	var c perfevent.Counts
	if err := g.Read(&c); err != nil { // one read(2), no allocation
		fmt.Println(err)
		return
	}
	cs, _ := c.Value(perfevent.ContextSwitches)
	clock, _ := c.Value(perfevent.TaskClock)
	fmt.Printf("%d context switches, %d ns on the CPU, multiplexed %v\n", cs, clock, c.Multiplexed)
}

func ExampleGroup_Reset() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g, err := perfevent.Open([]perfevent.Event{perfevent.PageFaults})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	_ = g.Enable()
	_ = make([]byte, 1<<20)
	_ = g.Reset() // counts back to 0; times enabled and running are not reset
	var c perfevent.Counts
	_ = g.Read(&c)
	fmt.Println(c.Raw[0])
}

func ExampleGroup_ReadRDPMC() {
	runtime.LockOSThread() // RDPMC reads the counter of the CPU this thread is on
	defer runtime.UnlockOSThread()
	g, err := perfevent.Open([]perfevent.Event{perfevent.Cycles, perfevent.Instructions})
	if err != nil {
		fmt.Println(err) // "no hardware PMU (virtualised?)" in most VMs
		return
	}
	defer g.Close()
	if err := g.RDPMCErr(); err != nil {
		fmt.Println(err) // Read still works, with a system call
		return
	}
	_ = g.Enable()
	start, err := g.ReadRDPMC()
	if err != nil {
		fmt.Println(err)
		return
	}
	// ... measured code ...
	stop, _ := g.ReadRDPMC()
	fmt.Println("core cycles:", stop-start)
}

func ExampleProbe() {
	for _, s := range perfevent.Probe() {
		if s.Available {
			fmt.Printf("%-16s yes\n", s.Event)
		} else {
			fmt.Printf("%-16s no: %v\n", s.Event, s.Err)
		}
	}
}

func ExampleParanoid() {
	lvl, err := perfevent.Paranoid()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("perf_event_paranoid:", lvl)
}

func ExampleCounts_Delta() {
	// Two readings of a multiplexed hardware group: between them the group
	// was enabled 2 ms but on the counters only 1 ms.
	before := perfevent.Counts{N: 1, TimeEnabled: time.Millisecond, TimeRunning: time.Millisecond}
	before.Events[0], before.Raw[0] = perfevent.Cycles, 3_000_000
	after := perfevent.Counts{N: 1, TimeEnabled: 3 * time.Millisecond, TimeRunning: 2 * time.Millisecond}
	after.Events[0], after.Raw[0] = perfevent.Cycles, 6_000_000

	var d perfevent.Counts
	if err := d.Delta(&before, &after); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Raw[0], d.Values[0], d.Multiplexed)
	// Output:
	// 3000000 6000000 true
}

func ExampleCounts_Changed() {
	before := perfevent.Counts{N: 2}
	before.Events[0], before.Events[1] = perfevent.ContextSwitches, perfevent.PageFaults
	after := before
	fmt.Println(after.Changed(&before))
	after.Raw[0]++ // one context switch during the sample
	fmt.Println(after.Changed(&before))
	// Output:
	// false
	// true
}

func ExampleCounts_Value() {
	c := perfevent.Counts{N: 1}
	c.Events[0], c.Values[0] = perfevent.PageFaults, 12
	fmt.Println(c.Value(perfevent.PageFaults))
	fmt.Println(c.Value(perfevent.Cycles))
	// Output:
	// 12 true
	// 0 false
}
