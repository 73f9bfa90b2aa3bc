package stats

import (
	"fmt"
	"strconv"
)

// NoiseBandForms says what [ParseNoiseBand] reads, for a message.
const NoiseBandForms = "auto, none (or 0), or a fraction between 0 and 1 such as 0.002"

// ParseNoiseBand reads a value of [CompareOptions.NoiseBand] as a person
// writes it: "auto" is DerivedNoiseBand, "none" or "0" NoNoiseBand, and
// a fraction between 0 and 1 (0.002 is ±0.2%) a fixed band. Anything else
// is an error wrapping [ErrBadParam] that names the value and what is
// allowed.
func ParseNoiseBand(s string) (float64, error) {
	switch s {
	case "auto":
		return DerivedNoiseBand, nil
	case "none", "0":
		return NoNoiseBand, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f < 1) {
		return 0, fmt.Errorf("%w: noise band %q: want %s", ErrBadParam, s, NoiseBandForms)
	}
	return f, nil
}

// FormatNoiseBand writes band as [ParseNoiseBand] reads it: "auto",
// "none", or the fraction.
func FormatNoiseBand(band float64) string {
	switch {
	case band == DerivedNoiseBand:
		return "auto"
	case band < 0:
		return "none"
	}
	return strconv.FormatFloat(band, 'g', -1, 64)
}
