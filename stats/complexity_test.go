package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPracticalThreshold: a curvature that moves the cost by 0.3% is
// significant (the tests see it) but under a 1% practical threshold the
// verdict is linear and says how large the curvature was; one that moves
// it by 20% is not linear at any threshold.
func TestPracticalThreshold(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x, small, big []float64
	for n := 1000.0; n <= 200000; n *= 1.25 {
		x = append(x, n)
		noise := 1 + 1e-5*r.NormFloat64()
		// Cost per element from 42.61 to 42.73 over the sweep, as Combine2's.
		small = append(small, (200+42.61*n+0.12*n*n/200000)*noise)
		big = append(big, (200+42.61*n+8.5*n*n/200000)*noise)
	}
	for _, tt := range []struct {
		name      string
		y         []float64
		minChange float64
		verdict   string
		says      string
	}{
		{"small, significance alone", small, 0, LinearityNotLinear, "curvature"},
		{"small, 1% threshold", small, 0.01, LinearityLinear, "a curvature of at most 0.1"},
		{"large, 1% threshold", big, 0.01, LinearityNotLinear, "% off the line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := LackOfFit(x, tt.y, LinearityOptions{MinChange: tt.minChange})
			if err != nil {
				t.Fatal(err)
			}
			if l.Verdict != tt.verdict || !strings.Contains(l.Reason, tt.says) {
				t.Errorf("verdict %q (%s), want %q saying %q", l.Verdict, l.Reason, tt.verdict, tt.says)
			}
			if !l.Curvature.Significant {
				t.Errorf("the curvature test missed a real curvature: %+v", l.Curvature)
			}
			if l.Curvature.Fails != (tt.verdict == LinearityNotLinear) {
				t.Errorf("Fails %v with verdict %q", l.Curvature.Fails, l.Verdict)
			}
			if tt.minChange > 0 && strings.Contains(l.Reason, "under the practical threshold") != (tt.verdict == LinearityLinear) {
				t.Errorf("reason %q", l.Reason)
			}
		})
	}
	if _, err := LackOfFit(x, small, LinearityOptions{MinChange: 1}); !errors.Is(err, ErrBadParam) {
		t.Errorf("MinChange 1: %v, want ErrBadParam", err)
	}
}

// TestComplexityFits: costs that grow as n, n log n and n² are each best
// fitted by their own law, with its coefficient; a line that does not fit
// says which law does.
func TestComplexityFits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	laws := map[string]func(float64) float64{
		GrowthN:     func(n float64) float64 { return n },
		GrowthNLogN: func(n float64) float64 { return n * math.Log2(n) },
		GrowthN2:    func(n float64) float64 { return n * n },
	}
	for name, f := range laws {
		var x, y []float64
		for n := 64.0; n <= 65536; n *= 2 {
			x = append(x, n)
			y = append(y, (50+3*f(n))*(1+0.002*r.NormFloat64()))
		}
		fits, err := ComplexityFits(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if len(fits) != 3 || fits[0].Growth != name || math.Abs(fits[0].Coef-3)/3 > 0.01 {
			t.Errorf("%s: fits %+v, want %s first with coefficient 3", name, fits, name)
		}
		for i := 1; i < len(fits); i++ {
			if fits[i].RMSRel < fits[i-1].RMSRel {
				t.Errorf("%s: fits not in order of RMSRel: %+v", name, fits)
			}
		}
		if name != GrowthN {
			l, err := LackOfFit(x, y, LinearityOptions{MinChange: 0.01})
			if err != nil {
				t.Fatal(err)
			}
			if l.Verdict != LinearityNotLinear || len(l.Complexity) == 0 || l.Complexity[0].Growth != name {
				t.Errorf("%s: verdict %q, complexity %+v", name, l.Verdict, l.Complexity)
			}
		}
	}
	if _, err := ComplexityFits([]float64{0, 1, 2}, []float64{1, 2, 3}); !errors.Is(err, ErrBadValue) {
		t.Errorf("n = 0: %v, want ErrBadValue", err)
	}
}
