package reports

// The words of comparisons in reports: verdicts and noise bands as
// sentences.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/stats"
)

// verdictLine says a verdict in words, with the size of the difference
// (from the ratio B/A) and why: "slower: B takes 3.2% more than A
// (reason)".
func verdictLine(verdict, reason string, ratio float64) string {
	switch verdict {
	case stats.VerdictSlower:
		return fmt.Sprintf("slower: B takes %s more than A (%s)", sigfig.Percent(ratio-1, 3), reason)
	case stats.VerdictFaster:
		return fmt.Sprintf("faster: B takes %s less than A (%s)", sigfig.Percent(1-ratio, 3), reason)
	}
	return fmt.Sprintf("%s (%s)", verdict, reason)
}

// bandText describes the noise band of a paired comparison and where it
// came from.
func bandText(s stats.Comparison) string {
	switch s.BandSource {
	case stats.BandNone:
		return "no noise band"
	case stats.BandFixed:
		return "fixed noise band ±" + sigfig.Percent(s.NoiseBand, 2)
	case stats.BandDrift:
		return "noise band ±" + sigfig.Percent(s.NoiseBand, 2) + " from the drift of the ratio between the run's halves"
	case stats.BandSpread:
		return "noise band ±" + sigfig.Percent(s.NoiseBand, 2) + " from the spread of a side's K best samples"
	}
	return fmt.Sprintf("noise band ±%s from the counter quantum, %s ticks per call", sigfig.Percent(s.NoiseBand, 2), sigfig.Sig(s.Quantum, 3))
}
