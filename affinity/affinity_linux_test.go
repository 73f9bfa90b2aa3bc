//go:build linux

package affinity

import (
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// lockedState locks the test goroutine to its thread for the rest of the
// test and returns the thread's state, which the test must leave unchanged.
// The cleanup puts a wrong state back and reports it.
func lockedState(t *testing.T) State {
	t.Helper()
	runtime.LockOSThread()
	before, err := ThreadState()
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatalf("ThreadState: %v", err)
	}
	tid := ThreadID()
	t.Cleanup(func() {
		defer runtime.UnlockOSThread()
		after, err := ThreadState()
		if err != nil {
			t.Errorf("ThreadState at cleanup: %v", err)
			return
		}
		if before := restoredState(t, before); !after.Equal(before) {
			t.Errorf("thread state not restored: before %+v, after %+v", before, after)
			forceState(t, tid, before)
		}
	})
	return before
}

// forceState puts s back on thread tid after a failed test.
func forceState(t *testing.T, tid int, s State) {
	t.Helper()
	set := unix.NewCPUSet(1024)
	for _, c := range s.Mask {
		set.Set(c)
	}
	_ = unix.SchedSetaffinityDynamic(tid, set)
	_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: uint32(s.Policy), Priority: uint32(s.RTPriority)}, 0)
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, s.Nice)
	_ = unix.Prlimit(0, unix.RLIMIT_RTTIME, &unix.Rlimit{Cur: s.RTTimeLimit, Max: unix.RLIM_INFINITY}, nil)
}

// restoredState returns the state Restore can bring back from saved: all of
// it, except that without CAP_SYS_RESOURCE a realtime Pin lowers the hard
// RLIMIT_RTTIME for good, so the soft limit comes back only as far as the
// hard limit now allows (documented, and warned about by Pin).
func restoredState(t *testing.T, saved State) State {
	t.Helper()
	var rl unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rl); err != nil {
		t.Fatal(err)
	}
	saved.RTTimeLimit = min(saved.RTTimeLimit, rl.Max)
	return saved
}

func needRoot(t *testing.T) {
	t.Helper()
	if unix.Geteuid() != 0 {
		t.Skip("needs root to raise priority and restore RLIMIT_RTTIME")
	}
}

func needCPUs(t *testing.T, n int) []int {
	t.Helper()
	cpus, err := Allowed()
	if err != nil {
		t.Fatalf("Allowed: %v", err)
	}
	if len(cpus) < n {
		t.Skipf("needs %d allowed CPUs, have %v", n, cpus)
	}
	return cpus
}

// pin calls Pin and registers a Restore in t.Cleanup (a second Restore is
// harmless).
func pin(t *testing.T, o Options) *Pinned {
	t.Helper()
	p, err := Pin(o)
	if err != nil {
		t.Fatalf("Pin(%+v): %v", o, err)
	}
	t.Cleanup(func() {
		if err := p.Restore(); err != nil {
			t.Errorf("Restore at cleanup: %v", err)
		}
	})
	return p
}

func TestAllowed(t *testing.T) {
	cpus := needCPUs(t, 1)
	if !slices.IsSorted(cpus) {
		t.Errorf("Allowed() = %v, not ascending", cpus)
	}
	if len(slices.Compact(slices.Clone(cpus))) != len(cpus) {
		t.Errorf("Allowed() = %v has duplicates", cpus)
	}
	// The Go runtime counts the same mask at start-up.
	if len(cpus) != runtime.NumCPU() {
		t.Logf("Allowed() = %v but runtime.NumCPU() = %d (mask changed since start?)", cpus, runtime.NumCPU())
	}
}

func TestPinEachCPU(t *testing.T) {
	cpus := needCPUs(t, 2)
	lockedState(t)
	for _, cpu := range cpus {
		t.Run(strconv.Itoa(cpu), func(t *testing.T) {
			// Subtests run on their own goroutine: lock it too.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			saved, err := ThreadState()
			if err != nil {
				t.Fatal(err)
			}
			p := pin(t, Options{CPU: cpu})
			if p.CPU != cpu || p.Priority != PriorityNormal || len(p.Warnings) != 0 {
				t.Errorf("Pin(CPU %d) = CPU %d, priority %v, warnings %v", cpu, p.CPU, p.Priority, p.Warnings)
			}
			for range 100 {
				runtime.Gosched()
				if got, err := CurrentCPU(); err != nil || got != cpu {
					t.Fatalf("CurrentCPU() = %d, %v after pinning to %d", got, err, cpu)
				}
			}
			st, err := ThreadState()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(st.Mask, []int{cpu}) {
				t.Errorf("mask after Pin(%d) = %v", cpu, st.Mask)
			}
			if err := p.Restore(); err != nil {
				t.Fatalf("Restore: %v", err)
			}
			if err := p.Restore(); err != nil {
				t.Errorf("second Restore: %v", err)
			}
			if after, err := ThreadState(); err != nil || !after.Equal(saved) {
				t.Errorf("after Restore state = %+v, %v; want %+v", after, err, saved)
			}
		})
	}
}

