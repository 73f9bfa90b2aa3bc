package cputime

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

// skipUnsupported skips when err says the platform lacks the feature.
func skipUnsupported(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("not supported on %s/%s: %v", runtime.GOOS, runtime.GOARCH, err)
	}
}

// spin burns CPU on the calling thread for about d of wall time.
func spin(d time.Duration) uint64 {
	var x uint64 = 1
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

var sink uint64

func TestCPUTimeMonotonicAndResolution(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func() (Times, error)
	}{{"process", Process}, {"thread", Thread}} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			prev, err := tc.read()
			skipUnsupported(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if prev.Resolution <= 0 {
				t.Errorf("resolution %v of %s not > 0 (warnings %v)", prev.Resolution, prev.Source, prev.Warnings)
			}
			t.Logf("source %s, resolution %v (measured %v), split %v from %s, warnings %v",
				prev.Source, prev.Resolution, prev.ResolutionMeasured, prev.Split, prev.SplitSource, prev.Warnings)
			for i := 0; i < 1000; i++ {
				cur, err := tc.read()
				if err != nil {
					t.Fatal(err)
				}
				if cur.Total < prev.Total || cur.Source != prev.Source {
					t.Fatalf("reading %d: %v (%s) after %v (%s)", i, cur.Total, cur.Source, prev.Total, prev.Source)
				}
				if cur.Split && (cur.User < 0 || cur.System < 0) {
					t.Fatalf("negative split %+v", cur)
				}
				prev = cur
			}
		})
	}
}

// Each subtest runs on its own goroutine, so each locks its own OS thread:
// two Thread readings from different threads are not comparable.
func TestThreadCPUOfSpinAndSleep(t *testing.T) {
	if _, err := Thread(); err != nil {
		skipUnsupported(t, err)
		t.Fatal(err)
	}
	// The wall interval encloses the CPU-time interval, so cpu ≤ wall holds
	// for any work, including the readings themselves.
	measure := func(f func()) (cpu, wall time.Duration, res time.Duration) {
		t.Helper()
		w := time.Now()
		a, err := Thread()
		if err != nil {
			t.Fatal(err)
		}
		f()
		b, err := Thread()
		wall = time.Since(w)
		if err != nil {
			t.Fatal(err)
		}
		return b.Total - a.Total, wall, b.Resolution
	}
	t.Run("spin 20ms", func(t *testing.T) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// The machine is shared: a spin may get only part of a CPU, so a
		// few attempts are allowed before the lower bound fails.
		var cpu, wall, res time.Duration
		for try := 0; try < 5; try++ {
			cpu, wall, res = measure(func() { sink += spin(20 * time.Millisecond) })
			if cpu > wall+2*res {
				t.Fatalf("thread cpu %v > wall %v (+2×resolution %v)", cpu, wall, res)
			}
			if cpu >= 10*time.Millisecond {
				return
			}
		}
		t.Errorf("thread cpu %v of a %v spin < 10ms in 5 tries", cpu, wall)
	})
	t.Run("sleep 50ms", func(t *testing.T) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu, wall, res := measure(func() { time.Sleep(50 * time.Millisecond) })
		if cpu >= 5*time.Millisecond+res {
			t.Errorf("a %v sleep used %v of thread cpu, want < 5ms", wall, cpu)
		}
	})
}

func TestMeasureStep(t *testing.T) {
	tests := []struct {
		name    string
		steps   []time.Duration // successive increments of a fake clock
		want    time.Duration
		wantErr bool
	}{
		{name: "even steps", steps: []time.Duration{0, 0, 3, 0, 3, 0, 0, 3, 3}, want: 3},
		{name: "smallest wins", steps: []time.Duration{0, 10, 0, 20, 5, 0, 10, 10}, want: 5},
		{name: "stuck clock", steps: []time.Duration{0}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v time.Duration
			i := 0
			read := func() (time.Duration, error) {
				v += tt.steps[i%len(tt.steps)]
				i++
				return v, nil
			}
			got, err := measureStep("fake", read, 20*time.Millisecond)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
