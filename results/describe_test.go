package results_test

import (
	"math"
	"testing"

	"github.com/cyclebench/cyclebench/results"
	"github.com/cyclebench/cyclebench/stats"
)

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
