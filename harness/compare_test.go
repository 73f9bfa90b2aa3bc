package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// retry runs f up to three times until it returns "", tolerating a noisy
// machine; the last message fails the test.
func retry(t *testing.T, f func() string) {
	t.Helper()
	var msg string
	for i := 0; i < 3; i++ {
		if msg = f(); msg == "" {
			return
		}
		t.Logf("attempt %d: %s", i+1, msg)
	}
	t.Fatal(msg)
}

func TestCompareSameKernel(t *testing.T) {
	// The very same function on both sides: two instances can differ for
	// real (the addresses of their state), which is not what A/A tests.
	f := chainInstance(1000)
	retry(t, func() string {
		c, err := Compare(context.Background(), DefaultConfig(), f, f, CompareOptions{})
		if err != nil {
			return err.Error()
		}
		if c.Stats.Verdict == stats.VerdictFaster || c.Stats.Verdict == stats.VerdictSlower {
			return "A/A verdict " + c.Stats.Verdict
		}
		if c.Significant {
			return "A/A overall verdict " + c.Verdict
		}
		if c.Stats.Lo > 1 || c.Stats.Hi < 1 {
			return "A/A interval excludes 1"
		}
		if len(c.TicksA) != len(c.TicksB) || c.Stats.N != len(c.TicksA) {
			return fmt.Sprintf("%d pairs of A, %d of B, %d compared", len(c.TicksA), len(c.TicksB), c.Stats.N)
		}
		// MaxTime may stop a slow machine (qemu) short of the pairs asked;
		// then a warning must say so.
		short := fmt.Sprintf("harness: %d usable pairs of the %d asked", len(c.TicksA), defaultPairs)
		if len(c.TicksA) < defaultPairs && !slices.ContainsFunc(c.Warnings, func(w error) bool { return strings.HasPrefix(w.Error(), short) }) {
			return fmt.Sprintf("%d pairs of the %d asked, and no warning %q in %v", len(c.TicksA), defaultPairs, short, c.Warnings)
		}
		if c.Blocks != defaultBlocks+c.MoreBlocks || c.MoreBlocks < 0 || c.Blocks > moreBlocks*defaultBlocks || len(c.Stats.Blocks) != c.Blocks ||
			!(c.Stats.BlockLo <= c.Stats.BlockHi) || c.Stats.Lo > c.Stats.BlockLo || c.Stats.Hi < c.Stats.BlockHi {
			return fmt.Sprintf("blocks %d, %d more (ratios %v [%v, %v]), interval [%v, %v]: want %d to %d blocks and an interval spanning theirs",
				c.Blocks, c.MoreBlocks, c.Stats.Blocks, c.Stats.BlockLo, c.Stats.BlockHi, c.Stats.Lo, c.Stats.Hi, defaultBlocks, moreBlocks*defaultBlocks)
		}
		return ""
	})
}

func TestCompareDetectsDifference(t *testing.T) {
	if !chain.Exact() {
		t.Skip("the ADD chain is the pure-Go fallback on this build")
	}
	if emu := calibrate.DetectCPU().Emulated; emu != "" {
		// Seen under qemu-aarch64 with the other packages' tests running
		// beside it: three attempts in a row read 1500 vs 1000 ADDs as no
		// significant difference or as not converged.
		t.Skipf("the processor is emulated (%s): how long the chains take does not follow their lengths", emu)
	}
	retry(t, func() string {
		c, err := Compare(context.Background(), DefaultConfig(), Target{Name: "short", Run: chainInstance(1000).Run}, chainInstance(1500), CompareOptions{Pairs: 20})
		if err != nil {
			return err.Error()
		}
		if c.Stats.Verdict != stats.VerdictSlower || c.Stats.Ratio < 1.3 || c.Stats.Ratio > 1.7 {
			return "1500 vs 1000 ADDs: verdict " + c.Stats.Verdict
		}
		if c.Verdict != stats.VerdictSlower || !c.Significant {
			return "1500 vs 1000 ADDs: overall verdict " + c.Verdict + ": " + c.Reason
		}
		if c.Stats.NoiseBand < bestSpread(c.A) || c.Stats.NoiseBand < bestSpread(c.B) {
			return "noise band narrower than a side's best samples"
		}
		if c.A.Name != "short" || c.B.Name != "B" || c.A.Repeat != c.B.Repeat || c.Repeat != c.A.Repeat {
			return "names or R wrong"
		}
		if c.A.CyclesPerTick != c.B.CyclesPerTick || c.B.Cycles <= c.A.Cycles {
			return "one ruler, B slower"
		}
		if c.BestRatio != c.B.Ticks/c.A.Ticks || c.BestRatio < 1.3 || c.BestRatio > 1.7 {
			return "best ratio off"
		}
		return ""
	})
}

