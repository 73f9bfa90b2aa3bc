package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

// cpeRun simulates one `cyclebench cpe` run: a sweep over 10 sizes whose
// slope is slope·exp(runSD·z) for this run (the code's placement, the
// machine's state) and whose points carry relative noise pointSD, fitted
// by LinearFit.
func cpeRun(r *rand.Rand, slope, runSD, pointSD float64) Fit {
	s := slope * math.Exp(runSD*r.NormFloat64())
	x := linSizes(100, 100, 10)
	y := make([]float64, len(x))
	for i, n := range x {
		y[i] = (80 + s*n) * (1 + pointSD*r.NormFloat64())
	}
	f, err := LinearFit(x, y)
	if err != nil {
		panic(err) // cannot happen: 10 distinct finite sizes
	}
	return f
}

// cpeFile simulates a result file of count runs and returns their fits.
func cpeFile(r *rand.Rand, count int, slope, runSD, pointSD float64) []Fit {
	fits := make([]Fit, count)
	for i := range fits {
		fits[i] = cpeRun(r, slope, runSD, pointSD)
	}
	return fits
}

func slopes(fits []Fit) []float64 {
	s := make([]float64, len(fits))
	for i, f := range fits {
		s[i] = f.Slope
	}
	return s
}

// TestCompareRunsAA compares two files of identical code measured back to
// back, when the slope moves from run to run by more than its in-run
// interval (the issue: CompareSlopes said "slower", p = 0.0006).
func TestCompareRunsAA(t *testing.T) {
	const runSD, pointSD = 0.01, 0.001 // 1% between runs, 0.1% per point
	for _, test := range []string{RunTestWelch, RunTestMannWhitney} {
		t.Run(test, func(t *testing.T) {
			r := rand.New(rand.NewPCG(41, 42))
			opt := CompareOptions{RunTest: test}
			const trials = 20
			var falseRuns, falseSlopes int
			var inRunCI []float64
			var first []float64
			for range trials {
				a, b := cpeFile(r, 5, 12, runSD, pointSD), cpeFile(r, 5, 12, runSD, pointSD)
				rc, err := CompareRuns(slopes(a), slopes(b), opt)
				if err != nil {
					t.Fatal(err)
				}
				if rc.Significant {
					falseRuns++
				}
				if !rc.Tested || rc.NA != 5 || rc.NB != 5 || rc.Test != test {
					t.Fatalf("%+v: want a %s test of 5 runs per side", rc, test)
				}
				// The within-run test on one run per file, as before.
				sc, err := CompareSlopes(a[0], b[0], CompareOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if sc.Significant {
					falseSlopes++
				}
				inRunCI = append(inRunCI, a[0].SlopeCI/a[0].Slope)
				first = append(first, a[0].Slope)
			}
			spread, err := Summarize(first)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("A/A, %d trials: CompareRuns (%s, 5 runs per side) false verdicts %d; CompareSlopes (1 run per side) %d; run-to-run CV %.3g, median in-run relative CI %.3g",
				trials, test, falseRuns, falseSlopes, spread.CV, Median(inRunCI))
			if spread.CV <= Median(inRunCI) {
				t.Fatalf("the simulation should have run-to-run spread (%v) above the in-run interval (%v)", spread.CV, Median(inRunCI))
			}
			if falseSlopes < trials/2 {
				t.Errorf("CompareSlopes gave %d false verdicts of %d; the simulation should reproduce the issue (most)", falseSlopes, trials)
			}
			if falseRuns > 1 {
				t.Errorf("CompareRuns: %d false verdicts of %d, want at most 1", falseRuns, trials)
			}
		})
	}
}

// TestCompareRunsAARate measures the false verdict rate over many A/A
// trials with few runs per side.
func TestCompareRunsAARate(t *testing.T) {
	for _, tt := range []struct {
		test string
		runs int
	}{{RunTestWelch, 2}, {RunTestWelch, 3}, {RunTestWelch, 10}, {RunTestMannWhitney, 5}} {
		r := rand.New(rand.NewPCG(43, 44))
		const trials = 1000
		wrong := 0
		for range trials {
			a := lognormal(r, tt.runs, 12, 0.01)
			b := lognormal(r, tt.runs, 12, 0.01)
			rc, err := CompareRuns(a, b, CompareOptions{RunTest: tt.test})
			if err != nil {
				t.Fatal(err)
			}
			if rc.Significant {
				wrong++
			}
		}
		t.Logf("%s, %d runs per side: %d false verdicts in %d A/A trials", tt.test, tt.runs, wrong, trials)
		if wrong > 65 { // α = 0.05: 50 expected, sd 7
			t.Errorf("%s, %d runs per side: %d false verdicts in %d trials, want at most 65", tt.test, tt.runs, wrong, trials)
		}
	}
}

func TestCompareRunsNoTest(t *testing.T) {
	tests := []struct {
		name       string
		a, b       []float64
		wantReason string
	}{
		{"1 run per side", []float64{12.1}, []float64{12.9}, "no test: 1 run per side"},
		{"1 run of A", []float64{12.1}, []float64{12.9, 13, 12.8}, "no test: 1 run of A (and 3 of B)"},
		{"1 run of B", []float64{12.1, 12.2}, []float64{12.9}, "no test: 1 run of B (and 2 of A)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := CompareRuns(tt.a, tt.b, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rc.Tested || rc.Test != RunTestNone || rc.Verdict != VerdictNoTest || rc.Significant || !strings.HasPrefix(rc.Reason, tt.wantReason) {
				t.Errorf("got %+v, want no test, reason %q", rc, tt.wantReason)
			}
			if rc.PValue != 1 || rc.Lo != 0 || rc.Hi != 0 || rc.DoF != 0 || rc.Detectable != 0 {
				t.Errorf("untested: PValue %v Lo %v Hi %v DoF %v Detectable %v, want 1 and zeros", rc.PValue, rc.Lo, rc.Hi, rc.DoF, rc.Detectable)
			}
			if want := Median(tt.b) / Median(tt.a); !closeTo(rc.Ratio, want, 1e-12) {
				t.Errorf("Ratio %v, want %v (descriptive)", rc.Ratio, want)
			}
			if len(rc.Warnings) != 1 || !errors.Is(rc.Warnings[0], ErrNoTest) || !strings.Contains(rc.Warnings[0].Error(), strings.TrimPrefix(tt.wantReason, "no test: ")) {
				t.Errorf("Warnings %v, want one wrapping ErrNoTest with the reason", rc.Warnings)
			}
		})
	}
}

