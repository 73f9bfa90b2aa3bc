package harness

// The one sampling engine behind Measure, CPE, Compare and Report:
// warm-up, the choice of R, the interleaved target, overhead and ruler
// streams and the stopping rule. Its decisions are the pure functions of
// decide.go; the Result is built in result.go.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// empty is the function whose timing loop is subtracted as overhead.
func empty() {}

// sample times r calls of f back to back in one region (throughput mode).
// It is not inlined, so f stays an opaque func value and the target and
// the empty function run the very same machine code. ok is false when the
// region straddled CPUs or ran on a CPU other than cpu (when checkCPU).
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

// sampleFenced times r calls of f, each after a serializing fence, in one
// region (latency mode): a call cannot begin before the previous one has
// completed, so nothing overlaps.
//
//go:noinline
func sampleFenced(f func(), r int, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	a, auxA := tsc.StartCPU()
	for i := r; i > 0; i-- {
		tsc.Fence()
		f()
	}
	b, auxB := tsc.StopCPU()
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
	hw        hwCounts // the best sample's hardware counts (Config.Events)
}

func newStream(k int, eps, absTol float64, maxSamples int) (*stream, error) {
	kb, err := stats.NewKBest(k, eps, absTol, maxSamples)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return &stream{kb: kb}, nil
}

func (s *stream) add(v float64, ok bool) {
	s.taken++
	if !ok {
		s.discarded++
		return
	}
	s.kb.Add(v)
}

// done reports whether s needs no more samples.
func (s *stream) done(maxSamples int) bool {
	return s.kb.Converged() || s.taken >= maxSamples
}

// rulerShort is the ruler's short ADD chain in links: long enough to hold
// the timing's fixed cost, short enough to cost nothing.
const rulerShort = 256

// imulShare is the share of the ADD chain's span (beyond the short chain)
// that the IMUL chain spans: it checks a ratio to DefaultRulerThresholds'
// 10%, so a span of a thousand counter quanta (a quarter of the
// DefaultMinRegionSteps the ADD chain spans) resolves it a hundred times
// over, for about 5% more sampling time per round.
const imulShare = 0.25

// tracer, when set (by the recording test, see trace_test.go), receives
// every sample the engine takes, for estimators to be replayed offline.
var tracer func(traceSample)

// traceSample is one sample of a measurement: its round, its kind (T a
// target's, O the overhead's, R the ruler's), which target (T) or ruler
// stream (R) it belongs to, its length N (R calls, or the chain's links),
// its ticks and whether it was kept (false: a migration or a disturbance).
type traceSample struct {
	Round int
	Kind  byte
	Index int
	N     int
	Ticks uint64
	OK    bool
}

// rulerChains, when set (by tests), replaces the ruler's ADD and IMUL
// chains: a ruler that lies must be refused.
var rulerChains struct{ add, imul func(uint64, int) uint64 }

// refEpsilon caps the relative tolerance of the reference-chain streams.
// Every cycle figure is the target's ticks times the ruler's cycles per
// tick, so the ruler's error goes into every figure in full: at 0.2% the
// ruler alone spread ten Measures of one kernel over 0.2% while their ticks
// agreed within 0.05% (AMD Zen 4 guest). Two counter quanta of the ruler's
// long chain (AbsSteps) is the floor that lets it converge.
const refEpsilon = 0.0005

// maxRecorded bounds the per-sample record kept for the summary, the
// two-cluster check and the quantum re-check.
const maxRecorded = 100_000

// rawSample is one accepted target sample: its ticks and the index of the
// R variant it timed.
type rawSample struct {
	ticks   uint64
	variant int
}

// target is one function of the engine's loop.
type target struct {
	inst    Target
	r       int   // the base R
	rs      []int // the R of each variant, sampled in turn
	forced  bool  // R was not chosen for this target alone
	quantum float64
	need    float64        // ticks a sample should span
	cut     bool           // the choice of R stopped on MaxTime or the context
	kb      *stats.KBest   // gross ticks per call, every variant
	vmin    []float64      // smallest sample of each variant, in ticks
	overs   []*stream      // the overhead subtracted from each variant (overheadRepeat)
	taken   int            // samples taken since the last retune
	discard int            // of which discarded
	calls   int64          // calls timed, every retune included
	raw     []rawSample    // accepted samples, up to maxRecorded
	retunes int            // times R was lengthened after the samples showed a coarser quantum
	last    rawSample      // the smaller usable sample of this round
	lastOK  bool           // last is set
	pairs   [][2]rawSample // Compare's pairs (only on the first target)
	dist    Disturbances   // samples discarded by cause
	hw      hwCounts       // the best sample's hardware counts
	half    [2]halfRecord  // best samples of the even and the odd rounds (converge.go)
	agree   bool           // the halves' cycle figures agree (halvesAgree)
	apart   float64        // how far apart they are, relative; NaN without both
}

