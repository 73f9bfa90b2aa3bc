package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// logSizes returns count sizes from lo to hi spaced evenly on a log scale.
func logSizes(lo, hi float64, count int) []float64 {
	x := make([]float64, count)
	for i := range x {
		x[i] = math.Round(lo * math.Pow(hi/lo, float64(i)/float64(count-1)))
	}
	return x
}

// linSizes returns count sizes lo, lo+step, ...
func linSizes(lo, step float64, count int) []float64 {
	x := make([]float64, count)
	for i := range x {
		x[i] = lo + step*float64(i)
	}
	return x
}

// costs returns f(x_i) with relative noise rel and absolute noise abs.
func costs(r *rand.Rand, x []float64, f func(float64) float64, rel, abs float64) []float64 {
	y := make([]float64, len(x))
	for i, xi := range x {
		y[i] = f(xi)*(1+rel*r.NormFloat64()) + abs*r.NormFloat64()
	}
	return y
}

func TestLackOfFit(t *testing.T) {
	seed := uint64(30)
	r := func() *rand.Rand { seed++; return rand.New(rand.NewPCG(seed, 1)) } // one stream per case
	line := func(x float64) float64 { return 150 + 3*x }
	tests := []struct {
		name        string
		x, y        []float64
		opt         LinearityOptions
		wantVerdict string
		// which tests must be significant (the others may be too)
		curvature, brk, runs, r2 bool
	}{
		{
			name: "noisy line, log-spaced sizes",
			x:    logSizes(64, 65536, 16), y: costs(r(), logSizes(64, 65536, 16), line, 0.002, 0),
			wantVerdict: LinearityLinear,
		},
		{
			name: "noisy line, constant noise, Absolute",
			x:    linSizes(100, 100, 12), y: costs(r(), linSizes(100, 100, 12), line, 0, 5),
			opt:         LinearityOptions{Absolute: true},
			wantVerdict: LinearityLinear,
		},
		{
			// BubbleSort-like: O(n²) over n = 200…3000 (the R² 0.94).
			name: "quadratic",
			x:    linSizes(200, 200, 15), y: costs(r(), linSizes(200, 200, 15), func(n float64) float64 { return 300 + 50*n + 1.2*n*n }, 0.002, 0),
			wantVerdict: LinearityNotLinear, curvature: true, r2: true,
		},
		{
			// A level jump of 5% in the middle of 20 evenly spaced sizes:
			// antisymmetric about the centre, so no quadratic term, but the
			// residuals run + + … − − | + + … − −.
			name: "step",
			x:    linSizes(1000, 1000, 20),
			y: costs(r(), linSizes(1000, 1000, 20), func(n float64) float64 {
				if n > 10500 {
					return 1.05 * line(n)
				}
				return line(n)
			}, 0.001, 0),
			wantVerdict: LinearityNotLinear, runs: true, brk: true,
		},
		{
			// Log-spaced sizes with the cost per element 50% higher above a
			// cache size: a knee that neither a quadratic nor 11 signs show.
			name: "knee",
			x:    logSizes(64, 65536, 11),
			y: costs(r(), logSizes(64, 65536, 11), func(n float64) float64 {
				return line(n) + 1.5*max(0, n-2048)
			}, 0.003, 0),
			wantVerdict: LinearityNotLinear, brk: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := LackOfFit(tt.x, tt.y, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if l.Verdict != tt.wantVerdict || l.Linear != (tt.wantVerdict == LinearityLinear) {
				t.Fatalf("verdict %q (%s), want %q", l.Verdict, l.Reason, tt.wantVerdict)
			}
			for _, c := range []struct {
				name      string
				want, got bool
			}{
				{"curvature", tt.curvature, l.Curvature.Significant},
				{"break", tt.brk, l.Break.Significant},
				{"runs", tt.runs, l.Runs.Significant},
				{"R²", tt.r2, l.R2 < l.MinR2},
			} {
				if c.want && !c.got {
					t.Errorf("%s test not significant: %+v", c.name, l)
				}
				if tt.wantVerdict == LinearityLinear && c.got {
					t.Errorf("linear data, but the %s test is significant: %s", c.name, l.Reason)
				}
			}
			if !l.Curvature.Tested || !l.Break.Tested || !l.Runs.Tested || l.Warnings != nil {
				t.Errorf("every test should run on %d points: %+v", l.N, l)
			}
			if l.Relative == tt.opt.Absolute {
				t.Errorf("Relative = %v with Absolute %v", l.Relative, tt.opt.Absolute)
			}
			if l.Reason == "" || l.Alpha != 0.01 || l.MinR2 != 0.999 {
				t.Errorf("Reason %q Alpha %v MinR2 %v; want a reason and the defaults", l.Reason, l.Alpha, l.MinR2)
			}
			checkFiniteLinearity(t, l)
		})
	}
}

