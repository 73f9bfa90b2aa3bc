package harness

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/stats"
)

// TestSharedBlocksNeverCarryAVerdict: blocks measured while the core was
// shared are marked, and a difference only they show is inconclusive;
// one the blocks with the core alone bear out stands.
func TestSharedBlocksNeverCarryAVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	block := func(ratio float64, shared bool) compareBlock {
		b := compareBlock{shared: shared, quantum: 0.01, aName: "A", bName: "B",
			a: Result{Name: "A", Converged: true}, b: Result{Name: "B", Converged: true}}
		for range 40 {
			x := 1000 * (1 + 0.0005*rng.NormFloat64())
			b.ticksA = append(b.ticksA, x)
			b.ticksB = append(b.ticksB, x*ratio*(1+0.0005*rng.NormFloat64()))
		}
		return b
	}
	tests := []struct {
		name        string
		parts       []compareBlock
		significant bool
		reason      string
		refuse      bool
	}{
		{"every block shared, RefuseShared: inconclusive",
			[]compareBlock{block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, true)}, false, "5 of the 5 blocks were measured while the core was shared", true},
		{"one block with the core alone: too few, the verdict stands labelled",
			[]compareBlock{block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, false)}, true, "", false},
		{"the blocks alone see no difference: inconclusive",
			[]compareBlock{block(1.01, true), block(1.01, true), block(1.01, true), block(1, false), block(1, false), block(1.01, true), block(1.01, true), block(1.01, true)}, false, "do not bear the difference out", false},
		{"every block shared: the verdict stands labelled",
			[]compareBlock{block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, true), block(1.01, true)}, true, "", false},
		{"the blocks alone say the same: it stands",
			[]compareBlock{block(1.01, false), block(1.01, false), block(1.01, false), block(1.01, true), block(1.01, true)}, true, "the 3 blocks measured with the core alone say the same", false},
		{"no shared block: as before",
			[]compareBlock{block(1.01, false), block(1.01, false), block(1.01, false), block(1.01, false), block(1.01, false)}, true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmp := Comparison{refuseShared: tt.refuse}
			cmp.combine(tt.parts)
			if err := cmp.compare(tt.parts, stats.CompareOptions{}); err != nil {
				t.Fatal(err)
			}
			if !cmp.Stats.Significant {
				t.Fatalf("the blocks' own test found no difference (%s): the case tests nothing", cmp.Stats.Reason)
			}
			shared := 0
			for _, p := range tt.parts {
				if p.shared {
					shared++
				}
			}
			if cmp.SharedBlocks != shared {
				t.Errorf("SharedBlocks %d, want %d", cmp.SharedBlocks, shared)
			}
			if cmp.Significant != tt.significant || !strings.Contains(cmp.Reason, tt.reason) {
				t.Errorf("significant %v (%s: %s); want %v, the reason saying %q", cmp.Significant, cmp.Verdict, cmp.Reason, tt.significant, tt.reason)
			}
			if !tt.significant && cmp.Verdict != stats.VerdictInconclusive {
				t.Errorf("verdict %q, want %q", cmp.Verdict, stats.VerdictInconclusive)
			}
			// A verdict that stands on too few blocks with the core alone
			// says so in a warning.
			labelled := slices.ContainsFunc(cmp.Warnings, func(w error) bool { return errors.Is(w, ErrSharedCore) })
			if want := tt.significant && shared > 0 && len(tt.parts)-shared < 2; labelled != want {
				t.Errorf("ErrSharedCore warning %v, want %v: %v", labelled, want, cmp.Warnings)
			}
		})
	}
}
