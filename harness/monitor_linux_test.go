//go:build linux

package harness

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/perfevent"
	"golang.org/x/sys/unix"
)

// softEventsAvailable skips the test when the software events cannot be
// read here (no perf_event_open, or not permitted).
func softEventsAvailable(t *testing.T) {
	t.Helper()
	g, err := perfevent.Open(softEvents)
	if err != nil {
		t.Skipf("the software events cannot be opened here: %v", err)
	}
	_ = g.Close()
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
		page := unix.Getpagesize()
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
			t.Fatalf("%d samples, one in three touching a new page: %+v", r.Samples, r.Disturbed)
		}
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

// TestLingerKeepsTheLastGroup: a measurement's software-event group stays
// open after it ends, one at a time: the next one closes it, and lingerFor
// after the last one it is closed too.
func TestLingerKeepsTheLastGroup(t *testing.T) {
	softEventsAvailable(t)
	old := lingerFor
	lingerFor = 100 * time.Millisecond
	t.Cleanup(func() { lingerFor = old })
	open := func() *perfevent.Group {
		g, err := perfevent.Open(softEvents)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	var c perfevent.Counts
	g1, g2 := open(), open()
	linger(g1)
	if err := g1.Read(&c); err != nil {
		t.Fatalf("the lingering group cannot be read: %v", err)
	}
	linger(g2)
	if err := g1.Read(&c); !errors.Is(err, perfevent.ErrClosed) {
		t.Errorf("the first group after the second lingered: Read = %v, want ErrClosed", err)
	}
	lingers := func() bool {
		lingering.mu.Lock()
		defer lingering.mu.Unlock()
		return lingering.g != nil
	}
	if err := g2.Read(&c); err != nil || !lingers() {
		t.Errorf("the second group while it lingers: Read = %v, lingering %v", err, lingers())
	}
	start := time.Now()
	for lingers() && time.Since(start) < 5*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	// The timer closed g2 under lingering.mu, which lingers took since.
	if err := g2.Read(&c); !errors.Is(err, perfevent.ErrClosed) {
		t.Errorf("the last group %v after it began to linger (lingerFor %v): Read = %v, want ErrClosed", time.Since(start).Round(time.Millisecond), lingerFor, err)
	}
}