// engine measures one or more targets interleaved, with one ruler.
type engine struct {
	cfg      Config
	ctx      context.Context
	name     string         // names the measurement in Progress
	progress func(Progress) // the context's hook (WithProgress), or nil
	cal      *calibrate.Calibration
	th       *pinned.Thread
	cpu      int
	checkCPU bool
	step, hz float64
	sampler  func(f func(), r int, cpu int, checkCPU bool) (uint64, bool)
	mon      *monitor
	commonR  bool
	targets  []*target
	overs    map[int]*stream // the overhead streams, by their R (overheadRepeat)
	ruler    *calibrate.Ruler
	rstreams []calibrate.RulerStream // the ruler's streams, sampled every round
	rulerQ   float64                 // the counter quantum the long chain was sized for
	rulerBuf []uint64                // the long chain's first samples, for checkRulerQuantum
	half     [2]halfRecord           // the overhead's and the ruler's best samples by half (converge.go)
	rounds   int
	wall     time.Duration
	verdict  calibrate.CoreClock // the ruler's verdict (finishRuler)
	cpt      float64             // core cycles per tick, from the ruler; 0 when refused
	cptFrom  string              // cyclesRuler, or cyclesCalibration when the ruler gave no slope
	checked  bool                // a second chain checked cpt
	refOK    bool                // both ADD streams converged
	warnings []error             // the loop's own: pinning, calibration, ruler, CPU share

	// The wait for the ruler's chains to agree (decideSettle): settleFrom
	// is the loop's elapsed time when it began (−1: never), settleWait how
	// long it lasted.
	settleFrom, settleWait time.Duration

	// CPU time and utilisation of the whole loop.
	threadCPU    time.Duration
	threadSource string
	util         cputime.Utilisation
}

// measureTargets is how every measurement runs: check cfg, pin a thread
// (internal/pinned), build the engine for insts there and take rounds
// until the stopping rule says so; name labels its progress reports. The
// caller reads the results from the engine returned (nil when none was
// built). extra, when not nil, keeps the loop going while it returns true. abandoned reports a tripped realtime guard:
// the engine must not be read.
func measureTargets(ctx context.Context, cfg Config, name string, insts []Target, commonR bool, extra func(*engine) bool, progress func(*engine) (int, int)) (e *engine, abandoned bool, err error) {
	cfg, err = cfg.WithDefaults()
	if err != nil {
		return nil, false, err
	}
	if ctx == nil {
		return nil, false, fmt.Errorf("%w: nil context (allowed: any context, such as context.Background())", ErrBadConfig)
	}
	abandoned, err = pinned.Run(pinned.Options{CPU: cfg.CPU, Priority: cfg.priority(), RTTimeLimit: cfg.RTTimeLimit, KeepGC: cfg.KeepGC}, func(th *pinned.Thread) error {
		// The counters count this thread; the Config.Events group is
		// opened beside the calibration and the warm-up (a perf_event_open
		// can take 15 ms).
		monc := make(chan *monitor, 1)
		tid := affinity.ThreadID()
		go func() { monc <- newMonitor(cfg, tid) }()
		var mon *monitor
		defer func() {
			if mon == nil { // no engine (an error or a panic): wait for the groups to close them
				mon = <-monc
			}
			mon.close()
		}()
		cal := cfg.Calibration
		if cal == nil {
			var err error
			if cal, err = calibrate.Get(); err != nil {
				return err
			}
		}
		var err error
		e, err = newEngine(ctx, cfg, cal, th, insts, commonR)
		mon = <-monc
		if err != nil {
			e = nil
			return err
		}
		e.mon = mon
		e.name, e.progress = name, progressOf(ctx)
		e.warnings = append(e.warnings, mon.warnings...)
		return e.run(extra, progress)
	})
	if errors.Is(err, pinned.ErrGoexit) {
		err = goexitError{}
	}
	if abandoned {
		return nil, true, err
	}
	return e, false, err
}

// goexitError is a runtime.Goexit in the measured function, reported as
// ErrPanic: to the caller both end the measurement the same way.
type goexitError struct{}

func (goexitError) Error() string   { return "harness: measured function called runtime.Goexit" }
func (goexitError) Unwrap() []error { return []error{ErrPanic, pinned.ErrGoexit} }

