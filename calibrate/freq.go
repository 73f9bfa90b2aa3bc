package calibrate

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/cyclebench/cyclebench/tsc"
)

// Frequency methods, as reported in [Frequency.Method] (and, for
// MethodBracket and MethodSleep, asked for in [Options.Method]).
const (
	MethodBracket = "bracket" // monotonic-clock reads bracketed by counter reads
	MethodSleep   = "sleep"   // ticks across a sleep, divided by the requested duration
	MethodCNTFRQ  = "cntfrq"  // the arm64 generic timer's architected frequency
	MethodExact   = "exact"   // the monotonic fallback counter counts nanoseconds
	// MethodKernel is the kernel's own TSC figure, used where the kernel's
	// monotonic clock is computed from it and a bracket confirms it (see
	// [KernelFrequency] and [MethodAuto]).
	MethodKernel = "kernel"
)

// MethodAuto, asked for in [Options.Method], takes the kernel's figure
// where [KernelFrequency] offers one and a bracket confirms it, and a
// bracket elsewhere; the resulting [Frequency.Method] is MethodKernel,
// MethodBracket or the architected one. It is what [Get] uses.
const MethodAuto = "auto"

// Frequency is a measured (or architected) counter frequency.
type Frequency struct {
	Hz float64 // ticks per second
	// PPM bounds the error in parts per million, as ticks per second of
	// the monotonic clock: for [Bracket] the worst case from the bracket
	// widths, the counter step (when the clock is not computed from the
	// counter itself) and the clock's resolution; for [Sleep] the measured
	// overshoot of the sleep, which is that method's bias; for
	// [MethodKernel] the kernel's rounding and any NTP slew in progress (see
	// [KernelFrequency]); 0 for architected frequencies.
	PPM    float64
	Method string // MethodBracket, MethodSleep, MethodCNTFRQ, MethodExact or MethodKernel
	// Source names the reference the ticks were compared with or, for
	// MethodKernel, the file the figure was read from and how the
	// monotonic clock relates to it.
	Source string
	// Duration is the interval measured (wall time); for MethodKernel, the
	// confirming bracket's.
	Duration time.Duration
	Ticks    uint64 // ticks across the interval (0 for architected and kernel figures)
	// Brackets are the tightest bracket widths at the start and end, in
	// ticks ([Bracket] only).
	Brackets [2]uint64
	// CrossChecks compares Hz with every other figure this machine offers.
	CrossChecks []CrossCheck
	Warnings    []error
	// Pending reports a kernel figure taken at once, whose confirming
	// bracket is still open ([Options.DeferConfirm]): [Confirmed] closes
	// it.
	Pending bool
}

