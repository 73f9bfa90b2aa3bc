package harness

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// Measure measures f as [Config] describes and returns per-call figures.
// It runs the measurement on a new goroutine locked to its OS thread, so
// the caller's thread is left as it was; f is called only from that
// goroutine. An error is returned for a bad Config, a nil f, a panic or
// runtime.Goexit in f, a cancelled context, or a failed calibration; with
// a cancelled context the Result holds what was measured so far.
func Measure(cfg Config, f func()) (Result, error) {
	if f == nil {
		return Result{}, ErrNilFunc
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	var res Result
	looped := false
	abandoned, err := runPinned(cfg, func(base Result, cal *calibrate.Calibration) error {
		base.Name = cfg.Name
		var err error
		res, err = loop(cfg, f, cal, base)
		looped = true
		return err
	})
	if abandoned || !looped {
		// The realtime guard gave up on f (which may still be running and
		// writing res), or f panicked or exited before a result existed.
		return Result{Name: cfg.Name}, err
	}
	return res, err
}

// runPinned runs body on a new goroutine locked to its OS thread, pinned,
// at the priority cfg asks for, with the GC off, as [Measure] does, and
// restores everything afterwards, also when a measured function panics or
// calls runtime.Goexit. base carries the CPU, the priority obtained and the
// warnings of pinning and calibration. A realtime run is watched by the
// same guard as Measure's; when it trips, runPinned returns its error
// (wrapping [ErrRealtimeLimit]) and abandoned true: the measuring
// goroutine is still running and nothing it writes may be read.
func runPinned(cfg Config, body func(base Result, cal *calibrate.Calibration) error) (abandoned bool, err error) {
	guard := newRTGuard(cfg)
	done := make(chan error, 1)
	go func() {
		var err error
		finished := false
		defer func() {
			if !finished {
				if r := recover(); r != nil {
					err = fmt.Errorf("%w: %v", ErrPanic, r)
				} else {
					err = ErrGoexit
				}
			}
			done <- err
		}()
		err = pinnedBody(cfg, body, guard)
		finished = true
	}()
	select {
	case err := <-done:
		return false, err
	case err := <-guard.tripped():
		return true, err
	}
}

func pinnedBody(cfg Config, body func(base Result, cal *calibrate.Calibration) error, guard *rtGuard) error {
	base := Result{CPU: -1, Priority: affinity.PriorityNormal.String()}
	prio := affinity.PriorityHigh
	switch {
	case cfg.Realtime:
		prio = affinity.PriorityRealtime
	case cfg.KeepPriority:
		prio = affinity.PriorityNormal
	}
	pinned, err := affinity.Pin(affinity.Options{CPU: cfg.CPU, Priority: prio, RTTimeLimit: cfg.RTTimeLimit})
	switch {
	case err == nil:
		defer guard.watch(pinned)() // pinned.Restore, under the realtime guard when there is one
		base.CPU, base.Priority = pinned.CPU, pinned.Priority.String()
		base.Warnings = append(base.Warnings, pinned.Warnings...)
	case errors.Is(err, errors.ErrUnsupported):
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		base.Warnings = append(base.Warnings, fmt.Errorf("%w: %v", ErrUnpinned, err))
	default:
		return err
	}
	if prio != affinity.PriorityNormal && pinned != nil && pinned.Priority < prio {
		base.Warnings = append(base.Warnings, fmt.Errorf("harness: priority %s asked, %s obtained", prio, pinned.Priority))
	}
	cal := cfg.Calibration
	if cal == nil {
		if cal, err = calibrate.Get(); err != nil {
			return err
		}
	}
	base.Warnings = append(base.Warnings, cal.Warnings...)
	if !cfg.KeepGC {
		runtime.GC()
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
	}
	return body(base, cal)
}

// empty is the function whose timing loop is subtracted as overhead.
func empty() {}

// sample times r calls of f in one region. It is not inlined, so f stays an
// opaque func value and the target and the empty function run the very
// same machine code. ok is false when the region straddled CPUs or ran on
// a CPU other than cpu (when cpu ≥ 0 and the counter reports CPUs).
//
//go:noinline
func sample(f func(), r int, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	a, auxA := tsc.StartCPU()
	// Unrolled by four: Go keeps no register across a call, so the loop
	// counter is spilled and reloaded around every call; one update per
	// four calls keeps that store-to-load chain off the critical path.
	for i := r >> 2; i > 0; i-- {
		f()
		f()
		f()
		f()
	}
	for i := r & 3; i > 0; i-- {
		f()
	}
	b, auxB := tsc.StopCPU()
	if auxA != auxB || b < a || (checkCPU && tsc.AuxCPU(auxB) != cpu) {
		return 0, false
	}
	return b - a, true
}

// sampleChain times one ADD chain of n links.
//
//go:noinline
func sampleChain(n int, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	a, auxA := tsc.StartCPU()
	s := chain.Add(n)
	b, auxB := tsc.StopCPU()
	runtime.KeepAlive(s)
	if auxA != auxB || b < a || (checkCPU && tsc.AuxCPU(auxB) != cpu) {
		return 0, false
	}
	return b - a, true
}

// stream is one K-best series of samples.
type stream struct {
	kb        *stats.KBest
	discarded int
	taken     int
}

func newStream(cfg Config, absTicks float64) (*stream, error) {
	kb, err := stats.NewKBest(cfg.K, cfg.Epsilon, absTicks, cfg.MaxSamples)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return &stream{kb: kb}, nil
}

func (s *stream) add(t uint64, ok bool) {
	s.taken++
	if !ok {
		s.discarded++
		return
	}
	s.kb.Add(float64(t))
}

// refEpsilon caps the relative tolerance of the reference-chain streams.
const refEpsilon = 0.002

// maxRecorded bounds the per-sample record kept for Result.Summary.
const maxRecorded = 100_000

func loop(cfg Config, f func(), cal *calibrate.Calibration, res Result) (Result, error) {
	step := cal.Step.Step
	if step < 1 {
		step = 1
	}
	cpu := res.CPU
	checkCPU := cpu >= 0 && tsc.HasAux() && runtime.GOOS == "linux"
	absTicks := cfg.absTicks(step)
	res.Step = step
	res.TicksPerSecond = cal.Frequency.Hz
	res.FrequencySource = cal.Frequency.Method + ": " + cal.Frequency.Source
	res.Elements = cfg.Elements

	// Warm up: page in code and data, let the core clock settle.
	warm := time.Now()
	for first := true; first || time.Since(warm) < cfg.Warmup; first = false {
		if cfg.Setup != nil {
			cfg.Setup()
		}
		f()
		empty()
	}
	if !cfg.NoCycles {
		runtime.KeepAlive(chain.Add(100_000))
	}

	minRegion := cfg.MinRegionSteps * step
	r := cfg.Repeat
	if r == 0 {
		r = chooseRepeat(f, minRegion, cpu, checkCPU)
	}
	res.Repeat = r
	if cfg.Setup != nil {
		cfg.Setup()
		if t, ok := sample(f, 1, cpu, checkCPU); ok && float64(t) < minRegion {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: one call spans %.0f ticks (%.0f steps), fewer than %.0f, and Setup prevents repeating it", ErrTooShort, float64(t), float64(t)/step, cfg.MinRegionSteps))
		}
	}

	target, err := newStream(cfg, absTicks)
	if err != nil {
		return res, err
	}
	over, _ := newStream(cfg, absTicks)
	// The reference chain is the ruler for every cycle figure, so it is held
	// to a tighter tolerance than the target: ε at most refEpsilon.
	refCfg := cfg
	refCfg.Epsilon = math.Min(cfg.Epsilon, refEpsilon)
	short, _ := newStream(refCfg, absTicks)
	long, _ := newStream(refCfg, absTicks)
	const shortLen = 256
	longLen := shortLen + int(math.Ceil(minRegion*math.Max(cal.Core.CyclesPerTick, 0.1)))

	recorded := make([]float64, 0, min(cfg.MaxSamples, maxRecorded))
	hz := cal.Frequency.Hz
	progressEvery := uint64(0.05 * hz)
	// CPU time and utilisation are read around the whole sampling loop,
	// never inside a timed region: see cpuFigures.
	// The thread-CPU interval lies inside the wall interval, which lies
	// inside the utilisation interval.
	util, utilErr := cputime.StartUtilisation()
	start := time.Now()
	cpuStart, cpuErr := cputime.Thread()
	lastProgress := tsc.Read()
	refDone := func() bool {
		return cfg.NoCycles || (short.kb.Converged() && long.kb.Converged())
	}
	var cancelled error
	for round := 0; ; round++ {
		// At least one round is always taken, so that a time limit yields a
		// result that says it did not converge rather than no result.
		if target.taken >= cfg.MaxSamples || (round > 0 && time.Since(start) > cfg.MaxTime) {
			break
		}
		if target.kb.Converged() && over.kb.Converged() && refDone() {
			break
		}
		if err := cfg.Context.Err(); err != nil {
			cancelled = err
			break
		}
		// Every stream is sampled in every round, to the end: the overhead
		// and the ruler must come from the same moments as the target (the
		// core clock drifts by percents between idle and busy periods).
		// The order alternates between rounds (ABBA) so that a slow drift
		// affects them alike.
		for i := 0; i < 4; i++ {
			k := i
			if round%2 == 1 {
				k = 3 - i
			}
			switch k {
			case 0:
				if cfg.Setup != nil {
					cfg.Setup()
				}
				t, ok := sample(f, r, cpu, checkCPU)
				target.add(t, ok)
				if ok && len(recorded) < cap(recorded) {
					recorded = append(recorded, float64(t))
				}
			case 1:
				over.add(sample(empty, r, cpu, checkCPU))
			case 2:
				if !cfg.NoCycles {
					short.add(sampleChain(shortLen, cpu, checkCPU))
				}
			case 3:
				if !cfg.NoCycles {
					long.add(sampleChain(longLen, cpu, checkCPU))
				}
			}
		}
		if cfg.Progress != nil {
			if now := tsc.Read(); now-lastProgress >= progressEvery {
				lastProgress = now
				cfg.Progress(Progress{Name: cfg.Name, Samples: target.taken, Max: cfg.MaxSamples, Spread: target.kb.Spread(), Elapsed: time.Since(start), Converged: target.kb.Converged()})
			}
		}
	}
	cpuEnd, cpuEndErr := cputime.Thread()
	res.Wall = time.Since(start)
	res.Samples, res.Discarded = target.taken, target.discarded
	res.Calls = int64(target.taken) * int64(r)
	res.Warnings = append(res.Warnings, cpuFigures(&res, cpuStart, cpuEnd, errors.Join(cpuErr, cpuEndErr), util, utilErr)...)
	res.Converged = target.kb.Converged()
	res.OverheadConverged = over.kb.Converged()
	res.Best = target.kb.Best()
	res.Spread = target.kb.Spread()
	res.OverheadTicks = over.kb.Min()
	if target.kb.Kept() == 0 || over.kb.Kept() == 0 {
		if cancelled != nil {
			return res, fmt.Errorf("harness: measurement cancelled: %w", cancelled)
		}
		return res, fmt.Errorf("harness: no usable sample in %d taken (%d discarded as CPU migrations)", target.taken, target.discarded)
	}
	res.Ticks = (target.kb.Min() - res.OverheadTicks) / float64(r)
	res.Nanoseconds = res.Ticks / hz * 1e9

	if !cfg.NoCycles {
		res.ReferenceConverged = refDone()
		if long.kb.Kept() > 0 && short.kb.Kept() > 0 && long.kb.Min() > short.kb.Min() {
			res.CyclesPerTick = float64(longLen-shortLen) / (long.kb.Min() - short.kb.Min())
		} else {
			res.CyclesPerTick = cal.Core.CyclesPerTick
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: the reference chain gave no usable slope; the calibration's %.4f cycles/tick is used", ErrNoCycles, cal.Core.CyclesPerTick))
		}
		if !res.ReferenceConverged {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: the reference chain did not converge; the cycle estimate is less certain", ErrNoCycles))
		}
		if !chain.Exact() {
			res.Warnings = append(res.Warnings, fmt.Errorf("%w: the reference chain is the pure-Go fallback on this build; cycles are approximate", ErrNoCycles))
		}
		res.Cycles = res.Ticks * res.CyclesPerTick
	}
	if cfg.Elements > 0 {
		res.TicksPerElement = res.Ticks / cfg.Elements
		res.NsPerElement = res.Nanoseconds / cfg.Elements
		res.CyclesPerElement = res.Cycles / cfg.Elements
	}
	for i, v := range recorded {
		recorded[i] = (v - res.OverheadTicks) / float64(r)
	}
	if s, err := stats.Summarize(recorded, 0.1, 0.9); err == nil {
		res.Summary = s
	}
	if !res.Converged {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: spread of the %d best is %.3g%% after %d samples in %v (ε %.3g%%)", ErrNotConverged, cfg.K, res.Spread*100, res.Samples, res.Wall.Round(time.Millisecond), cfg.Epsilon*100))
	}
	if res.Samples > 0 && float64(res.Discarded) > 0.1*float64(res.Samples) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %d of %d samples (%.0f%%) straddled CPUs", ErrDiscards, res.Discarded, res.Samples, 100*float64(res.Discarded)/float64(res.Samples)))
	}
	res.Config = cfg
	res.Config.Setup, res.Config.Progress, res.Config.Context, res.Config.Calibration = nil, nil, nil, nil
	if cancelled != nil {
		return res, fmt.Errorf("harness: measurement cancelled: %w", cancelled)
	}
	return res, nil
}

