package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// block is a block's paired comparison with ratio r and a 95% interval of
// ±w relative (on the log scale).
func block(r, w float64) Comparison {
	return Comparison{N: 40, Ratio: r, Lo: r * math.Exp(-w), Hi: r * math.Exp(w), Confidence: 0.95, QuantumBand: 1e-5}
}

func TestCombineBlocks(t *testing.T) {
	// A comparison whose pairs say B is 0.2% faster, ±0.02%.
	paired := func() Comparison {
		return Comparison{N: 200, Ratio: 0.998, Lo: 0.9978, Hi: 0.9982, PValue: 1e-10, NoiseBand: 0.0002, BandSource: BandQuantum,
			Confidence: 0.95, Alpha: 0.05, Test: "wilcoxon", Significant: true, Verdict: VerdictFaster, Reason: "the pairs"}
	}
	tests := []struct {
		name    string
		blocks  []Comparison
		verdict string
		text    []string
		lo, hi  float64 // the interval must lie within (0: no bound)
	}{
		{"blocks that agree: faster, from the blocks", []Comparison{block(0.99799, 0.0004), block(0.99801, 0.0004), block(0.998, 0.0004), block(0.99802, 0.0004), block(0.99798, 0.0004)},
			VerdictFaster, []string{"interval of the 5 blocks' ratios (0.997980 to 0.998020, each weighted by its own interval)", "excludes 1"}, 0.9975, 0.9985},
		// One block taken in a noisy moment reads 1.003 ±0.8%: weighted by
		// its interval it barely moves the mean. An unweighted t-interval
		// of the five ratios (0.998 ×4 and 1.003) would reach 1.0006 and
		// contain 1.
		{"a noisy block counts for what it is worth", []Comparison{block(0.998, 0.0004), block(0.99805, 0.0004), block(1.003, 0.008), block(0.99795, 0.0004), block(0.998, 0.0004)},
			VerdictFaster, []string{"(0.9980 to 1.0030, each weighted"}, 0.997, 0.9988},
		{"precise blocks that disagree: inconclusive", []Comparison{block(0.99, 0.0004), block(1.01, 0.0004), block(0.998, 0.0004), block(1.005, 0.0004), block(0.992, 0.0004)},
			VerdictInconclusive, []string{"the pairs say faster", "moved from 0.990 to 1.010 between the 5 blocks"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := CombineBlocks(paired(), tt.blocks, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.verdict || c.Significant != (tt.verdict == VerdictFaster) {
				t.Fatalf("verdict %s (significant %v), want %s: %s", c.Verdict, c.Significant, tt.verdict, c.Reason)
			}
			if !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) || (tt.lo > 0 && (c.Lo < tt.lo || c.Hi > tt.hi)) {
				t.Fatalf("ratio %v [%v, %v], want an interval around it within [%v, %v]", c.Ratio, c.Lo, c.Hi, tt.lo, tt.hi)
			}
			if c.Test != TestBlocks || c.Exact || c.PairsRatio != 0.998 || c.PairsLo != 0.9978 || c.PairsHi != 0.9982 || c.PairsPValue != 1e-10 {
				t.Fatalf("test %q exact %v, pairs %v [%v, %v] p %v: want the blocks' test and the pairs' figures kept", c.Test, c.Exact, c.PairsRatio, c.PairsLo, c.PairsHi, c.PairsPValue)
			}
			if len(c.Blocks) != len(tt.blocks) || c.BlockLo != c.Lo || c.BlockHi != c.Hi || !(c.BlockTau >= 0) || !(c.Detectable > c.NoiseBand) {
				t.Fatalf("blocks %v [%v, %v] τ %v, detectable %v: not recorded", c.Blocks, c.BlockLo, c.BlockHi, c.BlockTau, c.Detectable)
			}
			// The floor is what the blocks' own intervals allow: the
			// t quantile times √(1/Σ 1/se²), never above the half-width.
			var own float64
			for _, b := range tt.blocks {
				se := math.Log(b.Hi/b.Lo) / (2 * 1.959964)
				own += 1 / (se * se)
			}
			want := math.Expm1(distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(tt.blocks) - 1)}.Quantile(0.975) / math.Sqrt(own))
			if math.Abs(c.BlockFloor/want-1) > 1e-6 || math.Log1p(c.BlockFloor) > math.Log(c.Hi/c.Lo)/2*(1+1e-12) {
				t.Fatalf("floor %v, want %v, no wider than the interval [%v, %v]", c.BlockFloor, want, c.Lo, c.Hi)
			}
			for _, s := range tt.text {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q does not say %q", c.Reason, s)
				}
			}
		})
	}
	if c, err := CombineBlocks(paired(), []Comparison{block(0.998, 0.0004)}, CompareOptions{}); err != nil || c.Test != "wilcoxon" || c.Ratio != 0.998 || c.Blocks != nil {
		t.Fatalf("one block: %+v, %v; want the pairs unchanged", c, err)
	}
	// Two blocks that agree, each too wide on its own, with one degree of
	// freedom: the pairs' verdict is not borne out, and the reason does
	// not claim the ratio moved.
	if c, err := CombineBlocks(paired(), []Comparison{block(0.998, 0.003), block(0.9981, 0.003)}, CompareOptions{}); err != nil || c.Verdict != VerdictInconclusive ||
		!strings.Contains(c.Reason, "the 2 blocks (ratios from 0.998000 to 0.998100) do not bear it out on their own") || c.BlockTau != 0 {
		t.Fatalf("two agreeing blocks: %s τ %v (%s), %v", c.Verdict, c.BlockTau, c.Reason, err)
	}
	// Blocks of identical pairs (intervals of zero width, no quantum
	// given) that agree give a finite, exact answer.
	exact := []Comparison{{N: 40, Ratio: 0.998, Lo: 0.998, Hi: 0.998}, {N: 40, Ratio: 0.998, Lo: 0.998, Hi: 0.998}}
	if c, err := CombineBlocks(paired(), exact, CompareOptions{}); err != nil || c.Verdict != VerdictFaster || !finite(c.Lo, c.Hi, c.PValue, c.Detectable) {
		t.Fatalf("exact blocks: %s [%v, %v] p %v, %v", c.Verdict, c.Lo, c.Hi, c.PValue, err)
	}
	// The sums: three runs read 0.358, 0.603 and 0.496, each with an
	// interval of ±1%. As blocks of one comparison they say faster, with
	// an interval that spans them.
	sums := Comparison{N: 60, Ratio: 0.496, Lo: 0.486, Hi: 0.506, PValue: 1e-18, NoiseBand: 0.001, BandSource: BandQuantum, Confidence: 0.95, Alpha: 0.05, Significant: true, Verdict: VerdictFaster}
	c, err := CombineBlocks(sums, []Comparison{block(0.358, 0.01), block(0.603, 0.01), block(0.496, 0.01)}, CompareOptions{})
	if err != nil || c.Verdict != VerdictFaster || c.Lo > 0.358 || c.Hi < 0.603 || !(c.BlockTau > 0.1) {
		t.Fatalf("sums: %s [%v, %v] τ %v, %v; want faster with an interval spanning 0.358 to 0.603", c.Verdict, c.Lo, c.Hi, c.BlockTau, err)
	}
	for _, bad := range []Comparison{{Ratio: 1, Lo: 1, Hi: math.NaN()}, {Ratio: 1.2, Lo: 0.9, Hi: 1.1}, {Ratio: 0, Lo: 0, Hi: 1}, {Ratio: 1, Lo: 1, Hi: 1, QuantumBand: -1}} {
		if _, err := CombineBlocks(paired(), []Comparison{block(1, 0.001), bad}, CompareOptions{}); !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), "block 2") {
			t.Errorf("block %+v: err %v, want ErrBadValue naming block 2", bad, err)
		}
	}
	if _, err := CombineBlocks(paired(), []Comparison{block(1, 0.001), block(1, 0.001)}, CompareOptions{Alpha: 2}); !errors.Is(err, ErrBadParam) {
		t.Fatalf("bad options: err %v", err)
	}
}

