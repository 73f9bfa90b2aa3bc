package harness

// Convergence rules replayed over the recorded sample streams, as they are
// and with a core clock made to move under them.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/stats"
)

// convergenceRule says whether one measurement's samples have converged,
// with the engine's defaults (K 3, ε 1%, two counter quanta).
type convergenceRule struct {
	name string
	f    func(samples []traceSample, quantum float64) bool
}

// kbestTicks is the CS:APP rule on the target's gross ticks per call, each
// R variant pooled: the engine's rule before cycles were judged.
func kbestTicks(samples []traceSample, quantum float64) bool {
	kb, _ := stats.NewKBest(defaultK, defaultEpsilon, 0, 1<<30)
	r := 0
	for _, s := range samples {
		if s.Kind == 'T' && s.OK {
			kb.Add(float64(s.Ticks) / float64(s.N))
			r = s.N
		}
	}
	if r == 0 {
		return false
	}
	// The engine's floor: AbsSteps quanta over a sample of R calls.
	abs, _ := stats.NewKBest(defaultK, defaultEpsilon, defaultAbsSteps*quantum/float64(r), 1<<30)
	for _, s := range samples {
		if s.Kind == 'T' && s.OK {
			abs.Add(float64(s.Ticks) / float64(s.N))
		}
	}
	return kb.Converged() || abs.Converged()
}

// halvesCycles is the engine's rule since: the cycle figure of the even
// rounds and that of the odd rounds agree, each from its own best target,
// empty-loop and ruler samples (see halvesAgree).
func halvesCycles(samples []traceSample, quantum float64) bool {
	var h [2]halfRecord
	ops := finalOps(samples)
	var rs []int
	for p := range h {
		h[p] = newHalfRecord()
	}
	for _, s := range samples {
		if !s.OK {
			continue
		}
		p := s.Round % 2
		switch s.Kind {
		case 'T':
			h[p].target(s.N, float64(s.Ticks))
			if !slices.Contains(rs, s.N) {
				rs = append(rs, s.N)
			}
		case 'O':
			h[p].overhead(s.N, float64(s.Ticks))
		case 'R':
			if s.N == ops[s.Index] {
				h[p].ruler(s.Index == trAddLong, float64(s.Ticks))
			}
		}
	}
	if len(rs) == 0 || h[0].n < defaultK || h[1].n < defaultK {
		return false
	}
	dOps := float64(ops[trAddLong] - ops[trAddShort])
	return halvesAgree(h, dOps, defaultEpsilon, defaultAbsSteps*quantum/float64(slices.Min(rs)))
}

// half builds a halfRecord of one R: a target sample, an empty-loop
// sample and the ruler's long and short chains, in ticks.
func half(r int, target, empty, long, short float64) halfRecord {
	h := newHalfRecord()
	h.target(r, target)
	h.overhead(r, empty)
	h.ruler(true, long)
	h.ruler(false, short)
	return h
}

func TestHalvesAgree(t *testing.T) {
	const dOps = 100_000 // the ruler's long chain beyond its short one, links
	// A kernel of 1000 cycles per call at R 100 on a 1.4-cycles-per-tick
	// clock: 71,429 ticks of kernel, 300 of loop.
	base := half(100, 71429+300, 300, 71429+200, 200)
	for _, c := range []struct {
		name string
		h    [2]halfRecord
		eps  float64
		abs  float64
		want bool
	}{
		{"the same samples", [2]halfRecord{base, base}, 0.01, 0, true},
		{"0.5% apart, ε 1%", [2]halfRecord{base, half(100, 71786+300, 300, 71429+200, 200)}, 0.01, 0, true},
		{"2% apart, ε 1%", [2]halfRecord{base, half(100, 72857+300, 300, 71429+200, 200)}, 0.01, 0, false},
		// The clock 5% slower in the odd rounds: every sample 5% longer in
		// ticks, the same in cycles.
		{"a moving clock", [2]halfRecord{base, half(100, (71429+300)*1.05, 300*1.05, (71429+200)*1.05, 200*1.05)}, 0.01, 0, true},
		// The same ticks with the ruler 5% faster in one half: 5% apart.
		{"rulers 5% apart", [2]halfRecord{base, half(100, 71429+300, 300, (71429+200)/1.05, 200/1.05)}, 0.01, 0, false},
		// An empty function: nets of 0 and −0.3 ticks per call, gross 3.
		{"an empty function", [2]halfRecord{half(100, 300, 300, 71629, 200), half(100, 270, 300, 71629, 200)}, 0.01, 0, false},
		{"an empty function, within ε of its gross", [2]halfRecord{half(100, 300, 300, 71629, 200), half(100, 299, 300, 71629, 200)}, 0.01, 0, true},
		{"within the absolute floor", [2]halfRecord{base, half(100, 72857+300, 300, 71429+200, 200)}, 0.01, 20, true},
		{"a half without a ruler", [2]halfRecord{base, func() halfRecord { h := base; h.resetRuler(); return h }()}, 0.01, 0, false},
		{"a half without samples", [2]halfRecord{base, newHalfRecord()}, 0.01, 0, false},
	} {
		if got := halvesAgree(c.h, dOps, c.eps, c.abs); got != c.want {
			t.Errorf("%s: halvesAgree = %v, want %v (apart %.4g)", c.name, got, c.want, halvesApart(c.h, dOps))
		}
	}
}

