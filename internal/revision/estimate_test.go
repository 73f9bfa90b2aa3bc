package revision_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/revision"
	"github.com/cyclebench/cyclebench/stats"
)

// layouts makes one process per layout of figures.
func layouts(figs ...float64) [][]float64 {
	out := make([][]float64, len(figs))
	for i, f := range figs {
		out[i] = []float64{f}
	}
	return out
}

// repeat is figs n times over.
func repeat(n int, figs ...float64) []float64 {
	var out []float64
	for range n {
		out = append(out, figs...)
	}
	return out
}

// Issue 33's 16 layouts per side, before and after a change that adds a
// fifth more work to an insertion sort (figures in thousands of cycles).
var (
	issueBefore = append(append(append(repeat(5, 187), repeat(6, 272)...), 290, 295), 428, 438, 448)
	issueAfter  = append(append(append(repeat(8, 226), 314, 318, 322, 326, 330), 362, 398), 585)
)

// TestCompareLayoutsQuartile: the lower quartile's permutation test.
func TestCompareLayoutsQuartile(t *testing.T) {
	for _, c := range []struct {
		name        string
		a, b        [][]float64
		verdict     string
		ratioLo     float64 // the point estimate lies in [ratioLo, ratioHi]
		ratioHi     float64
		significant bool
	}{
		// The same layouts on both sides, in another order: no change.
		{"A/A shuffled", layouts(issueBefore...), layouts(append(append([]float64{}, issueBefore[8:]...), issueBefore[:8]...)...), stats.VerdictSame, 1, 1, false},
		// A layout-insensitive kernel: +1% on every layout.
		{"insensitive +1%", layouts(1000, 1001, 1000, 1002, 1001, 1000, 1001, 1000), layouts(1010, 1011, 1010, 1012, 1011, 1010, 1011, 1010), stats.VerdictSlower, 1.0095, 1.0105, true},
		{"faster", layouts(repeat(8, 200)...), layouts(repeat(8, 150)...), stats.VerdictFaster, 0.75, 0.75, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := revision.CompareLayouts("cycles/op", c.a, c.b, revision.Options{Quartile: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.verdict || r.Significant != c.significant {
				t.Errorf("verdict %q (significant %v, p %v), want %q", r.Verdict, r.Significant, r.PValue, c.verdict)
			}
			if r.Ratio < c.ratioLo-1e-9 || r.Ratio > c.ratioHi+1e-9 {
				t.Errorf("ratio %v, want within [%v, %v]", r.Ratio, c.ratioLo, c.ratioHi)
			}
			if !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) {
				t.Errorf("interval [%v, %v] does not hold the ratio %v", r.Lo, r.Hi, r.Ratio)
			}
			if c.significant && (r.Lo <= 1 && r.Hi >= 1) {
				t.Errorf("significant, but the interval [%v, %v] holds 1", r.Lo, r.Hi)
			}
			if !c.significant && !(r.Lo <= 1 && r.Hi >= 1) {
				t.Errorf("not significant, but the interval [%v, %v] excludes 1", r.Lo, r.Hi)
			}
			if r.Estimator == "" || len(r.ModesA) == 0 || len(r.LayoutsB) != len(c.b) {
				t.Errorf("the distribution is not shown: %+v", r)
			}
		})
	}
}

