package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// chainInstance returns an Target running n dependent ADDs that continue
// the previous call's chain, so each call costs exactly n ADDs.
func chainInstance(n int) Target {
	var acc uint64
	return Target{Run: func() { acc = chain.AddFrom(acc, n) }, Elements: float64(n)}
}

func buildChain(n int) (Target, error) { return chainInstance(n), nil }

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"100,200,400", []int{100, 200, 400}},
		{" 1, 2 ,3 ", []int{1, 2, 3}},
		{"100:500:100", []int{100, 200, 300, 400, 500}},
		{"100:550:100", []int{100, 200, 300, 400, 500}},
		{" 1 : 3 : 1 ", []int{1, 2, 3}},
		{"log 1:100:3", []int{1, 10, 100}},
		{"log 64:65536:11", []int{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}},
		{"log:10:1000:3", []int{10, 100, 1000}},
		{"2147483645,2147483646,2147483647", []int{2147483645, 2147483646, 2147483647}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSizes(tt.in)
			if err != nil {
				t.Fatalf("ParseSizes(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ParseSizes(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseSizesErrors(t *testing.T) {
	tests := []struct {
		name, in, text string
	}{
		{"empty", "", "empty size list"},
		{"blank", "   ", "empty size list"},
		{"empty item", "100,,300", "item 2 is empty"},
		{"trailing comma", "100,200,300,", "item 4 is empty"},
		{"unsorted", "100,300,200", "size 200 after 300"},
		{"duplicate", "100,200,200,300", "duplicate size 200"},
		{"zero", "0,100,200", "size 0"},
		{"negative", "-5,100,200", "size -5"},
		{"two sizes", "100,200", "needs at least 3"},
		{"one size", "100", "needs at least 3"},
		{"not a number", "100,2e3,400", `"2e3" is not an integer`},
		{"huge", "1,2,99999999999999999999", "out of range"},
		{"above maxSize", "1,2,2147483648", "size 2147483648"},
		{"range two parts", "100:200", "want from:to:step"},
		{"range four parts", "1:2:3:4", "want from:to:step"},
		{"range backwards", "500:100:100", "range to 100"},
		{"range step zero", "100:500:0", "size 0"},
		{"range too few", "100:200:100", "has 2 sizes"},
		{"range too many", "1:100000:1", "has 100000 sizes"},
		{"range not a number", "1:x:1", `"x" is not an integer`},
		{"log equal ends", "log 100:100:5", "log to 100"},
		{"log count 2", "log 1:100:2", "log count 2"},
		{"log count huge", "log 1:2000000:5000", "log count 5000"},
		{"log repeats", "log 1:10:16", "rounding to integers makes sizes repeat"},
		{"log no numbers", "log", "want from:to:count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSizes(tt.in)
			if !errors.Is(err, ErrBadSizes) {
				t.Fatalf("ParseSizes(%q) = %v, %v; want an error wrapping ErrBadSizes", tt.in, got, err)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("ParseSizes(%q) error %q does not say %q", tt.in, err, tt.text)
			}
		})
	}
}

func TestSizeLogEnds(t *testing.T) {
	tests := []struct{ from, to, count int }{
		{1, 1000, 4}, {64, 65536, 16}, {3, 7, 5}, {1000, 1001, 2}, {1000, maxSize, 1000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d:%d:%d", tt.from, tt.to, tt.count), func(t *testing.T) {
			s, err := sizeLog(tt.from, tt.to, tt.count)
			if tt.count < minSizes {
				if !errors.Is(err, ErrBadSizes) {
					t.Fatalf("count %d: err = %v, want ErrBadSizes", tt.count, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != tt.count || s[0] != tt.from || s[len(s)-1] != tt.to {
				t.Fatalf("sizeLog = %v: want %d sizes from %d to %d", s, tt.count, tt.from, tt.to)
			}
			if err := checkSizes(s); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSizeRangeIncludesEnd(t *testing.T) {
	s, err := sizeRange(maxSize-4, maxSize, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{maxSize - 4, maxSize - 2, maxSize}; !slices.Equal(s, want) {
		t.Fatalf("sizeRange near maxSize = %v, want %v", s, want)
	}
}

// checkParsed holds what every successful parse must satisfy.
func checkParsed(t *testing.T, in string, sizes []int, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrBadSizes) {
			t.Fatalf("ParseSizes(%q): error %v does not wrap ErrBadSizes", in, err)
		}
		return
	}
	if err := checkSizes(sizes); err != nil {
		t.Fatalf("ParseSizes(%q) = %v, which checkSizes refuses: %v", in, sizes, err)
	}
}

func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"100,200,400", "1:10:1", "log 64:65536:16", "log 1:10:16", "", ",", "1,1,1", "-1:5:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sizes, err := ParseSizes(in)
		checkParsed(t, in, sizes, err)
		if err == nil && !strings.Contains(in, ":") {
			// A list reads back as itself.
			parts := make([]string, len(sizes))
			for i, n := range sizes {
				parts[i] = strconv.Itoa(n)
			}
			again, err := parseSizeList(strings.Join(parts, ","))
			if err != nil || !slices.Equal(again, sizes) {
				t.Fatalf("%v does not read back: %v, %v", sizes, again, err)
			}
		}
	})
}

func FuzzSizeLog(f *testing.F) {
	f.Add(64, 65536, 16)
	f.Add(1, 10, 16)
	f.Add(1, maxSize, 1000)
	f.Add(0, 0, 0)
	f.Fuzz(func(t *testing.T, from, to, count int) {
		s, err := sizeLog(from, to, count)
		if err != nil {
			if !errors.Is(err, ErrBadSizes) {
				t.Fatalf("sizeLog(%d, %d, %d): %v does not wrap ErrBadSizes", from, to, count, err)
			}
			return
		}
		if err := checkSizes(s); err != nil || len(s) != count || s[0] != from || s[len(s)-1] != to {
			t.Fatalf("sizeLog(%d, %d, %d) = %v (%v)", from, to, count, s, err)
		}
	})
}

func TestCheckSizes(t *testing.T) {
	tests := []struct {
		sizes []int
		text  string
	}{
		{nil, "empty size list"},
		{[]int{1, 2}, "needs at least 3"},
		{[]int{3, 2, 1}, "size 2 after 3"},
		{[]int{1, 1, 2}, "duplicate size 1"},
		{[]int{0, 1, 2}, "size 0"},
		{make([]int, maxSizes+1), "1001 sizes"},
		{[]int{1, 2, 3}, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(len(tt.sizes), tt.text), func(t *testing.T) {
			err := checkSizes(tt.sizes)
			if tt.text == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrBadSizes) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("checkSizes(%v) = %v, want ErrBadSizes saying %q", tt.sizes, err, tt.text)
			}
		})
	}
}

func TestCPEAddChain(t *testing.T) {
	if !chain.Exact() {
		t.Skip("the ADD chain is the pure-Go fallback on this build: its cost per op is not known")
	}
	cfg := DefaultConfig()
	sizes := []int{1000, 2000, 3000, 4000, 6000, 8000}
	c, err := CPE(context.Background(), cfg, Sweep{Name: "add", Sizes: sizes, Build: buildChain})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "add" || !slices.Equal(c.Sizes, sizes) || len(c.Points) != len(sizes) {
		t.Fatalf("name %q, sizes %v, %d points; want add, %v, %d", c.Name, c.Sizes, len(c.Points), sizes, len(sizes))
	}
	for i, p := range c.Points {
		if want := fmt.Sprintf("add/n=%d", sizes[i]); p.Name != want || p.Elements != float64(sizes[i]) || p.Ticks <= 0 {
			t.Errorf("point %d: %q, %v elements, %v ticks; want %q, %d, > 0", i, p.Name, p.Elements, p.Ticks, want, sizes[i])
		}
	}
	if !c.HasCycles || c.CyclesPerTick <= 0 {
		t.Fatalf("no cycle fit: HasCycles %v, CyclesPerTick %v", c.HasCycles, c.CyclesPerTick)
	}
	// A loose band: the precision target is checked by hand (see the
	// report), not in a test that runs on a loaded machine.
	if s := c.Cycles.Slope; s < 0.8 || s > 1.5 {
		t.Errorf("CPE of the ADD chain = %.3f cycles/op, outside 0.8–1.5", s)
	}
	if c.Ticks.Slope <= 0 || c.Nanoseconds.Slope <= 0 {
		t.Errorf("tick slope %v, ns slope %v: want > 0", c.Ticks.Slope, c.Nanoseconds.Slope)
	}
	if len(c.Cycles.Residuals) != len(sizes) || c.Cycles.R2 > 1 {
		t.Errorf("%d residuals, R² %v", len(c.Cycles.Residuals), c.Cycles.R2)
	}
	// The fits in the three units describe the same points.
	if r := c.Cycles.Slope / c.Ticks.Slope; math.Abs(r-c.CyclesPerTick) > 1e-9*r {
		t.Errorf("cycle slope / tick slope = %v, want the ruler's %v", r, c.CyclesPerTick)
	}
}

func TestCPEAllKeepsSweepsApart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxSamples = 50
	sizes := []int{500, 1000, 1500}
	rs, err := CPEAll(context.Background(), cfg, []Sweep{
		{Name: "short", Sizes: sizes, Build: buildChain},
		{Sizes: []int{2000, 3000, 4000, 5000}, Build: buildChain},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Name != "short" || rs[1].Name != "sweep2" || len(rs[0].Points) != 3 || len(rs[1].Points) != 4 {
		t.Fatalf("results %d: %q (%d points), %q (%d points)", len(rs), rs[0].Name, len(rs[0].Points), rs[1].Name, len(rs[1].Points))
	}
	for _, r := range rs {
		for _, p := range r.Points {
			// One ruler per sweep, shared by its points.
			if p.CyclesPerTick != r.CyclesPerTick || p.CyclesPerTick <= 0 {
				t.Errorf("%s: ruler %v, sweep's %v", p.Name, p.CyclesPerTick, r.CyclesPerTick)
			}
		}
	}
}

func TestCPEBadInput(t *testing.T) {
	boom := errors.New("no such size")
	tests := []struct {
		name   string
		sweeps []Sweep
		want   error
		text   string
	}{
		{"no sweeps", nil, ErrBadSizes, "no sweep"},
		{"nil build", []Sweep{{Name: "x", Sizes: []int{1, 2, 3}}}, ErrBadConfig, `"x"`},
		{"bad sizes", []Sweep{{Name: "x", Sizes: []int{3, 2, 1}, Build: buildChain}}, ErrBadSizes, "size 2 after 3"},
		{"build error", []Sweep{{Name: "x", Sizes: []int{1, 2, 3}, Build: func(n int) (Target, error) {
			if n == 2 {
				return Target{}, boom
			}
			return chainInstance(n), nil
		}}}, boom, "x/n=2"},
		{"nil run", []Sweep{{Name: "x", Sizes: []int{1, 2, 3}, Build: func(int) (Target, error) { return Target{}, nil }}}, ErrBadConfig, "x/n=1"},
		{"NaN elements", []Sweep{{Name: "x", Sizes: []int{1, 2, 3}, Build: func(n int) (Target, error) {
			in := chainInstance(n)
			in.Elements = math.NaN()
			return in, nil
		}}}, ErrBadConfig, "Elements NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CPEAll(context.Background(), DefaultConfig(), tt.sweeps)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v, want %v naming %s", err, tt.want, tt.text)
			}
		})
	}
	t.Run("bad config", func(t *testing.T) {
		_, err := CPE(context.Background(), Config{K: -1, CPU: AnyCPU}, Sweep{Sizes: []int{1, 2, 3}, Build: buildChain})
		if !errors.Is(err, ErrBadConfig) {
			t.Fatalf("err = %v, want ErrBadConfig", err)
		}
	})
}