// cpuFigures fills res's thread-CPU, per-call and utilisation figures from
// readings taken around the sampling loop (res.Wall and res.Calls are set)
// and returns the warnings they call for: a figure that could not be read,
// and ErrBlocks when the thread ran for less than MinCPUShare of the wall
// time. It runs after the loop, so nothing here touches a timed region.
func cpuFigures(res *Result, before, after cputime.Times, cpuErr error, util *cputime.Sampler, utilErr error) []error {
	var warns []error
	switch {
	case cpuErr != nil:
		warns = append(warns, fmt.Errorf("harness: no thread cpu time for the sampling loop: %w", cpuErr))
	case before.Source != after.Source:
		warns = append(warns, fmt.Errorf("harness: no thread cpu time for the sampling loop: the source changed from %s to %s", before.Source, after.Source))
	case after.Total < before.Total:
		warns = append(warns, fmt.Errorf("harness: no thread cpu time for the sampling loop: %s went backwards (%v to %v)", before.Source, before.Total, after.Total))
	default:
		res.ThreadCPU = after.Total - before.Total
		res.ThreadCPUSource = string(before.Source)
	}
	if res.Calls > 0 {
		res.WallNsPerCall = float64(res.Wall.Nanoseconds()) / float64(res.Calls)
		if res.ThreadCPUSource != "" {
			res.ThreadCPUNsPerCall = float64(res.ThreadCPU.Nanoseconds()) / float64(res.Calls)
			if res.ThreadCPUNsPerCall < MinCPUShare*res.WallNsPerCall {
				warns = append(warns, fmt.Errorf("%w: the measuring thread ran %s of cpu time per call in %s of wall time (%.3g%%, under %.0f%%) over the %d calls of the sampling loop",
					ErrBlocks, time.Duration(res.ThreadCPUNsPerCall).String(), time.Duration(res.WallNsPerCall).String(), 100*res.ThreadCPUNsPerCall/res.WallNsPerCall, 100*MinCPUShare, res.Calls))
			}
		}
	}
	if utilErr != nil {
		return append(warns, fmt.Errorf("harness: no cpu utilisation for the sampling loop: %w", utilErr))
	}
	u, err := util.Stop()
	if err != nil {
		return append(warns, fmt.Errorf("harness: no cpu utilisation for the sampling loop: %w", err))
	}
	res.Utilisation = u
	return warns
}

// chooseRepeat doubles R from 1 until the best of three samples of R calls
// spans minRegion ticks, then scales R to reach it.
func chooseRepeat(f func(), minRegion float64, cpu int, checkCPU bool) int {
	r := 1
	for {
		best := math.Inf(1)
		for i := 0; i < 3; i++ {
			if t, ok := sample(f, r, cpu, checkCPU); ok && float64(t) < best {
				best = float64(t)
			}
		}
		if best >= minRegion {
			return r
		}
		if r >= MaxRepeat {
			return MaxRepeat
		}
		if best >= minRegion/4 && !math.IsInf(best, 1) {
			return min(MaxRepeat, int(math.Ceil(float64(r)*minRegion/best)))
		}
		r *= 2
	}
}
