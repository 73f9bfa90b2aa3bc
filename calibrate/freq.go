package calibrate

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

// Frequency methods, as reported in [Frequency.Method].
const (
	MethodBracket = "bracket" // monotonic-clock reads bracketed by counter reads
	MethodSleep   = "sleep"   // ticks across a sleep, divided by the requested duration
	MethodCNTFRQ  = "cntfrq"  // the arm64 generic timer's architected frequency
	MethodExact   = "exact"   // the monotonic fallback counter counts nanoseconds
)

// Frequency is a measured (or architected) counter frequency.
type Frequency struct {
	Hz float64 // ticks per second
	// PPM bounds the error in parts per million: for [Bracket] the worst
	// case from the bracket widths, the counter step and the clock's
	// resolution; for [Sleep] the measured overshoot of the sleep, which is
	// that method's bias; 0 for architected frequencies.
	PPM      float64
	Method   string        // MethodBracket, MethodSleep, MethodCNTFRQ or MethodExact
	Source   string        // the reference the ticks were compared with
	Duration time.Duration // the interval measured (wall time)
	Ticks    uint64        // ticks across the interval (0 for architected figures)
	// Brackets are the tightest bracket widths at the start and end, in
	// ticks ([Bracket] only).
	Brackets [2]uint64
	// CrossChecks compares Hz with every other figure this machine offers.
	CrossChecks []CrossCheck
	Warnings    []error
}

// CrossCheck is one independent figure for the counter frequency.
type CrossCheck struct {
	Source  string  // where the figure came from
	Hz      float64 // its value
	DiffPPM float64 // (Hz − Frequency.Hz) / Frequency.Hz in ppm
}

// Limits on calibration intervals.
const (
	MinDuration = time.Millisecond
	MaxDuration = time.Hour
)

func checkDuration(d time.Duration) error {
	if d < MinDuration || d > MaxDuration {
		return fmt.Errorf("%w: %v (allowed: %v to %v)", ErrBadDuration, d, MinDuration, MaxDuration)
	}
	return nil
}

// monoBase anchors [mono]; time.Since on a value with a monotonic reading
// reads only the runtime's monotonic clock (one vDSO call on Linux).
var monoBase = time.Now()

func mono() time.Duration { return time.Since(monoBase) }

// bracketAttempts is how many bracketed reads each end of [Bracket] takes;
// the tightest is kept.
const bracketAttempts = 2000

type bracketEnd struct {
	mid   float64       // counter value at the clock read, in ticks (midpoint)
	at    time.Duration // the monotonic clock reading
	width uint64        // bracket width in ticks
}

// tightestBracket reads the monotonic clock between two counter reads n
// times and returns the narrowest bracket whose reads ran on one CPU.
func tightestBracket(n int) (bracketEnd, error) {
	best := bracketEnd{width: math.MaxUint64}
	for i := 0; i < n; i++ {
		a, auxA := tsc.StartCPU()
		m := mono()
		b, auxB := tsc.StopCPU()
		if auxA != auxB || b < a {
			continue
		}
		if w := b - a; w < best.width {
			best = bracketEnd{mid: float64(a) + float64(w)/2, at: m, width: w}
		}
	}
	if best.width == math.MaxUint64 {
		return best, fmt.Errorf("%w: every bracket straddled a CPU migration", ErrUnstable)
	}
	return best, nil
}

