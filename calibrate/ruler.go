package calibrate

import (
	"fmt"
	"math"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
	"github.com/cyclebench/cyclebench/tsc"
)

// RulerStream names one stream of samples of a [Ruler]: one chain at one
// length.
type RulerStream int

// The streams of a [Ruler]. The ADD streams give core cycles per tick; the
// IMUL streams check them; the immediate-ADD streams measure the folding
// the CPU table speaks of and check nothing; the probe says whether the
// core was shared ([chain.Branch]: a loop of one taken branch per
// iteration, whose cost a busy SMT sibling raises while it leaves the
// chains' alone).
const (
	AddShort  RulerStream = iota // the register ADD chain, short
	AddLong                      // the register ADD chain, long
	ImulShort                    // the IMUL chain, short
	ImulLong                     // the IMUL chain, long
	ImmShort                     // the small-immediate ADD chain, short
	ImmLong                      // the small-immediate ADD chain, long
	Probe                        // the core-state probe, one length
	numRulerStreams
)

var streamNames = [numRulerStreams]string{"add-short", "add-long", "imul-short", "imul-long", "imm-short", "imm-long", "probe"}

func (s RulerStream) String() string {
	if s < 0 || s >= numRulerStreams {
		return fmt.Sprintf("RulerStream(%d)", int(s))
	}
	return streamNames[s]
}

// RulerOptions sets up a [Ruler]. Lengths are in links (instructions) of
// each chain; a chain whose long length is 0 is not measured.
type RulerOptions struct {
	// AddShort and AddLong are the register ADD chain's lengths: 1 ≤
	// AddShort < AddLong ≤ 1e9.
	AddShort, AddLong int
	// ImulShort and ImulLong are the IMUL chain's lengths (0 and 0: not
	// measured, as when its latency is not documented and so it can check
	// nothing): 1 ≤ ImulShort < ImulLong ≤ 1e9.
	ImulShort, ImulLong int
	// ImmShort and ImmLong are the small-immediate ADD chain's lengths (0
	// and 0: not measured).
	ImmShort, ImmLong int
	// Probe is the core-state probe's length in iterations (0: not
	// measured; at most 1e9). Its samples include the timing's fixed cost,
	// as the best the probe has shown on the machine does
	// ([Calibration.ProbeAlone]).
	Probe int
	// ImulLatency is the documented latency of one IMUL link in core
	// cycles ([CPU.ImulLatency]); 0 when not documented: the ruler is then
	// unchecked.
	ImulLatency float64
	// CounterHz is the counter's frequency, for the plausibility of the
	// core clock the ADD chain implies; 0 skips that check.
	CounterHz float64
	// K, Epsilon, AbsTicks and MaxSamples are the K-best rule of the ADD
	// streams ([stats.NewKBest]): [Ruler.Converged] when both agree. The
	// other streams keep the same K with a tolerance of a tenth of
	// Thresholds.Agree: they check a ratio, not a figure. K 0 means 1.
	K                 int
	Epsilon, AbsTicks float64
	MaxSamples        int
	// Thresholds decide whether the chains agree; zero means
	// DefaultRulerThresholds.
	Thresholds RulerThresholds
	// Add, Imul and AddImm are the chains timed, nil meaning package
	// chain's register ADD, IMUL and immediate ADD. Tests replace them to
	// build a ruler that lies, which must be refused. ProbeLoop is the
	// probe, nil meaning [chain.Branch].
	Add, Imul, AddImm, ProbeLoop func(x uint64, n int) uint64
}

// Ruler measures core cycles per counter tick beside other work, from two
// dependent chains of different instruction classes: the slope of a
// register ADD chain (one cycle per link on every x86-64 and arm64 core)
// between two lengths, checked against the slope of an IMUL chain, whose
// latency the CPU table documents. Its caller decides when to take which
// stream (the harness interleaves them with its targets;
// [MeasureCoreClock] takes them in turn); the ruler times the chains,
// keeps the K best samples of each stream and turns them into a
// [CoreClock] with [DecideRuler]. A Ruler is not safe for concurrent use.
type Ruler struct {
	o         RulerOptions
	fn        [numRulerStreams]func(uint64, int) uint64
	ops       [numRulerStreams]int
	kb        [numRulerStreams]*stats.KBest
	taken     [numRulerStreams]int
	discarded [numRulerStreams]int
	streams   []RulerStream
	sink      uint64
}

