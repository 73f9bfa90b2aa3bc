package reports

import (
	"testing"

	"github.com/cyclebench/cyclebench/stats"
)

func TestVerdictLineAndBand(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{verdictLine(stats.VerdictSlower, "p < α", 1.032), "slower: B takes 3.2% more than A (p < α)"},
		{verdictLine(stats.VerdictFaster, "p < α", 0.75), "faster: B takes 25% less than A (p < α)"},
		{verdictLine(stats.VerdictSame, "within the band", 1), "no significant difference (within the band)"},
		{bandText(stats.Comparison{BandSource: stats.BandNone}), "no noise band"},
		{bandText(stats.Comparison{BandSource: stats.BandFixed, NoiseBand: 0.002}), "fixed noise band ±0.2%"},
		{bandText(stats.Comparison{BandSource: stats.BandQuantum, NoiseBand: 0.0013, Quantum: 0.0265}), "noise band ±0.13% from the counter quantum, 0.0265 ticks per call"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
}
