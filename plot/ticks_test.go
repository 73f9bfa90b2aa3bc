package plot_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
)

func TestFormatSI(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{500, "500"},
		{999, "999"},
		{1000, "1k"},
		{1500, "1.5k"},
		{12345, "12.35k"},
		{999999, "1M"},
		{20e6, "20M"},
		{1.5e9, "1.5G"},
		{2e12, "2T"},
		{-2500, "-2.5k"},
		{0.25, "0.25"},
		{12.5, "12.5"},
		{0.1 + 0.2, "0.3"},
		{1e-5, "1e-05"},
		{3e21, "3e+21"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "+Inf"},
	}
	for _, tt := range tests {
		if got := plot.FormatSI(tt.v); got != tt.want {
			t.Errorf("FormatSI(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestSITicks checks the invariants of the linear ticker on many ranges:
// labelled ticks inside the range, increasing, distinct labels, a count
// near the one asked, labels that parse back to their value.
func TestSITicks(t *testing.T) {
	ranges := [][2]float64{
		{0, 1}, {0, 1000}, {100, 1000}, {-346, 12090}, {0, 20e6}, {1e6, 1.0005e6}, {0.5, 0.52},
		{-1, 1}, {0, 13}, {3, 7}, {0, 1.5e9}, {-5e-3, 5e-3}, {12.06, 12.41},
	}
	for _, count := range []int{0, 3, 6, 10} {
		for _, r := range ranges {
			ticks := plot.SITicks{Count: count}.Ticks(r[0], r[1])
			want := count
			if want == 0 {
				want = 6
			}
			var labels []float64
			seen := map[string]bool{}
			for i, tk := range ticks {
				if tk.Value < r[0]-1e-9*math.Abs(r[0]) || tk.Value > r[1]+1e-9*math.Abs(r[1]) {
					t.Errorf("%v count %d: tick %v outside the range", r, count, tk.Value)
				}
				if i > 0 && tk.Value <= ticks[i-1].Value {
					t.Errorf("%v count %d: ticks not increasing at %d", r, count, i)
				}
				if tk.Label == "" {
					continue
				}
				if seen[tk.Label] {
					t.Errorf("%v count %d: label %q twice", r, count, tk.Label)
				}
				seen[tk.Label] = true
				labels = append(labels, tk.Value)
				if v := parseSI(t, tk.Label); math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
					t.Errorf("%v count %d: label %q for %v", r, count, tk.Label, tk.Value)
				}
			}
			if len(labels) < 2 || len(labels) > 2*want+1 {
				t.Errorf("%v count %d: %d labelled ticks %v", r, count, len(labels), labels)
			}
		}
	}
}

// parseSI reads a FormatSI label back.
func parseSI(t *testing.T, s string) float64 {
	t.Helper()
	mult := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k':
			mult, s = 1e3, s[:n-1]
		case 'M':
			mult, s = 1e6, s[:n-1]
		case 'G':
			mult, s = 1e9, s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("label %q: %v", s, err)
	}
	return v * mult
}

func TestSILogTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		labels []string
	}{
		{10, 100000, []string{"10", "100", "1k", "10k", "100k"}},
		{1, 100, []string{"1", "3", "10", "30", "100"}},
		{0.2, 20, []string{"0.2", "0.5", "1", "2", "5", "10", "20"}},
		{1, 1000, []string{"1", "3", "10", "30", "100", "300", "1k"}},
		{64, 65536, []string{"100", "300", "1k", "3k", "10k", "30k"}},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range (plot.SILogTicks{}).Ticks(tt.lo, tt.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if len(got) != len(tt.labels) {
			t.Errorf("Ticks(%v, %v) labels %q, want %q", tt.lo, tt.hi, got, tt.labels)
			continue
		}
		for i := range got {
			if got[i] != tt.labels[i] {
				t.Errorf("Ticks(%v, %v) labels %q, want %q", tt.lo, tt.hi, got, tt.labels)
				break
			}
		}
	}
	// Ranges gonum's LogTicks panics on give no ticks.
	for _, r := range [][2]float64{{0, 10}, {-1, 10}, {10, 1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if ts := (plot.SILogTicks{}).Ticks(r[0], r[1]); len(ts) != 0 {
			t.Errorf("Ticks(%v, %v) = %v, want none", r[0], r[1], ts)
		}
	}
	for _, r := range [][2]float64{{1, 1}, {math.NaN(), 1}, {1, 0}, {math.Inf(-1), 0}} {
		if ts := (plot.SITicks{}).Ticks(r[0], r[1]); len(ts) > 1 {
			t.Errorf("SITicks(%v, %v) = %v, want at most the one value", r[0], r[1], ts)
		}
	}
}
