package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/stats"
)

// Defaults and limits of [CompareOptions]; the error for a value out of
// range names them.
const (
	// defaultPairs is the number of pairs [Compare] collects when
	// CompareOptions.Pairs is 0: enough to find a 0.03% to 0.1% difference
	// in nearly every comparison on the 2-CPU KVM guests met, where a third
	// as many missed it about one time in four, in well under a tenth of a
	// second for a microsecond kernel (docs/how-it-measures.md, "Where the
	// limits come from"). A long kernel
	// stops at MaxTime first.
	defaultPairs = 200
	// minPairs is the fewest pairs a 95% interval can be built from.
	minPairs = 6
	// maxPairs bounds CompareOptions.Pairs.
	maxPairs = 100_000
	// defaultBlocks is the number of separate measurements [Compare]
	// takes its pairs in when CompareOptions.Blocks is 0: enough for a
	// t test of their weighted ratios (4 degrees of freedom) at a cost of
	// about a millisecond each (warm-up, choice of R, the ruler's probe).
	defaultBlocks = 5
	// maxBlocks bounds CompareOptions.Blocks and MaxBlocks.
	maxBlocks = 100
	// moreBlocks is CompareOptions.MaxBlocks when 0, as a multiple of
	// Blocks; the blocks beyond Blocks may take up to moreBlocks times the
	// first blocks' time, in all. More blocks, taken until their own
	// intervals resolve the quantum's band, find small differences in
	// noisy moments that five blocks miss, without calling an A/A
	// comparison different; the time bound keeps a noisy moment from
	// multiplying a comparison's time, and three times the first blocks'
	// keeps nearly all of the gain where twice loses some.
	// TestCompareRecordedBlocks replays the recorded blocks; the counts are
	// in docs/how-it-measures.md.
	moreBlocks = 3
)

// CompareOptions says how [Compare] pairs its samples and tests them. The
// zero value gives the defaults.
type CompareOptions struct {
	// Pairs is the number of usable pairs to collect (a pair is lost when
	// either of its samples straddled CPUs); 0 means 200. From 6 to 100000.
	Pairs int
	// Blocks is the number of separate measurements the pairs are taken
	// in, one after the other, each with its own warm-up, R, overhead
	// and ruler, Pairs/Blocks pairs each: pairs taken milliseconds apart
	// share the machine's state, so the interval also covers how far the
	// blocks' ratios spread (stats.CombineBlocks). 0 means 5; 1 to 100, and
	// no more than Pairs/6 are used.
	Blocks int
	// MaxBlocks is the most blocks Compare takes when the first Blocks are
	// too noisy: while the half-width their own
	// intervals allow (stats.Comparison.BlockFloor) is wider than a fixed
	// noise band (Stats.NoiseBand), or else than the counter quantum's
	// band, it takes one more block of as many pairs, up to MaxBlocks,
	// for as long as MaxBlocks/Blocks times what the first Blocks took
	// (so that blocks slowed by a noisy moment do not multiply the time)
	// and within cfg.MaxTime. The floor depends on how precise the blocks
	// are, not on their ratios, so going on does not bias the test; a
	// block caught in a noisy moment is made up for instead of widening
	// the interval. 0 means 3 × Blocks (Blocks when that is 1); from
	// Blocks to 100.
	MaxBlocks int
	// Stats are the options of the paired test: significance level,
	// confidence level and noise band; the zero value gives
	// [stats.DefaultCompareOptions]. When Stats.Quantum is 0, Compare sets
	// it to the counter quantum of the samples (Result.Quantum) over the
	// calls each sample times (Repeat): the resolution of the paired
	// per-call figures, which the derived noise band needs.
	Stats stats.CompareOptions
}

