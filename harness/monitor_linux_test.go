//go:build linux

package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/internal/chain"
	"golang.org/x/sys/unix"
)

// softEventsAvailable skips the test when the thread's context switches
// and page faults cannot be read here.
func softEventsAvailable(t *testing.T) {
	t.Helper()
	var u usage
	if err := threadUsage(&u); err != nil {
		t.Skipf("the thread's context switches and page faults cannot be read here: %v", err)
	}
}

// TestThreadUsageCounts: a sleep switches the calling thread out, and
// touching fresh pages faults, and threadUsage sees both on the thread
// that caused them.
func TestThreadUsageCounts(t *testing.T) {
	softEventsAvailable(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a, b, c usage
	if err := threadUsage(&a); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := threadUsage(&b); err != nil {
		t.Fatal(err)
	}
	if b.switches <= a.switches {
		t.Errorf("context switches %d before and %d after a 2 ms sleep", a.switches, b.switches)
	}
	mem, err := unix.Mmap(-1, 0, 64*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if err := threadUsage(&b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1
	}
	if err := threadUsage(&c); err != nil {
		t.Fatal(err)
	}
	if c.faults-b.faults < 32 {
		t.Errorf("%d page faults from touching 64 fresh anonymous pages", c.faults-b.faults)
	}
}

// TestDisturbedSamplesDiscarded measures a kernel that sleeps in one call
// of four and one that touches a new page in one call of three, one call
// per sample: the samples of those calls must be counted under their
// cause and discarded, and the figure must come from the quiet calls.
func TestDisturbedSamplesDiscarded(t *testing.T) {
	softEventsAvailable(t)
	const n = 20_000
	base := DefaultConfig()
	base.Repeat, base.Warmup, base.MaxSamples = 1, -1, 60
	// K 40 within an exact tolerance cannot agree early: all 60 samples
	// are taken.
	base.K, base.Epsilon, base.AbsSteps = 40, 0, 0
	// Latency mode: no room probe. Its samples beside a faulting or
	// switched-out target sample read low, so it set aside 23 of 60
	// samples, and a faulting sample is kept while no other is
	// (classify): 17 faults were counted of 20, the same in each of three
	// attempts, when this test ran alone. The monitor's rule is the same
	// in both modes.
	base.Mode = Latency
	quiet, err := Measure(context.Background(), base, Target{Run: func() { testSink = chain.AddFrom(testSink, n) }})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("sleeps", func(t *testing.T) {
		// Other processes switch the thread out too, on a loaded 2-CPU
		// machine: when more than half of the first samples switched, the
		// engine takes the switches for the kernel's own blocking and keeps
		// them (monitor.classify). That run says nothing of the discarding,
		// so it is measured again (three attempts; seen once in several
		// dozen runs, with 22 of 60 samples switching).
		retry(t, func() string {
			calls := 0
			r, err := Measure(context.Background(), base, Target{Run: func() {
				if calls++; calls%4 == 0 {
					time.Sleep(200 * time.Microsecond)
				}
				testSink = chain.AddFrom(testSink, n)
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("disturbed %+v, discarded %d of %d; %.0f ticks/call (quiet %.0f)", r.Disturbed, r.Discarded, r.Samples, r.Ticks, quiet.Ticks)
			if !r.Disturbed.Monitored || r.Disturbed.ContextSwitches < r.Samples/4-2 || r.Discarded < r.Disturbed.ContextSwitches {
				return fmt.Sprintf("%d samples, one in four sleeping: %+v, %d discarded", r.Samples, r.Disturbed, r.Discarded)
			}
			// The sleeping calls were discarded: the best sample is a quiet
			// one (a 200 µs sleep would add about 500,000 ticks).
			if r.Ticks > 2*quiet.Ticks {
				return fmt.Sprintf("%.0f ticks per call, quiet %.0f: a sleeping call was kept", r.Ticks, quiet.Ticks)
			}
			return ""
		})
	})

	t.Run("faults", func(t *testing.T) {
		// Retry rule: three attempts, each on fresh pages. CI once counted
		// 16 faults where 20 samples touched a new page (the GOARCH=386
		// run, with the host sharing the core), which a harness that does
		// not count faults cannot pass three times.
		page := unix.Getpagesize()
		retry(t, func() string {
			mem, err := unix.Mmap(-1, 0, 64*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
			if err != nil {
				t.Skipf("mmap: %v", err)
			}
			defer unix.Munmap(mem)
			_ = unix.Madvise(mem, unix.MADV_NOHUGEPAGE)
			calls, next := 0, 0
			r, err := Measure(context.Background(), base, Target{Run: func() {
				if calls++; calls%3 == 0 && next < 64 {
					mem[next*page] = 1 // a page never touched before
					next++
				}
				testSink = chain.AddFrom(testSink, n)
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("disturbed %+v, discarded %d of %d", r.Disturbed, r.Discarded, r.Samples)
			if r.Disturbed.PageFaults < r.Samples/3-2 || r.Disturbed.FaultingSamples < r.Disturbed.PageFaults {
				return fmt.Sprintf("%d samples, one in three touching a new page: %+v", r.Samples, r.Disturbed)
			}
			return ""
		})
	})

	t.Run("faults every call are kept", func(t *testing.T) {
		page := unix.Getpagesize()
		mem, err := unix.Mmap(-1, 0, 256*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			t.Skipf("mmap: %v", err)
		}
		defer unix.Munmap(mem)
		_ = unix.Madvise(mem, unix.MADV_NOHUGEPAGE)
		next := 0
		r, err := Measure(context.Background(), base, Target{Run: func() {
			if next < 256 {
				mem[next*page] = 1
				next++
			}
			testSink = chain.AddFrom(testSink, n)
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("disturbed %+v, discarded %d of %d", r.Disturbed, r.Discarded, r.Samples)
		if r.Disturbed.PageFaults > 8 || r.Disturbed.FaultingSamples < r.Samples/2 {
			t.Fatalf("a kernel that faults in every call: %+v; want the faults kept after the first few", r.Disturbed)
		}
	})
}

// TestEventsConfig: an unknown event name is a ConfigError; a hardware
// event on a machine without a PMU is a warning and the measurement goes
// on; where it can be counted, it is reported per call.
func TestEventsConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Events = []string{"cycles", "bogus"}
	var ce *ConfigError
	if _, err := cfg.WithDefaults(); !errors.As(err, &ce) || ce.Field != "Events" {
		t.Fatalf("unknown event: err %v, want a ConfigError on Events", err)
	}
	cfg.Events = []string{"instructions", "page-faults"}
	cfg.MaxSamples = 50
	r, err := Measure(context.Background(), cfg, Target{Run: addKernel(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.CounterValue("instructions"); !ok {
		var warned bool
		for _, w := range r.Warnings {
			warned = warned || errors.Is(w, ErrCounters)
		}
		if !warned {
			t.Fatalf("instructions neither counted nor warned about: counters %v, warnings %v", r.Counters, r.Warnings)
		}
		t.Skipf("no PMU here: %v", r.Warnings)
	}
	if v, _ := r.CounterValue("instructions"); v < 1000 {
		t.Errorf("%v instructions per call of 1000 dependent ADDs", v)
	}
}