func TestPinAnyPicksHighest(t *testing.T) {
	cpus := needCPUs(t, 1)
	lockedState(t)
	p := pin(t, Options{CPU: -1})
	if want := cpus[len(cpus)-1]; p.CPU != want {
		t.Errorf("Pin(CPU -1).CPU = %d, want the highest allowed %d of %v", p.CPU, want, cpus)
	}
	if got, err := CurrentCPU(); err != nil || got != p.CPU {
		t.Errorf("CurrentCPU() = %d, %v; want %d", got, err, p.CPU)
	}
}

func TestPinPriority(t *testing.T) {
	needRoot(t)
	needCPUs(t, 1)
	tests := []struct {
		name string
		o    Options
	}{
		{"high", Options{CPU: -1, Priority: PriorityHigh}},
		{"realtime", Options{CPU: -1, Priority: PriorityRealtime, RTTimeLimit: 1500 * time.Millisecond}},
		{"realtime default limit", Options{CPU: -1, Priority: PriorityRealtime}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var rlBefore unix.Rlimit
			if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rlBefore); err != nil {
				t.Fatal(err)
			}
			saved, err := ThreadState()
			if err != nil {
				t.Fatal(err)
			}
			p := pin(t, tt.o)
			if p.Priority != tt.o.Priority {
				if tt.o.Priority == PriorityRealtime && errors.Is(errors.Join(p.Warnings...), ErrPriority) {
					t.Skipf("SCHED_FIFO refused here (cgroup v1 cpu.rt_runtime_us = 0?): %v", p.Warnings)
				}
				t.Fatalf("Pin(%+v).Priority = %v, warnings %v", tt.o, p.Priority, p.Warnings)
			}
			st, err := ThreadState()
			if err != nil {
				t.Fatal(err)
			}
			switch tt.o.Priority {
			case PriorityHigh:
				if st.Nice != -20 || st.Policy != unix.SCHED_NORMAL || len(p.Warnings) != 0 {
					t.Errorf("under PriorityHigh state = %+v, warnings %v; want nice -20, SCHED_NORMAL, no warnings", st, p.Warnings)
				}
			case PriorityRealtime:
				asked := tt.o.RTTimeLimit
				if asked == 0 {
					asked = DefaultRTTimeLimit
				}
				want := min(uint64(asked/time.Microsecond), rlBefore.Max)
				var rl unix.Rlimit
				if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rl); err != nil {
					t.Fatal(err)
				}
				if st.Policy != unix.SCHED_FIFO || st.RTPriority != RealtimePriority || rl.Cur != want || rl.Max != want {
					t.Errorf("under PriorityRealtime state = %+v, RLIMIT_RTTIME %+v; want SCHED_FIFO at %d, RLIMIT_RTTIME %dus soft and hard",
						st, rl, RealtimePriority, want)
				}
				// Lowering the hard limit without CAP_SYS_RESOURCE, or being
				// held below the request by it, must be reported.
				lowered := want < rlBefore.Max && !hasCap(capSysResource)
				clamped := uint64(asked/time.Microsecond) > rlBefore.Max
				if wantWarn := lowered || clamped; wantWarn != (len(p.Warnings) > 0) {
					t.Errorf("warnings %v; want some: %t (hard limit lowered for good %t, request clamped %t)", p.Warnings, wantWarn, lowered, clamped)
				}
			}
			if err := p.Restore(); err != nil {
				t.Fatalf("Restore: %v", err)
			}
			if after, err := ThreadState(); err != nil || !after.Equal(restoredState(t, saved)) {
				t.Errorf("after Restore state = %+v, %v; want %+v", after, err, restoredState(t, saved))
			}
			var rlAfter unix.Rlimit
			if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rlAfter); err != nil {
				t.Fatal(err)
			}
			if hasCap(capSysResource) && rlAfter != rlBefore {
				t.Errorf("RLIMIT_RTTIME after Restore = %+v; want %+v", rlAfter, rlBefore)
			}
		})
	}
}

func TestRestoreAfterPanic(t *testing.T) {
	needRoot(t)
	needCPUs(t, 1)
	before := lockedState(t)
	var p *Pinned
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		var err error
		p, err = Pin(Options{CPU: -1, Priority: PriorityRealtime, RTTimeLimit: time.Second})
		if err != nil {
			t.Errorf("Pin: %v", err)
			return
		}
		defer p.Restore()
		panic("boom")
	}()
	if after, err := ThreadState(); err != nil || !after.Equal(restoredState(t, before)) {
		t.Errorf("after panic and deferred Restore, state = %+v, %v; want %+v", after, err, restoredState(t, before))
	}
	if err := p.Restore(); err != nil {
		t.Errorf("Restore after the deferred one: %v", err)
	}
}