// newEngine warms the functions up, chooses each one's R and makes the
// streams. With commonR every target gets the largest R (1 when any has a
// Setup), so one overhead serves all and their samples pair up. It runs
// on the pinned thread.
func newEngine(ctx context.Context, cfg Config, cal *calibrate.Calibration, th *pinned.Thread, insts []Target, commonR bool) (*engine, error) {
	e := &engine{cfg: cfg, ctx: ctx, cal: cal, th: th, cpu: th.CPU, step: math.Max(cal.Step.Step, 1), hz: cal.Frequency.Hz, commonR: commonR, overs: map[int]*stream{}, settleFrom: -1}
	e.half = [2]halfRecord{newHalfRecord(), newHalfRecord()}
	e.checkCPU = e.cpu >= 0 && tsc.HasAux() && runtime.GOOS == "linux"
	e.sampler = sample
	if cfg.Mode == Latency {
		e.sampler = sampleFenced
	}
	e.warnings = append(e.warnings, th.Warnings...)
	e.warnings = append(e.warnings, cal.Warnings...)

	// Warm up: page in code and data, let the core clock settle.
	warm := time.Now()
	for first := true; first || time.Since(warm) < cfg.Warmup; first = false {
		for _, in := range insts {
			if in.Setup != nil {
				in.Setup()
			}
			in.Run()
		}
		empty()
	}
	if !cfg.NoCycles {
		runtime.KeepAlive(chain.Add(100_000))
		runtime.KeepAlive(chain.Imul(30_000))
	}

	need := 0.0
	for _, in := range insts {
		t := &target{inst: in}
		switch {
		case in.Setup != nil:
			t.r, t.forced = 1, true
			t.quantum = e.step
			t.need = e.step * regionSteps(cfg.MinRegionSteps, cfg.Epsilon)
		case cfg.Repeat > 0:
			t.r, t.forced = cfg.Repeat, true
			t.quantum = e.step
			t.need = e.step * regionSteps(cfg.MinRegionSteps, cfg.Epsilon)
		default:
			d := e.chooseRepeat(in.Run)
			t.r, t.quantum, t.need, t.cut = d.R, d.Quantum, d.Need, !d.Done
		}
		need = math.Max(need, t.need)
		e.targets = append(e.targets, t)
	}
	if commonR {
		e.alignRepeats()
	}
	for _, t := range e.targets {
		if err := e.reset(t); err != nil {
			return nil, err
		}
	}
	if cfg.NoCycles {
		return e, nil
	}
	e.rulerQ = e.step
	for _, t := range e.targets {
		e.rulerQ = math.Max(e.rulerQ, t.quantum)
	}
	lat, _ := cal.CPU.ImulLatency()
	ro := calibrate.RulerOptions{
		AddShort: rulerShort, ImulLatency: lat, CounterHz: e.hz,
		K: cfg.K, Epsilon: math.Min(cfg.Epsilon, refEpsilon), AbsTicks: cfg.absTicks(e.step), MaxSamples: cfg.MaxSamples,
		Add: rulerChains.add, Imul: rulerChains.imul,
	}
	ro.AddLong, ro.ImulShort, ro.ImulLong = e.rulerLengths(need)
	if lat <= 0 {
		// Nothing documents the multiply here: the IMUL chain could
		// check nothing, so it is not sampled.
		ro.ImulShort, ro.ImulLong = 0, 0
	}
	var err error
	if e.ruler, err = calibrate.NewRuler(ro); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	e.rstreams = e.ruler.Streams()
	e.rulerBuf = make([]uint64, 0, probeSamples)
	return e, nil
}

// linksPerTick is how many links of the register ADD chain run per counter
// tick, as the calibration measured it (whether or not its ruler was
// accepted: this only sizes the chains), for sizing the ruler's chains.
func (e *engine) linksPerTick() float64 {
	if a := e.cal.Core.AddTicksPerOp; a > 0 && !math.IsInf(a, 0) {
		return 1 / a
	}
	return math.Max(e.cal.Core.CyclesPerTick, 0.1)
}

// rulerLengths returns the long ADD chain that spans need ticks beyond the
// short one, and the IMUL chain's short and long lengths, which span the
// short ADD chain's ticks and imulShare of need beyond it, at three cycles
// a link (the exact latency does not matter for sizing).
func (e *engine) rulerLengths(need float64) (addLong, imulShort, imulLong int) {
	lpt := e.linksPerTick()
	addLong = rulerShort + int(math.Ceil(need*lpt))
	imulShort = rulerShort / 3
	imulLong = imulShort + int(math.Ceil(imulShare*need*lpt/3))
	return addLong, imulShort, max(imulLong, imulShort+1)
}

// sizeRuler lengthens the ruler's long chains to span need ticks beyond the
// short ones (never shortens them); the streams whose length changed start
// again.
func (e *engine) sizeRuler(need float64) {
	if e.ruler == nil {
		return
	}
	addLong, _, imulLong := e.rulerLengths(need)
	if e.ruler.Resize(max(addLong, e.ruler.Ops(calibrate.AddLong)), max(imulLong, e.ruler.Ops(calibrate.ImulLong))) {
		for p := range e.half {
			e.half[p].resetRuler()
		}
	}
}