func TestCompareSetupForcesOneCall(t *testing.T) {
	if emu := calibrate.DetectCPU().Emulated; emu != "" {
		t.Skipf("the counter is emulated (%s): one 2000-ADD call spans too few counter steps to measure with R = 1", emu)
	}
	setups := 0
	a := chainInstance(2000)
	a.Setup = func() { setups++ }
	c, err := Compare(context.Background(), DefaultConfig(), a, chainInstance(2000), CompareOptions{Pairs: minPairs})
	if err != nil {
		t.Fatal(err)
	}
	if c.Repeat != 1 || c.A.Repeat != 1 || c.B.Repeat != 1 {
		t.Fatalf("R = %d (%d, %d) with a Setup on one side, want 1 for both", c.Repeat, c.A.Repeat, c.B.Repeat)
	}
	if setups < c.A.Samples {
		t.Fatalf("%d setups for %d samples", setups, c.A.Samples)
	}
}

func TestCompareBadInput(t *testing.T) {
	ok := chainInstance(10)
	tests := []struct {
		name string
		a, b Target
		opt  CompareOptions
		want error
		text string
	}{
		{"nil A", Target{}, ok, CompareOptions{}, ErrBadConfig, "Run is nil"},
		{"nil B", ok, Target{}, CompareOptions{}, ErrBadConfig, "Run is nil"},
		{"few pairs", ok, ok, CompareOptions{Pairs: 3}, ErrBadConfig, "Pairs 3"},
		{"many pairs", ok, ok, CompareOptions{Pairs: maxPairs + 1}, ErrBadConfig, "Pairs 100001"},
		{"bad alpha", ok, ok, CompareOptions{Stats: stats.CompareOptions{Alpha: 2}}, ErrBadConfig, "2"},
		{"bad elements", Target{Run: ok.Run, Elements: -1}, ok, CompareOptions{}, ErrBadConfig, "Elements -1"},
		{"negative blocks", ok, ok, CompareOptions{Blocks: -1}, ErrBadConfig, "Blocks -1"},
		{"too many blocks", ok, ok, CompareOptions{Blocks: maxBlocks + 1}, ErrBadConfig, "Blocks 101"},
		{"negative max blocks", ok, ok, CompareOptions{MaxBlocks: -1}, ErrBadConfig, "MaxBlocks -1 (allowed: Blocks, 5, to 100, or 0 for 15)"},
		{"max blocks below blocks", ok, ok, CompareOptions{Blocks: 8, MaxBlocks: 7}, ErrBadConfig, "MaxBlocks 7 (allowed: Blocks, 8, to 100, or 0 for 24)"},
		{"too many max blocks", ok, ok, CompareOptions{MaxBlocks: maxBlocks + 1}, ErrBadConfig, "MaxBlocks 101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(context.Background(), DefaultConfig(), tt.a, tt.b, tt.opt)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v, want %v naming %q", err, tt.want, tt.text)
			}
		})
	}
}

