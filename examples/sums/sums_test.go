package sums

import (
	"math"
	"testing"
)

func TestSums(t *testing.T) {
	long := make([]int64, 1001)
	var want int64
	for i := range long {
		long[i] = int64(i*i) - 500
		want += long[i]
	}
	tests := []struct {
		name string
		s    []int64
		want int64
	}{
		{"nil", nil, 0},
		{"one", []int64{7}, 7},
		{"three", []int64{1, 2, 3}, 6},
		{"four", []int64{1, 2, 3, 4}, 10},
		{"five", []int64{1, 2, 3, 4, 5}, 15},
		{"negative", []int64{-1, -2, -3, -4, -5, -6}, -21},
		{"wraps around", []int64{math.MaxInt64, 1, 0, 0, 0}, math.MinInt64},
		{"long", long, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sum1(tt.s); got != tt.want {
				t.Errorf("Sum1 = %d, want %d", got, tt.want)
			}
			if got := Sum4(tt.s); got != tt.want {
				t.Errorf("Sum4 = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestSumsAgree checks Sum4 against Sum1 for every length up to 64, so
// that every remainder of Sum4's step of four is covered.
func TestSumsAgree(t *testing.T) {
	s := make([]int64, 64)
	for i := range s {
		s[i] = int64(uint64(i) * 0x9E3779B97F4A7C15) // large values of either sign, to wrap around
	}
	for n := 0; n <= len(s); n++ {
		if a, b := Sum1(s[:n]), Sum4(s[:n]); a != b {
			t.Errorf("n=%d: Sum1 %d, Sum4 %d", n, a, b)
		}
	}
}
