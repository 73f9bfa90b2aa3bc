package reports

// The reports of comparisons measured in this process: cyclebench
// compare -a A -b B (harness.Compare) and with sizes (harness.CompareCPE).

import (
	"fmt"
	"slices"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

// PairedReport is a harness.Comparison as cyclebench compare -a -b writes
// it (-format json): each side as a measurement, the paired test, and
// the verdict; an interrupted comparison without pairs has
// VerdictNoTest.
type PairedReport struct {
	results.Header
	A           results.ResultJSON `json:"a"`
	B           results.ResultJSON `json:"b"`
	Ratio       float64            `json:"ratio"`
	BestRatio   float64            `json:"best_ratio"`
	BestLo      float64            `json:"best_ratio_lo"`
	BestHi      float64            `json:"best_ratio_hi"`
	Lo          float64            `json:"ratio_lo"`
	Hi          float64            `json:"ratio_hi"`
	Confidence  float64            `json:"confidence"`
	PValue      float64            `json:"p_value"`
	Test        string             `json:"test"`
	Exact       bool               `json:"exact"`
	Pairs       int                `json:"pairs"`
	Zeros       int                `json:"equal_pairs"`
	Alpha       float64            `json:"alpha"`
	NoiseBand   float64            `json:"noise_band"`
	BandSource  string             `json:"noise_band_source"`
	Quantum     float64            `json:"quantum_ticks_per_call"`
	QuantumBand float64            `json:"quantum_band"`
	DriftBand   float64            `json:"drift_band"`
	Detectable  float64            `json:"detectable"`
	Significant bool               `json:"significant"`
	Verdict     string             `json:"verdict"`
	Reason      string             `json:"reason"`
	Paired      string             `json:"paired_verdict"` // the paired test's alone
	Summary     string             `json:"summary"`
	Repeat      int                `json:"repeat"`
	Rounds      int                `json:"rounds"`
	// Blocks are the ratios of the separate measurements the pairs were
	// taken in, BlockLo and BlockHi the interval of their weighted mean
	// (the ratio's, when Test is "blocks").
	Blocks  []float64 `json:"block_ratios"`
	BlockLo float64   `json:"block_ratio_lo"`
	BlockHi float64   `json:"block_ratio_hi"`
	// BlockTau is how far the blocks' ratios spread beyond their own
	// intervals, relative (τ of the random-effects mean).
	BlockTau float64 `json:"block_tau"`
	// MoreBlocks is how many blocks were taken beyond those asked, because
	// the first ones' own intervals could not resolve half a counter
	// quantum (or the fixed noise band).
	MoreBlocks int `json:"more_blocks,omitempty"`
	// PairsRatio, PairsLo, PairsHi and PairsPValue are the Wilcoxon test
	// of all pairs as one sample, when Test is "blocks".
	PairsRatio  float64   `json:"pairs_ratio,omitempty"`
	PairsLo     float64   `json:"pairs_ratio_lo,omitempty"`
	PairsHi     float64   `json:"pairs_ratio_hi,omitempty"`
	PairsPValue float64   `json:"pairs_p_value,omitempty"`
	WallSeconds float64   `json:"wall_seconds"`
	TicksA      []float64 `json:"pair_ticks_a"`
	TicksB      []float64 `json:"pair_ticks_b"`
}

// NewPairedReport is comparison c under h, a and b its sides as
// measurements.
func NewPairedReport(h results.Header, c harness.Comparison, a, b results.Measurement) PairedReport {
	s := c.Stats
	j := PairedReport{Header: h, A: a.JSON(), B: b.JSON(), Ratio: s.Ratio, BestRatio: c.BestRatio, BestLo: c.BestLo, BestHi: c.BestHi,
		Lo: s.Lo, Hi: s.Hi, Confidence: s.Confidence,
		PValue: s.PValue, Test: s.Test, Exact: s.Exact, Pairs: s.N, Zeros: s.Zeros, Alpha: s.Alpha, NoiseBand: s.NoiseBand,
		BandSource: s.BandSource, Quantum: s.Quantum, QuantumBand: s.QuantumBand, DriftBand: s.DriftBand, Detectable: s.Detectable,
		Significant: c.Significant, Verdict: c.Verdict, Reason: c.Reason, Paired: s.Verdict, Summary: c.Sentence(),
		Repeat: c.Repeat, Rounds: c.Rounds, WallSeconds: c.Wall.Seconds(),
		Blocks: append([]float64{}, s.Blocks...), BlockLo: s.BlockLo, BlockHi: s.BlockHi, BlockTau: s.BlockTau, MoreBlocks: c.MoreBlocks,
		PairsRatio: s.PairsRatio, PairsLo: s.PairsLo, PairsHi: s.PairsHi, PairsPValue: s.PairsPValue,
		TicksA: c.TicksA, TicksB: c.TicksB}
	if s.N == 0 {
		j.Verdict, j.Reason = stats.VerdictNoTest, fmt.Sprintf("interrupted before %d pairs", minPairs)
	}
	return j
}

// SlopesReport is a harness.CPEComparison as cyclebench compare -a -b
// -sizes writes it: both sweeps, and their slopes compared; VerdictNoTest
// when the sweeps were not compared (interrupted).
type SlopesReport struct {
	results.Header
	A           results.KernelJSON `json:"a"`
	B           results.KernelJSON `json:"b"`
	Unit        string             `json:"unit"`
	Ratio       float64            `json:"ratio"`
	Diff        float64            `json:"diff"`
	DiffCI      float64            `json:"diff_ci95"`
	DoF         float64            `json:"dof"`
	PValue      float64            `json:"p_value"`
	Significant bool               `json:"significant"`
	Verdict     string             `json:"verdict"`
}

// NewSlopesReport is comparison c of sweeps a and b (either nil when it
// has no points) under h; compared false when the slopes were not compared.
func NewSlopesReport(h results.Header, a, b *results.Sweep, c harness.CPEComparison, compared bool) SlopesReport {
	j := SlopesReport{Header: h, Unit: c.Unit, Verdict: stats.VerdictNoTest}
	if a != nil {
		j.A = a.JSON()
	}
	if b != nil {
		j.B = b.JSON()
	}
	if s := c.Slopes; compared {
		j.Ratio, j.Diff, j.DiffCI, j.DoF, j.PValue, j.Significant, j.Verdict = s.Ratio, s.Diff, s.DiffCI, s.DoF, s.PValue, s.Significant, s.Verdict
	}
	return j
}

// ComparisonLines are the figures of comparison c as label and text, in
// the order a report lists them: B/A with its 95% interval, the test,
// the best samples' ratio, the blocks (when there were several), the
// verdict, the resolution and the summary; without pairs (an interrupted
// comparison) a B/A line that says so; last, the time it took.
func ComparisonLines(c harness.Comparison) [][2]string {
	s := c.Stats
	var lines [][2]string
	line := func(label, format string, args ...any) {
		lines = append(lines, [2]string{label, fmt.Sprintf(format, args...)})
	}
	if s.N == 0 {
		line("B/A", "no comparison: interrupted before %d pairs", 6)
	} else {
		n := len(s.Blocks)
		if s.Test == stats.TestBlocks && n > 1 {
			line("B/A", "%.5f  (typical pairs, %d blocks' Hodges–Lehmann ratios, each weighted by its interval: 95%% CI %.5f to %.5f; the same in cycles, ticks and ns: A and B ran interleaved)",
				s.Ratio, n, s.Lo, s.Hi)
			line("p", "%s  (t test of the %d blocks, %d dof; %d pairs of %d calls, %d equal; all pairs as one sample: %.5f, p = %s)",
				sigfig.PValue(s.PValue), n, n-1, s.N, c.Repeat, s.Zeros, s.PairsRatio, sigfig.PValue(s.PairsPValue))
		} else {
			exact := "normal approximation"
			if s.Exact {
				exact = "exact"
			}
			line("B/A", "%.5f  (typical pairs, Hodges–Lehmann: 95%% CI %.5f to %.5f; the same in cycles, ticks and ns: A and B ran interleaved)",
				s.Ratio, s.Lo, s.Hi)
			line("p", "%s  (Wilcoxon signed-rank, %s; %d pairs of %d calls, %d equal)", sigfig.PValue(s.PValue), exact, s.N, c.Repeat, s.Zeros)
		}
		line("best B/A", "%.5f  (the two sides' best samples, the figures above: %.5f to %.5f within their K best)", c.BestRatio, c.BestLo, c.BestHi)
		if n > 1 {
			apart := "within their own intervals"
			if s.BlockTau > 0 {
				apart = "apart by ±" + sigfig.Percent(s.BlockTau, 2) + " beyond their own intervals"
			}
			more := ""
			if c.MoreBlocks > 0 {
				more = fmt.Sprintf(" (%d more than asked: the first ones' intervals were too wide to resolve half a counter quantum)", c.MoreBlocks)
			}
			line("blocks", "%d separate measurements%s, their B/A from %.5f to %.5f, %s", n, more, slices.Min(s.Blocks), slices.Max(s.Blocks), apart)
		}
		line("verdict", "%s", verdictLine(c.Verdict, c.Reason, s.Ratio))
		line("resolution", "a difference of %s would be detected in 80%% of such runs (%s)", sigfig.Percent(s.Detectable, 2), bandText(s))
		line("summary", "%s", c.Sentence())
	}
	line("took", "%s ms measuring, %d rounds", sigfig.Sig(float64(c.Wall.Microseconds())/1000, 3), c.Rounds)
	return lines
}

// ComparisonComments are comparison c as "#" lines of the benchmark
// format, after its two sides' results: the ratio with its interval, the
// test and the verdict, then the summary; one line without pairs.
func ComparisonComments(c harness.Comparison) []string {
	s := c.Stats
	if s.N == 0 {
		return []string{fmt.Sprintf("# compare: no comparison: interrupted before %d pairs", 6)}
	}
	return []string{
		fmt.Sprintf("# compare: B/A = %.5f, 95%% CI [%.5f, %.5f], p = %s (%s, %d pairs of %d calls, ABBA interleaved): %s",
			s.Ratio, s.Lo, s.Hi, sigfig.PValue(s.PValue), s.Test, s.N, c.Repeat, verdictLine(c.Verdict, c.Reason, s.Ratio)),
		"# compare: " + c.Sentence(),
	}
}

// SlopesSummary is comparison c of two sweeps of elem (the element word,
// [ElementWord]) in one line: the ratio and difference of the CPEs with
// the test's interval, p-value and verdict.
func SlopesSummary(c harness.CPEComparison, elem string) string {
	s := c.Slopes
	return fmt.Sprintf("CPE B/A = %s, B − A = %s ± %s %s/%s (95%%), p = %s (Welch's t on the slopes, %s dof): %s",
		sigfig.Sig(s.Ratio, 5), sigfig.Signed(s.Diff, 4), sigfig.Sig(s.DiffCI, 2), c.Unit, elem, sigfig.PValue(s.PValue), sigfig.Sig(s.DoF, 3), s.Verdict)
}
