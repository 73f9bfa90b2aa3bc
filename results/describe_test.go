package results_test

import (
	"math"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

func TestVerdictLineAndBand(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{results.VerdictLine(stats.VerdictSlower, "p < α", 1.032), "slower: B takes 3.2% more than A (p < α)"},
		{results.VerdictLine(stats.VerdictFaster, "p < α", 0.75), "faster: B takes 25% less than A (p < α)"},
		{results.VerdictLine(stats.VerdictSame, "within the band", 1), "no significant difference (within the band)"},
		{results.BandText(stats.Comparison{BandSource: stats.BandNone}), "no noise band"},
		{results.BandText(stats.Comparison{BandSource: stats.BandFixed, NoiseBand: 0.002}), "fixed noise band ±0.2%"},
		{results.BandText(stats.Comparison{BandSource: stats.BandQuantum, NoiseBand: 0.0013, Quantum: 0.0265}), "noise band ±0.13% from the counter quantum, 0.0265 ticks per call"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
	var band float64
	v := results.NoiseBandValue{Band: &band}
	if err := v.Set("0.002"); err != nil || band != 0.002 || v.String() != "0.002" {
		t.Errorf("Set(0.002): band %v, %v, String %q", band, err, v.String())
	}
	if err := v.Set("2"); err == nil {
		t.Error("Set(2): no error")
	}
	if (results.NoiseBandValue{}).String() != "auto" {
		t.Error("the zero value does not say auto")
	}
}

func TestStatAndLine(t *testing.T) {
	st := results.StatOf([]float64{3, math.NaN(), 1, 2, math.Inf(1)}, results.SpreadRange)
	if st.N != 3 || st.Median != 2 || st.Lo != 1 || st.Hi != 3 {
		t.Errorf("StatOf = %+v", st)
	}
	if st := results.StatOf([]float64{math.NaN()}, results.SpreadRange); st.N != 0 {
		t.Errorf("StatOf(NaN) = %+v, want absent", st)
	}
	f, err := stats.LinearFit([]float64{1, 2, 3, 4}, []float64{12, 14, 16.1, 18})
	if err != nil {
		t.Fatal(err)
	}
	if l := results.LineOf(f); l.PerElement != f.Slope || l.Intercept != f.Intercept || l.R2 != f.R2 || l.N != 4 || l.PerElementCI != f.SlopeCI {
		t.Errorf("LineOf = %+v from %+v", l, f)
	}
}