// NewRuler returns a ruler for o, or an error wrapping [ErrBadCount] that
// names the first bad option.
func NewRuler(o RulerOptions) (*Ruler, error) {
	if o.K == 0 {
		o.K = 1
	}
	if o.Thresholds == (RulerThresholds{}) {
		o.Thresholds = DefaultRulerThresholds
	}
	if err := o.Thresholds.check(); err != nil {
		return nil, err
	}
	bad := func(what string, v any, allowed string) error {
		return fmt.Errorf("%w: ruler %s %v (allowed: %s)", ErrBadCount, what, v, allowed)
	}
	switch {
	case o.AddShort < 1 || o.AddLong <= o.AddShort || o.AddLong > 1e9:
		return nil, bad("ADD lengths", [2]int{o.AddShort, o.AddLong}, "1 ≤ short < long ≤ 1e9")
	case !pairOK(o.ImulShort, o.ImulLong):
		return nil, bad("IMUL lengths", [2]int{o.ImulShort, o.ImulLong}, "0 and 0, or 1 ≤ short < long ≤ 1e9")
	case !pairOK(o.ImmShort, o.ImmLong):
		return nil, bad("immediate-ADD lengths", [2]int{o.ImmShort, o.ImmLong}, "0 and 0, or 1 ≤ short < long ≤ 1e9")
	case o.Probe < 0 || o.Probe > 1e9:
		return nil, bad("probe length", o.Probe, "0 (not measured) to 1e9 iterations")
	case math.IsNaN(o.ImulLatency) || o.ImulLatency < 0:
		return nil, bad("IMUL latency", o.ImulLatency, "≥ 0 cycles; 0 when unknown")
	case math.IsNaN(o.CounterHz) || o.CounterHz < 0:
		return nil, bad("counter frequency", o.CounterHz, "≥ 0 Hz; 0 skips the plausibility check")
	}
	r := &Ruler{o: o}
	r.fn = [numRulerStreams]func(uint64, int) uint64{
		orChain(o.Add, chain.AddFrom), orChain(o.Add, chain.AddFrom),
		orChain(o.Imul, chain.ImulFrom), orChain(o.Imul, chain.ImulFrom),
		orChain(o.AddImm, chain.AddImmFrom), orChain(o.AddImm, chain.AddImmFrom),
		orChain(o.ProbeLoop, chain.Branch),
	}
	r.ops = [numRulerStreams]int{o.AddShort, o.AddLong, o.ImulShort, o.ImulLong, o.ImmShort, o.ImmLong, o.Probe}
	for s := range numRulerStreams {
		if r.ops[s] == 0 {
			continue
		}
		eps := o.Epsilon
		if s > AddLong {
			eps = o.Thresholds.Agree / 10
		}
		kb, err := stats.NewKBest(o.K, eps, o.AbsTicks, max(o.MaxSamples, o.K))
		if err != nil {
			return nil, fmt.Errorf("%w: ruler: %v", ErrBadCount, err)
		}
		r.kb[s] = kb
		r.streams = append(r.streams, s)
	}
	return r, nil
}

func pairOK(short, long int) bool {
	return (short == 0 && long == 0) || (short >= 1 && long > short && long <= 1e9)
}

func orChain(f, def func(uint64, int) uint64) func(uint64, int) uint64 {
	if f != nil {
		return f
	}
	return def
}

// Streams returns the streams r measures, in a fixed order: the ADD pair,
// then the IMUL pair, the immediate-ADD pair and the probe where measured.
func (r *Ruler) Streams() []RulerStream { return r.streams }

// Ops returns the length of stream s in links (0 for a stream not measured).
func (r *Ruler) Ops(s RulerStream) int { return r.ops[s] }

// Time runs stream s's chain once between serialized counter reads and
// returns the ticks it took. ok is false when start and stop ran on
// different CPUs or, with checkCPU, not on cpu (RDTSCP's CPU number). It
// does not record the sample (see [Ruler.Add] and [Ruler.Sample]). The
// caller must be on a locked, preferably pinned, thread.
func (r *Ruler) Time(s RulerStream, cpu int, checkCPU bool) (ticks uint64, ok bool) {
	f, n := r.fn[s], r.ops[s]
	a, auxA := tsc.StartCPU()
	v := f(0, n)
	b, auxB := tsc.StopCPU()
	r.sink += v
	if auxA != auxB || b < a || (checkCPU && tsc.AuxCPU(auxB) != cpu) {
		return 0, false
	}
	return b - a, true
}

// Add records a sample of stream s (a discarded one when !ok).
func (r *Ruler) Add(s RulerStream, ticks uint64, ok bool) {
	if r.kb[s] == nil {
		return
	}
	r.taken[s]++
	if !ok {
		r.discarded[s]++
		return
	}
	r.kb[s].Add(float64(ticks))
}