// checkFiniteLinearity fails when a float field of l is NaN or infinite.
func checkFiniteLinearity(t *testing.T, l Linearity) {
	t.Helper()
	c, b, r := l.Curvature, l.Break, l.Runs
	for _, v := range []float64{l.R2, l.MinR2, l.Alpha, l.Floor, c.Coef, c.SE, c.T, c.PValue, c.MaxDev, b.At, b.F, b.PValue, b.MaxDev, r.Expected, r.PValue} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("a field is %v: %+v", v, l)
		}
	}
}

func TestLackOfFitEdgeCases(t *testing.T) {
	tests := []struct {
		name        string
		x, y        []float64
		opt         LinearityOptions
		wantVerdict string
		wantWarn    error
		curvature   bool // Curvature.Tested
	}{
		{
			name: "exact line, large sizes",
			x:    logSizes(64, 65536, 11), y: func() []float64 {
				y := make([]float64, 11)
				for i, n := range logSizes(64, 65536, 11) {
					y[i] = 200 + 3*n
				}
				return y
			}(),
			wantVerdict: LinearityLinear, curvature: true,
		},
		{
			name: "constant y",
			x:    []float64{1, 2, 3, 4, 5}, y: []float64{7, 7, 7, 7, 7},
			wantVerdict: LinearityLinear, curvature: true,
		},
		{
			name: "3 points on a line",
			x:    []float64{100, 200, 300}, y: []float64{400, 700, 1000},
			wantVerdict: LinearityUnchecked, wantWarn: ErrTooFew,
		},
		{
			name: "3 points, R² low",
			x:    []float64{100, 200, 300}, y: []float64{400, 1000, 700},
			wantVerdict: LinearityNotLinear, wantWarn: ErrTooFew,
		},
		{
			name: "4 points, 2 sizes",
			x:    []float64{100, 100, 200, 200}, y: []float64{400, 401, 700, 699},
			wantVerdict: LinearityUnchecked, wantWarn: ErrTooFew,
		},
		{
			name: "4 points: curvature with 1 degree of freedom",
			x:    []float64{100, 200, 300, 400}, y: []float64{400, 701, 999, 1300},
			wantVerdict: LinearityLinear, curvature: true,
		},
		{
			name: "a non-positive cost: absolute noise instead",
			x:    []float64{100, 200, 300, 400, 500}, y: []float64{-2, 299, 601, 899, 1202},
			wantVerdict: LinearityLinear, wantWarn: ErrBadValue, curvature: true,
		},
		{
			// Quantized to 26 ticks: the residuals are within two steps.
			name: "quantized line within Floor",
			x:    linSizes(100, 100, 10), y: []float64{520, 832, 1144, 1456, 1794, 2080, 2392, 2704, 3042, 3328},
			opt:         LinearityOptions{Floor: 52},
			wantVerdict: LinearityLinear, curvature: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := LackOfFit(tt.x, tt.y, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkFiniteLinearity(t, l)
			if l.Verdict != tt.wantVerdict {
				t.Errorf("verdict %q (%s), want %q", l.Verdict, l.Reason, tt.wantVerdict)
			}
			if l.Curvature.Tested != tt.curvature {
				t.Errorf("Curvature.Tested = %v, want %v", l.Curvature.Tested, tt.curvature)
			}
			if !l.Curvature.Tested && (l.Curvature.PValue != 1 || l.Curvature.DoF != 0) {
				t.Errorf("untested curvature: %+v, want p 1 and zeros", l.Curvature)
			}
			switch {
			case tt.wantWarn == nil && len(l.Warnings) > 0:
				t.Errorf("Warnings = %v, want none", l.Warnings)
			case tt.wantWarn != nil && (len(l.Warnings) != 1 || !errors.Is(l.Warnings[0], tt.wantWarn)):
				t.Errorf("Warnings = %v, want one wrapping %v", l.Warnings, tt.wantWarn)
			}
		})
	}
}

