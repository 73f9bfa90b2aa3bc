package stats

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestSentence: the faster side is named first whichever side it is, the
// factor is the inverse of B/A when B is faster, and the ± covers both ends
// of the interval.
func TestSentence(t *testing.T) {
	tests := []struct {
		name            string
		ratio, lo, hi   float64
		verdict, reason string
		want            string
	}{
		{"B faster", 0.5, 0.49, 0.51, VerdictFaster, "", "B ran 2.00 ± 0.05 times faster than A"},
		{"B slower", 1.8, 1.78, 1.82, VerdictSlower, "", "A ran 1.80 ± 0.02 times faster than B"},
		{"tight", 1.01002, 1.00999, 1.01005, VerdictSlower, "", "A ran 1.01002 ± 0.00003 times faster than B"},
		{"point interval", 2, 2, 2, VerdictSlower, "", "A ran 2.00 times faster than B"},
		{"inconclusive", 0.555, 0.551, 0.559, VerdictInconclusive, "B did not converge", "inconclusive, B against A: B did not converge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentence("", "", tt.ratio, tt.lo, tt.hi, tt.verdict, tt.reason)
			if got != tt.want {
				t.Errorf("Sentence = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFactorCoversInterval: the printed ± is never smaller than the
// distance from the factor to either end of the interval (as printed,
// within half a unit of the last decimal), for ratios on both sides of 1.
func TestFactorCoversInterval(t *testing.T) {
	for _, ratio := range []float64{0.1, 0.4066, 0.7725, 0.999, 1.001, 1.3, 7.5} {
		for _, rel := range []float64{1e-5, 3e-4, 0.002, 0.03, 0.2} {
			lo, hi := ratio*(1-rel), ratio*(1+rel*1.5) // asymmetric on purpose
			verdict := VerdictSlower
			f, flo, fhi := ratio, lo, hi
			if ratio < 1 {
				verdict, f, flo, fhi = VerdictFaster, 1/ratio, 1/hi, 1/lo
			}
			s := Sentence("a", "b", ratio, lo, hi, verdict, "")
			_, rest, ok := strings.Cut(s, " ran ")
			if !ok {
				t.Fatalf("%q: no factor", s)
			}
			fields := strings.Fields(rest) // F ± E times faster than X
			var pf, pe float64
			if _, err := fmtScan(fields[0], &pf); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			if _, err := fmtScan(fields[2], &pe); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			unit := math.Pow(10, -float64(len(fields[2])-strings.Index(fields[2], ".")-1))
			if pf-pe > flo+unit/2 || pf+pe < fhi-unit/2 {
				t.Errorf("%q: %g ± %g does not cover [%g, %g] around %g", s, pf, pe, flo, fhi, f)
			}
		}
	}
}

func fmtScan(s string, v *float64) (int, error) {
	f, err := strconv.ParseFloat(s, 64)
	*v = f
	return 1, err
}
