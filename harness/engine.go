package harness

// The one sampling engine behind Measure, CPE, Compare and Report. It only
// schedules: it pins a thread, chooses each target's R (repeat.go), sizes
// the ruler (rulersize.go), takes rounds (rounds.go) until the stopping
// rule says so, asks calibrate.DecideCycles whether to wait for the ruler
// and what cycle figure it gives (rulerwait.go), reads the loop's CPU
// figures (loopfigures.go) and gathers each target's figures (gather.go).
// Its decisions are the pure functions of decide.go and package
// calibrate; the Result is built in result.go.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// target is one function of the engine's loop.
type target struct {
	inst    Target
	r       int   // the base R
	rs      []int // the R of each variant, sampled in turn
	forced  bool  // R was not chosen for this target alone
	quantum float64
	finest  float64         // the shortest sample the choice of R saw (+Inf: none): no quantum is coarser
	need    float64         // ticks a sample should span
	cut     bool            // the choice of R stopped on MaxTime or the context
	kb      *stats.KBest    // gross ticks per call, every variant
	vmin    []float64       // smallest sample of each variant, in ticks
	overs   []*stream       // the overhead subtracted from each variant (overheadRepeat)
	taken   int             // samples taken since the last retune
	discard int             // of which discarded
	calls   int64           // calls timed, every retune included
	raw     []rawSample     // the latest accepted samples, up to MaxSamples (and maxRecorded): a ring once full
	rawNext int             // raw's oldest sample once full, the next one overwritten
	pending []rawSample     // usable samples of rounds not yet judged (settle)
	aside   []asideSample   // the first samples set aside by a host probe (settleHeld)
	retunes int             // times R was lengthened after the samples showed a coarser quantum
	last    rawSample       // the smaller usable sample of this round
	lastOK  bool            // last is set
	pairs   [][2]rawSample  // Compare's pairs (only on the first target)
	dist    Disturbances    // samples discarded by cause
	hw      hwCounts        // the best sample's hardware counts
	half    [2]halfRecord   // best samples of the even and the odd rounds (converge.go)
	agree   bool            // the halves' cycle figures agree (halvesAgree)
	apart   float64         // how far apart they are, relative; NaN without both
	beside  []beside        // the best samples of its rounds with their probe samples (beside.go)
	fl      floorState      // the floor check (floor.go), for a target measured alone
	overlap overlapDecision // the overlap check's verdict (throughput mode, R chosen)
}

// engine measures one or more targets interleaved, with one ruler.
type engine struct {
	cfg      Config
	ctx      context.Context
	spec     runSpec
	progress func(Progress) // the context's hook (WithProgress), or nil
	cal      *calibrate.Calibration
	th       *pinned.Thread
	ctr      counter
	mon      *monitor
	commonR  bool
	targets  []*target
	overs    map[int]*stream // the overhead streams, by their R (overheadRepeat)
	rl       rulerState
	room     hostProbe     // the room probe (room.go)
	calls    hostProbe     // the calls probe (room.go)
	held     []heldRound   // rounds waiting for the host probes' judgment
	half     [2]halfRecord // the overhead's and the ruler's best samples by half (converge.go)
	rounds   int
	stop     stopReason // why the loop stopped (decideStop)
	wall     time.Duration
	loop     loopFigures
	warnings []error // the loop's own: pinning, calibration, ruler, CPU share
}

// runSpec is what a caller of measureTargets measures and how it runs.
type runSpec struct {
	name    string // labels the progress reports
	targets []Target
	// commonR gives every target the largest R (1 when any has a Setup), so
	// one overhead serves all and their samples pair up (Compare).
	commonR bool
	// extra, when not nil, keeps the loop going while it returns true
	// (Compare's pairs); such a loop does not wait for the ruler.
	extra func(*engine) bool
	// progress, when not nil, gives the (done, total) of the progress
	// reports.
	progress func(*engine) (int, int)
	// waits is the caller's count of waits in vain for the ruler, shared
	// by the measurements of one run (a sweep); nil: this one's own.
	waits *Waits
}