// TestLackOfFitExact checks that zero residuals divide nothing by zero.
func TestLackOfFitExact(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	y := []float64{5, 7, 9, 11, 13, 15, 17, 19}
	l, err := LackOfFit(x, y, LinearityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Curvature
	if !l.Linear || c.Coef != 0 || c.SE != 0 || c.T != 0 || c.PValue != 1 || c.MaxDev != 0 {
		t.Errorf("exact line: %+v; want linear, a zero curvature with p 1", l)
	}
	if l.Runs.Tested || l.Runs.Zeros != 8 || l.Runs.PValue != 1 {
		t.Errorf("exact line: runs %+v, want untested with 8 zeros", l.Runs)
	}
	if l.Break.F != 0 || l.Break.PValue != 1 || l.Break.Significant {
		t.Errorf("exact line: break %+v, want F 0 and p 1", l.Break)
	}
	// An exact parabola: the quadratic fits exactly (SE 0), p 0.
	for i := range y {
		y[i] = x[i] * x[i]
	}
	l, err = LackOfFit(x, y, LinearityOptions{Absolute: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Curvature; !c.Significant || !closeTo(c.Coef, 1, 1e-9) || c.PValue > 1e-12 || l.Linear {
		t.Errorf("exact parabola: %+v; want a significant curvature of 1", l)
	}
}

// TestLackOfFitFalseAlarms measures how often straight lines are called
// "not linear" under the noise model the tests assume.
func TestLackOfFitFalseAlarms(t *testing.T) {
	tests := []struct {
		name     string
		x        []float64
		rel, abs float64
		opt      LinearityOptions
	}{
		{"relative noise, log sizes", logSizes(64, 65536, 16), 0.003, 0, LinearityOptions{}},
		{"relative noise, linear sizes", linSizes(100, 100, 10), 0.003, 0, LinearityOptions{}},
		{"constant noise, Absolute", linSizes(100, 100, 10), 0, 20, LinearityOptions{Absolute: true}},
	}
	const trials = 500
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(33, 34))
			tt.opt.MinR2 = 1e-9 // the tests only
			alarms := 0
			for range trials {
				y := costs(r, tt.x, func(n float64) float64 { return 200 + 2*n }, tt.rel, tt.abs)
				l, err := LackOfFit(tt.x, y, tt.opt)
				if err != nil {
					t.Fatal(err)
				}
				if !l.Linear {
					alarms++
				}
			}
			// Three tests at 0.01: at most 3% expected; 5% allows for chance
			// (the seed is fixed, so this is deterministic).
			t.Logf("%d of %d straight lines called not linear", alarms, trials)
			if alarms > trials/20 {
				t.Errorf("%d of %d straight lines called not linear, want at most %d", alarms, trials, trials/20)
			}
		})
	}
}

