package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sentence says the outcome of a comparison of B with A in one sentence,
// as hyperfine does ("Sum4 ran 1.29 ± 0.01 times faster than Sum1"), from
// the ratio B/A, its interval [lo, hi] and the verdict with its reason:
//
//   - VerdictFaster and VerdictSlower: how many times faster the faster
//     side ran, ± the larger distance from that factor to the ends of the
//     interval turned into factors (1/hi and 1/lo when B is faster),
//     rounded up, with as many decimals as that distance needs (at least
//     2);
//   - VerdictSame: that neither ran faster, with the ratio and its
//     interval;
//   - VerdictNoTest and VerdictInconclusive (and any other verdict): the
//     verdict and its reason.
//
// a and b name the sides; "A" and "B" when empty. Smaller values are
// better, as everywhere in this package.
func Sentence(a, b string, ratio, lo, hi float64, verdict, reason string) string {
	if a == "" {
		a = "A"
	}
	if b == "" {
		b = "B"
	}
	switch verdict {
	case VerdictFaster, VerdictSlower:
		fast, slow, f, flo, fhi := b, a, 1/ratio, 1/hi, 1/lo
		if verdict == VerdictSlower {
			fast, slow, f, flo, fhi = a, b, ratio, lo, hi
		}
		return fmt.Sprintf("%s ran %s times faster than %s", fast, factor(f, math.Max(f-flo, fhi-f)), slow)
	case VerdictSame:
		return fmt.Sprintf("%s and %s ran equally fast: no significant difference (%s/%s = %s, interval %s)", b, a, b, a, fmtG(ratio, 5), fmtInterval(lo, hi))
	case VerdictNoTest:
		return fmt.Sprintf("no verdict on %s against %s: %s", b, a, strings.TrimPrefix(reason, "no test: "))
	}
	return fmt.Sprintf("%s, %s against %s: %s", verdict, b, a, reason)
}

// factor formats f ± e with the decimals e needs to show its first
// significant digit, between 2 and 6, e rounded up so that the printed
// range still covers the interval; without "±" when e is 0 or not finite.
func factor(f, e float64) string {
	if !(e > 0) || math.IsInf(e, 0) {
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	d := min(6, max(2, int(-math.Floor(math.Log10(e)))))
	scale := math.Pow(10, float64(d))
	e = math.Ceil(e*scale-1e-9) / scale
	return strconv.FormatFloat(f, 'f', d, 64) + " ± " + strconv.FormatFloat(e, 'f', d, 64)
}
