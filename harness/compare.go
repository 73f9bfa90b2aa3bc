package harness

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// Limits of [CompareOptions.Pairs].
const (
	// DefaultPairs is the number of pairs [Compare] collects when
	// CompareOptions.Pairs is 0.
	DefaultPairs = 60
	// MinPairs is the fewest pairs a 95% interval can be built from.
	MinPairs = 6
	// MaxPairs bounds CompareOptions.Pairs.
	MaxPairs = 100_000
)

// CompareOptions says how [Compare] pairs its samples and tests them. The
// zero value gives the defaults.
type CompareOptions struct {
	// Pairs is the number of usable pairs to collect (a pair is lost when
	// either of its samples straddled CPUs); 0 means DefaultPairs. From
	// MinPairs to MaxPairs.
	Pairs int
	// Stats are the options of the paired test: significance level,
	// confidence level and noise band; the zero value gives
	// [stats.DefaultCompareOptions].
	Stats stats.CompareOptions
}

// Comparison is what [Compare] found: B relative to A, measured interleaved.
type Comparison struct {
	// A and B are each side's K-best figures over the same rounds, per call
	// (overhead subtracted), converted to core cycles with one ruler.
	A, B Result
	// Stats compares the paired per-call costs: Ratio is B/A (below 1: B
	// takes less), Lo and Hi its 95% interval, PValue the Wilcoxon
	// signed-rank test's, Verdict "faster", "slower" or "no significant
	// difference". Both sides of a pair ran back to back on the same core,
	// so the ratio does not depend on the core clock's rate: it is the same
	// in ticks, nanoseconds and cycles.
	Stats stats.Comparison
	// BestRatio is B.Ticks / A.Ticks: the ratio of the two sides' best
	// samples (K-best), against Stats.Ratio from the typical pair. When it
	// lies outside the paired interval, a warning says so: the kernels'
	// typical and best times differ, and the two ratios answer different
	// questions.
	BestRatio float64
	// TicksA and TicksB are the paired samples in counter ticks per call
	// (each sample times Repeat calls; the empty loop's best is
	// subtracted), in the order they were taken.
	TicksA, TicksB []float64
	// Repeat is R, the calls per sample, the same for both sides.
	Repeat int
	// Rounds is the number of rounds taken (a round samples A and B once,
	// in the order AB or BA alternately).
	Rounds int
	// Wall is the time spent in the measuring loop.
	Wall time.Duration
	// Warnings holds soft problems: pinning, priority, calibration, the
	// ruler, the test's warnings (coarse samples).
	Warnings []error
}

