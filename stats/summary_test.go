package stats

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	// Deviations from the mean 208.2: −198.2 (three times), −197.2, 791.8.
	outlierSD := math.Sqrt((3*198.2*198.2 + 197.2*197.2 + 791.8*791.8) / 4)
	tests := []struct {
		name string
		xs   []float64
		ps   []float64
		want Summary
	}{
		{
			// Mean 5, Σ(x−5)² = 32, s = sqrt(32/7); median (4+5)/2;
			// |x−4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 → MAD .5.
			// Empirical quantiles: smallest x_(i) with i/8 ≥ p.
			name: "even N, unsorted input",
			xs:   []float64{9, 4, 2, 5, 4, 7, 4, 5},
			ps:   []float64{0, 0.25, 0.5, 0.9, 1},
			want: Summary{
				N: 8, Min: 2, Max: 9, Mean: 5, Median: 4.5,
				StdDev: math.Sqrt(32.0 / 7), MAD: 0.5, CV: math.Sqrt(32.0/7) / 5,
				Quantiles: []Quantile{{0, 2}, {0.25, 4}, {0.5, 4}, {0.9, 9}, {1, 9}},
			},
		},
		{
			name: "odd N",
			xs:   []float64{3, 1, 2},
			ps:   []float64{0.5},
			want: Summary{N: 3, Min: 1, Max: 3, Mean: 2, Median: 2, StdDev: 1, MAD: 1, CV: 0.5,
				Quantiles: []Quantile{{0.5, 2}}},
		},
		{
			name: "single value",
			xs:   []float64{5},
			want: Summary{N: 1, Min: 5, Max: 5, Mean: 5, Median: 5},
		},
		{
			name: "zero mean gives CV 0",
			xs:   []float64{-1, 1},
			want: Summary{N: 2, Min: -1, Max: 1, Mean: 0, Median: 0, StdDev: math.Sqrt2, MAD: 1},
		},
		{
			name: "outlier moves mean, not median or MAD",
			xs:   []float64{10, 10, 11, 10, 1000},
			want: Summary{N: 5, Min: 10, Max: 1000, Mean: 208.2, Median: 10, MAD: 0,
				StdDev: outlierSD, CV: outlierSD / 208.2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.xs)
			got, err := Summarize(in, tt.ps...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(in, tt.xs) {
				t.Errorf("Summarize modified its input: %v, was %v", in, tt.xs)
			}
			w := tt.want
			if got.N != w.N || got.Min != w.Min || got.Max != w.Max || got.Median != w.Median || got.MAD != w.MAD {
				t.Errorf("got N %d min %v max %v median %v MAD %v; want %d %v %v %v %v",
					got.N, got.Min, got.Max, got.Median, got.MAD, w.N, w.Min, w.Max, w.Median, w.MAD)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{{"Mean", got.Mean, w.Mean}, {"StdDev", got.StdDev, w.StdDev}, {"CV", got.CV, w.CV}} {
				if !closeTo(f.got, f.want, 1e-12) {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			if !slices.Equal(got.Quantiles, w.Quantiles) {
				t.Errorf("Quantiles = %v, want %v", got.Quantiles, w.Quantiles)
			}
		})
	}
}

func TestSummarizeErrors(t *testing.T) {
	tests := []struct {
		name      string
		xs, ps    []float64
		wantErr   error
		wantInMsg string
	}{
		{"empty", nil, nil, ErrTooFew, "got 0"},
		{"NaN value", []float64{1, math.NaN()}, nil, ErrBadValue, "xs[1] = NaN"},
		{"Inf value", []float64{math.Inf(-1), 1}, nil, ErrBadValue, "xs[0] = -Inf"},
		{"p below 0", []float64{1}, []float64{0.5, -0.1}, ErrBadParam, "ps[1] = -0.1"},
		{"p above 1", []float64{1}, []float64{1.5}, ErrBadParam, "ps[0] = 1.5"},
		{"p NaN", []float64{1}, []float64{math.NaN()}, ErrBadParam, "ps[0] = NaN"},
		{"mean overflows", []float64{1e308, 1e308, 1e308}, nil, ErrBadValue, "overflow"},
		{"spread overflows", []float64{-1e308, 1e308}, nil, ErrBadValue, "overflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Summarize(tt.xs, tt.ps...)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}

// checkErr asserts that err wraps want and mentions msg.
func checkErr(t *testing.T, err, want error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one wrapping %v", want)
	}
	if !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	if !strings.HasPrefix(err.Error(), "stats: ") || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q: want prefix \"stats: \" and to contain %q", err, msg)
	}
}

// closeTo reports whether got is within rel relative error of want (absolute
// when want is 0).
func closeTo(got, want, rel float64) bool {
	if want == 0 {
		return math.Abs(got) <= rel
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}
