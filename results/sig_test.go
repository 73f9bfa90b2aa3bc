package results_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/cyclebench/cyclebench/results"
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
			if got := results.Sig(tt.v, tt.digits); got != tt.want {
				t.Errorf("Sig(%v, %d) = %q, want %q", tt.v, tt.digits, got, tt.want)
			}
		})
	}
}

func TestErrorStrings(t *testing.T) {
	if got := results.ErrorStrings(nil); got == nil || len(got) != 0 {
		t.Errorf("ErrorStrings(nil) = %#v, want an empty slice (JSON [])", got)
	}
	if got := results.ErrorStrings([]error{errors.New("a"), errors.New("b")}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ErrorStrings = %q, want [a b]", got)
	}
}

func ExampleSig() {
	fmt.Println(results.Sig(0.023912, 3), results.Sig(2.977, 3), results.Sig(1234.6, 3))
	// Output: 0.0239 2.98 1235
}

func TestSignedSig(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0.5, "+0.5"}, {0, "+0"}, {-237.4, "-237"}, {math.Inf(1), "+Inf"}} {
		if got := results.SignedSig(tt.v, 3); got != tt.want {
			t.Errorf("SignedSig(%v, 3) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