// Compare measures a and b interleaved in one measuring loop and compares
// their per-call costs.
//
// After a warm-up, each round samples A and B back to back (AB in even
// rounds, BA in odd ones: ABBA over two rounds, so a drift hits both
// alike), each sample timing R calls after one untimed call (or Setup)
// that puts the side's code and data back in cache. R is the same for both
// sides, the larger of the two automatic choices (the side that resolves
// worse against the counter decides; 1 when either has a Setup), so the
// same empty loop is subtracted from both. The two samples of a round form
// a pair; [stats.ComparePaired] turns the pairs into the ratio B/A with a
// confidence interval, a p-value and a verdict. Rounds continue until
// opt.Pairs usable pairs are in, each side's K best agree and the empty
// loop and the ruler have converged, or until max(cfg.MaxSamples,
// 2·opt.Pairs) rounds or cfg.MaxTime; fewer pairs than asked is a warning.
//
// cfg is used as by [Measure]; its Name, Elements and Setup are ignored
// (they come from a and b). An error is returned for bad options, a nil
// Run, a panic in either function, a cancelled context, fewer than
// MinPairs usable pairs, or a side whose samples are not longer than the
// empty loop's (it is too short to compare).
func Compare(cfg Config, a, b Instance, opt CompareOptions) (Comparison, error) {
	var cmp Comparison
	if a.Run == nil || b.Run == nil {
		return cmp, fmt.Errorf("%w: Compare needs a Run function on both sides", ErrNilFunc)
	}
	pairs := opt.Pairs
	if pairs == 0 {
		pairs = DefaultPairs
	}
	if pairs < MinPairs || pairs > MaxPairs {
		return cmp, fmt.Errorf("%w: Pairs %d (allowed: %d to %d, or 0 for %d)", ErrBadConfig, opt.Pairs, MinPairs, MaxPairs, DefaultPairs)
	}
	for _, in := range []*Instance{&a, &b} {
		if math.IsNaN(in.Elements) || math.IsInf(in.Elements, 0) || in.Elements < 0 {
			return cmp, fmt.Errorf("%w: %s: Elements %v (allowed: ≥ 0, finite)", ErrBadConfig, in.Name, in.Elements)
		}
	}
	if a.Name == "" {
		a.Name = "A"
	}
	if b.Name == "" {
		b.Name = "B"
	}
	// Check the statistics options now rather than after measuring.
	probe := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if _, err := stats.ComparePaired(probe, probe, opt.Stats); err != nil {
		return cmp, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	cfg.Name, cfg.Elements, cfg.Setup = "", 0, nil
	cfg, err := cfg.withDefaults()
	if err != nil {
		return cmp, err
	}

	maxRounds := max(cfg.MaxSamples, 2*pairs)
	var m *multi
	var rawA, rawB []float64
	abandoned, runErr := runPinned(cfg, func(base Result, cal *calibrate.Calibration) error {
		var err error
		if m, err = newMulti(cfg, cal, base, []Instance{a, b}, true); err != nil {
			return err
		}
		ta, tb := m.targets[0], m.targets[1]
		rawA = make([]float64, 0, pairs)
		rawB = make([]float64, 0, pairs)
		need := func(*target) bool {
			if m.rounds >= maxRounds {
				return false
			}
			return len(rawA) < pairs || !ta.s.kb.Converged() || !tb.s.kb.Converged()
		}
		onRound := func() {
			if ta.sampled && tb.sampled && ta.lastOK && tb.lastOK {
				rawA = append(rawA, float64(ta.last))
				rawB = append(rawB, float64(tb.last))
			}
		}
		progress := func() (int, int) { return min(len(rawA), pairs), pairs }
		return m.run(need, onRound, progress)
	})
	if m == nil || abandoned {
		return cmp, runErr
	}
	cmp.Repeat, cmp.Rounds, cmp.Wall = m.targets[0].r, m.rounds, m.wall
	cmp.Warnings = append(cmp.Warnings, m.warnings...)
	var errA, errB error
	cmp.A, errA = m.result(m.targets[0])
	cmp.B, errB = m.result(m.targets[1])
	if runErr != nil {
		return cmp, runErr
	}
	if err := errors.Join(errA, errB); err != nil {
		return cmp, err
	}
	if len(rawA) < MinPairs {
		return cmp, fmt.Errorf("harness: only %d usable pairs in %d rounds (%v); need at least %d", len(rawA), cmp.Rounds, cmp.Wall.Round(time.Millisecond), MinPairs)
	}
	over := cmp.A.OverheadTicks // the same empty loop for both sides
	r := float64(cmp.Repeat)
	cmp.TicksA = make([]float64, len(rawA))
	cmp.TicksB = make([]float64, len(rawB))
	for i := range rawA {
		cmp.TicksA[i] = (rawA[i] - over) / r
		cmp.TicksB[i] = (rawB[i] - over) / r
		if cmp.TicksA[i] <= 0 || cmp.TicksB[i] <= 0 {
			return cmp, fmt.Errorf("%w: a sample of %s or %s is not longer than the empty loop's %.0f ticks (%.0f and %.0f ticks per sample of %d calls); the functions are too short to compare",
				ErrTooShort, a.Name, b.Name, over, rawA[i], rawB[i], cmp.Repeat)
		}
	}
	if len(rawA) < pairs {
		cmp.Warnings = append(cmp.Warnings, fmt.Errorf("harness: %d usable pairs of the %d asked, in %d rounds (%v)", len(rawA), pairs, cmp.Rounds, cmp.Wall.Round(time.Millisecond)))
	}
	if cmp.Stats, err = stats.ComparePaired(cmp.TicksA, cmp.TicksB, opt.Stats); err != nil {
		return cmp, fmt.Errorf("harness: comparing %s and %s: %w", a.Name, b.Name, err)
	}
	cmp.Warnings = append(cmp.Warnings, cmp.Stats.Warnings...)
	if cmp.A.Ticks > 0 {
		cmp.BestRatio = cmp.B.Ticks / cmp.A.Ticks
		band := math.Max(cmp.Stats.NoiseBand, 0)
		if cmp.BestRatio < cmp.Stats.Lo*(1-band) || cmp.BestRatio > cmp.Stats.Hi*(1+band) {
			cmp.Warnings = append(cmp.Warnings, fmt.Errorf("harness: the best samples' ratio B/A %.4f lies outside the paired interval [%.4f, %.4f]: the typical and the best times differ (a kernel whose time varies from sample to sample); the paired ratio describes typical samples, the per-side figures the best", cmp.BestRatio, cmp.Stats.Lo, cmp.Stats.Hi))
		}
	}
	return cmp, nil
}

// CPEComparison is what [CompareCPE] found: the slopes of two CPE sweeps.
type CPEComparison struct {
	A, B CPEResult
	// Unit is the unit of the slopes compared: "cycles", or "ticks" when
	// there is no core-cycle estimate.
	Unit string
	// Slopes compares B's cost per element with A's (Welch's t test on the
	// two fits' slopes): Ratio B/A, Diff ± DiffCI, PValue, Verdict.
	Slopes stats.SlopeComparison
	// Warnings holds soft problems of both sweeps.
	Warnings []error
}

// CompareCPE sweeps a and b over the same sizes with [CPEAll] (one after
// the other, each with its sizes interleaved) and compares their costs per
// element with
// [stats.CompareSlopes]: in core cycles, or in ticks with cfg.NoCycles.
// sizes replaces the sweeps' Sizes; their Names label the results.
func CompareCPE(cfg Config, sizes []int, a, b Sweep, opt stats.CompareOptions) (CPEComparison, error) {
	var c CPEComparison
	a.Sizes, b.Sizes = sizes, sizes
	if a.Name == "" {
		a.Name = "A"
	}
	if b.Name == "" {
		b.Name = "B"
	}
	if a.Name == b.Name {
		b.Name += "'"
	}
	rs, err := CPEAll(cfg, []Sweep{a, b})
	if len(rs) == 2 {
		c.A, c.B = rs[0], rs[1]
		c.Warnings = append(append(c.Warnings, rs[0].Warnings...), rs[1].Warnings...)
	}
	if err != nil {
		return c, err
	}
	fa, fb := c.A.Ticks, c.B.Ticks
	c.Unit = "ticks"
	if c.A.HasCycles && c.B.HasCycles {
		fa, fb, c.Unit = c.A.Cycles, c.B.Cycles, "cycles"
	}
	if c.Slopes, err = stats.CompareSlopes(fa, fb, opt); err != nil {
		return c, fmt.Errorf("harness: comparing the slopes of %s and %s: %w", a.Name, b.Name, err)
	}
	return c, nil
}

// ---- the interleaved loop shared by CPEAll and Compare ----

// target is one function of the interleaved loop.
type target struct {
	inst     Instance
	r        int
	s        *stream
	over     *stream // the empty loop of the same R, shared
	ownsOver bool    // this target's slot samples over
	forced   bool    // R was not chosen for this target alone
	recorded []float64
	last     uint64 // the smaller usable sample of this round, when lastOK
	lastOK   bool
	sampled  bool // sampled this round
}

// multi measures several functions interleaved, with one ruler.
type multi struct {
	cfg               Config
	cal               *calibrate.Calibration
	base              Result
	cpu               int
	checkCPU          bool
	step, hz          float64
	minRegion         float64
	targets           []*target
	short, long       *stream
	shortLen, longLen int
	cpt               float64 // core cycles per tick, from the ruler
	refConverged      bool
	warnings          []error // the loop's: pinning, calibration, ruler
	rounds            int
	wall              time.Duration
}

// streamDone reports whether s needs no more samples.
func streamDone(s *stream, cfg Config) bool {
	return s.kb.Converged() || s.taken >= cfg.MaxSamples
}

// newMulti warms the functions up and chooses their R. With commonR every
// target gets the largest R (1 when any has a Setup). It runs on the
// pinned goroutine.
func newMulti(cfg Config, cal *calibrate.Calibration, base Result, insts []Instance, commonR bool) (*multi, error) {
	m := &multi{cfg: cfg, cal: cal, base: base, cpu: base.CPU, step: math.Max(cal.Step.Step, 1), hz: cal.Frequency.Hz}
	m.checkCPU = m.cpu >= 0 && tsc.HasAux() && runtime.GOOS == "linux"
	m.minRegion = cfg.MinRegionSteps * m.step
	m.warnings = append(m.warnings, base.Warnings...)
	absTicks := cfg.absTicks(m.step)

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
	}

	rs := make([]int, len(insts))
	forced := make([]bool, len(insts))
	anySetup := false
	for i, in := range insts {
		switch {
		case in.Setup != nil:
			rs[i], anySetup = 1, true
			forced[i] = true
		case cfg.Repeat > 0:
			rs[i] = cfg.Repeat
			forced[i] = true
		default:
			rs[i] = chooseRepeat(in.Run, m.minRegion, m.cpu, m.checkCPU)
		}
	}
	if commonR {
		r := 1
		if !anySetup {
			for _, v := range rs {
				r = max(r, v)
			}
		}
		for i := range rs {
			forced[i] = forced[i] || rs[i] != r
			rs[i] = r
		}
	}
	overs := map[int]*stream{}
	for i, in := range insts {
		s, err := newStream(cfg, absTicks)
		if err != nil {
			return nil, err
		}
		t := &target{inst: in, r: rs[i], forced: forced[i], s: s, recorded: make([]float64, 0, min(cfg.MaxSamples, maxRecorded))}
		if t.over = overs[t.r]; t.over == nil {
			t.over, _ = newStream(cfg, absTicks)
			overs[t.r] = t.over
			t.ownsOver = true
		}
		m.targets = append(m.targets, t)
	}
	refCfg := cfg
	refCfg.Epsilon = math.Min(cfg.Epsilon, refEpsilon)
	m.short, _ = newStream(refCfg, absTicks)
	m.long, _ = newStream(refCfg, absTicks)
	m.shortLen = 256
	m.longLen = m.shortLen + int(math.Ceil(m.minRegion*math.Max(cal.Core.CyclesPerTick, 0.1)))
	return m, nil
}