// checkRulerQuantum lengthens the ruler when its long chain's first
// probeSamples samples show a coarser counter quantum than it was sized
// for: the step detection can miss one, and a ruler of 4000 ticks on a
// 26-tick counter is good to 0.65% only (seen: cycles per tick flipping
// between 1.3972 and 1.4040 from one Measure to the next). The samples are
// the loop's own (two a round), so the check costs no sampling before the
// first round; a lengthened chain starts its stream again, in the first
// rounds of the at least minRounds a measurement takes.
func (e *engine) checkRulerQuantum(v uint64, ok bool) {
	if !ok || cap(e.rulerBuf) == 0 {
		return
	}
	e.rulerBuf = append(e.rulerBuf, v)
	if len(e.rulerBuf) < probeSamples {
		return
	}
	q := sampleQuantum(e.rulerBuf)
	e.rulerBuf = nil // checked once
	if q > e.rulerQ && !multipleOf(q, e.rulerQ) {
		e.rulerQ = q
		e.sizeRuler(q * regionSteps(e.cfg.MinRegionSteps, e.cfg.Epsilon))
	}
}

// alignRepeats gives every target the largest R and quantum among them (R
// 1 when any has a Setup).
func (e *engine) alignRepeats() {
	r, q, need, setup := 1, 0.0, 0.0, false
	for _, t := range e.targets {
		r, q, need = max(r, t.r), math.Max(q, t.quantum), math.Max(need, t.need)
		setup = setup || t.inst.Setup != nil
	}
	if setup {
		r = 1
	}
	for _, t := range e.targets {
		t.forced = t.forced || t.r != r
		t.r, t.quantum, t.need = r, q, need
	}
}

// chooseRepeat probes f at growing R until [decideRepeat] says R is final,
// or until MaxTime has passed or the context is cancelled (then the last R
// stands, and the result warns that its samples are short).
func (e *engine) chooseRepeat(f func()) repeatDecision {
	r := 1
	buf := make([]uint64, 0, probeSamples)
	start := time.Now()
	// q carries the coarsest quantum any probe has shown: at the final R
	// the noise can hide a quantum that shorter samples showed plainly.
	q := e.step
	for {
		buf = buf[:0]
		for i := 0; i < probeSamples; i++ {
			if t, ok := e.sampler(f, r, e.cpu, e.checkCPU); ok {
				buf = append(buf, t)
				// A first sample far longer than needed settles R = 1
				// without probing a slow kernel eight times.
				if r == 1 && i == 0 && float64(t) >= longProbe*q*regionSteps(e.cfg.MinRegionSteps, e.cfg.Epsilon) {
					break
				}
			}
		}
		d := decideRepeat(r, buf, q, e.cal.Overhead.Median, e.cfg.MinRegionSteps, e.cfg.Epsilon)
		q = d.Quantum
		if d.Done {
			return d
		}
		if time.Since(start) > e.cfg.MaxTime || e.ctx.Err() != nil {
			d.R = r
			return d
		}
		r = d.R
	}
}

// reset (re)starts t's streams for its current R.
func (e *engine) reset(t *target) error {
	cfg := e.cfg
	t.rs = repeatVariants(t.r, cfg.Mode)
	if t.inst.Setup != nil {
		t.rs = []int{1}
	}
	kb, err := stats.NewKBest(cfg.K, cfg.Epsilon, cfg.absTicks(t.quantum)/float64(t.r), cfg.MaxSamples)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	t.kb = kb
	t.vmin = make([]float64, len(t.rs))
	t.overs = make([]*stream, len(t.rs))
	for j, r := range t.rs {
		t.vmin[j] = math.Inf(1)
		orep := overheadRepeat(r, cfg.Mode)
		if t.overs[j] = e.overs[orep]; t.overs[j] == nil {
			if t.overs[j], err = newStream(cfg.K, cfg.Epsilon, cfg.absTicks(t.quantum), cfg.MaxSamples); err != nil {
				return err
			}
			e.overs[orep] = t.overs[j]
		}
	}
	t.taken, t.discard = 0, 0
	t.half = [2]halfRecord{newHalfRecord(), newHalfRecord()}
	t.agree, t.apart = false, math.NaN()
	t.raw = make([]rawSample, 0, min(cfg.MaxSamples, maxRecorded))
	t.pairs = nil
	return nil
}

// busy reports whether any target still needs samples (see run: every
// stream is sampled until all are done).
func (e *engine) busy() bool {
	for _, t := range e.targets {
		if !e.converged(t) && t.taken < e.cfg.MaxSamples {
			return true
		}
	}
	return false
}

// allConverged reports whether every target has converged.
func (e *engine) allConverged() bool {
	return !slices.ContainsFunc(e.targets, func(t *target) bool { return !e.converged(t) })
}

// exhausted reports whether a target has taken MaxSamples samples.
func (e *engine) exhausted() bool {
	return slices.ContainsFunc(e.targets, func(t *target) bool { return t.taken >= e.cfg.MaxSamples })
}

// slot kinds of a round.
const (
	slotTarget = iota
	slotOverhead
	slotRuler
)

type slot struct {
	kind int
	t    *target
	s    *stream               // the overhead stream of slotOverhead
	r    int                   // its R
	rs   calibrate.RulerStream // the ruler's stream of slotRuler
}