func TestCPEEqualElementsIsAnError(t *testing.T) {
	_, err := CPE(context.Background(), DefaultConfig(), Sweep{Sizes: []int{1, 2, 3}, Build: func(n int) (Target, error) {
		in := chainInstance(100)
		in.Elements = 100 // every size claims the same x: no line
		return in, nil
	}})
	if err == nil || !strings.Contains(err.Error(), "degenerate") {
		t.Fatalf("err = %v, want a degenerate-fit error", err)
	}
}

func TestCPECancelledAndPanic(t *testing.T) {
	before := debug.SetGCPercent(77)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := DefaultConfig()
	if _, err := CPE(ctx, cfg, Sweep{Sizes: []int{100, 200, 300}, Build: buildChain}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
	_, err := CPE(context.Background(), DefaultConfig(), Sweep{Sizes: []int{100, 200, 300}, Build: func(n int) (Target, error) {
		return Target{Run: func() { panic(fmt.Sprint("boom ", n)) }}, nil
	}})
	if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panic: err = %v, want ErrPanic naming boom", err)
	}
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("GC percent after a panic = %d, want 77", got)
	}
	runtime.Gosched()
}

func TestCPEProgressCountsSizes(t *testing.T) {
	cfg := DefaultConfig()
	var last Progress
	calls := 0
	ctx := WithProgress(context.Background(), func(p Progress) { last = p; calls++ })
	cfg.Epsilon = 1e-12
	cfg.AbsSteps = -1
	cfg.K = 20
	cfg.MaxSamples = 100_000
	cfg.MaxTime = 120e6 // 120 ms: long enough for a progress call
	if _, err := CPE(ctx, cfg, Sweep{Sizes: []int{1000, 2000, 3000, 4000}, Build: buildChain}); err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Skip("converged before the first progress report; nothing to check")
	}
	if last.Max != 4 || last.Samples < 0 || last.Samples > 4 {
		t.Fatalf("progress %+v: want Max 4 sizes and 0 ≤ Samples ≤ 4", last)
	}
}

