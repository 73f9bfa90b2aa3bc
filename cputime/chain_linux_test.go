//go:build linux

package cputime

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var errFake = errors.New("fake failure")

// swapChain replaces the OS calls behind the fallback chains for one test
// and restores them (and the resolution cache) afterwards.
func swapChain(t *testing.T, cg func(int32) (time.Duration, error), ru func(int) (time.Duration, time.Duration, error), tm func() (int64, int64, error), gr func(int32) (time.Duration, error)) {
	t.Helper()
	oldCG, oldRU, oldTM, oldGR := clockGettime, getrusage, times, clockGetres
	t.Cleanup(func() {
		clockGettime, getrusage, times, clockGetres = oldCG, oldRU, oldTM, oldGR
		resetResolutionCache()
	})
	resetResolutionCache()
	if cg != nil {
		clockGettime = cg
	}
	if ru != nil {
		getrusage = ru
	}
	if tm != nil {
		times = tm
	}
	if gr != nil {
		clockGetres = gr
	}
}

func failCPUClocks(id int32) (time.Duration, error) {
	if id == unix.CLOCK_PROCESS_CPUTIME_ID || id == unix.CLOCK_THREAD_CPUTIME_ID {
		return 0, errFake
	}
	return oldClockGettime(id)
}

var oldClockGettime = clockGettime

func failRusage(int) (time.Duration, time.Duration, error) { return 0, 0, errFake }
func failTimes() (int64, int64, error)                     { return 0, 0, errFake }

// fakeTimes is a times() that advances 1 tick of user time per call.
func fakeTimes() func() (int64, int64, error) {
	var n int64
	return func() (int64, int64, error) { n++; return n, 7, nil }
}

func TestProcessFallbackChain(t *testing.T) {
	tick := time.Second / time.Duration(mustTicks(t))
	tests := []struct {
		name      string
		cg        func(int32) (time.Duration, error)
		ru        func(int) (time.Duration, time.Duration, error)
		tm        func() (int64, int64, error)
		gr        func(int32) (time.Duration, error)
		want      Source
		split     bool
		warnings  int
		res       time.Duration // 0: just > 0
		measured  bool
		wantError bool
	}{
		{name: "clock_gettime with getrusage split", want: SourceClockProcess, split: true},
		{name: "clock_gettime, split missing", ru: failRusage, want: SourceClockProcess, warnings: 1},
		{name: "clock_getres fails: measured", gr: func(int32) (time.Duration, error) { return 0, errFake },
			want: SourceClockProcess, split: true, warnings: 0, measured: true},
		{name: "getrusage", cg: failCPUClocks, want: SourceRusageSelf, split: true, warnings: 1, measured: true},
		{name: "times", cg: failCPUClocks, ru: failRusage, tm: fakeTimes(), want: SourceTimes, split: true, warnings: 2, res: tick},
		{name: "all fail", cg: failCPUClocks, ru: failRusage, tm: failTimes, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			swapChain(t, tt.cg, tt.ru, tt.tm, tt.gr)
			got, err := Process()
			if tt.wantError {
				if !errors.Is(err, errFake) {
					t.Fatalf("err = %v, want wrapping the fake failures", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Source != tt.want || got.Split != tt.split || len(got.Warnings) != tt.warnings {
				t.Fatalf("got source %s split %v warnings %v; want %s %v %d", got.Source, got.Split, got.Warnings, tt.want, tt.split, tt.warnings)
			}
			if got.Resolution <= 0 || (tt.res != 0 && got.Resolution != tt.res) || got.ResolutionMeasured != tt.measured {
				t.Errorf("resolution %v measured %v, want %v measured %v", got.Resolution, got.ResolutionMeasured, tt.res, tt.measured)
			}
			if got.Split && got.User+got.System != got.Total && got.Source != SourceClockProcess {
				t.Errorf("user %v + system %v != total %v", got.User, got.System, got.Total)
			}
			if tt.want == SourceTimes && got.System != 7*tick {
				t.Errorf("times() system = %v, want 7 ticks (%v)", got.System, 7*tick)
			}
			for _, w := range got.Warnings {
				if !errors.Is(w, errFake) {
					t.Errorf("warning %v does not wrap the failure", w)
				}
			}
		})
	}
}

func TestThreadFallbackChain(t *testing.T) {
	swapChain(t, failCPUClocks, nil, nil, nil)
	got, err := Thread()
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != SourceRusageThread || !got.Split || len(got.Warnings) != 1 {
		t.Fatalf("got %+v, want getrusage(RUSAGE_THREAD) with a split and one warning", got)
	}
	swapChain(t, failCPUClocks, failRusage, nil, nil)
	if _, err := Thread(); !errors.Is(err, errFake) {
		t.Fatalf("err = %v, want the failures", err)
	}
}

func mustTicks(t *testing.T) int64 {
	t.Helper()
	hz, err := ClockTicks()
	if err != nil {
		t.Fatal(err)
	}
	return hz
}

func TestClockTicks(t *testing.T) {
	hz := mustTicks(t)
	if hz != 100 {
		t.Logf("USER_HZ = %d (not the usual 100)", hz)
	}
	old := auxv
	t.Cleanup(func() { auxv = old })
	for _, tc := range []struct {
		name string
		aux  func() ([][2]uintptr, error)
		want int64
		err  bool
	}{
		{"from auxv", func() ([][2]uintptr, error) { return [][2]uintptr{{6, 4096}, {17, 250}}, nil }, 250, false},
		{"unreadable", func() ([][2]uintptr, error) { return nil, errFake }, 100, true},
		{"missing key", func() ([][2]uintptr, error) { return [][2]uintptr{{6, 4096}}, nil }, 100, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auxv = tc.aux
			got, err := ClockTicks()
			if got != tc.want || (err != nil) != tc.err {
				t.Fatalf("got %d, %v; want %d, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestStopwatchSourceChanged makes the preferred process clock fail between
// Start and Stop: the lap is discarded, not mixed across sources.
func TestStopwatchSourceChanged(t *testing.T) {
	swapChain(t, nil, nil, nil, nil)
	s, err := NewStopwatch(ClockProcess)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	clockGettime = failCPUClocks
	if err := s.Stop(); !errors.Is(err, ErrSourceChanged) {
		t.Fatalf("Stop after the source changed: %v, want ErrSourceChanged", err)
	}
	if s.Laps() != 0 || s.Running() {
		t.Errorf("laps %d running %v", s.Laps(), s.Running())
	}
}

// resetResolutionCache forgets every cached resolution (tests swap readers).
func resetResolutionCache() {
	resCache.Lock()
	resCache.m = nil
	resCache.Unlock()
}