func TestCompareRuns(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		opt         CompareOptions
		wantVerdict string
		wantP       func(p float64) bool
		wantReason  string
		warn        error
	}{
		{"3% slower, 5 runs", []float64{12.0, 12.1, 11.9, 12.05, 11.95}, []float64{12.4, 12.3, 12.45, 12.35, 12.5}, CompareOptions{},
			VerdictSlower, func(p float64) bool { return p < 1e-4 }, "excludes 1", nil},
		{"3% faster, 2 runs", []float64{12.36, 12.4}, []float64{12.0, 12.05}, CompareOptions{},
			VerdictFaster, func(p float64) bool { return p < 0.05 }, "excludes 1", nil},
		{"overlapping runs", []float64{12.0, 12.6, 11.8}, []float64{12.2, 12.9, 11.9}, CompareOptions{},
			VerdictSame, func(p float64) bool { return p > 0.5 }, "does not reject", nil},
		{"constant and equal", []float64{12, 12}, []float64{12, 12, 12}, CompareOptions{},
			VerdictSame, func(p float64) bool { return p == 1 }, "does not reject", nil},
		{"constant, different", []float64{7020, 7020}, []float64{7046, 7046}, CompareOptions{},
			VerdictSlower, func(p float64) bool { return p == 0 }, "[1.0037, 1.0037]", nil},
		{"constant, different by less than the quantum", []float64{7020, 7020}, []float64{7046, 7046}, CompareOptions{Quantum: 52},
			VerdictSame, func(p float64) bool { return p == 0 }, "reaches into the noise band ±0.37% derived from the counter quantum", nil},
		{"a systematic error wider than the difference", []float64{10000, 10001, 10000.5}, []float64{10004, 10004.5, 10005}, CompareOptions{Systematic: 0.0005},
			VerdictSame, func(p float64) bool { return p < 0.01 }, "noise band ±0.05% of the values' systematic error", nil},
		{"a systematic error narrower than the difference", []float64{10000, 10001, 10000.5}, []float64{10014, 10014.5, 10015}, CompareOptions{Systematic: 0.0005, Quantum: 2},
			VerdictSlower, func(p float64) bool { return p < 0.01 }, "systematic", nil},
		{"fixed band", []float64{12.0, 12.1, 11.9, 12.05, 11.95}, []float64{12.4, 12.3, 12.45, 12.35, 12.5}, CompareOptions{NoiseBand: 0.05},
			VerdictSame, func(p float64) bool { return p < 1e-4 }, "fixed noise band ±5%", nil},
		{"mann-whitney, 2 runs: cannot reject", []float64{12.0, 12.1}, []float64{13.0, 13.1}, CompareOptions{RunTest: RunTestMannWhitney},
			VerdictSame, func(p float64) bool { return p > 0.3 }, "does not reject", ErrTooFew},
		{"mann-whitney, 5 runs", []float64{12.0, 12.1, 11.9, 12.05, 11.95}, []float64{12.4, 12.3, 12.45, 12.35, 12.5}, CompareOptions{RunTest: RunTestMannWhitney},
			VerdictSlower, func(p float64) bool { return p < 0.05 }, "Welch interval", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := slices.Clone(tt.a), slices.Clone(tt.b)
			rc, err := CompareRuns(a, b, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, tt.a) || !slices.Equal(b, tt.b) {
				t.Errorf("inputs modified")
			}
			if rc.Verdict != tt.wantVerdict || !tt.wantP(rc.PValue) || !strings.Contains(rc.Reason, tt.wantReason) {
				t.Errorf("verdict %q p %v reason %q; want %q, p as expected, reason with %q", rc.Verdict, rc.PValue, rc.Reason, tt.wantVerdict, tt.wantReason)
			}
			if !rc.Tested || rc.Lo > rc.Hi || rc.Detectable < rc.NoiseBand {
				t.Errorf("interval [%v, %v], Detectable %v, band %v", rc.Lo, rc.Hi, rc.Detectable, rc.NoiseBand)
			}
			if (tt.warn == nil) != (len(rc.Warnings) == 0) || (tt.warn != nil && !errors.Is(rc.Warnings[0], tt.warn)) {
				t.Errorf("Warnings %v, want %v", rc.Warnings, tt.warn)
			}
			for _, v := range []float64{rc.CenterA, rc.CenterB, rc.SpreadA, rc.SpreadB, rc.Ratio, rc.Lo, rc.Hi, rc.DoF, rc.PValue, rc.NoiseBand, rc.QuantumBand, rc.Detectable} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("a field is %v: %+v", v, rc)
				}
			}
		})
	}
}

