package reports

import "math"

// minPairs is harness.CompareOptions' rule that a comparison needs 6
// pairs, which an interrupted comparison may not have reached.
const minPairs = 6

// finiteOr0 is v, or 0 when v is NaN or infinite (JSON has neither).
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
