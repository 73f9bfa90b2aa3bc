package selfcheck

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// MachineState is how noisy the machine is now, as Validate measured it:
// facts about the moment, not verdicts on the tool.
type MachineState struct {
	// ThroughputCV and LatencyCV are the coefficients of variation of the
	// Reps results of the 1000-ADD kernel in each mode; BenchCV
	// testing.Benchmark's on the same kernel (0 when skipped).
	ThroughputCV, LatencyCV, BenchCV float64
	// Detectable is the smallest relative difference an A/A comparison of
	// the 1000-ADD kernel (harness.Compare, 1000 pairs) would detect now in 80% of
	// runs (stats.Comparison.Detectable); NaN when it failed.
	Detectable float64
	// ClockSpread is how far the core clock moved over the validation:
	// (max − min)/min of the cycles per tick of every measurement's ruler.
	ClockSpread float64
	// Discarded and Samples count the target samples thrown away (a
	// migration, a context switch, a page fault) and taken, over every
	// measurement.
	Discarded, Samples int
	// Measurements counts the measurements Validate took; SharedWaits those
	// that waited for the core to be free (harness.Result.RulerWait: the
	// ruler's register ADD chain lagging its IMUL chain, or the core-state
	// probe running slow), SharedWait how long they waited in all, and
	// SharedLagging those whose ADD chain still lagged at the end
	// (harness.ErrRulerLag).
	Measurements, SharedWaits, SharedLagging int
	SharedWait                               time.Duration
	// CoreJudged counts the measurements whose core-state probe was judged
	// (harness.Result.ProbeExcess), CoreShared when each of those that
	// found the core shared to its end ended (harness.Result.Shared), from
	// the validation's start, and ProbeMaxExcess the most the probe ran
	// slower than its best on this machine (0.9: 90% slower).
	CoreJudged     int
	CoreShared     []time.Duration
	ProbeMaxExcess float64
	// SiblingCPU is another allowed CPU tried for sharing the measuring
	// CPU's physical core (the first found to, else the last tried; −1:
	// none), and SiblingSlowdown how much slower the probe ran while that
	// CPU spun than with it idle (2: twice as slow; NaN when not
	// measured). A guest's topology need not say which vCPUs are threads
	// of one core; the probe does.
	SiblingCPU      int
	SiblingSlowdown float64
	// Resolves is the smallest relative difference a comparison can tell
	// now: Detectable, or 2.8 × the throughput CV (two separate results,
	// 95%) when the A/A comparison failed.
	Resolves float64
	// Quiet reports a moment quiet enough to resolve 0.1%: both CVs at
	// most their quiet figures and Resolves at most 0.1%.
	Quiet bool
	// Verdict says it in one line.
	Verdict string
}

// state measures the machine's state: the spread of repeated results in
// each mode, testing.Benchmark's, an A/A comparison and the speed.
func (vr *validator) state() error {
	v, o := vr.v, vr.o
	k1000 := func() { vr.sink = chain.AddFrom(vr.sink, 1000) }
	for _, m := range []struct {
		mode   harness.Mode
		cycles *[]float64
		cv     *float64
		wall   *time.Duration
		quiet  float64
	}{{harness.Throughput, &v.HarnessCycles, &v.HarnessCV, &v.HarnessWall, quietCVThroughput}, {harness.Latency, &v.LatencyCycles, &v.LatencyCV, &v.LatencyWall, quietCVLatency}} {
		vr.say("repeatability, %s: harness.Measure ×%d", m.mode, o.Reps)
		cfg := vr.base
		cfg.Mode = m.mode
		f := k1000
		if m.mode == harness.Latency {
			f = func() { vr.sink += chain.Add(1000) }
		}
		t0 := time.Now()
		for range o.Reps {
			r, err := vr.measure(cfg, "AddChain(1000)", f)
			if err != nil {
				return err
			}
			*m.cycles = append(*m.cycles, r.Cycles)
		}
		*m.wall = time.Since(t0)
		*m.cv = cv(*m.cycles)
		bound := m.quiet
		if o.MaxCV > 0 {
			bound = o.MaxCV
		}
		vr.add(Check{Name: fmt.Sprintf("CV of Cycles, 1000-ADD kernel, %s", m.mode), Value: *m.cv * 100, Truth: bound * 100, Unit: "%", Bound: "≤",
			Pass: *m.cv <= bound, State: true, Detail: fmt.Sprintf("%d measurements in %v", o.Reps, m.wall.Round(time.Millisecond))})
	}
	perResult := (v.HarnessWall + v.LatencyWall) / time.Duration(2*o.Reps)
	vr.add(Check{Name: "wall time per result, 1000-ADD kernel", Value: float64(perResult.Microseconds()) / 1000, Truth: msOf(maxResultWall), Unit: "ms", Bound: "≤",
		Pass: perResult <= maxResultWall, State: true, Detail: fmt.Sprintf("%d results of both modes in %v", 2*o.Reps, (v.HarnessWall + v.LatencyWall).Round(time.Millisecond))})

	vr.say("an A/A comparison")
	aa, err := harness.Compare(vr.ctx, vr.base, harness.Target{Name: "A", Run: k1000}, harness.Target{Name: "A'", Run: k1000}, harness.CompareOptions{Pairs: 1000})
	v.AA = aa
	if err != nil {
		if vr.ctx.Err() != nil {
			return err
		}
		v.Warnings = append(v.Warnings, fmt.Errorf("selfcheck: the A/A comparison failed, so what a comparison resolves now is not known: %w", err))
	} else {
		v.State.Detectable = aa.Stats.Detectable
	}

	if !o.SkipBenchmark {
		vr.say("repeatability: testing.Benchmark ×%d", o.Reps)
		t0 := time.Now()
		for range o.Reps {
			if vr.ctx.Err() != nil {
				return fmt.Errorf("selfcheck: validation cancelled: %w", vr.ctx.Err())
			}
			br := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					k1000()
				}
			})
			if br.N > 0 {
				v.BenchNs = append(v.BenchNs, float64(br.T.Nanoseconds())/float64(br.N))
			}
		}
		v.BenchWall = time.Since(t0)
		v.BenchCV = cv(v.BenchNs)
		if v.BenchCV > 0 {
			ratio := v.BenchCV / math.Max(v.HarnessCV, 1e-12)
			vr.add(Check{Name: "testing.B CV / cyclebench CV", Value: ratio, Truth: minBenchRatio, Bound: "≥", Pass: ratio >= minBenchRatio, State: true,
				Detail: fmt.Sprintf("testing.B CV %.3g%% over %d runs in %v", v.BenchCV*100, len(v.BenchNs), v.BenchWall.Round(time.Millisecond))})
		}
	}
	return vr.speed()
}