// TestCompareLayoutsIssue: the best layouts moved +21%, the work added:
// the lower quartile sees it where the median (−1%) would not. The test
// over 16 layouts a side is at the edge of 5% (p = 0.056 with the
// default splits): layouts that fall into modes leave few of them to
// carry the best level, which is what the interval and the detectable
// change say.
func TestCompareLayoutsIssue(t *testing.T) {
	r, err := revision.CompareLayouts("cycles/op", layouts(issueBefore...), layouts(issueAfter...), revision.Options{Quartile: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Ratio < 1.18 || r.Ratio > 1.24 {
		t.Errorf("ratio %v, want the best layouts' +21%%", r.Ratio)
	}
	if !(r.PValue < 0.1) || !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) || !(r.Detectable > 0.1) {
		t.Errorf("p %v, interval [%v, %v], detectable %v: want p < 0.1, the ratio inside, a detectable change above 10%%", r.PValue, r.Lo, r.Hi, r.Detectable)
	}
}

// compareAndCheck compares a and b with opt and checks the verdict, its
// significance and the ratio (within 0.5%).
func compareAndCheck(t *testing.T, a, b [][]float64, opt revision.Options, verdict string, significant bool, ratio float64) revision.LayoutComparison {
	t.Helper()
	r, err := revision.CompareLayouts("cycles/op", a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verdict || r.Significant != significant {
		t.Errorf("verdict %q (significant %v, p %v: %s), want %q", r.Verdict, r.Significant, r.PValue, r.Reason, verdict)
	}
	if math.Abs(r.Ratio/ratio-1) > 0.005 {
		t.Errorf("ratio %v, want %v", r.Ratio, ratio)
	}
	return r
}

// TestCompareLayoutsBestMode: the verdict from each side's best mode
// (Options.BestMode), on tables.
func TestCompareLayoutsBestMode(t *testing.T) {
	for _, c := range []struct {
		name        string
		a, b        [][]float64
		verdict     string
		ratio       float64 // within 0.5%
		significant bool
	}{
		// The best layouts moved +21%, the work added: 226/187.
		{"issue's change", layouts(issueBefore...), layouts(issueAfter...), stats.VerdictSlower, 226.0 / 187, true},
		// The same population, another draw: the best modes agree.
		{"A/A", layouts(issueBefore...), layouts(append(append([]float64{}, issueBefore[8:]...), issueBefore[:8]...)...), stats.VerdictSame, 1, false},
		// 8 layouts a side, the best mode in 3 of A's: B missing it by
		// chance has probability (5/8)^8 = 2.3%.
		{"8 layouts", layouts(187, 187.1, 187.2, 272, 272, 290, 430, 440), layouts(226, 226.1, 226.2, 226, 314, 330, 362, 585), stats.VerdictSlower, 226.05 / 187.1, true},
		// The best mode in 1 of A's 8: B misses it by chance in 34%.
		{"rare best mode", layouts(187, 272, 272.2, 272.1, 290, 430, 440, 272), layouts(226, 226.1, 226.2, 226, 314, 330, 362, 585), stats.VerdictSame, 226.05 / 187, false},
		// A layout-insensitive kernel: +0.1% on every layout.
		{"insensitive +0.1%", layouts(10000, 10001, 10000, 10002, 10001, 10000, 10001, 10000), layouts(10010, 10011, 10010, 10012, 10011, 10010, 10011, 10010), stats.VerdictSlower, 1.001, true},
		{"faster", layouts(repeat(8, 200)...), layouts(repeat(8, 150)...), stats.VerdictFaster, 0.75, true},
		// Layouts that do not cluster (a busy machine): each best mode
		// is one layout, so the quartile's permutation test decides, and
		// 4 against 4 all apart gives p = 2/70.
		{"scattered", layouts(100, 110, 121, 133), layouts(1000, 1100, 1210, 1331), stats.VerdictSlower, 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := compareAndCheck(t, c.a, c.b, revision.Options{BestMode: true}, c.verdict, c.significant, c.ratio)
			if !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) {
				t.Errorf("interval [%v, %v] does not hold the ratio %v", r.Lo, r.Hi, r.Ratio)
			}
			if r.Reason == "" || r.Estimator != revision.EstimatorBestMode && c.name != "scattered" {
				t.Errorf("reason %q, estimator %q", r.Reason, r.Estimator)
			}
		})
	}
}