// Bracket measures the counter frequency against the monotonic clock over
// an interval of d (1 ms to 1 h; 100 ms reaches about 0.1 ppm on a quiet
// machine). It locks the calling goroutine's OS thread while it runs and
// sleeps for most of d.
func Bracket(d time.Duration) (Frequency, error) {
	if err := checkDuration(d); err != nil {
		return Frequency{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	start, err := tightestBracket(bracketAttempts)
	if err != nil {
		return Frequency{}, err
	}
	if rest := d - time.Since(t0) - time.Millisecond; rest > 0 {
		time.Sleep(rest)
	}
	for time.Since(t0) < d {
	}
	end, err := tightestBracket(bracketAttempts)
	if err != nil {
		return Frequency{}, err
	}
	dt := (end.at - start.at).Seconds()
	ticks := end.mid - start.mid
	if dt <= 0 || ticks <= 0 {
		return Frequency{}, fmt.Errorf("%w: counter advanced %.0f ticks in %v", ErrUnstable, ticks, end.at-start.at)
	}
	hz := ticks / dt
	// Worst case: each midpoint is within half its bracket of the true
	// counter value at the clock read, each read is quantized by one step,
	// and the clock itself has a resolution of 1 ns at each end.
	errTicks := float64(start.width+end.width)/2 + 2*tsc.Step() + 2*hz*1e-9
	f := Frequency{
		Hz:       hz,
		PPM:      errTicks / ticks * 1e6,
		Method:   MethodBracket,
		Source:   "monotonic clock (" + monoSourceName + ")",
		Duration: time.Since(t0),
		Ticks:    uint64(ticks),
		Brackets: [2]uint64{start.width, end.width},
	}
	return f, nil
}

// Sleep measures the counter frequency the textbook way (CS:APP's mhz()):
// read the counter, sleep for d, read it again, and divide by d. A sleep
// always lasts longer than asked, so the figure is biased high; PPM reports
// that overshoot, measured with the monotonic clock, and a warning says so.
// It locks the calling goroutine's OS thread while it runs.
func Sleep(d time.Duration) (Frequency, error) {
	if err := checkDuration(d); err != nil {
		return Frequency{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m0 := mono()
	a, auxA := tsc.StartCPU()
	time.Sleep(d)
	b, auxB := tsc.StopCPU()
	m1 := mono()
	if auxA != auxB {
		return Frequency{}, fmt.Errorf("%w: the thread moved from CPU %d to CPU %d during the sleep; pin it first", ErrUnstable, tsc.AuxCPU(auxA), tsc.AuxCPU(auxB))
	}
	if b <= a {
		return Frequency{}, fmt.Errorf("%w: counter did not advance across the sleep", ErrUnstable)
	}
	actual := m1 - m0
	over := (actual - d).Seconds() / d.Seconds() * 1e6
	f := Frequency{
		Hz:       float64(b-a) / d.Seconds(),
		PPM:      math.Abs(over),
		Method:   MethodSleep,
		Source:   "time.Sleep(" + d.String() + ")",
		Duration: actual,
		Ticks:    b - a,
	}
	f.Warnings = append(f.Warnings, fmt.Errorf("%w: the sleep lasted %v for %v asked (%+.0f ppm); the textbook method counts that overshoot as ticks", ErrSleepBias, actual, d, over))
	return f, nil
}

// Architected returns the counter frequency the platform defines exactly,
// if it does: CNTFRQ_EL0 on arm64, 1 GHz for the monotonic fallback. It
// returns false on amd64, whose TSC rate must be measured.
func Architected() (Frequency, bool) {
	hz, ok := tsc.NominalHz()
	if !ok {
		return Frequency{}, false
	}
	f := Frequency{Hz: hz, Method: MethodExact, Source: "nanoseconds of the monotonic clock"}
	if tsc.Counter() == tsc.CounterCNTVCT {
		f.Method, f.Source = MethodCNTFRQ, "CNTFRQ_EL0"
	}
	return f, true
}

// AddCrossChecks fills f.CrossChecks with every other figure for the
// counter frequency this machine offers, and warns when one differs from
// f.Hz by more than f's uncertainty plus the other figure's own rounding.
func AddCrossChecks(f *Frequency, cpu CPU) {
	add := func(src string, hz, resolutionPPM float64) {
		if hz <= 0 {
			return
		}
		cc := CrossCheck{Source: src, Hz: hz, DiffPPM: (hz - f.Hz) / f.Hz * 1e6}
		f.CrossChecks = append(f.CrossChecks, cc)
		if tol := f.PPM + resolutionPPM + 1; math.Abs(cc.DiffPPM) > tol && f.Method != MethodSleep {
			f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s says %.0f Hz, %+.1f ppm from the %s figure (tolerance %.1f ppm)", ErrDisagree, src, hz, cc.DiffPPM, f.Method, tol))
		}
	}
	if hz, src, err := KernelHz(); err == nil && cpu.Counter == tsc.CounterRDTSC {
		// The kernel prints kHz; its last digit is a rounding of at most 0.5 kHz.
		add("kernel: "+src, hz, 500/hz*1e6)
	}
	if cpu.Counter == tsc.CounterRDTSC {
		add("CPUID 0x15 (crystal × ratio)", cpu.CPUID15Hz, 1)
		add("CPUID 0x40000010 (hypervisor)", cpu.HypervisorTSCHz, 1000/math.Max(cpu.HypervisorTSCHz, 1)*1e6)
	}
	if a, ok := Architected(); ok && f.Method != a.Method {
		add(a.Source, a.Hz, 0)
	}
}
