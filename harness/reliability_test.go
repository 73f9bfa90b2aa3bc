package harness

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// midRunConfig samples a kernel with a fixed R of 8 calls and one warm-up
// call, and cannot converge before 1000 samples (K = 1000), so that the
// call number at which a kernel misbehaves is deterministic and falls well
// inside the sampling loop. (A tiny ε is not enough: with a coarse counter
// step, three equal minima are common.)
func midRunConfig() Config {
	cfg := DefaultConfig()
	cfg.Warmup = -1
	cfg.Repeat = 8
	cfg.K = 1000
	cfg.MaxSamples = 1_000_000
	cfg.MaxTime = time.Minute
	return cfg
}

// misbehaveAt returns a kernel that does 1000 ADDs per call, records the
// OS thread id of the measuring thread, and calls bad on call number n.
func misbehaveAt(n int64, bad func(), calls *atomic.Int64, tid *atomic.Int64) func() {
	return func() {
		c := calls.Add(1)
		if c == 1 {
			tid.Store(int64(affinity.ThreadID()))
		}
		if c == n {
			bad()
		}
		testSink += chain.Add(1000)
	}
}

// stillLocked reports whether the calling goroutine stays on one OS thread
// while it yields and sleeps, as a goroutine locked with
// runtime.LockOSThread must. On an OS without thread ids it reports true.
func stillLocked() bool {
	tid := affinity.ThreadID()
	if tid == 0 {
		return true
	}
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
		if affinity.ThreadID() != tid {
			return false
		}
	}
	return true
}

// TestPanicMidMeasurement: a kernel that panics, or calls runtime.Goexit,
// after some samples makes Measure return an error naming it; the caller's
// thread (mask, nice, policy, lock), the GC percentage and, where it can be
// read, the measuring thread are as they were; the next Measure works.
func TestPanicMidMeasurement(t *testing.T) {
	const at = 1 + 8*25 // the warm-up call, then 25 samples of 8 calls
	tests := []struct {
		name string
		bad  func()
		want error
		text string
	}{
		{"panic", func() { panic("kernel exploded at call 201") }, ErrPanic, "kernel exploded at call 201"},
		{"panic error", func() { panic(errors.New("wrapped kernel error")) }, ErrPanic, "wrapped kernel error"},
		{"goexit", runtime.Goexit, ErrPanic, "Goexit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gcBefore := debug.SetGCPercent(77)
			t.Cleanup(func() { debug.SetGCPercent(gcBefore) })
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			callerBefore, stateErr := affinity.ThreadState()

			var calls, tid atomic.Int64
			_, err := Measure(context.Background(), midRunConfig(), Target{Run: misbehaveAt(at, tt.bad, &calls, &tid)})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.want, tt.text)
			}
			if n := calls.Load(); n != at {
				t.Fatalf("the kernel was called %d times, want exactly %d (it must stop at the bad call)", n, at)
			}
			if got := debug.SetGCPercent(77); got != 77 {
				t.Errorf("GC percent after %s = %d, want 77", tt.name, got)
			}
			if stateErr == nil {
				after, err := affinity.ThreadState()
				if err != nil || !after.Equal(callerBefore) {
					t.Errorf("caller's thread state changed: %+v → %+v (%v)", callerBefore, after, err)
				}
			} else {
				t.Logf("caller's thread state not checked: %v", stateErr)
			}
			if !stillLocked() {
				t.Errorf("the caller's goroutine lost its runtime.LockOSThread")
			}
			checkMeasuringThread(t, int(tid.Load()), callerBefore, stateErr == nil)

			cfg := DefaultConfig()
			cfg.MaxSamples = 50
			r, err := Measure(context.Background(), cfg, Target{Run: addKernel(1000)})
			if err != nil || r.Ticks <= 0 {
				t.Fatalf("Measure after %s: %+v, %v", tt.name, r, err)
			}
		})
	}
}

// TestMeasureLeavesCallerUnlocked: Measure does not lock the caller's
// goroutine to its thread, even when the kernel panics. A goroutine that
// exits while locked takes its OS thread with it, so the thread a caller
// ran Measure on must outlive the caller's goroutine. The same check on a
// goroutine that does exit locked shows that it can tell the difference.
func TestMeasureLeavesCallerUnlocked(t *testing.T) {
	if affinity.ThreadID() == 0 {
		t.Skip("no OS thread ids on " + runtime.GOOS)
	}
	if runtime.GOOS != "linux" {
		t.Skip("thread liveness is read from /proc/self/task")
	}
	lastThread := func(body func()) int {
		done := make(chan int)
		go func() {
			body()
			done <- affinity.ThreadID()
		}()
		return <-done
	}
	gone := func(id int) bool {
		// The runtime tears a locked thread down shortly after the
		// goroutine exits; give it a moment.
		for i := 0; i < 100; i++ {
			if !threadExists(id) {
				return true
			}
			time.Sleep(time.Millisecond)
		}
		return false
	}
	// Control: a goroutine that exits locked must take its thread with it,
	// or this method cannot tell a locked exit from an unlocked one.
	if id := lastThread(func() { runtime.LockOSThread() }); !gone(id) {
		t.Skipf("the runtime kept thread %d after its goroutine exited locked (within 100 ms): thread liveness cannot show the lock state here", id)
	}
	var calls, tid atomic.Int64
	tests := []struct {
		name       string
		body       func()
		wantExists bool
	}{
		{"Measure with a panic", func() {
			_, _ = Measure(context.Background(), midRunConfig(), Target{Run: misbehaveAt(50, func() { panic("x") }, &calls, &tid)})
		}, true},
		{"Measure", func() {
			cfg := DefaultConfig()
			cfg.MaxSamples = 20
			_, _ = Measure(context.Background(), cfg, Target{Run: addKernel(100)})
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := lastThread(tt.body)
			exists := !gone(id)
			if exists != tt.wantExists {
				t.Errorf("thread %d exists after the goroutine exited: %v, want %v", id, exists, tt.wantExists)
			}
		})
	}
}