// TestCompareRunsWelch checks the interval and p-value against values
// computed by hand on the logarithms.
func TestCompareRunsWelch(t *testing.T) {
	a := []float64{100, 110, 105}
	b := []float64{120, 125, 118, 130}
	rc, err := CompareRuns(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	la, lb := logs(a), logs(b)
	ma, sa := meanSD(la)
	mb, sb := meanSD(lb)
	va, vb := sa*sa/3, sb*sb/4
	se := math.Sqrt(va + vb)
	dof := (va + vb) * (va + vb) / (va*va/2 + vb*vb/3)
	if !closeTo(rc.DoF, dof, 1e-12) || !closeTo(rc.Ratio, math.Exp(mb-ma), 1e-12) || !closeTo(rc.SpreadA, sa, 1e-12) {
		t.Errorf("DoF %v Ratio %v SpreadA %v; want %v %v %v", rc.DoF, rc.Ratio, rc.SpreadA, dof, math.Exp(mb-ma), sa)
	}
	// Welch's p on the same logarithms, by go-moremath through benchmath.
	th := benchmath.DefaultThresholds
	want := benchmath.AssumeNormal.Compare(benchmath.NewSample(la, &th), benchmath.NewSample(lb, &th)).P
	if !closeTo(rc.PValue, want, 1e-9) {
		t.Errorf("PValue %v, want %v", rc.PValue, want)
	}
	if got := math.Log(rc.Hi) - math.Log(rc.Lo); !(got > 2*1.96*se) { // t quantile > z
		t.Errorf("interval width %v on the log scale, want more than %v", got, 2*1.96*se)
	}
	mw, err := CompareRuns(a, b, CompareOptions{RunTest: RunTestMannWhitney})
	if err != nil {
		t.Fatal(err)
	}
	wantMW := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th)).P
	if mw.PValue != wantMW || mw.CenterA != 105 || mw.CenterB != 122.5 || mw.Lo != rc.Lo {
		t.Errorf("mann-whitney: %+v; want p %v, medians 105 and 122.5, the Welch interval", mw, wantMW)
	}
}