// run takes rounds until [decideStop] says so. A round visits the targets
// there and back with the ruler's long chain at the turn (A B L B A for two;
// T L T for one), each in the round's R variant, then the overhead (the
// empty region in throughput mode, the fenced empty loop in latency mode:
// overheadRepeat) and the ruler (O S L); every other round runs backwards
// and starts from the other end (L S O B A L A B), so each target takes the
// first, the outer and the inner places equally often. The long chain is
// sampled twice a round, as often as each target: the core clock steps
// between rates (by 0.7% on an AMD Zen 4 guest) from one sample to the next,
// and with one ruler sample to two target samples the target's best more
// often came from a faster step than the ruler's (1000 fenced IMULs read
// 2978–2984 cycles instead of 3000). In three interleaved A/B runs of 330
// measurements each way (1000 dependent IMULs and 1000 ADDs, half of them
// fenced), 53 figures were more than 5 cycles (IMUL) or 3 cycles (ADD) off
// with one ruler sample a round and 21 with two, in about the same time.
// Each target sample of a multi-target round is preceded by one untimed
// call (or Setup): the other targets may have evicted its code and data. Every stream is sampled in
// every round until all have converged (or reached MaxSamples), so that all
// best samples come from the same stretch of time: the core clock moves by
// percents between busy and idle moments, and a ruler that went on alone
// after the target had converged caught a faster moment the target never saw
// (a 1000-ADD kernel then read 1009.6 cycles against 1001.5). extra, when
// not nil, keeps the rounds going (Compare's pairs); progress gives the
// (done, total) reported to the progress hook.
func (e *engine) run(extra func(*engine) bool, progress func(*engine) (int, int)) error {
	cfg := e.cfg
	progressEvery := uint64(0.05 * e.hz)
	lastProgress := tsc.Read()
	// CPU time and utilisation are read around the whole loop, never
	// inside a timed region: the thread-CPU interval lies inside the wall
	// interval, which lies inside the utilisation interval.
	util, utilErr := cputime.StartUtilisation()
	start := time.Now()
	cpuStart, cpuErr := cputime.Thread()
	slots := make([]slot, 0, 2*len(e.targets)+8)
	var why stopReason
	for {
		why = decideStop(loopState{
			Rounds: e.rounds, Elapsed: time.Since(start), Cancelled: e.ctx.Err() != nil,
			Busy: e.busy() || (extra != nil && extra(e)), Pending: !e.othersDone(), Exhausted: e.exhausted(),
			MinTime: cfg.MinTime,
		}, cfg.MaxTime)
		if (why == stopDone || why == stopSamples && e.allConverged()) && e.settling(extra == nil && !cfg.NoSettle, time.Since(start)) {
			why = ""
		}
		if why != "" {
			break
		}
		slots = e.plan(slots[:0])
		for _, s := range slots {
			e.do(s)
		}
		e.endRound(time.Since(start))
		if e.progress != nil {
			if now := tsc.Read(); now-lastProgress >= progressEvery {
				lastProgress = now
				p := Progress{Name: e.name, Elapsed: time.Since(start), Spread: math.NaN()}
				if len(e.targets) == 1 && progress == nil {
					t := e.targets[0]
					// Max grows with a wait for a shared core, which may go past MaxSamples.
					p.Samples, p.Max, p.Spread, p.Converged = t.taken, max(cfg.MaxSamples, t.taken), t.kb.Spread(), e.converged(t)
				} else if progress != nil {
					p.Samples, p.Max = progress(e)
					p.Converged = p.Samples == p.Max
				}
				e.progress(p)
			}
		}
	}
	cpuEnd, cpuEndErr := cputime.Thread()
	e.wall = time.Since(start)
	e.cpuFigures(cpuStart, cpuEnd, errors.Join(cpuErr, cpuEndErr), util, utilErr)
	e.confirmFrequency()
	e.finishRuler()
	e.finishSettle(extra == nil && !cfg.NoSettle)
	if why == stopCancelled {
		return fmt.Errorf("harness: measurement cancelled: %w", e.ctx.Err())
	}
	return nil
}

// confirmFrequency confirms a kernel frequency the calibration took at
// once (calibrate.Options.DeferConfirm): the bracket it opened closes now,
// over the whole measurement, so that a first result waits for no
// confirmation.
func (e *engine) confirmFrequency() {
	if !e.cal.Pending() {
		return
	}
	c, err := calibrate.Confirmed(e.cal)
	if err != nil {
		e.warnings = append(e.warnings, fmt.Errorf("harness: the kernel's counter frequency, used as it is, could not be confirmed: %w", err))
		return
	}
	e.cal, e.hz = c, c.Frequency.Hz
	e.warnings = append(e.warnings, c.Frequency.Warnings...)
}

// othersDone reports whether every overhead and ruler stream has converged
// or reached MaxSamples.
func (e *engine) othersDone() bool {
	m := e.cfg.MaxSamples
	for _, t := range e.targets {
		for _, o := range t.overs {
			if !o.done(m) {
				return false
			}
		}
	}
	return e.ruler == nil || e.ruler.Done()
}