// movedClock returns a copy of samples with the core clock made to move
// under them, sample by sample: a level that steps by 0.7% (as the AMD Zen
// 4 guest's clock does) with probability pStep before each sample, within
// ±span, plus a burst 3% faster for one sample with probability pBurst.
// Every chain and call runs at the clock of its moment, so its ticks are
// divided by the level: the cycles are unchanged, the ticks are not.
func movedClock(samples []traceSample, rng *rand.Rand, pStep, span, pBurst float64) []traceSample {
	out := slices.Clone(samples)
	level := 1.0
	for i := range out {
		if rng.Float64() < pStep {
			level += 0.007 * float64(1-2*rng.IntN(2))
			level = math.Max(1-span, math.Min(1+span, level))
		}
		f := level
		if rng.Float64() < pBurst {
			f *= 1.03
		}
		out[i].Ticks = uint64(math.Round(float64(out[i].Ticks) / f))
	}
	return out
}

var convergenceRules = []convergenceRule{
	{"K-best in ticks", kbestTicks},
	{"halves in cycles (engine)", halvesCycles},
	{"either", func(s []traceSample, q float64) bool { return kbestTicks(s, q) || halvesCycles(s, q) }},
	{"both", func(s []traceSample, q float64) bool { return kbestTicks(s, q) && halvesCycles(s, q) }},
}

// TestReplayConvergence replays every convergence rule over every recorded
// measurement, as recorded and under four moving clocks, and reports for
// each how often it calls the measurement converged rightly and wrongly:
// wrongly when the figure (the engine's estimator over the whole stream) is
// more than ε from the truth, or from the median of the figures where the
// kernel has none. The engine's rule must do no worse than the K-best rule
// in ticks on either count, over every recording and clock. (Under bursts
// the estimator's own figure is often off, whatever the rule: the table's
// "right" column.)
func TestReplayConvergence(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.txt.gz"))
	if len(files) == 0 {
		t.Skip("no recorded streams in testdata/streams")
	}
	sort.Strings(files)
	clocks := []struct {
		name                string
		pStep, span, pBurst float64
	}{
		{"as recorded", 0, 0, 0},
		{"steps 0.7% (p .2, ±5%)", 0.2, 0.05, 0},
		{"steps 0.7% (p .5, ±10%)", 0.5, 0.10, 0},
		{"bursts +3% (p .02)", 0, 0, 0.02},
		{"steps and bursts", 0.3, 0.08, 0.02},
	}
	var report strings.Builder
	fmt.Fprintf(&report, "%-24s %-24s %5s", "recording", "clock", "right")
	for _, r := range convergenceRules {
		fmt.Fprintf(&report, " %26s", r.name)
	}
	report.WriteString("   (right: figures within ε of the reference, of n; per rule: converged and right / converged and wrong)\n")
	rightTotal := make([]int, len(convergenceRules))
	wrongTotal := make([]int, len(convergenceRules))
	for _, path := range files {
		machine, ms := readStreams(t, path)
		quantum := stepOf(machine)
		for ci, c := range clocks {
			rng := rand.New(rand.NewPCG(uint64(ci), 7))
			runs := make([][]traceSample, len(ms))
			figs := map[string][]float64{}
			for i, m := range ms {
				runs[i] = movedClock(engineView(m), rng, c.pStep, c.span, c.pBurst)
				figs[m.kernel] = append(figs[m.kernel], minEstimate(runs[i]))
			}
			ok := make([]int, len(convergenceRules))
			wrong := make([]int, len(convergenceRules))
			right := 0
			for i, m := range ms {
				ref := m.truth
				if ref == 0 {
					ref = stats.Median(figs[m.kernel])
				}
				bad := math.Abs(minEstimate(runs[i])/ref-1) > defaultEpsilon
				if !bad {
					right++
				}
				for ri, r := range convergenceRules {
					if r.f(runs[i], quantum) {
						if bad {
							wrong[ri]++
							wrongTotal[ri]++
						} else {
							ok[ri]++
							rightTotal[ri]++
						}
					}
				}
			}
			fmt.Fprintf(&report, "%-24s %-24s %2d/%2d", filepath.Base(path), c.name, right, len(ms))
			for ri := range convergenceRules {
				fmt.Fprintf(&report, " %20d / %3d", ok[ri], wrong[ri])
			}
			report.WriteString("\n")
		}
	}
	fmt.Fprintf(&report, "%-55s", "over every recording and clock")
	for ri := range convergenceRules {
		fmt.Fprintf(&report, " %20d / %3d", rightTotal[ri], wrongTotal[ri])
	}
	t.Log("\n" + report.String())
	const ticks, engine = 0, 1
	if rightTotal[engine] < rightTotal[ticks] || wrongTotal[engine] > wrongTotal[ticks] {
		t.Errorf("the engine's rule converged rightly %d and wrongly %d times, the K-best rule in ticks %d and %d: choose the rule again (see the table)", rightTotal[engine], wrongTotal[engine], rightTotal[ticks], wrongTotal[ticks])
	}
}

// stepOf reads the counter step from a recording's machine line.
func stepOf(machine string) float64 {
	var step float64
	if i := strings.Index(machine, "step "); i >= 0 {
		fmt.Sscanf(machine[i+len("step "):], "%g", &step)
	}
	return math.Max(step, 1)
}