func TestCompareRunsErrors(t *testing.T) {
	two := []float64{1, 2}
	tests := []struct {
		name      string
		a, b      []float64
		opt       CompareOptions
		wantErr   error
		wantInMsg string
	}{
		{"empty a", nil, two, CompareOptions{}, ErrTooFew, "got 0 and 2"},
		{"empty b", two, []float64{}, CompareOptions{}, ErrTooFew, "got 2 and 0"},
		{"zero", []float64{1, 0}, two, CompareOptions{}, ErrBadValue, "a[1] = 0"},
		{"NaN", two, []float64{math.NaN()}, CompareOptions{}, ErrBadValue, "b[0] = NaN"},
		{"bad test", two, two, CompareOptions{RunTest: "t"}, ErrBadParam, `RunTest = "t"`},
		{"negative quantum", two, two, CompareOptions{Quantum: -1}, ErrBadParam, "Quantum = -1"},
		{"NaN quantum", two, two, CompareOptions{Quantum: math.NaN()}, ErrBadParam, "Quantum = NaN"},
		{"systematic", two, two, CompareOptions{Systematic: 1}, ErrBadParam, "Systematic = 1"},
		{"alpha", two, two, CompareOptions{Alpha: 1}, ErrBadParam, "Alpha = 1"},
		{"ratio overflows", []float64{1e-300, 2e-300}, []float64{1e300, 1e300}, CompareOptions{}, ErrDegenerate, "overflows"},
		{"ratio overflows, 1 run", []float64{1e-300}, []float64{1e300}, CompareOptions{}, ErrDegenerate, "overflows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareRuns(tt.a, tt.b, tt.opt)
			checkErr(t, err, tt.wantErr, tt.wantInMsg)
		})
	}
}

func BenchmarkCompareRuns(b *testing.B) {
	r := rand.New(rand.NewPCG(45, 46))
	a, c := lognormal(r, 5, 12, 0.01), lognormal(r, 5, 12, 0.01)
	for _, test := range []string{RunTestWelch, RunTestMannWhitney} {
		b.Run(test, func(b *testing.B) {
			for b.Loop() {
				if _, err := CompareRuns(a, c, CompareOptions{RunTest: test}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