// plan lists the samples of the next round in order (see run): every
// target there and back with the ruler's long ADD chain between, the empty
// loop of every R variant, and the ruler's streams (ADD short and long,
// then IMUL short and long where the IMUL chain checks the ADD chain).
func (e *engine) plan(slots []slot) []slot {
	for _, t := range e.targets {
		t.lastOK = false
		slots = append(slots, slot{kind: slotTarget, t: t})
	}
	nt := len(slots)
	if e.rounds%2 == 1 {
		slices.Reverse(slots)
	}
	if len(e.rstreams) > 0 {
		slots = append(slots, slot{kind: slotRuler, rs: calibrate.AddLong})
	}
	for i := nt - 1; i >= 0; i-- {
		slots = append(slots, slots[i])
	}
	block := len(slots) // the targets' block, a palindrome
	for _, t := range e.targets {
		for j, s := range t.overs {
			if !slices.ContainsFunc(slots[block:], func(x slot) bool { return x.s == s }) {
				slots = append(slots, slot{kind: slotOverhead, s: s, r: overheadRepeat(t.rs[j], e.cfg.Mode)})
			}
		}
	}
	for _, rs := range e.rstreams {
		slots = append(slots, slot{kind: slotRuler, rs: rs})
	}
	if e.rounds%2 == 1 {
		// The others first, backwards.
		others := slices.Clone(slots[block:])
		slices.Reverse(others)
		copy(slots[len(others):], slots[:block])
		copy(slots, others)
	}
	return slots
}

// do takes one sample.
func (e *engine) do(s slot) {
	switch s.kind {
	case slotTarget:
		t := s.t
		j := e.rounds % len(t.rs)
		r := t.rs[j]
		if t.inst.Setup != nil {
			t.inst.Setup()
		} else if len(e.targets) > 1 {
			t.inst.Run()
		}
		e.mon.begin()
		v, ok := e.sampler(t.inst.Run, r, e.cpu, e.checkCPU)
		cause := e.mon.end()
		t.taken++
		t.calls += int64(r)
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'T', Index: slices.Index(e.targets, t), N: r, Ticks: v, OK: ok && cause == 0})
		}
		if !ok {
			t.discard++
			t.dist.Migrations++
			return
		}
		if cause != 0 && e.mon.classify(cause, &t.dist, t.taken, t.kb.Kept()) {
			t.discard++
			return
		}
		e.mon.keepBest(&t.hw, v, r)
		t.kb.Add(float64(v) / float64(r))
		t.half[e.rounds%2].target(r, float64(v))
		t.vmin[j] = math.Min(t.vmin[j], float64(v))
		rs := rawSample{ticks: v, variant: j}
		if len(t.raw) < cap(t.raw) {
			t.raw = append(t.raw, rs)
		}
		if !t.lastOK || v < t.last.ticks {
			t.last, t.lastOK = rs, true
		}
	case slotOverhead:
		if e.mon.hw == nil {
			v, ok := e.sampler(empty, s.r, e.cpu, e.checkCPU)
			s.s.add(float64(v), ok)
			if ok {
				e.half[e.rounds%2].overhead(s.r, float64(v))
			}
			if tracer != nil {
				tracer(traceSample{Round: e.rounds, Kind: 'O', N: s.r, Ticks: v, OK: ok})
			}
			return
		}
		e.mon.begin()
		v, ok := e.sampler(empty, s.r, e.cpu, e.checkCPU)
		e.mon.end()
		s.s.add(float64(v), ok)
		if ok {
			e.mon.keepBest(&s.s.hw, v, s.r)
			e.half[e.rounds%2].overhead(s.r, float64(v))
		}
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'O', N: s.r, Ticks: v, OK: ok})
		}
	case slotRuler:
		v, ok := e.ruler.Time(s.rs, e.cpu, e.checkCPU)
		e.ruler.Add(s.rs, v, ok)
		if ok && (s.rs == calibrate.AddLong || s.rs == calibrate.AddShort) {
			e.half[e.rounds%2].ruler(s.rs == calibrate.AddLong, float64(v))
		}
		if s.rs == calibrate.AddLong {
			e.checkRulerQuantum(v, ok)
		}
		if tracer != nil {
			tracer(traceSample{Round: e.rounds, Kind: 'R', Index: int(s.rs), N: e.ruler.Ops(s.rs), Ticks: v, OK: ok})
		}
	}
}

// endRound records Compare's pair, re-checks the quantum where due and
// counts the round. A retune restarts a target's samples, so it is not
// done in the second half of MaxTime (it would leave too little time to
// measure again) nor after a choice of R that ran out of time (its samples
// are known to be short; the result warns).
func (e *engine) endRound(elapsed time.Duration) {
	if len(e.targets) == 2 && e.commonR {
		a, b := e.targets[0], e.targets[1]
		if a.lastOK && b.lastOK {
			a.pairs = append(a.pairs, [2]rawSample{a.last, b.last})
		}
	}
	e.rounds++
	e.judgeHalves()
	for _, t := range e.targets {
		if n := len(t.raw); !t.forced && !t.cut && t.retunes < maxQuantumRetunes && (n == retuneAt1 || n == retuneAt2) && elapsed < e.cfg.MaxTime/2 {
			e.retune(t)
		}
	}
}