// slot kinds of a round.
const (
	slotTarget = iota
	slotOverhead
	slotShort
	slotLong
)

type slot struct {
	kind int
	t    *target
}

// run takes rounds until no stream needs a sample, cfg.MaxTime passes or
// the context is cancelled. need says whether a target is sampled this
// round; onRound, when not nil, is called after every round; progress
// gives the (done, total) reported to cfg.Progress.
func (m *multi) run(need func(*target) bool, onRound func(), progress func() (int, int)) error {
	cfg := m.cfg
	progressEvery := uint64(0.05 * m.hz)
	lastProgress := tsc.Read()
	start := time.Now()
	slots := make([]slot, 0, 2*len(m.targets)+2)
	var cancelled error
	for round := 0; ; round++ {
		if round > 0 && time.Since(start) > cfg.MaxTime { // one round always, as in Measure
			break
		}
		if err := cfg.Context.Err(); err != nil {
			cancelled = err
			break
		}
		// A round visits the targets there and back (A B B A for two),
		// then the empty loops and the ruler. Every other round runs
		// backwards and starts from the other end of the target list
		// (L S O B A A B), so each target takes the first, the outer and
		// the inner places equally often: ABBA, then BAAB.
		slots = slots[:0]
		for _, t := range m.targets {
			t.sampled, t.lastOK = false, false
			if need(t) {
				slots = append(slots, slot{slotTarget, t})
			}
		}
		nt := len(slots)
		if round%2 == 1 {
			slices.Reverse(slots)
		}
		for i := nt - 1; i >= 0; i-- {
			slots = append(slots, slots[i])
		}
		// The empty loops and the ruler are sampled as long as any target
		// is, so that their best samples come from the same moments as the
		// targets' (the core clock moves by percents between busy and idle
		// periods), and on until they are done themselves.
		busy := nt > 0
		for _, t := range m.targets {
			if t.ownsOver && (busy || !streamDone(t.over, cfg)) {
				slots = append(slots, slot{slotOverhead, t})
			}
		}
		if !cfg.NoCycles {
			if busy || !streamDone(m.short, cfg) {
				slots = append(slots, slot{kind: slotShort})
			}
			if busy || !streamDone(m.long, cfg) {
				slots = append(slots, slot{kind: slotLong})
			}
		}
		if len(slots) == 0 {
			break
		}
		if round%2 == 1 {
			// The others first, backwards; the targets' block is a
			// palindrome, so it stays as built.
			others := slices.Clone(slots[2*nt:])
			slices.Reverse(others)
			copy(slots[len(others):], slots[:2*nt])
			copy(slots, others)
		}
		for _, s := range slots {
			m.do(s)
		}
		m.rounds++
		if onRound != nil {
			onRound()
		}
		if cfg.Progress != nil {
			if now := tsc.Read(); now-lastProgress >= progressEvery {
				lastProgress = now
				done, total := progress()
				cfg.Progress(Progress{Name: cfg.Name, Samples: done, Max: total, Spread: math.NaN(), Elapsed: time.Since(start), Converged: done == total})
			}
		}
	}
	m.wall = time.Since(start)
	m.finishRuler()
	if cancelled != nil {
		return fmt.Errorf("harness: measurement cancelled: %w", cancelled)
	}
	return nil
}

