package cputime

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

func TestParseClock(t *testing.T) {
	tests := []struct {
		in      string
		want    Clock
		wantErr bool
	}{
		{"monotonic", ClockMonotonic, false},
		{"thread", ClockThread, false},
		{"process", ClockProcess, false},
		{"tsc", ClockTSC, false},
		{"wall-ms", ClockWallMs, false},
		{"wall-us", ClockWallUs, false},
		{" Thread ", ClockThread, false},
		{"TSC", ClockTSC, false},
		{"", 0, true},
		{"cycles", 0, true},
		{"wall", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseClock(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				for _, c := range Clocks() {
					if !strings.Contains(err.Error(), c.String()) {
						t.Errorf("error %q does not list %q", err, c)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	for _, c := range Clocks() {
		if back, err := ParseClock(c.String()); err != nil || back != c {
			t.Errorf("round trip of %v: %v, %v", c, back, err)
		}
	}
	if s := Clock(99).String(); s != "Clock(99)" {
		t.Errorf("String of unknown clock = %q", s)
	}
	if _, err := NewStopwatch(Clock(-1)); err == nil {
		t.Error("NewStopwatch(Clock(-1)) gave no error")
	}
}

// TestClocks reads every clock: non-decreasing, positive resolution; logs
// what answered.
func TestClocks(t *testing.T) {
	for _, c := range Clocks() {
		t.Run(c.String(), func(t *testing.T) {
			runtime.LockOSThread() // per subtest: each runs on its own goroutine
			defer runtime.UnlockOSThread()
			res, err := c.Resolution()
			if c == ClockTSC && errors.Is(err, ErrNoFrequency) {
				t.Logf("tsc resolution needs a frequency: %v", err)
			} else if err != nil {
				skipUnsupported(t, err)
				t.Fatal(err)
			} else if res <= 0 {
				t.Fatalf("resolution %v", res)
			}
			src, err := c.Source()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: source %s, resolution %v", c, src, res)
			a, err := c.Now()
			if c == ClockTSC && errors.Is(err, ErrNoFrequency) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sink += spin(time.Millisecond)
			b, err := c.Now()
			if err != nil {
				t.Fatal(err)
			}
			// Wall clocks may step back; only the monotonic ones are checked.
			if c != ClockWallMs && c != ClockWallUs && b < a {
				t.Errorf("clock went back: %v then %v", a, b)
			}
		})
	}
}

func TestStopwatchLaps(t *testing.T) {
	for _, c := range []Clock{ClockMonotonic, ClockThread, ClockProcess, ClockWallUs} {
		t.Run(c.String(), func(t *testing.T) {
			runtime.LockOSThread() // per subtest: each runs on its own goroutine
			defer runtime.UnlockOSThread()
			s, err := NewStopwatch(c)
			if err != nil {
				t.Fatal(err)
			}
			if s.Running() || s.Laps() != 0 {
				t.Fatalf("new stopwatch running=%v laps=%d", s.Running(), s.Laps())
			}
			lap := func() time.Duration {
				t.Helper()
				before, _ := s.Elapsed()
				if err := s.Start(); err != nil {
					skipUnsupported(t, err)
					t.Fatal(err)
				}
				sink += spin(5 * time.Millisecond)
				if err := s.Stop(); err != nil {
					t.Fatal(err)
				}
				after, err := s.Elapsed()
				if err != nil {
					t.Fatal(err)
				}
				return after - before
			}
			l1, l2 := lap(), lap()
			total, _ := s.Elapsed()
			if l1 <= 0 || l2 <= 0 || total != l1+l2 || total < l1 || total < l2 {
				t.Fatalf("laps %v + %v, total %v", l1, l2, total)
			}
			if s.Laps() != 2 || s.Source() == "" {
				t.Errorf("laps = %d, source %q", s.Laps(), s.Source())
			}
			// Elapsed while running includes the lap in progress.
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			sink += spin(2 * time.Millisecond)
			mid, err := s.Elapsed()
			if err != nil || mid < total {
				t.Errorf("elapsed while running %v (%v) < finished laps %v", mid, err, total)
			}
			s.Reset()
			if e, _ := s.Elapsed(); e != 0 || s.Running() || s.Laps() != 0 {
				t.Errorf("after Reset: elapsed %v running %v laps %d", e, s.Running(), s.Laps())
			}
		})
	}
}

func TestStopwatchMisuse(t *testing.T) {
	s, err := NewStopwatch(ClockMonotonic)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Stop without Start: %v, want ErrNotRunning", err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("double Start: %v, want ErrAlreadyRunning", err)
	}
	if !s.Running() {
		t.Error("double Start stopped the lap in progress")
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("double Stop: %v, want ErrNotRunning", err)
	}
	if _, err := s.ElapsedTicks(); err == nil {
		t.Error("ElapsedTicks on a monotonic stopwatch gave no error")
	}
	for _, hz := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := s.SetTSCHz(hz); err == nil {
			t.Errorf("SetTSCHz(%v) accepted", hz)
		}
	}
}

// TestStopwatchThreadChanged starts a thread stopwatch on one locked OS
// thread and stops it on another.
func TestStopwatchThreadChanged(t *testing.T) {
	if _, ok := threadID(); !ok {
		t.Skipf("no thread id on %s", runtime.GOOS)
	}
	s, err := NewStopwatch(ClockThread)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan error), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		started <- s.Start()
		<-release // hold this thread so the stopper cannot get it
	}()
	if err := <-started; err != nil {
		skipUnsupported(t, err)
		t.Fatal(err)
	}
	stopped := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		stopped <- s.Stop()
	}()
	err = <-stopped
	close(release)
	if !errors.Is(err, ErrThreadChanged) {
		t.Fatalf("Stop on another thread: %v, want ErrThreadChanged", err)
	}
	if s.Running() || s.Laps() != 0 {
		t.Errorf("after a discarded lap: running %v laps %d", s.Running(), s.Laps())
	}
}

func TestStopwatchTSC(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := NewStopwatch(ClockTSC)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		sink += spin(time.Millisecond)
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	ticks, err := s.ElapsedTicks()
	if err != nil || ticks == 0 {
		t.Fatalf("ticks %d, %v", ticks, err)
	}
	_, nominal := tsc.NominalHz()
	if _, err := s.Elapsed(); !nominal && !errors.Is(err, ErrNoFrequency) {
		t.Errorf("Elapsed without a frequency on %s: %v, want ErrNoFrequency", tsc.Counter(), err)
	}
	const hz = 2e9
	if err := s.SetTSCHz(hz); err != nil {
		t.Fatal(err)
	}
	d, err := s.Elapsed()
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Duration(float64(ticks) / hz * 1e9); d != want {
		t.Errorf("Elapsed %v, want %v from %d ticks at %g Hz", d, want, ticks, hz)
	}
	if r, err := s.Resolution(); err != nil || r <= 0 {
		t.Errorf("resolution %v, %v", r, err)
	}
	s.Reset()
	if ticks, _ := s.ElapsedTicks(); ticks != 0 {
		t.Errorf("after Reset: %d ticks", ticks)
	}
	if d, err := s.Elapsed(); err != nil || d != 0 {
		t.Errorf("after Reset the frequency should be kept: %v, %v", d, err)
	}
}