func TestPinBadCPU(t *testing.T) {
	cpus := needCPUs(t, 2)
	before := lockedState(t)
	// Shrink this thread's allowed set to its first CPU so another CPU the
	// machine has is outside it.
	if err := SetThreadCPU(ThreadID(), cpus[0]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forceState(t, ThreadID(), before) })
	narrowed, err := ThreadState()
	if err != nil {
		t.Fatal(err)
	}
	set := "[" + strconv.Itoa(cpus[0]) + "]"
	tests := []struct {
		cpu  int
		want string
	}{
		{-2, "cpu -2"},
		{9999, "cpu 9999 not in allowed set " + set},
		{cpus[1], "cpu " + strconv.Itoa(cpus[1]) + " not in allowed set " + set},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.cpu), func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			// Subtests run on their own thread: narrow it too.
			if err := SetThreadCPU(ThreadID(), cpus[0]); err != nil {
				t.Fatal(err)
			}
			p, err := Pin(Options{CPU: tt.cpu, Priority: PriorityHigh})
			if err == nil {
				p.Restore()
				t.Fatalf("Pin(CPU %d) succeeded", tt.cpu)
			}
			if !errors.Is(err, ErrInvalidCPU) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Pin(CPU %d) error = %q, want ErrInvalidCPU mentioning %q", tt.cpu, err, tt.want)
			}
			if after, err := ThreadState(); err != nil || !after.Equal(narrowed) {
				t.Errorf("state after failed Pin = %+v, %v; want %+v", after, err, narrowed)
			}
		})
	}
	if err := SetThreadCPU(0, 0); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("SetThreadCPU(0, 0) = %v, want ErrInvalidOption", err)
	}
	if err := SetThreadCPU(ThreadID(), -1); !errors.Is(err, ErrInvalidCPU) {
		t.Errorf("SetThreadCPU(tid, -1) = %v, want ErrInvalidCPU", err)
	}
}

func TestSetThreadCPUMigrates(t *testing.T) {
	cpus := needCPUs(t, 2)
	lockedState(t)
	from, to := cpus[0], cpus[len(cpus)-1]
	p := pin(t, Options{CPU: from})
	if got, _ := CurrentCPU(); got != from {
		t.Fatalf("CurrentCPU() = %d after pinning to %d", got, from)
	}
	tid := ThreadID()
	done := make(chan error)
	go func() { done <- SetThreadCPU(tid, to) }()
	if err := <-done; err != nil {
		t.Fatalf("SetThreadCPU(%d, %d) from another goroutine: %v", tid, to, err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		got, err := CurrentCPU()
		if err != nil {
			t.Fatal(err)
		}
		if got == to {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread still on cpu %d 2s after SetThreadCPU(%d, %d)", got, tid, to)
		}
		runtime.Gosched()
	}
	if err := p.Restore(); err != nil {
		t.Errorf("Restore after a forced migration: %v", err)
	}
}

func TestRestoreWrongGoroutine(t *testing.T) {
	needRoot(t)
	needCPUs(t, 1)
	before := lockedState(t)
	p := pin(t, Options{CPU: -1, Priority: PriorityHigh})
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // a thread of its own, surely not the pinned one
		defer runtime.UnlockOSThread()
		errc <- p.Restore()
	}()
	if err := <-errc; !errors.Is(err, ErrWrongThread) {
		t.Errorf("Restore on another goroutine = %v, want ErrWrongThread", err)
	}
	// The OS state was restored by thread id all the same.
	if st, err := ThreadState(); err != nil || !st.Equal(before) {
		t.Errorf("state after Restore from another goroutine = %+v, %v; want %+v", st, err, before)
	}
	if err := p.Restore(); err != nil {
		t.Errorf("Restore on the right goroutine = %v", err)
	}
}

func TestProbe(t *testing.T) {
	before := lockedState(t)
	c := Probe()
	if len(c.Notes) == 0 {
		t.Error("Probe gave no notes")
	}
	if !c.Pin {
		t.Errorf("Probe().Pin = false on Linux: %v", c.Notes)
	}
	if unix.Geteuid() == 0 && !c.High {
		t.Errorf("Probe().High = false as root: %v", c.Notes)
	}
	t.Logf("%v; notes: %q", c, c.Notes)
	// Probe works on a throwaway thread: this one is untouched.
	if st, err := ThreadState(); err != nil || !st.Equal(before) {
		t.Errorf("state after Probe = %+v, %v", st, err)
	}
}