// Sample times stream s once and records the sample.
func (r *Ruler) Sample(s RulerStream, cpu int, checkCPU bool) {
	v, ok := r.Time(s, cpu, checkCPU)
	r.Add(s, v, ok)
}

// Taken returns the samples taken of stream s since it was last reset,
// discarded ones included.
func (r *Ruler) Taken(s RulerStream) int { return r.taken[s] }

// Best returns the smallest sample of stream s in ticks (NaN when none).
func (r *Ruler) Best(s RulerStream) float64 {
	if r.kb[s] == nil {
		return math.NaN()
	}
	return r.kb[s].Min()
}

// Converged reports whether both ADD streams' K best samples agree (the
// streams whose precision goes into every cycle figure).
func (r *Ruler) Converged() bool {
	return r.kb[AddShort].Converged() && r.kb[AddLong].Converged()
}

// Done reports whether the ADD streams need no more samples: converged, or
// MaxSamples taken.
func (r *Ruler) Done() bool {
	done := func(s RulerStream) bool { return r.kb[s].Converged() || r.taken[s] >= r.o.MaxSamples }
	return done(AddShort) && done(AddLong)
}

// Resize sets the long lengths of the ADD and the IMUL chains (a length
// that is not above the short one, or a chain not measured, is left as it
// is) and restarts each stream whose length changed. It reports whether
// any did.
func (r *Ruler) Resize(addLong, imulLong int) bool {
	changed := false
	for _, c := range []struct {
		s   RulerStream
		ops int
	}{{AddLong, addLong}, {ImulLong, imulLong}} {
		if r.kb[c.s] == nil || c.ops <= r.ops[c.s-1] || c.ops > 1e9 || c.ops == r.ops[c.s] {
			continue
		}
		r.ops[c.s] = c.ops
		r.kb[c.s].Reset()
		r.taken[c.s], r.discarded[c.s] = 0, 0
		changed = true
	}
	return changed
}

// slope returns the slope in ticks per link of the chain whose short
// stream is s (NaN when either stream has no sample).
func (r *Ruler) slope(s RulerStream) float64 {
	if r.kb[s] == nil || r.kb[s].Kept() == 0 || r.kb[s+1].Kept() == 0 {
		return math.NaN()
	}
	return Slope(r.kb[s].Min(), r.kb[s+1].Min(), float64(r.ops[s+1]-r.ops[s]))
}

// Resolution is the relative resolution of the ADD and IMUL slopes for a
// counter quantum of q ticks: q over each chain's span in ticks between
// its two lengths (best samples), the two added. NaN when a chain has no
// span; [DecideCycles] counts that as 0.
func (r *Ruler) Resolution(q float64) float64 {
	res := 0.0
	for _, s := range []RulerStream{AddShort, ImulShort} {
		res += q / (r.Best(s+1) - r.Best(s))
	}
	return res
}

// Figures returns the chains' slopes as they stand, for [DecideRuler]
// and [DecideCycles].
func (r *Ruler) Figures() RulerFigures {
	return RulerFigures{
		AddTicksPerOp:  r.slope(AddShort),
		ImulTicksPerOp: r.slope(ImulShort),
		ImmTicksPerOp:  r.slope(ImmShort),
		ImulLatency:    r.o.ImulLatency,
		CounterHz:      r.o.CounterHz,
		ProbeTicks:     r.probeTicks(),
		Exact:          chain.Exact(),
		Spread:         r.spread(AddLong) + r.spread(ImulLong),
	}
}

// probeTicks is the probe's best sample in ticks per iteration (NaN when
// not measured or without a sample).
func (r *Ruler) probeTicks() float64 {
	if r.kb[Probe] == nil || r.kb[Probe].Kept() == 0 {
		return math.NaN()
	}
	return r.kb[Probe].Min() / float64(r.ops[Probe])
}

// spread is the relative spread of stream s's K best samples, 0 when it
// has fewer or is not measured.
func (r *Ruler) spread(s RulerStream) float64 {
	if r.kb[s] == nil {
		return 0
	}
	if v := r.kb[s].Spread(); v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return 0
}

// Verdict returns the core clock the ruler's samples give, decided by
// [DecideRuler] with r's thresholds.
func (r *Ruler) Verdict() CoreClock {
	cc := DecideRuler(r.Figures(), r.o.Thresholds)
	cc.Converged = r.Converged()
	return cc
}