// TestFitRunsLeftOutAndResolution fits points as a file gives them: two
// runs per size, one disturbed run left out, values printed to whole
// cycles. The left-out run must not move the line, must still get its
// residual, and must not be called an outlier; the fit must not find a
// departure from the line that is below the printed resolution.
func TestFitRunsLeftOutAndResolution(t *testing.T) {
	sizes := []int{100, 100, 200, 200, 400, 400, 800, 800, 1600, 1600}
	var c CPEResult
	c.Name, c.HasCycles, c.CyclesPerTick = "k", true, 1.5
	x := make([]float64, len(sizes))
	leftOut := make([]bool, len(sizes))
	for i, n := range sizes {
		x[i] = float64(n)
		cyc := math.Round(40 + 2*float64(n) + float64(i%2)*0.4) // runs 0.4 cycles apart, printed whole
		if i == 5 {
			cyc *= 1.5 // a run slowed by other work
			leftOut[i] = true
		}
		c.Sizes = append(c.Sizes, n)
		c.Points = append(c.Points, Result{Cycles: cyc, Ticks: cyc / 1.5, Nanoseconds: cyc / 3, Repeat: 1000, Step: 1, Quantum: 1, CyclesPerTick: 1.5})
	}
	err := c.Fit(x, FitOptions{Step: 1, Hz: 2e9, Epsilon: 0.01, LeftOut: leftOut, Resolution: func(y float64) float64 { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Cycles.Slope-2) > 0.001 || math.Abs(c.Cycles.Intercept-40) > 1 {
		t.Errorf("cycles line %.4f + %.4f·n, want 40 + 2·n: the left-out run moved it", c.Cycles.Intercept, c.Cycles.Slope)
	}
	if len(c.Cycles.Residuals) != len(sizes) || c.Cycles.Residuals[5] < 0.4*c.Points[5].Cycles/1.5 {
		t.Errorf("residuals %v: want one per point, the left-out run's measured from the line", c.Cycles.Residuals)
	}
	if slices.Contains(c.Cycles.Outliers, 5) || len(c.OutlierSizes()) != 0 {
		t.Errorf("outliers %v (sizes %v): a left-out run is not an outlier of the fit", c.Cycles.Outliers, c.OutlierSizes())
	}
	if c.Linearity.Verdict != stats.LinearityLinear {
		t.Errorf("linearity %q (%s), want linear: the runs differ by less than the printed resolution", c.Linearity.Verdict, c.Linearity.Reason)
	}
	if c.Ticks.Slope == 0 || c.Nanoseconds.Slope == 0 {
		t.Errorf("ticks and ns must be fitted too: %+v %+v", c.Ticks, c.Nanoseconds)
	}
	c.NoTicks, c.HasCycles = true, false
	if err := c.Fit(x, FitOptions{LeftOut: leftOut}); err != nil {
		t.Fatal(err)
	}
	if f, unit := c.Primary(); unit != "ns" || f.Slope == 0 || c.Ticks.Slope != 0 {
		t.Errorf("without ticks or cycles: primary %s slope %g, ticks slope %g; want ns fitted and ticks left zero", unit, f.Slope, c.Ticks.Slope)
	}
	if err := c.Fit(x[:3], FitOptions{}); err == nil {
		t.Error("Fit with 3 x values for 10 points: want an error")
	}
}