// TestCombineBlocksCoverage simulates comparisons whose blocks differ in
// precision (one in five ten times noisier) and, in half of them, whose
// ratio moves between blocks beyond their intervals, as on a shared
// machine. The 95% interval must hold the true ratio in at least 93% of
// them (it is conservative when the blocks agree: the Hartung–Knapp
// variance never goes below the one the weights give), and, with 5 and
// 10 blocks, be narrower in the median than the unweighted t-interval of
// the blocks' ratios, which a noisy block widens. The seed is fixed, so
// the counts are too.
func TestCombineBlocksCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 4000
	for _, k := range []int{2, 5, 10} {
		for _, tau := range []float64{0, 0.0003} {
			held := 0
			var widths, plain []float64
			for range trials {
				bs := make([]Comparison, k)
				ys := make([]float64, k)
				for i := range bs {
					se := 0.0002
					if rng.IntN(5) == 0 {
						se = 0.002
					}
					ys[i] = rng.NormFloat64()*tau + rng.NormFloat64()*se
					bs[i] = block(math.Exp(ys[i]), 1.959964*se)
					bs[i].QuantumBand = 0
				}
				c, err := CombineBlocks(Comparison{Ratio: 1, Lo: 1, Hi: 1, Confidence: 0.95, Alpha: 0.05}, bs, CompareOptions{NoiseBand: NoNoiseBand})
				if err != nil {
					t.Fatal(err)
				}
				if c.Lo <= 1 && 1 <= c.Hi {
					held++
				}
				widths = append(widths, math.Log(c.Hi/c.Lo))
				_, sd := stat.MeanStdDev(ys, nil)
				q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.975)
				plain = append(plain, 2*q*sd/math.Sqrt(float64(k)))
			}
			cov := float64(held) / trials
			w, pw := Median(widths), Median(plain)
			t.Logf("%d blocks, τ %v: coverage %.3f, median width %.3g (unweighted %.3g)", k, tau, cov, w, pw)
			if cov < 0.93 {
				t.Errorf("%d blocks, τ %v: the 95%% interval held the true ratio in %.1f%% of %d comparisons, want at least 93%%", k, tau, 100*cov, trials)
			}
			if k >= 5 && !(w < pw) {
				t.Errorf("%d blocks, τ %v: median width %.3g, not below the unweighted t-interval's %.3g", k, tau, w, pw)
			}
		}
	}
}

