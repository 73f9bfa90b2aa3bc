package cputime

import (
	"fmt"
	"math"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

// Stopwatch accumulates time over a chosen [Clock] across any number of
// Start/Stop laps, like the seed's Chrono, with misuse reported as errors.
// For ClockTSC it accumulates counter ticks and converts them with the
// frequency given to [Stopwatch.SetTSCHz]. A Stopwatch is not safe for
// concurrent use. For ClockThread, lock the goroutine to its OS thread
// (runtime.LockOSThread) from Start to Stop: where the OS can name threads
// (Linux, Windows) Stop detects a thread change and discards the lap.
type Stopwatch struct {
	clock   Clock
	hz      float64
	running bool
	laps    int

	// The lap in progress.
	startNs  time.Duration
	startTSC uint64
	startSrc Source
	startTID uint64

	// Accumulated over the finished laps: nanoseconds, or ticks for ClockTSC.
	totalNs    time.Duration
	totalTicks uint64
	src        Source // source of the finished laps ("" before the first)
}

// NewStopwatch returns a stopped, zeroed stopwatch over c, or an error for
// an unknown clock.
func NewStopwatch(c Clock) (*Stopwatch, error) {
	if err := c.valid(); err != nil {
		return nil, err
	}
	return &Stopwatch{clock: c}, nil
}

// Clock returns the stopwatch's clock.
func (s *Stopwatch) Clock() Clock { return s.clock }

// SetTSCHz sets the counter frequency, in ticks per second, that turns
// ClockTSC ticks into a duration (package calibrate measures it). Without
// it, Elapsed uses the counter's nominal frequency where the hardware states
// it exactly (arm64, the fallback nanosecond counter) and otherwise returns
// [ErrNoFrequency]. hz must be finite and positive; it is ignored by the
// other clocks.
func (s *Stopwatch) SetTSCHz(hz float64) error {
	if math.IsNaN(hz) || math.IsInf(hz, 0) || hz <= 0 {
		return fmt.Errorf("cputime: tsc frequency %v Hz not allowed (must be finite and > 0)", hz)
	}
	s.hz = hz
	return nil
}

// Start starts a lap. It returns [ErrAlreadyRunning] if the stopwatch is
// running (the lap in progress continues), or the clock's error.
func (s *Stopwatch) Start() error {
	if s.running {
		return fmt.Errorf("cputime: start of %s stopwatch: %w", s.clock, ErrAlreadyRunning)
	}
	if s.clock == ClockThread {
		s.startTID, _ = threadID()
	}
	if s.clock == ClockTSC {
		s.startTSC = tsc.Start()
		s.running = true
		return nil
	}
	d, src, err := s.clock.read()
	if err != nil {
		return err
	}
	s.startNs, s.startSrc, s.running = d, src, true
	return nil
}

// Stop ends the lap in progress and adds it to the total. It returns
// [ErrNotRunning] if the stopwatch was not started. The stopwatch is stopped
// even when Stop fails; the lap is then discarded and the error wraps
// [ErrBackwards], [ErrThreadChanged], [ErrSourceChanged] or the clock's
// error.
func (s *Stopwatch) Stop() error {
	if !s.running {
		return fmt.Errorf("cputime: stop of %s stopwatch: %w", s.clock, ErrNotRunning)
	}
	if s.clock == ClockTSC {
		end := s.readTSCStop()
		s.running = false
		d, ok := tsc.Elapsed(s.startTSC, end)
		if !ok {
			return fmt.Errorf("cputime: tsc stopwatch: stop %d < start %d (unsynchronised counters across cpus?): %w", end, s.startTSC, ErrBackwards)
		}
		s.totalTicks += d
		s.laps++
		s.src = tscSource()
		return nil
	}
	end, src, err := s.clock.read()
	s.running = false
	if err != nil {
		return err
	}
	if s.clock == ClockThread {
		if tid, ok := threadID(); ok && tid != s.startTID {
			return fmt.Errorf("cputime: thread stopwatch started on thread %d, stopped on %d (use runtime.LockOSThread): %w", s.startTID, tid, ErrThreadChanged)
		}
	}
	if src != s.startSrc {
		return fmt.Errorf("cputime: %s stopwatch started with %s, stopped with %s: %w", s.clock, s.startSrc, src, ErrSourceChanged)
	}
	if end < s.startNs {
		return fmt.Errorf("cputime: %s stopwatch (%s): stop reading %v before start %v: %w", s.clock, src, end, s.startNs, ErrBackwards)
	}
	s.totalNs += end - s.startNs
	s.laps++
	s.src = src
	return nil
}

// readTSCStop is a separate function so the Stop path for the TSC has no
// work between the measured code and the counter read beyond the call.
func (s *Stopwatch) readTSCStop() uint64 { return tsc.Stop() }

// Reset stops the stopwatch and zeroes its total and lap count. The TSC
// frequency is kept.
func (s *Stopwatch) Reset() {
	hz, c := s.hz, s.clock
	*s = Stopwatch{clock: c, hz: hz}
}

// Running reports whether a lap is in progress.
func (s *Stopwatch) Running() bool { return s.running }

// Laps returns the number of laps completed (successful Stops) since the
// last Reset.
func (s *Stopwatch) Laps() int { return s.laps }

// Source returns the source that produced the finished laps ("" before the
// first one).
func (s *Stopwatch) Source() Source { return s.src }

// ElapsedTicks returns the counter ticks accumulated by a ClockTSC
// stopwatch, including the lap in progress; it needs no frequency. For the
// other clocks it returns an error.
func (s *Stopwatch) ElapsedTicks() (uint64, error) {
	if s.clock != ClockTSC {
		return 0, fmt.Errorf("cputime: ElapsedTicks needs the tsc clock, stopwatch uses %s", s.clock)
	}
	t := s.totalTicks
	if s.running {
		if d, ok := tsc.Elapsed(s.startTSC, tsc.Read()); ok {
			t += d
		}
	}
	return t, nil
}

// frequency returns the Hz that converts ticks: SetTSCHz's, else the
// nominal one when exact.
func (s *Stopwatch) frequency() (float64, error) {
	if s.hz > 0 {
		return s.hz, nil
	}
	if hz, ok := tsc.NominalHz(); ok {
		return hz, nil
	}
	return 0, fmt.Errorf("cputime: tsc stopwatch (%s) needs SetTSCHz: %w", tsc.Counter(), ErrNoFrequency)
}

// Elapsed returns the time accumulated over the finished laps plus, while
// running, the lap in progress so far (the seed's Chrono refused to answer
// while running). For ClockTSC it needs a frequency (see
// [Stopwatch.SetTSCHz]) and otherwise returns an error wrapping
// [ErrNoFrequency].
func (s *Stopwatch) Elapsed() (time.Duration, error) {
	if s.clock == ClockTSC {
		hz, err := s.frequency()
		if err != nil {
			return 0, err
		}
		t, _ := s.ElapsedTicks()
		return ticksToDuration(float64(t), hz), nil
	}
	total := s.totalNs
	if s.running {
		now, src, err := s.clock.read()
		if err != nil {
			return 0, err
		}
		if src == s.startSrc && now > s.startNs {
			total += now - s.startNs
		}
	}
	return total, nil
}

// Resolution returns the resolution of the stopwatch's clock (see
// [Clock.Resolution]); for ClockTSC, one counter step at the frequency from
// SetTSCHz (never below 1 ns, the unit of time.Duration).
func (s *Stopwatch) Resolution() (time.Duration, error) {
	if s.clock != ClockTSC {
		return s.clock.Resolution()
	}
	hz, err := s.frequency()
	if err != nil {
		return 0, err
	}
	return tscResolution(hz), nil
}
