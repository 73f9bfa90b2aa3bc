package stats

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestBlockSpread(t *testing.T) {
	// A comparison whose pairs say B is 0.2% faster, ±0.02%.
	paired := func() Comparison {
		c := Comparison{N: 60, Ratio: 0.998, Lo: 0.9978, Hi: 0.9982, PValue: 1e-10, NoiseBand: 0.0002, BandSource: BandQuantum, Confidence: 0.95, Alpha: 0.05,
			Significant: true, Verdict: VerdictFaster, Reason: "the pairs"}
		return c
	}
	tests := []struct {
		name    string
		blocks  []float64
		verdict string
		widened bool
		text    []string
		lo, hi  float64 // bounds the widened interval must reach (0: none)
	}{
		{"one block: unchanged", []float64{0.998}, VerdictFaster, false, nil, 0, 0},
		{"blocks that agree: unchanged", []float64{0.99799, 0.99801, 0.99800, 0.99802, 0.99798}, VerdictFaster, false, nil, 0, 0},
		{"blocks that spread a little: wider, still faster", []float64{0.9975, 0.998, 0.9985, 0.998, 0.9978}, VerdictFaster, true,
			[]string{"widened to the spread of the ratio between 5 blocks (0.9975 to 0.9985)"}, 0.9976, 0},
		{"blocks that disagree: inconclusive", []float64{0.99, 1.01, 0.998, 1.005, 0.992}, VerdictInconclusive, true,
			[]string{"the pairs say faster", "moved from 0.99 to 1.01 between the 5 blocks"}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := BlockSpread(paired(), tt.blocks, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.verdict || (c.Lo < 0.9978 || c.Hi > 0.9982) != tt.widened {
				t.Fatalf("verdict %s, interval [%v, %v]; want %s, widened %v (%s)", c.Verdict, c.Lo, c.Hi, tt.verdict, tt.widened, c.Reason)
			}
			if c.Lo > c.Hi || c.Lo > 0.9978 || c.Hi < 0.9982 || (tt.lo > 0 && c.Lo > tt.lo) || (tt.hi > 0 && c.Hi < tt.hi) {
				t.Fatalf("interval [%v, %v] must span the pairs' [0.9978, 0.9982] and reach [%v, %v]", c.Lo, c.Hi, tt.lo, tt.hi)
			}
			if c.Significant != (c.Verdict == VerdictFaster) {
				t.Fatalf("significant %v with verdict %s", c.Significant, c.Verdict)
			}
			if len(tt.blocks) > 1 && (len(c.Blocks) != len(tt.blocks) || !(c.BlockLo > 0) || !(c.BlockHi >= c.BlockLo)) {
				t.Fatalf("blocks %v [%v, %v] not recorded", c.Blocks, c.BlockLo, c.BlockHi)
			}
			if tt.widened && !(c.Detectable > 0.0002) {
				t.Fatalf("detectable %v: a wider interval detects less", c.Detectable)
			}
			for _, s := range tt.text {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q does not say %q", c.Reason, s)
				}
			}
		})
	}
	// The sums: three runs read 0.358, 0.603 and 0.496, each with an
	// interval of ±1% or less. As blocks of one comparison they say
	// faster, with an interval that spans them.
	sums := Comparison{N: 60, Ratio: 0.496, Lo: 0.486, Hi: 0.506, PValue: 1e-18, NoiseBand: 0.001, BandSource: BandQuantum, Confidence: 0.95, Alpha: 0.05, Significant: true, Verdict: VerdictFaster}
	c, err := BlockSpread(sums, []float64{0.358, 0.603, 0.496}, CompareOptions{})
	if err != nil || c.Verdict != VerdictFaster || c.Lo > 0.358 || c.Hi < 0.603 {
		t.Fatalf("sums: %s [%v, %v], %v; want faster with an interval spanning 0.358 to 0.603", c.Verdict, c.Lo, c.Hi, err)
	}
	if _, err := BlockSpread(paired(), []float64{1, math.NaN()}, CompareOptions{}); !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), "block 2") {
		t.Fatalf("a NaN block: err %v", err)
	}
	if _, err := BlockSpread(paired(), []float64{1, 1}, CompareOptions{Alpha: 2}); !errors.Is(err, ErrBadParam) {
		t.Fatalf("bad options: err %v", err)
	}
}