func TestCompareCPE(t *testing.T) {
	if !chain.Exact() {
		t.Skip("the chains are the pure-Go fallback on this build")
	}
	imul := func(n int) (Target, error) {
		var acc uint64 = 1
		return Target{Run: func() { acc = chain.ImulFrom(acc, n) }}, nil
	}
	retry(t, func() string {
		c, err := CompareCPE(context.Background(), DefaultConfig(), Sweep{Name: "add", Build: buildChain, Sizes: []int{300, 600, 900, 1200}}, Sweep{Name: "imul", Build: imul}, stats.CompareOptions{})
		if err != nil {
			return err.Error()
		}
		if c.Unit != "cycles" || c.A.Name != "add" || c.B.Name != "imul" {
			return "unit " + c.Unit + ", names " + c.A.Name + ", " + c.B.Name
		}
		if c.Slopes.Verdict != stats.VerdictSlower || c.Slopes.Ratio < 2 || c.Slopes.Ratio > 4 {
			return "IMUL/ADD slopes: verdict " + c.Slopes.Verdict
		}
		return ""
	})
}

// TestCompareJudge: the verdict is the paired test's when the figures agree,
// and inconclusive, with every reason, when a side did not converge or the
// best samples' ratio and the paired ratio disagree beyond their intervals
// (the case of issue 22: per-side figures giving 0.41, a paired ratio of
// 0.555 [0.551, 0.559], "faster ±0.0089%").
func TestCompareJudge(t *testing.T) {
	side := func(name string, ticks, spread float64, converged bool) Result {
		v1 := ticks + 10 // the K best include the loop's overhead
		return Result{Name: name, Ticks: ticks, Converged: converged, Spread: spread * ticks / v1,
			Best: []float64{v1, v1 + spread*ticks/2, v1 + spread*ticks}, Config: Config{Epsilon: 0.01}}
	}
	faster := stats.Comparison{N: 60, Ratio: 0.555, Lo: 0.551, Hi: 0.559, NoiseBand: 0.000089, PValue: 1e-20,
		Significant: true, Verdict: stats.VerdictFaster, Reason: "the interval lies beyond the band"}
	same := stats.Comparison{N: 60, Ratio: 1.0001, Lo: 0.9998, Hi: 1.0004, NoiseBand: 0.001, PValue: 0.4,
		Verdict: stats.VerdictSame, Reason: "the interval contains 1"}
	tests := []struct {
		name    string
		a, b    Result
		s       stats.Comparison
		verdict string
		reasons []string
		lo, hi  float64 // the range stated, when it is not the paired interval
	}{
		{"agree", side("Sum", 19844, 0.001, true), side("Sum4", 11013, 0.002, true), faster, stats.VerdictFaster, nil, 0, 0},
		{"best ratio further, same verdict", side("Sum", 19844, 0.001, true), side("Sum4", 8068, 0.002, true), faster, stats.VerdictFaster,
			[]string{"both estimates say faster, by amounts that differ", "best samples' ratio 0.4066", "between 0.4062 and 0.559"}, 0.406165, 0.559},
		{"best ratio the other way", side("Sum", 10000, 0.0001, true), side("Sum4", 10005, 0.0001, true), faster, stats.VerdictInconclusive,
			[]string{"the best samples' ratio 1 ", "say different things (slower against faster)"}, 0, 0},
		{"best interval reaches the paired one", side("Sum", 19844, 0.001, true), side("Sum4", 8068, 0.40, true), faster, stats.VerdictFaster, nil, 0, 0},
		{"no difference, best ratio within the band", side("Sum", 10000, 0.0001, true), side("Sum4", 10008, 0.0001, true), same, stats.VerdictSame, nil, 0, 0},
		{"no difference, best ratio beyond the band", side("Sum", 10000, 0.0001, true), side("Sum4", 10030, 0.0001, true), same, stats.VerdictInconclusive,
			[]string{"say different things (slower against no significant difference)"}, 0, 0},
		{"B did not converge", side("Sum", 19844, 0.001, true), side("Sum4", 11013, 0.128, false), faster, stats.VerdictInconclusive,
			[]string{"Sum4 did not converge (its 3 best samples spread 12.8%, ε 1%)"}, 0, 0},
		{"both reasons", side("Sum", 19844, 0.001, false), side("Sum4", 8068, 0.002, true), faster, stats.VerdictInconclusive,
			[]string{"Sum did not converge", "; the best samples' ratio 0.4066", "say different things"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Comparison{A: tt.a, B: tt.b, Stats: tt.s}
			c.judge()
			if c.Verdict != tt.verdict {
				t.Fatalf("verdict %q (%s), want %q", c.Verdict, c.Reason, tt.verdict)
			}
			if c.Significant != (tt.verdict == stats.VerdictFaster || tt.verdict == stats.VerdictSlower) {
				t.Errorf("significant %v with verdict %q", c.Significant, c.Verdict)
			}
			for _, r := range tt.reasons {
				if !strings.Contains(c.Reason, r) {
					t.Errorf("reason %q lacks %q", c.Reason, r)
				}
			}
			if !(c.BestLo <= c.BestRatio && c.BestRatio <= c.BestHi) || c.BestRatio != tt.b.Ticks/tt.a.Ticks {
				t.Errorf("best ratio %v not within [%v, %v]", c.BestRatio, c.BestLo, c.BestHi)
			}
			lo, hi := tt.s.Lo, tt.s.Hi
			if tt.lo != 0 {
				lo, hi = tt.lo, tt.hi
			}
			if math.Abs(c.Lo-lo) > 1e-5 || math.Abs(c.Hi-hi) > 1e-5 {
				t.Errorf("range [%v, %v], want [%v, %v]", c.Lo, c.Hi, lo, hi)
			}
			if s := c.Sentence(); !strings.Contains(s, tt.a.Name) || !strings.Contains(s, tt.b.Name) {
				t.Errorf("sentence %q does not name both sides", s)
			} else if tt.verdict == stats.VerdictInconclusive && !strings.HasPrefix(s, "inconclusive") {
				t.Errorf("sentence %q does not say inconclusive", s)
			}
		})
	}
}

