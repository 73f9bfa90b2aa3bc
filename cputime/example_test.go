package cputime_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
)

func work() int {
	v := make([]int, 200000)
	for i := range v {
		v[i] = (i * 7919) % 200003
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func ExampleProcess() {
	before, err := cputime.Process()
	if err != nil {
		fmt.Println(err)
		return
	}
	work()
	after, err := cputime.Process()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("cpu %v from %s (resolution %v)\n", after.Total-before.Total, after.Source, after.Resolution)
	if after.Split {
		fmt.Printf("user %v, system %v (from %s)\n", after.User-before.User, after.System-before.System, after.SplitSource)
	}
}

func ExampleThread() {
	runtime.LockOSThread() // both readings must come from the same OS thread
	defer runtime.UnlockOSThread()
	before, err := cputime.Thread()
	if err != nil {
		fmt.Println(err)
		return
	}
	work()
	after, _ := cputime.Thread()
	fmt.Printf("thread cpu %v from %s\n", after.Total-before.Total, after.Source)
}

func ExampleParseClock() {
	c, err := cputime.ParseClock("thread")
	fmt.Println(c, err)
	_, err = cputime.ParseClock("cycles")
	fmt.Println(err)
	// Output:
	// thread <nil>
	// cputime: unknown clock "cycles" (allowed: monotonic, thread, process, tsc, wall-ms, wall-us)
}

func ExampleClocks() {
	for _, c := range cputime.Clocks() {
		fmt.Print(c, " ")
	}
	fmt.Println()
	// Output: monotonic thread process tsc wall-ms wall-us
}

func ExampleClock_Resolution() {
	for _, c := range cputime.Clocks() {
		res, err := c.Resolution()
		src, _ := c.Source()
		if err != nil {
			fmt.Printf("%-9s %v\n", c, err)
			continue
		}
		fmt.Printf("%-9s %-40s %v\n", c, src, res)
	}
}

func ExampleClock_Now() {
	a, err := cputime.ClockMonotonic.Now()
	if err != nil {
		fmt.Println(err)
		return
	}
	work()
	b, _ := cputime.ClockMonotonic.Now()
	fmt.Println("elapsed", b-a)
}

// The seed's Chrono example: time a sort on the thread CPU clock, in two
// laps that accumulate.
func ExampleNewStopwatch() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sw, err := cputime.NewStopwatch(cputime.ClockThread)
	if err != nil {
		fmt.Println(err)
		return
	}
	for lap := 0; lap < 2; lap++ {
		if err := sw.Start(); err != nil {
			fmt.Println(err)
			return
		}
		work()
		if err := sw.Stop(); err != nil {
			fmt.Println(err)
			return
		}
	}
	d, _ := sw.Elapsed()
	fmt.Printf("%d laps, %v of thread cpu (%s)\n", sw.Laps(), d, sw.Source())
}

func ExampleStopwatch_Stop() {
	sw, _ := cputime.NewStopwatch(cputime.ClockMonotonic)
	err := sw.Stop()
	fmt.Println(errors.Is(err, cputime.ErrNotRunning), err)
	_ = sw.Start()
	err = sw.Start()
	fmt.Println(errors.Is(err, cputime.ErrAlreadyRunning), err)
	// Output:
	// true cputime: stop of monotonic stopwatch: cputime: stopwatch not running
	// true cputime: start of monotonic stopwatch: cputime: stopwatch already running
}

func ExampleStopwatch_SetTSCHz() {
	runtime.LockOSThread() // and pin the thread to one CPU (package affinity)
	defer runtime.UnlockOSThread()
	sw, _ := cputime.NewStopwatch(cputime.ClockTSC)
	_ = sw.Start()
	work()
	_ = sw.Stop()
	ticks, _ := sw.ElapsedTicks()
	if err := sw.SetTSCHz(2.4454e9); err != nil { // from package calibrate
		fmt.Println(err)
		return
	}
	d, _ := sw.Elapsed()
	fmt.Printf("%d ticks = %v\n", ticks, d)
}

func ExampleMeasure() {
	u, err := cputime.Measure(func() { work() })
	if errors.Is(err, errors.ErrUnsupported) {
		fmt.Println("no utilisation here:", err)
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("wall %v, cpu %v: %.0f%% of one cpu, %.0f%% of all %d\n",
		u.Wall, u.ProcessCPU, u.OfOneCPU, u.OfAllCPUs, u.NumCPU)
}

func ExampleStartUtilisation() {
	s, err := cputime.StartUtilisation()
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(100 * time.Millisecond)
	u, err := s.Stop()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slept %v using %.1f%% of one cpu; machine %.0f%% busy\n", u.Wall, u.OfOneCPU, u.SystemBusy)
}

func ExampleParseProcStat() {
	st, err := cputime.ParseProcStat("cpu  518127 71 120189 7077551 8165 0 48610 0 30 0\ncpu0 1 2 3 4\ncpu1 1 2 3 4\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.All.Total(), st.All.Busy(), len(st.PerCPU), "cpus; guest", st.All.Guest, "not added again")
	// Output: 7772713 686997 2 cpus; guest 30 not added again
}

func ExampleParseProcSelfStat() {
	p, err := cputime.ParseProcSelfStat("1234 (a b) (c)) R 1 1 1 0 -1 4194304 95 0 0 0 7 3 0 0 20 0 1 0 1515316 9162752")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pid %d comm %q state %s utime %d stime %d total %d ticks\n", p.PID, p.Comm, p.State, p.UTime, p.STime, p.Total())
	// Output: pid 1234 comm "a b) (c)" state R utime 7 stime 3 total 10 ticks
}

func ExampleClockTicks() {
	hz, err := cputime.ClockTicks()
	if err != nil {
		fmt.Println("no tick unit:", err)
		return
	}
	fmt.Println("USER_HZ", hz)
}

func ExampleStopwatch_Reset() {
	sw, _ := cputime.NewStopwatch(cputime.ClockWallUs)
	for i := 0; i < 3; i++ {
		_ = sw.Start()
		_ = sw.Stop()
	}
	fmt.Println(sw.Laps(), sw.Running())
	sw.Reset()
	d, _ := sw.Elapsed()
	fmt.Println(sw.Laps(), sw.Running(), d)
	// Output:
	// 3 false
	// 0 false 0s
}

// Elapsed may be read while the stopwatch runs: it includes the lap in
// progress.
func ExampleStopwatch_Elapsed() {
	sw, _ := cputime.NewStopwatch(cputime.ClockMonotonic)
	_ = sw.Start()
	time.Sleep(10 * time.Millisecond)
	d, _ := sw.Elapsed()
	fmt.Println(sw.Running(), d >= 10*time.Millisecond)
	// Output: true true
}

func ExampleStopwatch_ElapsedTicks() {
	sw, _ := cputime.NewStopwatch(cputime.ClockTSC)
	_ = sw.Start()
	work()
	_ = sw.Stop()
	ticks, _ := sw.ElapsedTicks()
	_, err := sw.Elapsed() // no frequency set: ErrNoFrequency unless the counter states one
	fmt.Println(ticks > 0, err == nil || errors.Is(err, cputime.ErrNoFrequency))
	// Output: true true
}

func ExampleClock_Source() {
	src, err := cputime.ClockProcess.Source()
	fmt.Println(src, err)
}

func ExampleSampler_Stop() {
	s, err := cputime.StartUtilisation()
	if err != nil {
		fmt.Println(err)
		return
	}
	work()
	u1, _ := s.Stop() // each Stop measures from the same start
	work()
	u2, _ := s.Stop()
	fmt.Println(u2.Wall > u1.Wall, u2.ProcessCPU >= u1.ProcessCPU)
}

func ExampleCPUTimes_Busy() {
	before := cputime.CPUTimes{User: 100, System: 50, Idle: 800, IOWait: 50}
	after := cputime.CPUTimes{User: 160, System: 70, Idle: 900, IOWait: 70}
	busy := after.Busy() - before.Busy()
	total := after.Total() - before.Total()
	fmt.Printf("%d of %d ticks busy: %.0f%%\n", busy, total, 100*float64(busy)/float64(total))
	// Output: 80 of 200 ticks busy: 40%
}

func ExampleProcessTimes_Total() {
	p, _ := cputime.ParseProcSelfStat("42 (x) S 1 1 1 0 -1 0 0 0 0 0 250 50")
	fmt.Println(p.Total(), "ticks")
	// Output: 300 ticks
}

func ExampleClock_String() {
	fmt.Println(cputime.ClockWallMs, cputime.Clock(42))
	// Output: wall-ms Clock(42)
}