// WithDefaults returns o with the defaults of its zero fields filled in
// and checked, as [Compare] does before measuring: an error wraps
// ErrBadConfig and names the field, its value and what is allowed. The
// cyclebench command calls it to refuse a bad -pairs before calibrating.
func (o CompareOptions) WithDefaults() (CompareOptions, error) {
	given := o
	if o.Pairs == 0 {
		o.Pairs = defaultPairs
	}
	if o.Pairs < minPairs || o.Pairs > maxPairs {
		return given, fmt.Errorf("%w: Pairs %d (allowed: %d to %d, or 0 for %d)", ErrBadConfig, given.Pairs, minPairs, maxPairs, defaultPairs)
	}
	if o.Blocks == 0 {
		o.Blocks = defaultBlocks
	}
	if o.Blocks < 1 || o.Blocks > maxBlocks {
		return given, fmt.Errorf("%w: Blocks %d (allowed: 1 to %d, or 0 for %d)", ErrBadConfig, given.Blocks, maxBlocks, defaultBlocks)
	}
	if o.MaxBlocks == 0 {
		o.MaxBlocks = o.Blocks
		if o.Blocks > 1 {
			o.MaxBlocks = min(maxBlocks, moreBlocks*o.Blocks)
		}
	}
	if o.MaxBlocks < o.Blocks || o.MaxBlocks > maxBlocks {
		return given, fmt.Errorf("%w: MaxBlocks %d (allowed: Blocks, %d, to %d, or 0 for %d)", ErrBadConfig, given.MaxBlocks, o.Blocks, maxBlocks, min(maxBlocks, moreBlocks*o.Blocks))
	}
	return o, nil
}

// Comparison is what [Compare] found: B relative to A, measured interleaved.
type Comparison struct {
	// A and B are each side's K-best figures over the same rounds, per call
	// (overhead subtracted), converted to core cycles with one ruler.
	A, B Result
	// Stats compares the paired per-call costs: Ratio is B/A (below 1: B
	// takes less), Lo and Hi its 95% interval, PValue the test's (with
	// several blocks, the t test of the blocks' weighted ratios; with one,
	// the Wilcoxon signed-rank test of the pairs), Verdict "faster",
	// "slower" or "no significant difference". Both sides of a pair ran back to back on the same core,
	// so the ratio does not depend on the core clock's rate: it is the same
	// in ticks, nanoseconds and cycles.
	Stats stats.Comparison
	// BestRatio is B.Ticks / A.Ticks: the ratio of the two sides' best
	// samples (K-best), the figures A and B report, against Stats.Ratio
	// from the typical pair. BestLo and BestHi bound it by the spread of
	// each side's K best samples (B's best over A's K-th best, B's K-th
	// best over A's best, per call, overhead subtracted) and by the counter
	// quantum (a quantum of either side, 2·Stats.QuantumBand relative).
	BestRatio, BestLo, BestHi float64
	// Verdict is what the comparison concludes and Reason why, in one
	// line; Significant reports a difference. They are Stats' verdict,
	// reason and significance, unless
	//
	//   - a side did not converge (its best samples did not settle), or
	//   - the best samples' ratio and the paired ratio differ beyond their
	//     intervals ([BestLo, BestHi] and [Stats.Lo, Stats.Hi], the latter
	//     widened by the noise band), as when a kernel's typical and best
	//     times differ, and the best samples alone would give another
	//     verdict (faster, slower or no difference against the same band);
	//
	// then Verdict is stats.VerdictInconclusive (not significant) and
	// Reason says why: the per-side figures and the ratio contradict each
	// other, and no verdict can be trusted. When the two ratios differ
	// beyond their intervals but give the same verdict, the verdict stands
	// and Reason says the two amounts.
	Verdict, Reason string
	Significant     bool
	// Lo and Hi bound what B/A is said to be: Stats.Lo and Stats.Hi, or,
	// when the best samples' ratio lies outside that interval but gives
	// the same verdict, the range spanning both intervals. [Comparison.Sentence]
	// states the difference with them.
	Lo, Hi float64
	// TicksA and TicksB are the paired samples in counter ticks per call
	// (each sample times Repeat calls; the overhead's best is
	// subtracted, Result.OverheadTicks), in the order they were taken.
	TicksA, TicksB []float64
	// Repeat is R, the calls per sample, the same for both sides, in the
	// block whose figures A and B are (each block chooses its own).
	Repeat int
	// Rounds is the number of rounds taken (a round samples A and B once,
	// in the order AB or BA alternately), over every block.
	Rounds int
	// Blocks is the number of blocks measured (see CompareOptions.Blocks);
	// Stats.Blocks holds their ratios. MoreBlocks of them were taken
	// beyond CompareOptions.Blocks because the first ones' own intervals
	// could not resolve half a counter quantum, or the fixed noise band
	// (see CompareOptions.MaxBlocks).
	Blocks, MoreBlocks int
	// SharedBlocks counts the blocks measured while the core was shared
	// (the core-state probe beside them ran slow: Result.Shared); Compare
	// takes other blocks in their place while its time allows. A ratio
	// taken with less of a core need not be the code's, so such blocks
	// never carry a verdict alone: with two or more blocks measured with
	// the core alone, a difference those do not bear out is inconclusive;
	// with fewer, the verdict stands labelled (an ErrSharedCore warning),
	// or is inconclusive with Config.RefuseShared.
	SharedBlocks int
	// Wall is the time spent in the measuring loops.
	Wall time.Duration
	// Warnings holds soft problems: pinning, priority, calibration, the
	// ruler, the test's warnings (coarse samples).
	Warnings []error

	refuseShared bool // Config.RefuseShared
}

