package plot

import (
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
)

// siPrefixes are the suffixes FormatSI uses for 10^3 … 10^18.
var siPrefixes = []string{"", "k", "M", "G", "T", "P", "E"}

// FormatSI formats v with at most 4 significant digits and an SI suffix
// for thousands and up: 500, 1k, 1.5k, 20M, 1.5G, -2.5k. Values below
// 1000 in magnitude have no suffix (0.25, 12.5); NaN and ±Inf print as
// strconv does.
func FormatSI(v float64) string {
	return formatSI(v, 0)
}

// formatSI formats v with an SI suffix. With step > 0 (the distance
// between neighbouring tick labels) it shows just the digits that tell
// the labels apart; with step 0, at most 4 significant digits.
func formatSI(v, step float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if math.Abs(v) >= 1e21 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	for i := len(siPrefixes) - 1; i >= 0; i-- {
		scale := math.Pow(1000, float64(i))
		if math.Abs(v) < scale && i > 0 {
			continue
		}
		m := v / scale
		var s string
		if step > 0 {
			s = strconv.FormatFloat(m, 'f', decimalsFor(step/scale), 64)
		} else {
			s = strconv.FormatFloat(m, 'g', 4, 64)
			if strings.ContainsAny(s, "e") {
				// Below 1e-4 'g' switches to an exponent: keep it.
				return s
			}
		}
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		// 999.96k rounds to "1000k": move up a prefix.
		if f, err := strconv.ParseFloat(s, 64); err == nil && math.Abs(f) >= 1000 && i+1 < len(siPrefixes) {
			return formatSI(f*scale, step)
		}
		if s == "-0" {
			s = "0"
		}
		return s + siPrefixes[i]
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// decimalsFor returns the number of decimals that show a multiple of step
// exactly (step 0.25 → 2, 5 → 0, 0.1 → 1), at most 9.
func decimalsFor(step float64) int {
	step = math.Abs(step)
	for d := 0; d < 9; d++ {
		scaled := step * math.Pow10(d)
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*scaled && math.Round(scaled) >= 1 {
			return d
		}
	}
	return 9
}

// SITicks is a gonum/plot Ticker for linear axes: about Count labelled
// ticks at steps of 1, 2, 2.5 or 5 times a power of ten, labelled with
// SI suffixes ([FormatSI]), and unlabelled minor ticks between them.
// Count 0 means 6. It never panics: an empty or non-finite range gives no
// ticks.
type SITicks struct {
	Count int
}

var _ gplot.Ticker = SITicks{}

// Ticks returns the ticks in [lo, hi].
func (t SITicks) Ticks(lo, hi float64) []gplot.Tick {
	step, minor := t.step(lo, hi)
	if step == 0 {
		if isFinite(lo) && lo == hi {
			return []gplot.Tick{{Value: lo, Label: FormatSI(lo)}}
		}
		return nil
	}
	var ticks []gplot.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for k := first; k*minor <= hi+minor*1e-9; k++ {
		v := k * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		major := math.Abs(v/step-math.Round(v/step)) < 1e-6
		if major {
			v = math.Round(v/step) * step
			ticks = append(ticks, gplot.Tick{Value: v, Label: formatSI(v, step)})
		} else {
			ticks = append(ticks, gplot.Tick{Value: v})
		}
		if len(ticks) > 1000 {
			break
		}
	}
	return ticks
}

// step returns the distance between labelled ticks and between minor
// ticks for [lo, hi], 0 when the range is empty or not finite.
func (t SITicks) step(lo, hi float64) (step, minor float64) {
	if !isFinite(lo) || !isFinite(hi) || hi <= lo {
		return 0, 0
	}
	n := t.Count
	if n <= 0 {
		n = 6
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	// The step whose number of labels is nearest n (ties: the larger).
	best := math.Inf(1)
	for _, m := range []struct{ step, minor float64 }{{1, 0.2}, {2, 0.5}, {2.5, 0.5}, {5, 1}, {10, 2}} {
		s := m.step * mag
		count := math.Floor(hi/s+1e-9) - math.Ceil(lo/s-1e-9) + 1
		if d := math.Abs(count - float64(n)); d <= best {
			best, step, minor = d, s, m.minor*mag
		}
	}
	return step, minor
}

// niceRange widens [lo, hi] to the nearest minor ticks of t outside it
// (major ticks can waste a third of the axis).
func (t SITicks) niceRange(lo, hi float64) (float64, float64) {
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.1, 1)
		lo, hi = lo-d, hi+d
	}
	_, minor := t.step(lo, hi)
	if minor == 0 {
		return lo, hi
	}
	return math.Floor(lo/minor+1e-9) * minor, math.Ceil(hi/minor-1e-9) * minor
}

// SILogTicks is a gonum/plot Ticker for logarithmic axes: about Count
// labelled ticks (0 means 6) at 1, at 1 and 3, or at 1, 2 and 5 times the
// powers of ten, whichever comes nearest Count; unlabelled ticks at the
// other multiples; labels with SI suffixes ([FormatSI]). A range that is
// not positive gives no ticks (gonum's LogTicks panics).
type SILogTicks struct {
	Count int
}

var _ gplot.Ticker = SILogTicks{}

// Ticks returns the ticks in [lo, hi].
func (t SILogTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !isFinite(lo) || !isFinite(hi) || lo <= 0 || hi < lo {
		return nil
	}
	n := t.Count
	if n <= 0 {
		n = 6
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	var labelled []int
	best := math.Inf(1)
	for _, ms := range [][]int{{1}, {1, 3}, {1, 2, 5}} {
		count := 0
		for e := e0; e <= e1; e++ {
			for _, m := range ms {
				if in(float64(m) * math.Pow10(e)) {
					count++
				}
			}
		}
		if d := math.Abs(float64(count - n)); d < best {
			best, labelled = d, ms
		}
	}
	var ticks []gplot.Tick
	for e := e0; e <= e1 && len(ticks) < 1000; e++ {
		p := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if !in(v) {
				continue
			}
			tk := gplot.Tick{Value: v}
			for _, l := range labelled {
				if m == l {
					tk.Label = FormatSI(v)
				}
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// logRange widens [lo, hi] (lo > 0) to the nearest 1, 2 or 5 times a
// power of ten outside it.
func logRange(lo, hi float64) (float64, float64) {
	down := func(v float64) float64 {
		p := math.Pow10(int(math.Floor(math.Log10(v))))
		for _, m := range []float64{5, 2, 1} {
			if m*p <= v*(1+1e-9) {
				return m * p
			}
		}
		return p
	}
	up := func(v float64) float64 {
		p := math.Pow10(int(math.Floor(math.Log10(v))))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*p >= v*(1-1e-9) {
				return m * p
			}
		}
		return 10 * p
	}
	a, b := down(lo), up(hi)
	if b <= a { // a single value that is itself 1, 2 or 5 × 10^k
		a, b = a/2, b*2
	}
	return a, b
}

// hideLabels wraps a Ticker and drops its labels (the upper panel shares
// the lower panel's n axis).
type hideLabels struct{ gplot.Ticker }

func (h hideLabels) Ticks(lo, hi float64) []gplot.Tick {
	ts := h.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