// finish fills the machine's state and its verdict, and Pass.
func (vr *validator) finish() {
	v := vr.v
	s := &v.State
	s.ThroughputCV, s.LatencyCV, s.BenchCV = v.HarnessCV, v.LatencyCV, v.BenchCV
	s.Discarded, s.Samples = vr.disc, vr.samp
	s.Measurements, s.SharedWaits, s.SharedLagging, s.SharedWait = vr.measurements, vr.waits, vr.lagging, vr.waited
	s.CoreJudged, s.CoreShared, s.ProbeMaxExcess = vr.core.judged, vr.core.shared, vr.core.maxExcess
	if len(vr.cpt) > 0 {
		s.ClockSpread = slices.Max(vr.cpt)/slices.Min(vr.cpt) - 1
	}
	s.Quiet, s.Resolves, s.Verdict = stateVerdict(*s, len(v.HarnessCycles) > 0)
	v.Pass = len(v.Checks) > 0
	for _, c := range v.Checks {
		if !c.Pass && (!c.State || (vr.o.MaxCV > 0 && strings.HasPrefix(c.Name, "CV of"))) {
			v.Pass = false
		}
	}
}

// stateVerdict judges a machine state: quiet when the spreads of repeated
// results are at most what a quiet moment gives and a comparison resolves
// 0.1%; the verdict says what can be resolved now, by a comparison (A and
// B interleaved: the A/A comparison's figure) and between separate results
// (2.8 times their spread: two results, 95%).
func stateVerdict(s MachineState, measured bool) (quiet bool, resolves float64, verdict string) {
	if !measured {
		return false, math.NaN(), "not measured (the validation stopped before the repeated results)"
	}
	apart := 2.8 * s.ThroughputCV
	resolves = apart
	if !math.IsNaN(s.Detectable) {
		resolves = s.Detectable
	}
	quiet = s.ThroughputCV <= quietCVThroughput && s.LatencyCV <= quietCVLatency && resolves <= quietDetectable && len(s.CoreShared) == 0
	facts := fmt.Sprintf("ten separate results spread by %.2g%% (throughput) and %.2g%% (latency), so two of them differ by up to about %.2g%%",
		100*s.ThroughputCV, 100*s.LatencyCV, 100*apart)
	if s.ClockSpread > 0 {
		facts += fmt.Sprintf("; the core clock moved by %.2g%%", 100*s.ClockSpread)
	}
	cmp := "compare"
	if !math.IsNaN(s.Detectable) {
		cmp = fmt.Sprintf("compare (A and B interleaved) resolves %.2g%% now", 100*s.Detectable)
	}
	if s.SiblingSlowdown > 1+siblingShares {
		facts += fmt.Sprintf("; CPU %d shares the measuring CPU's physical core (the probe ran %.2f× slower while it spun): keep it idle while measuring, nothing built or tested beside a measurement", s.SiblingCPU, s.SiblingSlowdown)
	}
	if len(s.CoreShared) > 0 {
		facts += fmt.Sprintf("; the core was shared in %d of %d measurements (at %s), when loops bound by the front end or by branches ran up to %.0f%% slower than with the core alone (the probe's excess), while the chains measured here barely move",
			len(s.CoreShared), s.CoreJudged, spans(s.CoreShared, sharedGap), 100*s.ProbeMaxExcess)
	}
	if quiet {
		return true, resolves, fmt.Sprintf("quiet enough to resolve %.2g%%: %s; %s", 100*quietDetectable, cmp, facts)
	}
	if math.IsNaN(s.Detectable) {
		cmp = fmt.Sprintf("differences below %.2g%% are not resolvable now", 100*resolves)
	}
	return false, resolves, fmt.Sprintf("noisy: %s; %s; measure at a quieter moment or on another CPU, and compare side by side in one run", cmp, facts)
}

// cv returns the coefficient of variation of xs (0 for fewer than 2 values).
func cv(xs []float64) float64 {
	s, err := stats.Summarize(xs)
	if err != nil || s.N < 2 {
		return 0
	}
	return s.CV
}
