// Package sigfig formats figures the way every report of cyclebench shows
// them: a few significant digits, no trailing zeros, never an exponent
// (except a p-value's, [PValue], which may be 1e-11), and frequencies in
// Hz with MHz beside ([Hz]). It
// is the one formatter the CLI, the result files, the plots and the peers
// benchmark share, so a figure reads the same wherever it is printed.
package sigfig

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sig formats v with at most digits significant digits, without trailing
// zeros and never with an exponent (%g would print 1234 ppm as 1.23e+03):
// 0.0239, 2.98, 2, 237, 12346. NaN and ±Inf are "NaN", "+Inf" and "-Inf".
func Sig(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	decimals := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	s := strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Signed is [Sig] with an explicit sign: +0.0239, -237, +0.
func Signed(v float64, digits int) string {
	s := Sig(v, digits)
	if v >= 0 && !strings.HasPrefix(s, "+") {
		s = "+" + s
	}
	return s
}

// Percent formats the fraction f as a percentage with at most digits
// significant digits: 0.00123 → "0.123%".
func Percent(f float64, digits int) string { return Sig(f*100, digits) + "%" }

// Hz formats a frequency as the reports show it: in whole Hz, with the
// same figure in MHz ("2596141819 Hz (2596.141819 MHz)").
func Hz(hz float64) string {
	r := math.Round(hz)
	return fmt.Sprintf("%.0f Hz (%.6f MHz)", r, r/1e6)
}

// PValue writes a p-value with two significant digits: 0.65, 0.0044,
// 2.1e-11; one that underflowed to 0 as "< 1e-300".
func PValue(p float64) string {
	if p == 0 {
		return "< 1e-300"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