func TestCompareLayoutsModes(t *testing.T) {
	r, err := revision.CompareLayouts("cycles/op", layouts(issueBefore...), layouts(issueAfter...), revision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := revision.ModesText(r.ModesA), "187 ×5, 272 ×6, 292.5 ×2, 438 ×3"; got != want {
		t.Errorf("modes of A %q, want %q", got, want)
	}
}

// TestCompareLayoutsSensitivity: between-layout spread against
// within-layout, with two processes per layout.
func TestCompareLayoutsSensitivity(t *testing.T) {
	a := [][]float64{{100, 100.1}, {140, 140.2}, {100, 100.2}, {141, 140.9}}
	b := [][]float64{{100.1, 100}, {140.1, 140}, {100.2, 100}, {140, 140.3}}
	r, err := revision.CompareLayouts("cycles/op", a, b, revision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(r.Sensitivity > 50) {
		t.Errorf("layout sensitivity %v (between %v, within %v), want far above 1", r.Sensitivity, r.Between, r.Within)
	}
	r, err = revision.CompareLayouts("cycles/op", layouts(100, 140, 100, 140), layouts(100, 140, 100, 140), revision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(r.Within) || !math.IsNaN(r.Sensitivity) {
		t.Errorf("one process per layout: within %v, sensitivity %v, want NaN", r.Within, r.Sensitivity)
	}
}

// TestCompareLayoutsTooFew: two layouts a side allow the quartile's test
// no verdict, and say so; the detectable change is then infinite.
func TestCompareLayoutsTooFew(t *testing.T) {
	r, err := revision.CompareLayouts("ns/op", layouts(100, 101), layouts(200, 201), revision.Options{Quartile: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Significant || !math.IsInf(r.Detectable, 1) {
		t.Errorf("2 and 2 layouts: significant %v, detectable %v; want neither", r.Significant, r.Detectable)
	}
}

func TestCompareLayoutsBad(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b [][]float64
		opt  revision.Options
	}{
		{"no layout", nil, layouts(1), revision.Options{}},
		{"empty layout", [][]float64{{}}, layouts(1), revision.Options{}},
		{"zero figure", layouts(0), layouts(1), revision.Options{}},
		{"NaN figure", layouts(1), layouts(math.NaN()), revision.Options{}},
		{"alpha", layouts(1), layouts(1), revision.Options{Alpha: 1.5}},
	} {
		if _, err := revision.CompareLayouts("ns/op", c.a, c.b, c.opt); !errors.Is(err, revision.ErrFigures) {
			t.Errorf("%s: %v, want ErrFigures", c.name, err)
		}
	}
}

// TestFalsePositives: layouts drawn from one bimodal population for both
// sides are called different in about alpha of comparisons (the rank and
// the permutation tests' promise; the best mode's, when its mode is as
// common as here), with 8 layouts a side.
func TestFalsePositives(t *testing.T) {
	for _, opt := range []revision.Options{{}, {BestMode: true}, {Quartile: true}} {
		t.Run(fmt.Sprintf("quartile=%v,bestmode=%v", opt.Quartile, opt.BestMode), func(t *testing.T) { falsePositives(t, opt) })
	}
}

func falsePositives(t *testing.T, opt revision.Options) {
	if testing.Short() && opt.Quartile {
		t.Skip("many comparisons")
	}
	rng := newRand(7)
	const n = 200
	hits := 0
	for i := 0; i < n; i++ {
		draw := func() [][]float64 {
			var figs []float64
			for range 8 {
				v := 187.0
				if rng.Float64() < 0.6 {
					v = 272
				}
				figs = append(figs, v*(1+0.002*rng.NormFloat64()))
			}
			return layouts(figs...)
		}
		o := opt
		o.Permutations, o.Seed = 500, uint64(i)
		r, err := revision.CompareLayouts("cycles/op", draw(), draw(), o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Significant {
			hits++
		}
	}
	if hits > n/10 {
		t.Errorf("%d of %d A/A comparisons significant, want about 5%% (at most 10%%)", hits, n)
	}
}

// TestCompareLayoutsShift: the default verdict, the shift between the
// sides' layouts with the rank test.
func TestCompareLayoutsShift(t *testing.T) {
	for _, c := range []struct {
		name        string
		a, b        [][]float64
		verdict     string
		ratio       float64 // within 0.5%
		significant bool
	}{
		{"A/A shuffled", layouts(issueBefore...), layouts(append(append([]float64{}, issueBefore[8:]...), issueBefore[:8]...)...), stats.VerdictSame, 1, false},
		{"insensitive +0.1%", layouts(10000, 10001, 10000, 10002, 10001, 10000, 10001, 10000), layouts(10010, 10011, 10010, 10012, 10011, 10010, 10011, 10010), stats.VerdictSlower, 1.001, true},
		{"faster", layouts(repeat(8, 200)...), layouts(repeat(8, 150)...), stats.VerdictFaster, 0.75, true},
		// Every mode moved by a fifth, the modes' shares kept: the shift
		// reads it, but over 8 layouts whose modes lie 1.8× apart the
		// rank test cannot tell it from a draw of one population, and
		// the interval says so (the best mode's verdict would call it;
		// it also calls A/A draws different more often than alpha).
		{"modes +20%, 8 layouts", layouts(100, 100.2, 100.1, 140, 140.3, 140.1, 140.2, 180), layouts(120, 120.2, 120.1, 168, 168.3, 168.1, 168.2, 216), stats.VerdictSame, 1.2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := compareAndCheck(t, c.a, c.b, revision.Options{}, c.verdict, c.significant, c.ratio)
			if !(r.Lo <= r.Ratio && r.Ratio <= r.Hi) || c.significant == (r.Lo <= 1 && r.Hi >= 1) {
				t.Errorf("interval [%v, %v] for ratio %v, significant %v", r.Lo, r.Hi, r.Ratio, c.significant)
			}
			if r.Estimator != revision.EstimatorShift || r.Reason == "" {
				t.Errorf("estimator %q, reason %q", r.Estimator, r.Reason)
			}
		})
	}
	// Two layouts a side cannot give p < 0.05 (2/C(4,2) = 1/3).
	r, err := revision.CompareLayouts("ns/op", layouts(100, 101), layouts(200, 201), revision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Significant || !math.IsInf(r.Detectable, 1) || !strings.Contains(r.Reason, "take more layouts") {
		t.Errorf("2 and 2 layouts: significant %v, detectable %v, reason %q", r.Significant, r.Detectable, r.Reason)
	}
}

// TestCompareLayoutsRecorded replays comparisons recorded on a machine
// (testdata/layouts-*.json; docs/measurements/revision-targets.sh makes
// the repositories): the default verdict calls none of the A/A
// comparisons different and finds every change of a fifth more work.
func TestCompareLayoutsRecorded(t *testing.T) {
	files, err := filepath.Glob("testdata/layouts-*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Comparisons []struct {
				Case string
				A, B []float64
			}
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, c := range rec.Comparisons {
			r, err := revision.CompareLayouts("cycles/op", layouts(c.A...), layouts(c.B...), revision.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s #%d %s: ratio %.4f [%.4f, %.4f] p %.3g", f, i, c.Case, r.Ratio, r.Lo, r.Hi, r.PValue)
			if want := c.Case != "aa"; r.Significant != want {
				t.Errorf("%s, comparison %d (%s): significant %v (ratio %.4f, p %.3g), want %v", f, i, c.Case, r.Significant, r.Ratio, r.PValue, want)
			}
		}
	}
}
