package selfcheck

// The core's state over a validation. Every measurement samples the
// core-state probe beside its target (harness.Result.Shared): a loop of
// one taken branch per iteration, which runs slower while another hardware
// thread has part of the core, when loops bound by the front end or by
// branches slow by a quarter to a half, while the register ADD and IMUL
// chains that every other check of a validation measures barely move. A
// validation that saw the core shared cannot call the machine quiet for
// such loops, however well its chains agreed.

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/harness"
)

// coreState follows the probe over a validation's measurements.
type coreState struct {
	start     time.Time
	judged    int             // measurements whose probe was judged
	shared    []time.Duration // when each shared one ended, since the start
	maxExcess float64         // the largest excess of the probe over its best
}

// note records one measurement's probe, at now.
func (c *coreState) note(r harness.Result, now time.Time) {
	if math.IsNaN(r.ProbeExcess) {
		return
	}
	c.judged++
	c.maxExcess = math.Max(c.maxExcess, r.ProbeExcess)
	if r.Shared {
		c.shared = append(c.shared, now.Sub(c.start))
	}
}

// spans says when the shared measurements were, as runs of measurements
// less than gap apart: "0.2–0.9 s, 3.1 s".
func spans(at []time.Duration, gap time.Duration) string {
	var parts []string
	for i := 0; i < len(at); {
		j := i
		for j+1 < len(at) && at[j+1]-at[j] <= gap {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("%.1f s", at[i].Seconds()))
		} else {
			parts = append(parts, fmt.Sprintf("%.1f–%.1f s", at[i].Seconds(), at[j].Seconds()))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// sharedGap joins shared measurements into one stretch in the report.
const sharedGap = 500 * time.Millisecond

// secondsOf returns ds in seconds (an empty slice, never nil: JSON []).
func secondsOf(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}