// Compare measures a and b interleaved and compares their per-call costs.
//
// The pairs are taken in CompareOptions.Blocks separate measurements, one
// after the other. In each, after a warm-up, each round samples A and B
// back to back (AB in even rounds, BA in odd ones: ABBA over two rounds,
// so a drift hits both alike), each sample timing R calls after one
// untimed call (or Setup) that puts the side's code and data back in
// cache. R is the same for both sides, the larger of the two automatic
// choices (the side that resolves worse against the counter decides; 1
// when either has a Setup), so the same overhead is subtracted from
// both. The two samples of a round form a pair; [stats.ComparePaired]
// turns each block's pairs, and all of them, into the ratio B/A with a
// confidence interval, a p-value and a noise band never narrower than the
// relative spread of either side's K best samples
// (stats.CompareOptions.MinBand): a ratio is not judged finer than the
// figures of its own sides. [stats.CombineBlocks] then takes the ratio,
// its interval and the test from the blocks, each weighted by its own
// interval, since the block, not the pair, is what repeats independently.
// When the blocks' own intervals cannot resolve half a counter quantum (a
// block caught in a noisy moment), Compare takes more blocks of as many
// pairs, one at a time, up to CompareOptions.MaxBlocks
// (Comparison.MoreBlocks). Comparison.Verdict is the blocks' verdict, or
// inconclusive when the figures disagree (see [Comparison]). A block's
// rounds continue until its share of the pairs is in, each side's K best
// agree and the overhead and the ruler have converged, or until
// max(cfg.MaxSamples, 2·its pairs) rounds or its share of cfg.MaxTime;
// fewer pairs than asked is a warning. A further block is taken only
// while one as long as the blocks so far on average fits in what is left
// of MaxBlocks/Blocks times the first blocks' time (and of cfg.MaxTime).
//
// cfg and ctx are used as by [Measure]; the progress hook gets the pairs
// taken of those asked (more when more blocks are taken). An error is
// returned for bad options or targets, a panic in either function, a
// cancelled context, fewer than 6 usable pairs, a side whose samples are
// not longer than the overhead's (it is too short to compare), or a
// failing Check (called on each side after the last block). When the
// context is cancelled after 6 pairs, the Comparison of the pairs taken
// so far comes with the error.
func Compare(ctx context.Context, cfg Config, a, b Target, opt CompareOptions) (Comparison, error) {
	var cmp Comparison
	if a.Name == "" {
		a.Name = "A"
	}
	if b.Name == "" {
		b.Name = "B"
	}
	for _, t := range []Target{a, b} {
		if err := t.validate(cfg, ""); err != nil {
			return cmp, err
		}
	}
	opt, err := opt.WithDefaults()
	if err != nil {
		return cmp, err
	}
	pairs, blocks := opt.Pairs, opt.Blocks
	blocks = max(1, min(blocks, pairs/minPairs))
	maxB := blocks // and as many more as MaxBlocks allows beyond Blocks
	if blocks > 1 {
		maxB += opt.MaxBlocks - opt.Blocks
	}
	// Check the statistics options now rather than after measuring.
	probe := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if _, err := stats.ComparePaired(probe, probe, opt.Stats); err != nil {
		return cmp, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	cfg, err = cfg.WithDefaults()
	if err != nil {
		return cmp, err
	}
	per := (pairs + blocks - 1) / blocks
	bcfg := cfg
	bcfg.MaxTime = max(cfg.MaxTime/time.Duration(blocks), time.Millisecond)
	var parts []compareBlock
	var runErr error
	start := time.Now()
	total := pairs
	var budget time.Duration // for the blocks beyond the first
	for bi := 0; bi < maxB; bi++ {
		if bi >= blocks {
			if bi == blocks {
				budget = min(cfg.MaxTime, time.Since(start)*time.Duration(maxB)/time.Duration(blocks))
			}
			left, ok := moreTime(budget, time.Since(start), parts)
			if !ok || !unresolved(parts, opt.Stats) && quietBlocks(parts) >= blocks {
				break
			}
			bcfg.MaxTime = min(bcfg.MaxTime, left)
			total += per
		}
		part, abandoned, err := measureBlock(ctx, bcfg, a, b, per, bi*per, total)
		if abandoned {
			return cmp, err
		}
		if part != nil {
			parts = append(parts, *part)
		}
		if err != nil {
			runErr = err
			break
		}
	}
	if len(parts) == 0 {
		return cmp, runErr
	}
	cmp.combine(parts)
	cmp.refuseShared = cfg.RefuseShared
	cmp.MoreBlocks = max(0, len(parts)-blocks)
	taken := len(cmp.TicksA)
	if runErr != nil {
		// Cancelled: the pairs taken so far are compared all the same when
		// there are enough of them, and the error is returned with them.
		if ctx.Err() != nil && taken >= minPairs {
			if err := cmp.compare(parts, opt.Stats); err == nil {
				cmp.Warnings = append(cmp.Warnings, fmt.Errorf("harness: cancelled after %d of %d pairs: the comparison covers those", taken, pairs))
			}
		}
		return cmp, runErr
	}
	if taken < minPairs {
		return cmp, fmt.Errorf("harness: only %d usable pairs in %d rounds (%v); need at least %d", taken, cmp.Rounds, cmp.Wall.Round(time.Millisecond), minPairs)
	}
	if taken < pairs {
		cmp.Warnings = append(cmp.Warnings, fmt.Errorf("harness: %d usable pairs of the %d asked, in %d rounds (%v)", taken, pairs, cmp.Rounds, cmp.Wall.Round(time.Millisecond)))
	}
	if err := cmp.compare(parts, opt.Stats); err != nil {
		return cmp, err
	}
	return cmp, errors.Join(a.check(), b.check())
}

// unresolved reports whether the blocks measured so far leave the noise
// band unresolved: the half-width their own intervals allow
// (stats.Comparison.BlockFloor) is wider than the band. The band is a
// fixed one as given, else the counter quantum's band: the drift part of
// a derived band depends on where the ratios lie, and its floor from the
// sides' spread may come down with another block (it is the spread of
// the block whose sides agree best), so neither stops the blocks. The
// decision looks at the blocks' precision only, never at their ratios.
// False when the blocks cannot be compared yet.
func unresolved(parts []compareBlock, opt stats.CompareOptions) bool {
	// The quantum as the comparison takes it; no sides' spread (MinBand),
	// on which neither the blocks' intervals nor their floor depend.
	own := (&Comparison{}).options(parts, opt)
	own.MinBand = 0
	var blocks []stats.Comparison
	band := 0.0
	for i := range parts {
		p := &parts[i]
		if len(p.ticksA) < minPairs {
			continue
		}
		if p.own == nil || p.ownOpt != own {
			b, err := stats.ComparePaired(p.ticksA, p.ticksB, own)
			if err != nil {
				return false
			}
			p.own, p.ownOpt = &b, own
		}
		blocks = append(blocks, *p.own)
		band = math.Max(band, p.own.QuantumBand)
	}
	if len(blocks) < 2 {
		return false
	}
	comb, err := stats.CombineBlocks(blocks[0], blocks, own)
	if err != nil {
		return false
	}
	if own.NoiseBand > 0 {
		band = own.NoiseBand
	}
	return band > 0 && comb.BlockFloor > band
}

// quietBlocks counts the blocks measured with the core alone. A block
// measured while it was shared is replaced by another, within the same
// limits as a block taken for precision, so that a short stretch is waited
// out rather than left to carry the ratio.
func quietBlocks(parts []compareBlock) int {
	n := 0
	for _, p := range parts {
		if !p.shared {
			n++
		}
	}
	return n
}

// moreTime returns the time left of budget after elapsed, and whether
// another block fits in it: as long as the blocks so far on average (the
// block is then given what is left as its MaxTime).
func moreTime(budget, elapsed time.Duration, parts []compareBlock) (time.Duration, bool) {
	var sum time.Duration
	for _, p := range parts {
		sum += p.wall
	}
	left := budget - elapsed
	return left, len(parts) > 0 && left > 0 && sum/time.Duration(len(parts)) <= left
}

// compareBlock is one block of a comparison: its sides' results, its
// pairs in ticks per call (overhead subtracted) and how it was measured.
type compareBlock struct {
	a, b         Result
	ticksA       []float64
	ticksB       []float64
	repeat       int
	quantum      float64 // the counter quantum per call of the pairs
	rounds       int
	wall         time.Duration
	warnings     []error
	aName, bName string
	shared       bool // the core was shared (either side's Result.Shared)
	// own is the block's pairs compared under ownOpt, kept for the
	// decision to take another block (unresolved), which looks at every
	// block again each time.
	own    *stats.Comparison
	ownOpt stats.CompareOptions
}

// measureBlock takes one block of a comparison: an engine of its own for a
// and b with a common R, until it has per pairs. done and total say how
// far the comparison is, for the progress report. It returns the block
// (nil when no engine ran) with an error when the measurement failed or
// was cancelled; abandoned reports a tripped realtime guard.
func measureBlock(ctx context.Context, cfg Config, a, b Target, per, done, total int) (*compareBlock, bool, error) {
	maxRounds := max(cfg.MaxSamples, 2*per)
	more := func(e *engine) bool {
		return e.rounds < maxRounds && len(e.targets[0].pairs) < per
	}
	progress := func(e *engine) (int, int) { return min(done+len(e.targets[0].pairs), total), total }
	e, abandoned, runErr := measureTargets(ctx, cfg, runSpec{name: a.Name + " vs " + b.Name, targets: []Target{a, b}, commonR: true, extra: more, progress: progress})
	if e == nil || abandoned {
		return nil, abandoned, runErr
	}
	ta, tb := e.targets[0], e.targets[1]
	blk := &compareBlock{repeat: ta.r, rounds: e.rounds, wall: e.wall, warnings: e.warnings, aName: ta.inst.Name, bName: tb.inst.Name}
	var errA, errB error
	blk.a, errA = e.result(ta)
	blk.b, errB = e.result(tb)
	if err := errors.Join(runErr, errA, errB); err != nil {
		if runErr == nil || errA != nil || errB != nil {
			return nil, false, err
		}
	}
	blk.quantum = math.Max(blk.a.Quantum, blk.b.Quantum) / float64(max(blk.repeat, 1))
	blk.shared = blk.a.Shared || blk.b.Shared
	for _, p := range ta.pairs {
		x, y := ta.net(p[0]), tb.net(p[1])
		if x <= 0 || y <= 0 {
			return blk, false, fmt.Errorf("%w: a sample of %s or %s is not longer than the overhead's %.0f ticks (%d and %d ticks per sample of %d calls); the functions are too short to compare",
				ErrTooShort, ta.inst.Name, tb.inst.Name, ta.overhead(p[0].variant), p[0].ticks, p[1].ticks, ta.rs[p[0].variant])
		}
		blk.ticksA, blk.ticksB = append(blk.ticksA, x), append(blk.ticksB, y)
	}
	return blk, false, runErr
}

// combine gathers the blocks: their pairs in order, the sides' figures
// and R of one block, the rounds and time of all, their warnings once
// each. The block whose figures are reported (both sides', so that they
// share its ruler) is the one whose sides' K best samples agree most
// closely, the least A + B among equals: its spread is the floor of the
// noise band (see [Comparison.compare]), and a block caught in a noisy
// moment, whose best samples spread by 0.1–0.2% on a Zen 4 guest, would
// hide a difference the other blocks resolve.
func (cmp *Comparison) combine(parts []compareBlock) {
	seen := map[string]bool{}
	for i, p := range parts {
		cmp.TicksA = append(cmp.TicksA, p.ticksA...)
		cmp.TicksB = append(cmp.TicksB, p.ticksB...)
		cmp.Rounds += p.rounds
		cmp.Wall += p.wall
		if p.shared {
			cmp.SharedBlocks++
		}
		if i == 0 || tighter(p.a, p.b, cmp.A, cmp.B) {
			cmp.A, cmp.B, cmp.Repeat = p.a, p.b, p.repeat
		}
		for _, w := range p.warnings {
			if !seen[w.Error()] {
				seen[w.Error()] = true
				cmp.Warnings = append(cmp.Warnings, w)
			}
		}
	}
	cmp.Blocks = len(parts)
}

// compare fills Stats, the best ratio and the verdict from the blocks'
// pairs and the sides' results A and B. Unless the options set it, the
// quantum of the derived noise band is the coarsest counter quantum per
// call of the blocks; the band is at least the spread of each side's K
// best samples; the interval is widened to the spread of the blocks'
// ratios.
func (cmp *Comparison) compare(parts []compareBlock, opt stats.CompareOptions) error {
	opt = cmp.options(parts, opt)
	var err error
	name := func() string { return parts[0].aName + " and " + parts[0].bName }
	if cmp.Stats, err = stats.ComparePaired(cmp.TicksA, cmp.TicksB, opt); err != nil {
		return fmt.Errorf("harness: comparing %s: %w", name(), err)
	}
	pairs := cmp.Stats
	var blocks, quiet []stats.Comparison
	for _, p := range parts {
		if len(p.ticksA) < minPairs {
			continue // too few to estimate (a block cut short)
		}
		c, err := stats.ComparePaired(p.ticksA, p.ticksB, opt)
		if err != nil {
			return fmt.Errorf("harness: comparing %s, a block: %w", name(), err)
		}
		blocks = append(blocks, c)
		if !p.shared {
			quiet = append(quiet, c)
		}
	}
	if cmp.Stats, err = stats.CombineBlocks(pairs, blocks, opt); err != nil {
		return fmt.Errorf("harness: comparing %s: %w", name(), err)
	}
	cmp.Warnings = append(cmp.Warnings, cmp.Stats.Warnings...)
	cmp.judge()
	if cmp.Significant && len(quiet) < len(blocks) {
		cmp.sharedVerdict(pairs, quiet, len(blocks), opt)
	}
	return nil
}

// sharedVerdict keeps a difference found with blocks measured on a shared
// core only when the blocks measured with the core alone bear it out on
// their own (at least two of them, the same verdict); otherwise the
// verdict is inconclusive, and the reason says how many blocks were
// shared. n is the number of blocks judged.
func (cmp *Comparison) sharedVerdict(pairs stats.Comparison, quiet []stats.Comparison, n int, opt stats.CompareOptions) {
	shared := n - len(quiet)
	why := fmt.Sprintf("%d of the %d blocks were measured while the core was shared (the probe beside them ran slow), and a ratio taken with less of a core need not be the code's", shared, n)
	if len(quiet) >= 2 {
		alone, err := stats.CombineBlocks(pairs, quiet, opt)
		if err == nil && alone.Significant && alone.Verdict == cmp.Verdict {
			cmp.Reason += fmt.Sprintf("; the %d blocks measured with the core alone say the same (%s)", len(quiet), fmtRatio(alone))
			return
		}
		if err == nil {
			why += fmt.Sprintf("; the %d blocks measured with the core alone do not bear the difference out (%s: %s)", len(quiet), alone.Verdict, fmtRatio(alone))
		}
	} else {
		why += fmt.Sprintf("; %d blocks measured with the core alone are too few to bear the difference out", len(quiet))
		if !cmp.refuseShared {
			cmp.Warnings = append(cmp.Warnings, fmt.Errorf("%w: the verdict (%s) rests on blocks measured while it was: %s; Config.RefuseShared (-strict) makes it inconclusive", ErrSharedCore, cmp.Verdict, why))
			return
		}
	}
	cmp.Verdict, cmp.Significant = stats.VerdictInconclusive, false
	cmp.Reason = fmt.Sprintf("the blocks say %s (%s), but %s", cmp.Stats.Verdict, fmtRatio(cmp.Stats), why)
}

// fmtRatio is a comparison's ratio and interval: "1.0032 [1.0011, 1.0053]".
func fmtRatio(c stats.Comparison) string {
	return fmt.Sprintf("%.5g [%.5g, %.5g]", c.Ratio, c.Lo, c.Hi)
}

// options are the test's options for the blocks' pairs: unless opt sets
// it, the quantum is the coarsest counter quantum per call of the blocks;
// the band is at least the spread of each side's K best samples.
func (cmp *Comparison) options(parts []compareBlock, opt stats.CompareOptions) stats.CompareOptions {
	if opt.Quantum == 0 {
		for _, p := range parts {
			opt.Quantum = math.Max(opt.Quantum, p.quantum)
		}
	}
	opt.MinBand = math.Max(opt.MinBand, min(maxMinBand, max(bestSpread(cmp.A), bestSpread(cmp.B))))
	return opt
}

// judge fills the best ratio with its interval, the range and the verdict
// from A, B and Stats (see [Comparison.Verdict]).
func (cmp *Comparison) judge() {
	s := cmp.Stats
	cmp.Verdict, cmp.Reason, cmp.Significant = s.Verdict, s.Reason, s.Significant
	cmp.Lo, cmp.Hi = s.Lo, s.Hi
	var why []string
	for _, r := range []Result{cmp.A, cmp.B} {
		if !r.Converged {
			why = append(why, fmt.Sprintf("%s did not converge (its %d best samples spread %s, ε %s)", r.Name, len(r.Best), pctText(r.Spread), pctText(r.Config.Epsilon)))
		}
	}
	if cmp.A.Ticks > 0 {
		// Each side's best is known to within its K best samples' spread
		// and, being read off a quantized counter, half a quantum either
		// way: the ratio of two such figures to within a quantum
		// (2·QuantumBand, relative).
		q := 2 * s.QuantumBand
		cmp.BestRatio = cmp.B.Ticks / cmp.A.Ticks
		cmp.BestLo = cmp.BestRatio / (1 + bestSpread(cmp.A)) * (1 - q)
		cmp.BestHi = cmp.BestRatio * (1 + bestSpread(cmp.B)) * (1 + q)
		band := math.Max(s.NoiseBand, 0)
		if cmp.BestHi < s.Lo*(1-band) || cmp.BestLo > s.Hi*(1+band) {
			apart := fmt.Sprintf("the best samples' ratio %.4g [%.4g, %.4g] (the per-side figures) and the paired ratio %.4g [%.4g, %.4g] (typical samples) differ beyond their intervals: the kernels' typical and best times differ",
				cmp.BestRatio, cmp.BestLo, cmp.BestHi, s.Ratio, s.Lo, s.Hi)
			best := stats.VerdictSame // what the best samples alone say
			switch {
			case cmp.BestHi < 1-band:
				best = stats.VerdictFaster
			case cmp.BestLo > 1+band:
				best = stats.VerdictSlower
			}
			if best == s.Verdict && len(why) == 0 {
				// The two agree on the verdict, not on the size: it stands,
				// and its range spans both.
				cmp.Lo, cmp.Hi = math.Min(s.Lo, cmp.BestLo), math.Max(s.Hi, cmp.BestHi)
				cmp.Reason = fmt.Sprintf("%s; both estimates say %s, by amounts that differ (%s): B/A lies between %.4g and %.4g", s.Reason, s.Verdict, apart, cmp.Lo, cmp.Hi)
			} else {
				why = append(why, fmt.Sprintf("%s, and say different things (%s against %s)", apart, best, s.Verdict))
			}
		}
	}
	if len(why) > 0 {
		cmp.Verdict, cmp.Reason, cmp.Significant = stats.VerdictInconclusive, strings.Join(why, "; "), false
	}
}

// tighter reports whether the block of sides a and b reports better
// figures than the block of c and d: both sides converged where the other
// block's did not, else the closer agreement of the K best samples (the
// larger of the two sides' spreads), else the smaller sum of the figures.
func tighter(a, b, c, d Result) bool {
	if ab, cd := a.Converged && b.Converged, c.Converged && d.Converged; ab != cd {
		return ab
	}
	spread := func(r Result) float64 {
		if len(r.Best) < 2 || !(r.Ticks > 0) {
			return math.Inf(1)
		}
		return bestSpread(r)
	}
	if s, t := max(spread(a), spread(b)), max(spread(c), spread(d)); s != t {
		return s < t
	}
	return a.Ticks+b.Ticks < c.Ticks+d.Ticks
}

// maxMinBand bounds the noise-band floor taken from the sides' spreads
// (stats.CompareOptions.MinBand must stay below 1): a side whose best
// samples spread by more than that did not converge, and the verdict is
// inconclusive anyway.
const maxMinBand = 0.5

// bestSpread is the spread of r's K best samples relative to its per-call
// figure, (vK − v1) / Ticks: how far the figure r reports may be from the
// kernel's best. 0 when r has fewer than two best samples or no positive
// figure.
func bestSpread(r Result) float64 {
	if len(r.Best) < 2 || !(r.Ticks > 0) {
		return 0
	}
	return math.Max(0, r.Best[len(r.Best)-1]-r.Best[0]) / r.Ticks
}

// pctText formats a fraction as a percentage with 3 significant digits.
func pctText(v float64) string { return strconv.FormatFloat(100*v, 'g', 3, 64) + "%" }

// Sentence says the comparison's outcome in one sentence, as hyperfine
// does (see [stats.Sentence]): "Sum4 ran 1.294 ± 0.003 times faster than
// Sum1", "... ran equally fast ...", or the verdict and its reason when it
// is inconclusive; "no comparison" before any pair was compared.
func (c Comparison) Sentence() string {
	if c.Verdict == "" {
		return fmt.Sprintf("no comparison of %s with %s: fewer than %d pairs", c.B.Name, c.A.Name, minPairs)
	}
	return stats.Sentence(c.A.Name, c.B.Name, c.Stats.Ratio, c.Lo, c.Hi, c.Verdict, c.Reason)
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

// CompareCPE sweeps a and b with [CPEAll] (one after the other, each with
// its sizes interleaved) and compares their costs per element with
// [stats.CompareSlopes]: in core cycles, or in ticks with cfg.NoCycles.
// Their Names label the results ("A" and "B" when empty); b's Sizes, when
// nil, are a's.
func CompareCPE(ctx context.Context, cfg Config, a, b Sweep, opt stats.CompareOptions) (CPEComparison, error) {
	var c CPEComparison
	if b.Sizes == nil {
		b.Sizes = a.Sizes
	}
	if a.Name == "" {
		a.Name = "A"
	}
	if b.Name == "" {
		b.Name = "B"
	}
	if a.Name == b.Name {
		b.Name += "'"
	}
	rs, err := CPEAll(ctx, cfg, []Sweep{a, b})
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
