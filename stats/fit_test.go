package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refFit is an independent closed-form least-squares fit through the normal
// equations on raw sums, used to check LinearFit. t975 is the tabulated
// 0.975 quantile of Student's t for n−2 degrees of freedom.
type refFit struct{ slope, intercept, slopeSE, interceptSE, r2 float64 }

func closedForm(x, y []float64) refFit {
	n := float64(len(x))
	var sx, sy, sxy, sxx float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxy += x[i] * y[i]
		sxx += x[i] * x[i]
	}
	det := n*sxx - sx*sx
	slope := (n*sxy - sx*sy) / det
	intercept := (sy*sxx - sx*sxy) / det
	var sse, sst float64
	for i := range x {
		r := y[i] - intercept - slope*x[i]
		sse += r * r
		d := y[i] - sy/n
		sst += d * d
	}
	s2 := sse / (n - 2)
	return refFit{
		slope:       slope,
		intercept:   intercept,
		slopeSE:     math.Sqrt(n * s2 / det),
		interceptSE: math.Sqrt(s2 * sxx / det),
		r2:          1 - sse/sst,
	}
}

func TestLinearFitExactLine(t *testing.T) {
	var x, y []float64
	for i := 1; i <= 10; i++ {
		x = append(x, float64(i))
		y = append(y, 3+2*float64(i))
	}
	f, err := LinearFit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if f.N != 10 || f.Slope != 2 || f.Intercept != 3 || f.R2 != 1 {
		t.Errorf("got N %d slope %v intercept %v R2 %v; want 10 2 3 1", f.N, f.Slope, f.Intercept, f.R2)
	}
	if f.SlopeCI != 0 || f.InterceptCI != 0 || f.SlopeSE != 0 || f.InterceptSE != 0 {
		t.Errorf("exact line: SlopeCI %v InterceptCI %v SEs %v %v, want all 0", f.SlopeCI, f.InterceptCI, f.SlopeSE, f.InterceptSE)
	}
	if len(f.Outliers) != 0 {
		t.Errorf("exact line: Outliers = %v, want none", f.Outliers)
	}
	for i, r := range f.Residuals {
		if r != 0 {
			t.Errorf("Residuals[%d] = %v, want 0", i, r)
		}
	}
	if got := f.Predict(100); got != 203 {
		t.Errorf("Predict(100) = %v, want 203", got)
	}
}

func TestLinearFitNoisy(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		t975 float64 // Student t 0.975 quantile, N−2 dof, from tables
	}{
		{
			name: "ten points",
			x:    []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			y:    []float64{2.9, 5.2, 6.8, 9.1, 11.0, 13.2, 14.8, 17.1, 19.0, 21.1},
			t975: 2.306004135204166, // 8 dof
		},
		{
			name: "three points",
			x:    []float64{0, 1, 3},
			y:    []float64{1, 2, 2},
			t975: 12.706204736174707, // 1 dof
		},
		{
			name: "cycles against sizes",
			x:    []float64{64, 128, 256, 512, 1024, 2048, 4096},
			y:    []float64{260, 455, 790, 1530, 2960, 5890, 11700},
			t975: 2.570581835636314, // 5 dof
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := LinearFit(tt.x, tt.y)
			if err != nil {
				t.Fatal(err)
			}
			ref := closedForm(tt.x, tt.y)
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"Slope", f.Slope, ref.slope},
				{"Intercept", f.Intercept, ref.intercept},
				{"SlopeSE", f.SlopeSE, ref.slopeSE},
				{"InterceptSE", f.InterceptSE, ref.interceptSE},
				{"SlopeCI", f.SlopeCI, tt.t975 * ref.slopeSE},
				{"InterceptCI", f.InterceptCI, tt.t975 * ref.interceptSE},
				{"R2", f.R2, ref.r2},
			} {
				if !closeTo(c.got, c.want, 1e-9) {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			for i := range tt.x {
				if want := tt.y[i] - f.Predict(tt.x[i]); f.Residuals[i] != want {
					t.Errorf("Residuals[%d] = %v, want %v", i, f.Residuals[i], want)
				}
			}
		})
	}
}

func TestLinearFitOutliers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	line := func(n int, noise float64) (x, y []float64) {
		for i := range n {
			x = append(x, float64(64*(i+1)))
			y = append(y, 120+3.25*float64(64*(i+1))+noise*r.NormFloat64())
		}
		return x, y
	}
	tests := []struct {
		name   string
		n      int
		noise  float64
		inject map[int]float64 // index → amount added to y
		want   []int
	}{
		{"clean noisy line", 20, 2, nil, nil},
		{"exact line with rounding", 40, 0, nil, nil},
		{"one injected outlier", 20, 2, map[int]float64{7: 200}, []int{7}},
		{"outlier on an exact line", 20, 0, map[int]float64{12: -50}, []int{12}},
		{"two outliers", 30, 2, map[int]float64{3: 300, 25: -250}, []int{3, 25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := line(tt.n, tt.noise)
			for i, d := range tt.inject {
				y[i] += d
			}
			f, err := LinearFit(x, y)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.Outliers, tt.want) {
				t.Errorf("Outliers = %v, want %v (residuals %v)", f.Outliers, tt.want, f.Residuals)
			}
		})
	}
}

func TestLinearFitConstantY(t *testing.T) {
	f, err := LinearFit([]float64{1, 2, 3, 4}, []float64{7, 7, 7, 7})
	if err != nil {
		t.Fatal(err)
	}
	if f.Slope != 0 || f.Intercept != 7 || f.R2 != 1 || f.SlopeCI != 0 || len(f.Outliers) != 0 {
		t.Errorf("constant y: got %+v, want slope 0, intercept 7, R2 1, CI 0, no outliers", f)
	}
}

func TestLinearFitErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		x, y      []float64
		wantErr   error
		wantInMsg string
	}{
		{"length mismatch", []float64{1, 2, 3}, []float64{1, 2}, ErrLengthMismatch, "len(x) = 3, len(y) = 2"},
		{"two points", []float64{1, 2}, []float64{1, 2}, ErrTooFew, "got 2"},
		{"none", nil, nil, ErrTooFew, "got 0"},
		{"NaN x", []float64{1, nan, 3}, []float64{1, 2, 3}, ErrBadValue, "x[1] = NaN"},
		{"Inf y", []float64{1, 2, 3}, []float64{1, 2, math.Inf(1)}, ErrBadValue, "y[2] = +Inf"},
		{"all x equal", []float64{4, 4, 4}, []float64{1, 2, 3}, ErrDegenerate, "x values equal 4"},
		{"y overflows", []float64{1, 2, 3}, []float64{-1e308, 1e308, 1e308}, ErrDegenerate, "overflowed"},
		{"x overflows", []float64{1e300, 2e300, 3e300}, []float64{1, 2, 4}, ErrDegenerate, "overflowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LinearFit(tt.x, tt.y)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}
