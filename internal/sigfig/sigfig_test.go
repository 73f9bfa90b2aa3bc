package sigfig_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/cyclebench/cyclebench/internal/sigfig"
)

func TestSig(t *testing.T) {
	tests := []struct {
		v      float64
		digits int
		want   string
	}{
		{0.023912, 3, "0.0239"},
		{2.977, 3, "2.98"},
		{237.4, 3, "237"},
		{1234, 3, "1234"},
		{12345.6, 3, "12346"},
		{-0.998, 3, "-0.998"},
		{2, 4, "2"},
		{0.5, 3, "0.5"},
		{2.5, 4, "2.5"},
		{0, 3, "0"},
		{math.NaN(), 3, "NaN"},
		{math.Inf(-1), 3, "-Inf"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.v), func(t *testing.T) {
			if got := sigfig.Sig(tt.v, tt.digits); got != tt.want {
				t.Errorf("Sig(%v, %d) = %q, want %q", tt.v, tt.digits, got, tt.want)
			}
		})
	}
}

func TestSigned(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0.5, "+0.5"}, {0, "+0"}, {-237.4, "-237"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}} {
		if got := sigfig.Signed(tt.v, 3); got != tt.want {
			t.Errorf("Signed(%v, 3) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestPercent(t *testing.T) {
	if got := sigfig.Percent(0.00123, 3); got != "0.123%" {
		t.Errorf("Percent(0.00123, 3) = %q, want 0.123%%", got)
	}
}

func TestPValue(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		want string
	}{{0.65, "0.65"}, {0.00441, "0.0044"}, {2.1e-11, "2.1e-11"}, {0, "< 1e-300"}} {
		if got := sigfig.PValue(tt.p); got != tt.want {
			t.Errorf("PValue(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestHz(t *testing.T) {
	if got, want := sigfig.Hz(2596141819.4), "2596141819 Hz (2596.141819 MHz)"; got != want {
		t.Errorf("Hz = %q, want %q", got, want)
	}
}

func ExampleSig() {
	fmt.Println(sigfig.Sig(0.023912, 3), sigfig.Sig(2.977, 3), sigfig.Sig(1234.6, 3), sigfig.Signed(-0.5, 3), sigfig.Percent(0.25, 3))
	// Output: 0.0239 2.98 1235 -0.5 25%
}