// CrossCheck is one independent figure for the counter frequency.
type CrossCheck struct {
	Source  string  // where the figure came from
	Hz      float64 // its value
	DiffPPM float64 // (Hz − Frequency.Hz) / Frequency.Hz in ppm
	PPM     float64 // the figure's own uncertainty in ppm, 0 when exact or unknown
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

// bracketAttempts is the most bracketed reads each end of a bracket
// takes; the tightest is kept. 2,000 take about 0.2 ms; on the machines
// seen the narrowest width is reached within the first 50, so an end stops
// early once bracketPatience reads in a row (after the first
// bracketPatience) found nothing narrower: both ends of the calibration a
// process's first figure waits for then cost about 0.03 ms, not 0.4.
const (
	bracketAttempts = 2000
	bracketPatience = 200
)

type bracketEnd struct {
	mid   float64       // counter value at the clock read, in ticks (midpoint)
	at    time.Duration // the monotonic clock reading
	width uint64        // bracket width in ticks
}

// tightestBracket reads the monotonic clock between two counter reads up
// to n times, stopping once bracketPatience reads in a row found nothing
// narrower, and returns the narrowest bracket whose reads ran on one CPU.
func tightestBracket(n int) (bracketEnd, error) {
	best := bracketEnd{width: math.MaxUint64}
	last := 0 // the attempt that found the tightest so far
	for i := 0; i < n && i-last < bracketPatience; i++ {
		a, auxA := tsc.StartCPU()
		m := mono()
		b, auxB := tsc.StopCPU()
		if auxA != auxB || b < a {
			continue
		}
		if w := b - a; w < best.width {
			best = bracketEnd{mid: float64(a) + float64(w)/2, at: m, width: w}
			last = i
		}
	}
	if best.width == math.MaxUint64 {
		return best, fmt.Errorf("%w: every bracket straddled a CPU migration", ErrUnstable)
	}
	return best, nil
}

// openBracket is the start of a bracket measurement, which can be closed
// (more than once, each time later) to give a frequency over the interval
// from the start to the close.
type openBracket struct {
	start bracketEnd
	t0    time.Time // wall time just before the start
	// followsCounter reports that the monotonic clock is computed from the
	// counter itself, so a clock read made within a bracket corresponds to
	// a counter value within it and the counter's step adds no error.
	followsCounter bool
}

// open takes the start of a bracket. The caller locks its OS thread.
func open(followsCounter bool) (openBracket, error) {
	t0 := time.Now()
	start, err := tightestBracket(bracketAttempts)
	return openBracket{start: start, t0: t0, followsCounter: followsCounter}, err
}

// needed returns how long after its start the bracket must be closed for
// its bound to be at most targetPPM, if the closing bracket is as wide as
// the opening one: the rate so far (from an unserialized read, good to a
// part in 10⁴ after a millisecond) sets how many ticks make the bound.
func (o openBracket) needed(targetPPM float64, step float64) time.Duration {
	ticks, at := float64(tsc.Read())-o.start.mid, mono()
	sec := (at - o.start.at).Seconds()
	if ticks <= 0 || sec <= 0 {
		return 0
	}
	hz := ticks / sec
	errTicks := float64(o.start.width) + 2*hz*1e-9
	if !o.followsCounter {
		errTicks += 2 * step
	}
	interval := time.Duration(errTicks / (targetPPM * 1e-6) / hz * 1e9)
	startedAfter := time.Since(o.t0) - (mono() - o.start.at) // from t0 to the opening clock read
	return startedAfter + interval
}

// closeAt waits until d has passed since the start (sleeping for most of
// it) and closes the bracket. The caller locks its OS thread.
func (o openBracket) closeAt(d time.Duration) (Frequency, error) {
	if rest := d - time.Since(o.t0) - time.Millisecond; rest > 0 {
		time.Sleep(rest)
	}
	for time.Since(o.t0) < d {
	}
	end, err := tightestBracket(bracketAttempts)
	if err != nil {
		return Frequency{}, err
	}
	return bracketFrequency(o.start, end, o.followsCounter, tsc.Step(), time.Since(o.t0))
}

// bracketFrequency is the frequency between two bracket ends and its worst
// case error: each midpoint lies within half its bracket of the counter
// value at the clock read; each clock read is truncated to 1 ns; and,
// unless the clock is computed from the counter, each read of a counter
// that advances by step ticks can lag the true count by one step.
func bracketFrequency(start, end bracketEnd, followsCounter bool, step float64, took time.Duration) (Frequency, error) {
	dt := (end.at - start.at).Seconds()
	ticks := end.mid - start.mid
	if dt <= 0 || ticks <= 0 {
		return Frequency{}, fmt.Errorf("%w: counter advanced %.0f ticks in %v", ErrUnstable, ticks, end.at-start.at)
	}
	hz := ticks / dt
	errTicks := float64(start.width+end.width)/2 + 2*hz*1e-9
	if !followsCounter {
		errTicks += 2 * step
	}
	return Frequency{
		Hz:       hz,
		PPM:      errTicks / ticks * 1e6,
		Method:   MethodBracket,
		Source:   "monotonic clock (" + monoSourceName + ")",
		Duration: took,
		Ticks:    uint64(ticks),
		Brackets: [2]uint64{start.width, end.width},
	}, nil
}

// Bracket measures the counter frequency against the monotonic clock over
// an interval of d (1 ms to 1 h; 100 ms reaches about 0.5 ppm on a quiet
// machine, 1 s about 0.05 ppm). It locks the calling goroutine's OS thread
// while it runs and sleeps for most of d.
func Bracket(d time.Duration) (Frequency, error) {
	if err := checkDuration(d); err != nil {
		return Frequency{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	k := kernelReading{clocksource: readClocksource(sysRoot)}
	o, err := open(k.clockFollowsCounter(tsc.Counter()))
	if err != nil {
		return Frequency{}, err
	}
	return o.closeAt(d)
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
// f.Hz by more than f's uncertainty plus the other figure's own (plus
// 1 ppm). Figures that state the TSC's nominal rate (the kernel's, CPUID
// 0x15, the hypervisor leaf) are converted to ticks per second of the
// monotonic clock with the kernel's NTP adjustment where that clock is
// computed from the TSC and the adjustment can be read. It reads the
// kernel's files and, under a hypervisor, executes no CPUID (cpu carries
// the leaves): about 0.1 ms.
func AddCrossChecks(f *Frequency, cpu CPU) {
	addCrossChecks(f, cpu, readKernel(sysRoot, readDiscipline))
}

func addCrossChecks(f *Frequency, cpu CPU, k kernelReading) {
	add := func(src string, hz, ppm float64) {
		if hz <= 0 {
			return
		}
		cc := CrossCheck{Source: src, Hz: hz, DiffPPM: (hz - f.Hz) / f.Hz * 1e6, PPM: ppm}
		f.CrossChecks = append(f.CrossChecks, cc)
		if tol := f.PPM + ppm + 1; math.Abs(cc.DiffPPM) > tol && f.Method != MethodSleep {
			f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s says %.0f Hz, %+.1f ppm from the %s figure (tolerance %.1f ppm)", ErrDisagree, src, hz, cc.DiffPPM, f.Method, tol))
		}
	}
	if cpu.Counter == tsc.CounterRDTSC {
		ratio, slew, note := 1.0, 0.0, ""
		if k.discErr == nil && k.clockFollowsCounter(cpu.Counter) {
			if ratio, slew = k.disc.rate(); ratio != 1 || slew != 0 {
				note = " (" + k.disc.String() + ")"
			}
		}
		if k.err == nil && f.Method != MethodKernel {
			add("kernel: "+k.source+note, k.hz/ratio, kernelFigureKHz*1e3/k.hz*1e6+slew)
		}
		add("CPUID 0x15 (crystal × ratio)"+note, cpu.CPUID15Hz/ratio, 1+slew)
		add("CPUID 0x40000010 (hypervisor)"+note, cpu.HypervisorTSCHz/ratio, 1000/math.Max(cpu.HypervisorTSCHz, 1)*1e6+slew)
	}
	if a, ok := Architected(); ok && f.Method != a.Method {
		add(a.Source, a.Hz, 0)
	}
}
