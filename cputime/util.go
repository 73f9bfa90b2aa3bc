package cputime

import (
	"errors"
	"fmt"
	"time"
)

// Utilisation is the CPU use of a block of code (seed 002's profiler, with
// the wall time beside it).
type Utilisation struct {
	// Wall is the elapsed real time of the block (monotonic clock).
	Wall time.Duration
	// ProcessCPU is the CPU time the whole process consumed during the
	// block, from [Process] (nanoseconds with clock_gettime) or, if that
	// failed, from the kernel's tick accounting.
	ProcessCPU time.Duration
	// OfOneCPU is ProcessCPU / Wall in percent: 100 means one CPU kept
	// fully busy; a parallel block can exceed 100.
	OfOneCPU float64
	// OfAllCPUs is ProcessCPU as a percentage of all CPU time that passed
	// on the machine during the block (SystemCPU): 100 means every CPU was
	// busy with this process. This is the seed's figure, with a
	// nanosecond numerator instead of a tick count.
	OfAllCPUs float64
	// NumCPU is the number of CPUs the system figures cover (online CPUs).
	NumCPU int
	// SystemBusy is the share of all CPU time, in percent, that the machine
	// spent busy (not idle, not waiting for I/O) during the block, by any
	// process.
	SystemBusy float64
	// SystemCPU is all CPU time that passed on all CPUs during the block by
	// the kernel's accounting (busy + idle + steal, guest excluded), about
	// NumCPU × Wall, counted in scheduler ticks.
	SystemCPU time.Duration
	// TickShare is the seed's exact formula, process ticks over system
	// ticks in percent, both from the kernel's tick accounting (Linux:
	// utime+stime of /proc/self/stat over the /proc/stat total). Each term
	// can be off by a tick per CPU, so it is coarse for short blocks.
	TickShare float64
	// Source names where the figures came from.
	Source string
	// Warnings lists soft problems (coarse tick counts, fallbacks).
	Warnings []error
}

// snapshot is one reading of everything Utilisation needs.
type snapshot struct {
	wall     time.Time
	proc     Times
	procErr  error
	procTick time.Duration // process CPU by the kernel's tick accounting
	sysTotal time.Duration // all CPU time on all CPUs
	sysBusy  time.Duration
	numCPU   int
	tick     time.Duration // granularity of procTick and sysTotal
	source   string
	warnings []error
}

// Sampler is a utilisation measurement in progress (the two-phase form of
// [Measure]).
type Sampler struct {
	start snapshot
}

// StartUtilisation takes the first snapshot: system-wide CPU times
// (/proc/stat on Linux, GetSystemTimes on Windows), the process's CPU time
// and the monotonic clock. Other platforms get an error wrapping
// errors.ErrUnsupported; a Linux without /proc one wrapping [ErrNoProcfs].
func StartUtilisation() (*Sampler, error) {
	s, err := takeSnapshot(false)
	if err != nil {
		return nil, err
	}
	return &Sampler{start: s}, nil
}

// Stop takes the second snapshot and returns the utilisation since
// StartUtilisation. It may be called more than once; each call measures
// from the same start.
func (s *Sampler) Stop() (Utilisation, error) {
	if s == nil {
		return Utilisation{}, fmt.Errorf("cputime: Stop on a nil Sampler (use StartUtilisation)")
	}
	end, err := takeSnapshot(true)
	if err != nil {
		return Utilisation{}, err
	}
	return utilisation(s.start, end), nil
}

// Measure runs f and returns its utilisation: snapshot, f(), snapshot.
func Measure(f func()) (Utilisation, error) {
	if f == nil {
		return Utilisation{}, errors.New("cputime: Measure needs a function, got nil")
	}
	s, err := StartUtilisation()
	if err != nil {
		return Utilisation{}, err
	}
	f()
	return s.Stop()
}

// utilisation computes the figures between two snapshots.
func utilisation(a, b snapshot) Utilisation {
	u := Utilisation{
		Wall:      b.wall.Sub(a.wall),
		NumCPU:    b.numCPU,
		SystemCPU: nonNeg(b.sysTotal - a.sysTotal),
		Source:    b.source,
	}
	u.Warnings = append(u.Warnings, a.warnings...)
	u.Warnings = append(u.Warnings, b.warnings...)
	procTick := nonNeg(b.procTick - a.procTick)
	switch {
	case a.procErr == nil && b.procErr == nil && a.proc.Source == b.proc.Source:
		u.ProcessCPU = nonNeg(b.proc.Total - a.proc.Total)
		u.Source += "; process cpu: " + string(b.proc.Source)
	default:
		u.ProcessCPU = procTick
		u.Warnings = append(u.Warnings, fmt.Errorf("cputime: process cpu from tick accounting (%v, %v)", a.procErr, b.procErr))
	}
	if u.Wall > 0 {
		u.OfOneCPU = pct(u.ProcessCPU, u.Wall)
	}
	if u.SystemCPU > 0 {
		u.OfAllCPUs = pct(u.ProcessCPU, u.SystemCPU)
		u.TickShare = pct(procTick, u.SystemCPU)
		u.SystemBusy = pct(nonNeg(b.sysBusy-a.sysBusy), u.SystemCPU)
		if b.tick > 0 && u.SystemCPU < 100*b.tick {
			u.Warnings = append(u.Warnings, fmt.Errorf("cputime: only %d scheduler ticks of system time passed (%v each): SystemBusy and TickShare are coarse, ±%d ticks", u.SystemCPU/b.tick, b.tick, max(u.NumCPU, 1)))
		}
	} else if u.NumCPU > 0 && u.Wall > 0 {
		u.OfAllCPUs = u.OfOneCPU / float64(u.NumCPU)
		u.Warnings = append(u.Warnings, fmt.Errorf("cputime: no system tick passed during the %v block: OfAllCPUs is OfOneCPU/NumCPU, SystemBusy unknown", u.Wall))
	}
	return u
}

func nonNeg(d time.Duration) time.Duration { return max(d, 0) }

func pct(a, b time.Duration) float64 { return 100 * float64(a) / float64(b) }