// measureTargets is how every measurement runs: check cfg, pin a thread
// (internal/pinned), build the engine for spec there and take rounds until
// the stopping rule says so. The caller reads the results from the engine
// returned (nil when none was built). abandoned reports a tripped realtime
// guard: the engine must not be read.
func measureTargets(ctx context.Context, cfg Config, spec runSpec) (e *engine, abandoned bool, err error) {
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
		e, err = newEngine(ctx, cfg, cal, th, spec)
		mon = <-monc
		if err != nil {
			e = nil
			return err
		}
		e.mon = mon
		e.progress = ProgressOf(ctx)
		e.warnings = append(e.warnings, mon.warnings...)
		return e.run()
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

// newEngine warms the functions up, chooses each one's R, makes the
// streams and the ruler. It runs on the pinned thread.
func newEngine(ctx context.Context, cfg Config, cal *calibrate.Calibration, th *pinned.Thread, spec runSpec) (*engine, error) {
	e := &engine{cfg: cfg, ctx: ctx, spec: spec, cal: cal, th: th, commonR: spec.commonR, overs: map[int]*stream{}}
	e.ctr = counter{cpu: th.CPU, step: math.Max(cal.Step.Step, 1), hz: cal.Frequency.Hz, sampler: sample}
	e.ctr.checkCPU = e.ctr.cpu >= 0 && tsc.HasAux() && runtime.GOOS == "linux"
	if cfg.Mode == Latency {
		e.ctr.sampler = sampleFenced
	}
	e.rl.waitFrom, e.rl.waits, e.rl.roundProbe = -1, spec.waits, math.NaN()
	if e.rl.waits == nil {
		e.rl.waits = cfg.Waits
	}
	if e.rl.waits == nil {
		e.rl.waits = &Waits{}
	}
	e.half = [2]halfRecord{newHalfRecord(), newHalfRecord()}
	e.warnings = append(e.warnings, th.Warnings...)
	e.warnings = append(e.warnings, cal.Warnings...)

	// Warm up: page in code and data, let the core clock settle.
	warm := time.Now()
	for first := true; first || time.Since(warm) < cfg.Warmup; first = false {
		for _, in := range spec.targets {
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

	need := e.chooseRepeats(spec.targets)
	for _, t := range e.targets {
		if err := e.reset(t); err != nil {
			return nil, err
		}
	}
	e.room, e.calls = newRoom(false, 0, 0, 0), newCalls(false, 0)
	if cfg.NoCycles {
		return e, nil
	}
	if err := e.newRuler(need); err != nil {
		return nil, err
	}
	// The wait for a host's state to end sets aside at most half the
	// rounds MaxSamples allows (two samples of each target a round).
	maxWait := max(cfg.MaxSamples/(4*len(e.targets)), 1)
	e.room = newRoom(cfg.Mode == Throughput, e.ctr.step, e.linksPerTick(), maxWait)
	// The calls state labels a figure shared: it is waited for as the
	// ruler waits for a shared core, and not where the ruler would not
	// wait (a comparison's pairs, NoSettle, a run whose last measurements
	// waited in vain): labelCalls says which.
	e.calls = newCalls(cfg.Mode == Throughput, maxWait)
	if e.callsNoWait() != "" {
		e.calls.cap = 0
	}
	return e, nil
}

// run takes rounds (plan, do, endRound) until [decideStop] says so and the
// ruler needs no wait, then reads the loop's figures and the ruler's
// answer. Every stream is sampled in every round until all have converged
// (or reached MaxSamples), so that all best samples come from the same
// stretch of time: the core clock moves by percents between busy and idle
// moments, and a ruler that went on alone after its target had converged
// would catch faster moments the target never saw.
func (e *engine) run() error {
	cfg := e.cfg
	mayWait := e.spec.extra == nil && !cfg.NoSettle
	progressEvery := uint64(0.05 * e.ctr.hz)
	lastProgress := tsc.Read()
	clocks := startLoopClocks()
	since := func() time.Duration { return time.Since(clocks.start) }
	slots := make([]slot, 0, 2*len(e.targets)+8)
	var why stopReason
	for {
		why = decideStop(loopState{
			Rounds: e.rounds, Elapsed: since(), Cancelled: e.ctx.Err() != nil,
			Busy: e.busy() || (e.spec.extra != nil && e.spec.extra(e)), Pending: !e.othersDone(), Exhausted: e.exhausted(),
			MinTime: cfg.MinTime,
		}, cfg.MaxTime)
		// Only a loop that would stop asks: rulerWaits reads every
		// target's convergence, which a running loop need not.
		if (why == stopDone || why == stopSamples) && e.rulerWaits(why, mayWait, since()) {
			why = ""
		}
		if why != "" {
			break
		}
		slots = e.plan(slots[:0])
		for _, s := range slots {
			e.do(s)
		}
		e.endRound(since())
		if e.progress != nil {
			if now := tsc.Read(); now-lastProgress >= progressEvery {
				lastProgress = now
				e.report(since())
			}
		}
	}
	e.settleHeld(since())
	if e.room.gaveUp && slices.ContainsFunc(e.targets, roomMatters) {
		e.warnings = append(e.warnings, fmt.Errorf("%w: the room probe read more than %.1f%% below this machine's usual level for longer than the measurement waits (%v, or %d rounds); calls that overlap the next may read low", ErrRoom, 100*roomDrop, roomWait, e.room.cap))
	}
	e.stop = why
	e.stopLoopClocks(clocks)
	e.confirmFrequency()
	e.finishRuler(mayWait)
	if why == stopCancelled {
		return fmt.Errorf("harness: measurement cancelled: %w", e.ctx.Err())
	}
	return nil
}

// report calls the progress hook: a single target's samples, or the
// caller's (done, total).
func (e *engine) report(elapsed time.Duration) {
	p := Progress{Name: e.spec.name, Elapsed: elapsed, Spread: math.NaN()}
	if len(e.targets) == 1 && e.spec.progress == nil {
		t := e.targets[0]
		// Max grows with a wait for a shared core, which may go past MaxSamples.
		p.Samples, p.Max, p.Spread, p.Converged = t.taken, max(e.cfg.MaxSamples, t.taken), t.kb.Spread(), e.converged(t)
	} else if e.spec.progress != nil {
		p.Samples, p.Max = e.spec.progress(e)
		p.Converged = p.Samples == p.Max
	}
	e.progress(p)
}