// retune looks for a counter quantum in t's samples of its base R and, when
// they show one coarser than R was chosen for, lengthens R and starts t's
// streams again (all targets' with a common R).
func (e *engine) retune(t *target) {
	var base []uint64
	for _, s := range t.raw {
		if s.variant == 0 {
			base = append(base, s.ticks)
		}
	}
	d := decideRepeat(t.r, base, math.Max(e.step, t.quantum), e.cal.Overhead.Median, e.cfg.MinRegionSteps, e.cfg.Epsilon)
	if d.R <= t.r {
		return // final as it is (a lengthened R may be final at once: decideRepeat)
	}
	retune := []*target{t}
	if e.commonR {
		retune = e.targets
	}
	for _, u := range retune {
		u.r, u.quantum, u.need = d.R, d.Quantum, d.Need
		u.retunes++
		_ = e.reset(u) // cannot fail: the same K, ε and MaxSamples made it before
	}
	e.sizeRuler(d.Need)
}

// converged reports whether t's figure would come out the same again:
// with a ruler, the cycle figures of the even and the odd rounds agree
// (converge.go), each half holding at least K target samples; without
// one (NoCycles), the K best ticks per call agree (CS:APP's rule).
func (e *engine) converged(t *target) bool {
	if e.ruler == nil {
		return t.kb.Converged()
	}
	return t.agree
}

// judgeHalves compares, for every target, the cycle figures of the even
// and the odd rounds, with the tolerance of its K-best stream (ε, and
// AbsSteps counter quanta over a sample of R calls).
func (e *engine) judgeHalves() {
	if e.ruler == nil {
		return
	}
	dOps := float64(e.ruler.Ops(calibrate.AddLong) - e.ruler.Ops(calibrate.AddShort))
	for _, t := range e.targets {
		var h [2]halfRecord
		enough := true
		for p := range h {
			h[p] = e.half[p]
			h[p].t = t.half[p].t
			enough = enough && t.half[p].n >= e.cfg.K
		}
		t.apart = halvesApart(h, dOps)
		t.agree = enough && halvesAgree(h, dOps, e.cfg.Epsilon, e.cfg.absTicks(t.quantum)/float64(t.r))
	}
}

// finishRuler turns the ruler's streams into core cycles per tick, as
// rulerCycles decides from its verdict.
func (e *engine) finishRuler() {
	if e.ruler == nil {
		return
	}
	v := e.ruler.Verdict()
	rc := rulerCycles(v, e.cal.Core)
	e.verdict = v
	e.cpt, e.cptFrom, e.checked, e.refOK = rc.cyclesPerTick, rc.from, rc.checked, rc.refOK
	e.warnings = append(e.warnings, rc.warnings...)
}

// settleMisses counts the measurements in a row, in this process, that
// waited settleBudget for their ruler's chains to agree and ended without
// (see decideSettle).
var settleMisses atomic.Int32

// rulerLag is rulerLag of the ruler's slopes as they stand, the resolution
// being one ruler quantum over each chain's span in ticks.
func (e *engine) rulerLag() (lag, tol float64, ok bool) {
	if e.ruler == nil {
		return math.NaN(), math.NaN(), false
	}
	f := e.ruler.Figures()
	if !f.Exact {
		return math.NaN(), math.NaN(), false
	}
	res := 0.0
	for _, s := range []calibrate.RulerStream{calibrate.AddShort, calibrate.ImulShort} {
		res += e.rulerQ / (e.ruler.Best(s+1) - e.ruler.Best(s))
	}
	return rulerLag(f.AddTicksPerOp, f.ImulTicksPerOp, f.ImulLatency, res)
}

// settling reports whether the loop, which has otherwise converged, goes on
// for the ruler's chains to agree (decideSettle); now is the loop's elapsed
// time and allowed false for a Compare's pairs.
func (e *engine) settling(allowed bool, now time.Duration) bool {
	lag, tol, ok := e.rulerLag()
	var waited time.Duration
	if e.settleFrom >= 0 {
		waited = now - e.settleFrom
		e.settleWait = waited
	}
	wait := decideSettle(settleState{Lag: lag, Tol: tol, OK: ok, Allowed: allowed, GivenUp: settleMisses.Load() >= settleGiveUp, Waited: waited})
	if wait && e.settleFrom < 0 {
		e.settleFrom = now
	}
	return wait
}