// do takes one sample of s.
func (m *multi) do(s slot) {
	switch s.kind {
	case slotTarget:
		t := s.t
		// One untimed call first: the other functions of the round may have
		// evicted this one's code and data.
		if t.inst.Setup != nil {
			t.inst.Setup()
		} else {
			t.inst.Run()
		}
		v, ok := sample(t.inst.Run, t.r, m.cpu, m.checkCPU)
		t.s.add(v, ok)
		t.sampled = true
		if ok && (!t.lastOK || v < t.last) {
			t.last, t.lastOK = v, true
		}
		if ok && len(t.recorded) < cap(t.recorded) {
			t.recorded = append(t.recorded, float64(v))
		}
	case slotOverhead:
		s.t.over.add(sample(empty, s.t.r, m.cpu, m.checkCPU))
	case slotShort:
		m.short.add(sampleChain(m.shortLen, m.cpu, m.checkCPU))
	case slotLong:
		m.long.add(sampleChain(m.longLen, m.cpu, m.checkCPU))
	}
}

// finishRuler turns the ADD-chain streams into core cycles per tick.
func (m *multi) finishRuler() {
	if m.cfg.NoCycles {
		return
	}
	m.refConverged = m.short.kb.Converged() && m.long.kb.Converged()
	if m.long.kb.Kept() > 0 && m.short.kb.Kept() > 0 && m.long.kb.Min() > m.short.kb.Min() {
		m.cpt = float64(m.longLen-m.shortLen) / (m.long.kb.Min() - m.short.kb.Min())
	} else {
		m.cpt = m.cal.Core.CyclesPerTick
		m.warnings = append(m.warnings, fmt.Errorf("%w: the reference chain gave no usable slope; the calibration's %.4f cycles/tick is used", ErrNoCycles, m.cpt))
	}
	if !m.refConverged {
		m.warnings = append(m.warnings, fmt.Errorf("%w: the reference chain did not converge; the cycle estimate is less certain", ErrNoCycles))
	}
	if !chain.Exact() {
		m.warnings = append(m.warnings, fmt.Errorf("%w: the reference chain is the pure-Go fallback on this build; cycles are approximate", ErrNoCycles))
	}
}