// TestCombineBlocksMoreBlocks simulates the rule harness.Compare follows:
// five blocks, then one more at a time while BlockFloor is wider than a
// target, up to fifteen. The floor depends on the blocks' own intervals,
// not on where their ratios lie, so stopping on it leaves the interval's
// coverage where a fixed number of blocks has it (at least 93%, as in
// TestCombineBlocksCoverage), while noisy blocks are made up for by more
// of them. The seed is fixed, so the counts are too.
func TestCombineBlocksMoreBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, target = 4000, 0.0002
	for _, tau := range []float64{0, 0.0003} {
		held, used := 0, 0
		for range trials {
			var bs []Comparison
			var c Comparison
			for len(bs) < 5 || (len(bs) < 15 && c.BlockFloor > target) {
				se := 0.0002
				if rng.IntN(5) == 0 {
					se = 0.002
				}
				b := block(math.Exp(rng.NormFloat64()*tau+rng.NormFloat64()*se), 1.959964*se)
				b.QuantumBand = 0
				bs = append(bs, b)
				if len(bs) < 5 {
					continue
				}
				var err error
				if c, err = CombineBlocks(Comparison{Ratio: 1, Lo: 1, Hi: 1, Confidence: 0.95, Alpha: 0.05}, bs, CompareOptions{NoiseBand: NoNoiseBand}); err != nil {
					t.Fatal(err)
				}
			}
			if c.Lo <= 1 && 1 <= c.Hi {
				held++
			}
			used += len(bs)
		}
		cov, mean := float64(held)/trials, float64(used)/trials
		t.Logf("τ %v: coverage %.3f, %.2f blocks on average", tau, cov, mean)
		if cov < 0.93 {
			t.Errorf("τ %v: the 95%% interval held the true ratio in %.1f%% of %d comparisons, want at least 93%%", tau, 100*cov, trials)
		}
		if !(mean > 5.5 && mean < 15) {
			t.Errorf("τ %v: %.2f blocks on average; the rule should have taken more than five in some comparisons and stopped before fifteen in others", tau, mean)
		}
	}
}