// finishSettle keeps count of the waits that ended in vain and warns
// (ErrRulerLag) when the ruler's ADD chain still lags its IMUL chain at the
// end, for the cycle figures it gives.
func (e *engine) finishSettle(allowed bool) {
	lag, tol, ok := e.rulerLag()
	if !ok {
		return
	}
	if lag <= tol {
		settleMisses.Store(0)
		return
	}
	var why string
	switch {
	case e.settleFrom >= 0 && e.settleWait >= settleBudget:
		settleMisses.Add(1)
		why = fmt.Sprintf(", after waiting %v for them to agree", e.settleWait.Round(time.Millisecond))
	case e.settleFrom >= 0:
		why = fmt.Sprintf(", after waiting %v for them to agree (the measurement's time ran out)", e.settleWait.Round(time.Millisecond))
	case !allowed && e.cfg.NoSettle:
		why = " (not waited for: Config.NoSettle)"
	case !allowed:
		why = " (a comparison does not wait for them: its ratio does not depend on the ruler)"
	case settleMisses.Load() >= settleGiveUp:
		why = fmt.Sprintf(" (not waited for: the last %d measurements in this process waited %v each in vain)", settleGiveUp, settleBudget)
	}
	if e.cptFrom != cyclesRuler || e.cpt <= 0 {
		return
	}
	f := e.ruler.Figures()
	e.warnings = append(e.warnings, fmt.Errorf("%w by %.2f%% (IMUL/ADD %.4f where the documented IMUL latency makes it %g; tolerance %.2f%%)%s: the core was probably shared, a busy SMT sibling delaying a dependent ADD chain more than an IMUL chain, so cycle figures may read up to %.2f%% low",
		ErrRulerLag, 100*lag, f.ImulTicksPerOp/f.AddTicksPerOp, f.ImulLatency, 100*tol, why, 100*lag))
}

// cpuFigures reads the loop's thread CPU time (threadCPUShare judges it)
// and utilisation.
func (e *engine) cpuFigures(before, after cputime.Times, cpuErr error, util *cputime.Sampler, utilErr error) {
	var w []error
	e.threadCPU, e.threadSource, w = threadCPUShare(before, after, cpuErr, e.wall)
	e.warnings = append(e.warnings, w...)
	if utilErr == nil {
		var u cputime.Utilisation
		if u, utilErr = util.Stop(); utilErr == nil {
			e.util = u
		}
	}
	if utilErr != nil {
		e.warnings = append(e.warnings, fmt.Errorf("harness: no cpu utilisation for the sampling loop: %w", utilErr))
	}
}

// overhead returns the best overhead sample subtracted from t's variant j
// (overheadRepeat), in ticks.
func (t *target) overhead(j int) float64 { return t.overs[j].kb.Min() }

// net converts a raw sample of t to ticks per call, overhead subtracted.
func (t *target) net(s rawSample) float64 {
	return (float64(s.ticks) - t.overhead(s.variant)) / float64(t.rs[s.variant])
}

// result turns a target's streams into its Result (see buildResult). The
// loop's own warnings (pinning, calibration, ruler, CPU share) are in
// e.warnings, not repeated here.
func (e *engine) result(t *target) (Result, error) {
	return buildResult(e.measured(t))
}

// measured gathers what the engine measured for t, as plain figures.
func (e *engine) measured(t *target) measured {
	m := measured{
		target: t.inst, cfg: e.cfg, cpu: e.th.CPU, priority: e.th.Priority.String(),
		step: e.step, hz: e.hz, quantum: t.quantum, need: t.need, forced: t.forced,
		frequencySource: e.cal.Frequency.Method + ": " + e.cal.Frequency.Source,
		repeats:         slices.Clone(t.rs), wall: e.wall, rulerWait: e.settleWait,
		taken: t.taken, discarded: t.discard, retunes: t.retunes, dist: t.dist,
		monitored: e.mon != nil && e.mon.soft, faultsKept: e.mon != nil && e.mon.faultsKept,
		kept: t.kb.Kept(), converged: e.converged(t), halvesApart: t.apart, halves: e.ruler != nil, best: t.kb.Best(), spread: t.kb.Spread(),
		vmin: slices.Clone(t.vmin), overheadConverged: true,
		calls: t.calls, allCalls: e.allCalls(),
		threadCPU: e.threadCPU, threadSource: e.threadSource, util: e.util,
		verdict: e.verdict, cyclesPerTick: e.cpt, cyclesFrom: e.cptFrom, checked: e.checked, refOK: e.refOK,
		counters: counters(t.hw, t.overs[0].hw),
	}
	m.repeat = t.r
	for j, o := range t.overs {
		m.overheads = append(m.overheads, t.overhead(j))
		m.overheadConverged = m.overheadConverged && o.kb.Converged()
	}
	m.perCall = make([]float64, len(t.raw))
	for i, s := range t.raw {
		m.perCall[i] = t.net(s)
	}
	return m
}

// allCalls is the number of calls timed over every target.
func (e *engine) allCalls() int64 {
	var n int64
	for _, t := range e.targets {
		n += t.calls
	}
	return n
}

func nameOr(name string) string {
	if name == "" {
		return "the function"
	}
	return name
}