// result turns a target's streams into a Result like Measure's. The loop's
// own warnings (pinning, calibration, ruler) are not repeated in it.
func (m *multi) result(t *target) (Result, error) {
	res := Result{Name: t.inst.Name, CPU: m.base.CPU, Priority: m.base.Priority}
	res.Step, res.TicksPerSecond = m.step, m.hz
	res.FrequencySource = m.cal.Frequency.Method + ": " + m.cal.Frequency.Source
	res.Elements = t.inst.Elements
	res.Repeat = t.r
	res.Wall = m.wall
	res.Samples, res.Discarded = t.s.taken, t.s.discarded
	res.Converged = t.s.kb.Converged()
	res.OverheadConverged = t.over.kb.Converged()
	res.Best = t.s.kb.Best()
	res.Spread = t.s.kb.Spread()
	res.OverheadTicks = t.over.kb.Min()
	res.Config = m.cfg
	res.Config.Name, res.Config.Elements = t.inst.Name, t.inst.Elements
	res.Config.Setup, res.Config.Progress, res.Config.Context, res.Config.Calibration = nil, nil, nil, nil
	if t.s.kb.Kept() == 0 || t.over.kb.Kept() == 0 {
		return res, fmt.Errorf("harness: %s: no usable sample in %d taken (%d discarded as CPU migrations)", t.inst.Name, t.s.taken, t.s.discarded)
	}
	r := float64(t.r)
	res.Ticks = (t.s.kb.Min() - res.OverheadTicks) / r
	res.Nanoseconds = res.Ticks / m.hz * 1e9
	if !m.cfg.NoCycles {
		res.CyclesPerTick, res.ReferenceConverged = m.cpt, m.refConverged
		res.Cycles = res.Ticks * m.cpt
	}
	if e := t.inst.Elements; e > 0 {
		res.TicksPerElement, res.NsPerElement, res.CyclesPerElement = res.Ticks/e, res.Nanoseconds/e, res.Cycles/e
	}
	for i, v := range t.recorded {
		t.recorded[i] = (v - res.OverheadTicks) / r
	}
	if s, err := stats.Summarize(t.recorded, 0.1, 0.9); err == nil {
		res.Summary = s
	}
	if !res.Converged {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: spread of the %d best is %.3g%% after %d samples in %v (ε %.3g%%)", ErrNotConverged, t.inst.Name, m.cfg.K, res.Spread*100, res.Samples, res.Wall.Round(time.Millisecond), m.cfg.Epsilon*100))
	}
	if res.Samples > 0 && float64(res.Discarded) > 0.1*float64(res.Samples) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: %d of %d samples (%.0f%%) straddled CPUs", ErrDiscards, t.inst.Name, res.Discarded, res.Samples, 100*float64(res.Discarded)/float64(res.Samples)))
	}
	// An automatic R aims at minRegion from the best of three samples, so
	// v1 can fall a little short of it; only a forced R is held to it.
	if v1 := t.s.kb.Min(); v1 < m.minRegion && (t.forced || v1 < m.minRegion/2) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%w: %s: a sample of %d calls spans %.0f ticks (%.0f counter steps), fewer than %.0f", ErrTooShort, t.inst.Name, t.r, v1, v1/m.step, m.cfg.MinRegionSteps))
	}
	return res, nil
}