// TestBestSpread: the relative spread of the K best against the per-call
// figure, 0 when it cannot be known.
func TestBestSpread(t *testing.T) {
	for _, tt := range []struct {
		r    Result
		want float64
	}{
		{Result{Ticks: 100, Best: []float64{110, 111, 112}}, 0.02},
		{Result{Ticks: 100, Best: []float64{110}}, 0},
		{Result{Ticks: 0, Best: []float64{1, 2}}, 0},
	} {
		if got := bestSpread(tt.r); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("bestSpread(%+v) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

// TestRemedy: every warning this package gives about a measurement that a
// user can improve names a remedy, in the words of the Config field and
// the flags; statements of fact have none.
func TestRemedy(t *testing.T) {
	tests := []struct {
		warning string
		want    []string // in the remedy; nil: no remedy
	}{
		{ErrNotConverged.Error() + ": 1000 samples, spread 3%", []string{"Config.MaxTime", "-benchtime", "-max-time", "Config.Epsilon", "quieter CPU"}},
		{ErrNoCycles.Error() + ": the reference chain did not converge; the cycle estimate is less certain", []string{"quieter CPU", "Config.MaxTime"}},
		{ErrNoCycles.Error() + ": the reference chain is the pure-Go fallback on this build; cycles are approximate", []string{"noasm"}},
		{ErrModes.Error() + ": Sum1: the samples form two clusters", []string{"Config.Mode", "-mode latency"}},
		{ErrRulerLag.Error() + " by 0.47% (IMUL/ADD 2.9859 ...)", []string{"measuring again", "-count", "SMT sibling"}},
		{ErrDiscards.Error() + ": 4 of 32 samples", []string{"quieter CPU"}},
		{ErrBlocks.Error() + ": the thread ran 34%", []string{"quieter CPU"}},
		{"harness.ReportSweep: warning: " + ErrNotConverged.Error() + ": x", []string{"Config.MaxTime"}},
		{"calibrate: running under a hypervisor (KVMKVMKVM): the counter may be virtualised", nil},
		{"something else", nil},
	}
	for _, tt := range tests {
		got := Remedy(tt.warning)
		if tt.want == nil && got != "" {
			t.Errorf("Remedy(%q) = %q, want none", tt.warning, got)
		}
		if tt.want != nil && got == "" {
			t.Errorf("Remedy(%q): none", tt.warning)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Remedy(%q) = %q, lacks %q", tt.warning, got, w)
			}
		}
	}
}

func TestCompareOptionsMaxBlocks(t *testing.T) {
	for _, tt := range []struct{ blocks, max, want int }{
		{0, 0, moreBlocks * defaultBlocks}, {1, 0, 1}, {2, 0, 6}, {40, 0, maxBlocks}, {5, 5, 5}, {5, 9, 9},
	} {
		o, err := CompareOptions{Blocks: tt.blocks, MaxBlocks: tt.max}.WithDefaults()
		if err != nil || o.MaxBlocks != tt.want {
			t.Errorf("Blocks %d, MaxBlocks %d: MaxBlocks %d, %v; want %d", tt.blocks, tt.max, o.MaxBlocks, err, tt.want)
		}
	}
}

// TestUnresolved checks the rule that takes more blocks: it looks at the
// blocks' precision against half a counter quantum (or a fixed band),
// never at their ratios.
func TestUnresolved(t *testing.T) {
	// pairs of n values around 1000 ticks per call, B = ratio × A, each
	// value moved by ±noise (relative), deterministic.
	mk := func(n int, ratio, noise float64) compareBlock {
		b := compareBlock{quantum: 0.1, aName: "A", bName: "B"}
		for i := range n {
			e := noise * float64(i%7-3) / 3
			f := noise * float64((i*3)%5-2) / 2
			b.ticksA = append(b.ticksA, 1000*(1+e))
			b.ticksB = append(b.ticksB, 1000*ratio*(1+f))
		}
		ra := Result{Name: "A", Ticks: 1000, Best: []float64{1000, 1000}, Converged: true}
		rb := Result{Name: "B", Ticks: 1000 * ratio, Best: []float64{1000 * ratio, 1000 * ratio}, Converged: true}
		b.a, b.b = ra, rb
		return b
	}
	blocks := func(ratios []float64, noise float64) []compareBlock {
		var ps []compareBlock
		for _, r := range ratios {
			ps = append(ps, mk(40, r, noise))
		}
		return ps
	}
	same := []float64{1.0003, 1.0003, 1.0003, 1.0003, 1.0003}
	apart := []float64{0.999, 1.002, 1.0003, 1.001, 0.998}
	// The quantum's band is 0.1/(2·1000) = 0.005%.
	for _, tt := range []struct {
		name  string
		parts []compareBlock
		opt   stats.CompareOptions
		want  bool
	}{
		{"precise blocks resolve the quantum", blocks(same, 0.00001), stats.CompareOptions{}, false},
		{"noisy blocks do not", blocks(same, 0.003), stats.CompareOptions{}, true},
		{"the same noise, ratios apart: the same answer", blocks(apart, 0.003), stats.CompareOptions{}, true},
		{"precise blocks, ratios apart: the same answer", blocks(apart, 0.00001), stats.CompareOptions{}, false},
		{"a wide fixed band is resolved", blocks(same, 0.003), stats.CompareOptions{NoiseBand: 0.05}, false},
		{"no band: the quantum's", blocks(same, 0.003), stats.CompareOptions{NoiseBand: stats.NoNoiseBand}, true},
		{"one block cannot tell", blocks(same[:1], 0.003), stats.CompareOptions{}, false},
	} {
		if got := unresolved(tt.parts, tt.opt); got != tt.want {
			t.Errorf("%s: unresolved %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMoreTime(t *testing.T) {
	parts := []compareBlock{{wall: 10 * time.Millisecond}, {wall: 30 * time.Millisecond}}
	for _, tt := range []struct {
		elapsed time.Duration
		parts   []compareBlock
		left    time.Duration
		ok      bool
	}{
		{50 * time.Millisecond, parts, 50 * time.Millisecond, true},
		{75 * time.Millisecond, parts, 25 * time.Millisecond, true},  // the mean block, 20 ms, fits
		{85 * time.Millisecond, parts, 15 * time.Millisecond, false}, // it would not
		{120 * time.Millisecond, parts, -20 * time.Millisecond, false},
		{0, nil, 100 * time.Millisecond, false}, // no block yet
	} {
		left, ok := moreTime(100*time.Millisecond, tt.elapsed, tt.parts)
		if left != tt.left || ok != tt.ok {
			t.Errorf("elapsed %v: %v, %v; want %v, %v", tt.elapsed, left, ok, tt.left, tt.ok)
		}
	}
}
