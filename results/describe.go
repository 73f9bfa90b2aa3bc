package results

// The words of comparisons in reports: options as a command line gives
// them, verdicts and noise bands as sentences.

import (
	"fmt"
	"github.com/cyclebench/cyclebench/internal/sigfig"

	"github.com/cyclebench/cyclebench/stats"
)

// DefaultCompareOptions are the options a comparison starts from: those
// of the stats package (α 0.05, a noise band derived from the
// measurement, 95% intervals, Welch's test on the logarithms of runs).
var DefaultCompareOptions = stats.DefaultCompareOptions

// VerdictNoTest is the verdict of a comparison without a test: one run
// on a side, or no pairs (an interrupted comparison).
const VerdictNoTest = stats.VerdictNoTest

// NoiseBandValue is a flag.Value that sets a stats.CompareOptions.NoiseBand
// ([stats.ParseNoiseBand]: auto, none or 0, or a fraction such as 0.002).
type NoiseBandValue struct{ Band *float64 }

func (v NoiseBandValue) String() string {
	if v.Band == nil {
		return stats.FormatNoiseBand(stats.DerivedNoiseBand)
	}
	return stats.FormatNoiseBand(*v.Band)
}

// Set reads s into the band; an error says what is allowed (the flag
// package names the value).
func (v NoiseBandValue) Set(s string) error {
	b, err := stats.ParseNoiseBand(s)
	if err != nil {
		return fmt.Errorf("want %s", stats.NoiseBandForms)
	}
	*v.Band = b
	return nil
}

// VerdictLine says a verdict in words, with the size of the difference
// (from the ratio B/A) and why: "slower: B takes 3.2% more than A
// (reason)".
func VerdictLine(verdict, reason string, ratio float64) string {
	switch verdict {
	case stats.VerdictSlower:
		return fmt.Sprintf("slower: B takes %s more than A (%s)", sigfig.Percent(ratio-1, 3), reason)
	case stats.VerdictFaster:
		return fmt.Sprintf("faster: B takes %s less than A (%s)", sigfig.Percent(1-ratio, 3), reason)
	}
	return fmt.Sprintf("%s (%s)", verdict, reason)
}

// BandText describes the noise band of a paired comparison and where it
// came from.
func BandText(s stats.Comparison) string {
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