// TestCurvatureAgainstNormalEquations checks the quadratic term's
// coefficient, standard error and t against a direct weighted least-squares
// solution of y = c0 + c1·x + c2·x² by gonum/mat.
func TestCurvatureAgainstNormalEquations(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	x := logSizes(10, 5000, 9)
	y := costs(r, x, func(n float64) float64 { return 40 + 2*n + 1e-4*n*n }, 0.01, 0)
	for _, relative := range []bool{false, true} {
		v := make([]float64, len(x))
		for i := range v {
			v[i] = 1
			if relative {
				v[i] = 1 / (y[i] * y[i])
			}
		}
		c, _ := lineTests(x, y, v, 0.01, 0)

		n := len(x)
		X := mat.NewDense(n, 3, nil)
		Y := mat.NewVecDense(n, nil)
		for i := range n {
			s := math.Sqrt(v[i])
			X.Set(i, 0, s)
			X.Set(i, 1, s*x[i])
			X.Set(i, 2, s*x[i]*x[i])
			Y.SetVec(i, s*y[i])
		}
		var xtx mat.Dense
		xtx.Mul(X.T(), X)
		var inv mat.Dense
		if err := inv.Inverse(&xtx); err != nil {
			t.Fatal(err)
		}
		var xty, beta mat.VecDense
		xty.MulVec(X.T(), Y)
		beta.MulVec(&inv, &xty)
		var fit, res mat.VecDense
		fit.MulVec(X, &beta)
		res.SubVec(Y, &fit)
		s2 := mat.Dot(&res, &res) / float64(n-3)
		se := math.Sqrt(s2 * inv.At(2, 2))
		if !closeTo(c.Coef, beta.AtVec(2), 1e-6) || !closeTo(c.SE, se, 1e-6) || !closeTo(c.T, beta.AtVec(2)/se, 1e-6) || c.DoF != n-3 {
			t.Errorf("relative %v: Coef %v SE %v T %v DoF %d; want %v %v %v %d", relative, c.Coef, c.SE, c.T, c.DoF, beta.AtVec(2), se, beta.AtVec(2)/se, n-3)
		}
	}
}

// TestRunsCDF checks the exact null distribution of the number of runs
// against enumeration of every arrangement.
func TestRunsCDF(t *testing.T) {
	for _, tt := range []struct{ n1, n2 int }{{1, 1}, {1, 4}, {2, 3}, {5, 5}, {7, 3}, {6, 8}} {
		n := tt.n1 + tt.n2
		counts := make([]int, n+2)
		total := 0
		for mask := 0; mask < 1<<n; mask++ {
			if popcount(mask) != tt.n1 {
				continue
			}
			total++
			runs := 1
			for i := 1; i < n; i++ {
				if (mask>>i)&1 != (mask>>(i-1))&1 {
					runs++
				}
			}
			counts[runs]++
		}
		cum := 0
		for runs := 2; runs <= n; runs++ {
			cum += counts[runs]
			if got, want := runsCDF(tt.n1, tt.n2, runs), float64(cum)/float64(total); !closeTo(got, want, 1e-12) {
				t.Errorf("n1 %d n2 %d: P(R ≤ %d) = %v, want %v", tt.n1, tt.n2, runs, got, want)
			}
		}
	}
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

func TestLackOfFitErrors(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	tests := []struct {
		name      string
		x, y      []float64
		opt       LinearityOptions
		wantErr   error
		wantInMsg string
	}{
		{"length mismatch", x, x[:3], LinearityOptions{}, ErrLengthMismatch, "len(x) = 4, len(y) = 3"},
		{"two points", x[:2], x[:2], LinearityOptions{}, ErrTooFew, "got 2"},
		{"NaN y", x, []float64{1, math.NaN(), 3, 4}, LinearityOptions{}, ErrBadValue, "y[1] = NaN"},
		{"equal x", []float64{5, 5, 5}, []float64{1, 2, 3}, LinearityOptions{}, ErrDegenerate, "all 3 x values equal 5"},
		{"alpha 1", x, x, LinearityOptions{Alpha: 1}, ErrBadParam, "Alpha = 1"},
		{"MinR2 above 1", x, x, LinearityOptions{MinR2: 1.5}, ErrBadParam, "MinR2 = 1.5"},
		{"negative floor", x, x, LinearityOptions{Floor: -1}, ErrBadParam, "Floor = -1"},
		{"infinite floor", x, x, LinearityOptions{Floor: math.Inf(1)}, ErrBadParam, "Floor = +Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LackOfFit(tt.x, tt.y, tt.opt)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}

func BenchmarkLackOfFit(b *testing.B) {
	x := logSizes(64, 65536, 16)
	y := costs(rand.New(rand.NewPCG(37, 38)), x, func(n float64) float64 { return 150 + 3*n }, 0.002, 0)
	for b.Loop() {
		if _, err := LackOfFit(x, y, LinearityOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
