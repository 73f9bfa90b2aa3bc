package stats

import (
	"errors"
	"testing"
)

func TestParseNoiseBand(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		bad  bool
		text string // FormatNoiseBand of the value
	}{
		{"auto", DerivedNoiseBand, false, "auto"},
		{"none", NoNoiseBand, false, "none"},
		{"0", NoNoiseBand, false, "none"},
		{"0.002", 0.002, false, "0.002"},
		{"1", 0, true, ""},
		{"-0.1", 0, true, ""},
		{"NaN", 0, true, ""},
		{"x", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseNoiseBand(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrBadParam) {
					t.Errorf("ParseNoiseBand(%q) = %v, %v: want ErrBadParam", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseNoiseBand(%q) = %v, %v: want %v", tt.in, got, err, tt.want)
			}
			if s := FormatNoiseBand(got); s != tt.text {
				t.Errorf("FormatNoiseBand(%v) = %q, want %q", got, s, tt.text)
			}
		})
	}
}
