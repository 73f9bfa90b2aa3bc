package harness

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/stats"
)

func TestLeaveN(t *testing.T) {
	second := benchtime{d: time.Second}
	tests := []struct {
		name    string
		calls   int64
		entry   int
		bt      benchtime
		elapsed time.Duration
		want    int
	}{
		{"first call of the ramp", 31744, 1, second, 3 * time.Microsecond, 1},
		{"middle of the ramp", 31744, 1_000_000, second, 3 * time.Microsecond, 1_000_000},
		{"last call of the ramp", 31744, maxFrameworkN, second, 3 * time.Microsecond, 31744},
		{"timed part reached benchtime", 31744, 100, second, time.Second, 31744},
		{"after a b.Loop loop", 31744, 5_000_000, benchtime{d: 10 * time.Millisecond, set: true}, 12 * time.Millisecond, 31744},
		{"Nx, first call", 31744, 1, benchtime{n: 1, set: true}, 0, 31744},
		{"Nx, second call", 31744, 100, benchtime{n: 100, set: true}, 0, 31744},
		{"nothing timed", 0, maxFrameworkN, second, 0, maxFrameworkN},
		{"more calls than an int32", 1 << 40, maxFrameworkN, second, 0, int(min(int64(1)<<40, math.MaxInt))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leaveN(tt.calls, tt.entry, tt.bt, tt.elapsed); got != tt.want {
				t.Errorf("leaveN(%d, %d, %+v, %v) = %d, want %d", tt.calls, tt.entry, tt.bt, tt.elapsed, got, tt.want)
			}
		})
	}
}

func TestBenchtimeApply(t *testing.T) {
	def := DefaultConfig()
	k5 := DefaultConfig()
	k5.K = 5
	tests := []struct {
		name      string
		bt        benchtime
		cfg       Config
		maxTime   time.Duration
		maxSample int
		pairs     int
	}{
		{"not given", benchtime{d: time.Second}, def, defaultMaxTime, defaultMaxSamples, 0},
		{"not given, count", benchtime{n: 5}, def, defaultMaxTime, defaultMaxSamples, 0},
		{"duration", benchtime{d: 250 * time.Millisecond, set: true}, def, 250 * time.Millisecond, defaultMaxSamples, 0},
		{"long duration", benchtime{d: time.Hour, set: true}, def, time.Hour, defaultMaxSamples, 0},
		{"count", benchtime{n: 100, set: true}, def, defaultMaxTime, 100, 100},
		{"1x", benchtime{n: 1, set: true}, def, defaultMaxTime, defaultK, minPairs},
		{"1x with K 5", benchtime{n: 1, set: true}, k5, defaultMaxTime, 5, minPairs},
		{"1x, literal", benchtime{n: 1, set: true}, Config{}, 0, defaultK, minPairs},
		{"huge count", benchtime{n: 1 << 30, set: true}, def, defaultMaxTime, 1 << 30, maxPairs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.bt.apply(tt.cfg)
			if got.MaxTime != tt.maxTime || got.MaxSamples != tt.maxSample {
				t.Errorf("MaxTime %v, MaxSamples %d; want %v, %d", got.MaxTime, got.MaxSamples, tt.maxTime, tt.maxSample)
			}
			if count := tt.bt.set && tt.bt.n > 0; got.NoSettle != count {
				t.Errorf("NoSettle %v; want %v (a count budget bounds the samples, so no wait for a shared core)", got.NoSettle, count)
			}
			if got.K != tt.cfg.K || got.Epsilon != tt.cfg.Epsilon || got.explicit != tt.cfg.explicit {
				t.Errorf("apply changed more than the budget: %+v", got)
			}
			if opt := tt.bt.applyPairs(CompareOptions{}); opt.Pairs != tt.pairs {
				t.Errorf("Pairs %d, want %d", opt.Pairs, tt.pairs)
			}
			// A count budget takes no more blocks than asked (the default's
			// five, or Blocks), so that N pairs are the most it takes.
			for _, blocks := range []int{0, 8} {
				want := 0
				if tt.pairs > 0 {
					want = max(blocks, defaultBlocks)
				}
				opt, err := tt.bt.applyPairs(CompareOptions{Blocks: blocks}).WithDefaults()
				if tt.pairs == 0 {
					want = opt.MaxBlocks // untouched: the default's
				}
				if err != nil || opt.MaxBlocks != want || (tt.pairs > 0 && opt.MaxBlocks != opt.Blocks) {
					t.Errorf("Blocks %d: MaxBlocks %d (Blocks %d), %v; want %d", blocks, opt.MaxBlocks, opt.Blocks, err, want)
				}
			}
		})
	}
}

// benchtimeValue is the testing package's -test.benchtime flag, as its
// String method prints it.
type benchtimeValue struct{ s string }

func (v *benchtimeValue) String() string     { return v.s }
func (v *benchtimeValue) Set(s string) error { v.s = s; return nil }

func TestBenchtimeOf(t *testing.T) {
	tests := []struct {
		name    string
		args    []string // nil: no flag registered
		def     string
		want    benchtime
		wantErr string
	}{
		{"not a test binary", nil, "", benchtime{d: time.Second}, ""},
		{"not given", []string{}, "1s", benchtime{d: time.Second}, ""},
		{"duration", []string{"-test.benchtime=250ms"}, "1s", benchtime{d: 250 * time.Millisecond, set: true}, ""},
		{"count", []string{"-test.benchtime=7x"}, "1s", benchtime{d: time.Second, n: 7, set: true}, ""},
		{"unreadable count", []string{"-test.benchtime=zx"}, "1s", benchtime{}, `-test.benchtime "zx": cannot read the count`},
		{"unreadable duration", []string{"-test.benchtime=soon"}, "1s", benchtime{}, `-test.benchtime "soon": cannot read the duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			if tt.args != nil {
				fs.Var(&benchtimeValue{tt.def}, "test.benchtime", "")
				if err := fs.Parse(tt.args); err != nil {
					t.Fatal(err)
				}
			}
			got, err := benchtimeOf(fs)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("benchtimeOf = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestBenchtimeFromCommandLine runs this test binary again with
// -test.benchtime and reads the flag there as the helpers do.
func TestBenchtimeFromCommandLine(t *testing.T) {
	const env = "HARNESS_BENCHTIME_CHILD"
	if os.Getenv(env) != "" {
		bt, err := readBenchtime()
		fmt.Printf("benchtime %v %d %v %v\n", bt.d, bt.n, bt.set, err)
		return
	}
	tests := []struct {
		arg, want string
	}{
		{"", "benchtime 1s 0 false <nil>"},
		{"-test.benchtime=7x", "benchtime 1s 7 true <nil>"},
		{"-test.benchtime=250ms", "benchtime 250ms 0 true <nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			args := []string{"-test.run=^TestBenchtimeFromCommandLine$"}
			if tt.arg != "" {
				args = append(args, tt.arg)
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), env+"=1")
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Skipf("cannot run the test binary again (%v)", err)
				}
				t.Fatalf("child: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), tt.want+"\n") {
				t.Errorf("child printed %q, want a line %q", out, tt.want)
			}
		})
	}
}

var allocSink []byte

// alloc64 allocates 64 bytes a call, in one allocation.
func alloc64() { allocSink = make([]byte, 64) }

func TestCountAllocs(t *testing.T) {
	tests := []struct {
		name         string
		f, setup     func()
		bytes, count float64
	}{
		{"64 B", alloc64, nil, 64, 1},
		{"nothing", func() {}, nil, 0, 0},
		{"64 B after a setup allocating 1 KiB", alloc64, func() { allocSink = make([]byte, 1024) }, 64, 1},
		{"three allocations", func() {
			allocSink = make([]byte, 16)
			allocSink = make([]byte, 32)
			allocSink = make([]byte, 64)
		}, nil, 112, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := allocRuns(100, tt.setup != nil)
			got, err := countAllocs(tt.f, tt.setup, runs)
			if err != nil {
				t.Fatal(err)
			}
			// Other goroutines (the runtime's) may allocate during the pass:
			// only ever more, and a stray allocation of 1 KiB in 100 calls
			// stays under 11 B a call.
			if got.count < tt.count || got.count > tt.count+0.05 || got.bytes < tt.bytes || got.bytes > tt.bytes+11 {
				t.Errorf("%d runs: %.3f B and %.3f allocations a call, want %v and %v", runs, got.bytes, got.count, tt.bytes, tt.count)
			}
		})
	}
	t.Run("panic", func(t *testing.T) {
		before := runtime.GOMAXPROCS(0)
		_, err := countAllocs(func() { panic("boom") }, nil, 10)
		if !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "boom") {
			t.Errorf("error %v, want ErrPanic naming the panic", err)
		}
		if after := runtime.GOMAXPROCS(0); after != before {
			t.Errorf("GOMAXPROCS %d after the pass, was %d", after, before)
		}
	})
}

func TestAllocRuns(t *testing.T) {
	tests := []struct {
		ns    float64
		alone bool
		want  int
	}{
		{0, false, 1000}, {math.NaN(), false, 1000}, {1, false, 1000}, {1000, false, 1000},
		{4000, false, 250}, {1e6, false, 1}, {1e9, false, 1},
		{1, true, 100}, {4e4, true, 25}, {1e9, true, 1},
	}
	for _, tt := range tests {
		if got := allocRuns(tt.ns, tt.alone); got != tt.want {
			t.Errorf("allocRuns(%v, %v) = %d, want %d", tt.ns, tt.alone, got, tt.want)
		}
	}
}

// TestReportAllocs runs Report on functions allocating 64 B a call through
// testing.Benchmark: B/op and allocs/op are one call's, and the iteration
// count is the calls timed.
func TestReportAllocs(t *testing.T) {
	fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	tests := []struct {
		name  string
		setup func()
	}{
		{"no setup", nil},
		{"setup allocating", func() { allocSink = make([]byte, 4096) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			r := testing.Benchmark(func(b *testing.B) { Report(b, cfg, Target{Run: alloc64, Setup: tt.setup}) })
			if r.N != recordedCalls {
				t.Fatalf("N = %d, want %d", r.N, recordedCalls)
			}
			if r.AllocedBytesPerOp() != 64 || r.AllocsPerOp() != 1 {
				t.Errorf("%s, want 64 B/op and 1 allocs/op (%v)", r.MemString(), r.Extra)
			}
		})
	}
}

func TestReportBenchtime(t *testing.T) {
	tests := []struct {
		name       string
		bt         benchtime
		maxTime    time.Duration
		maxSamples int
	}{
		{"not given", benchtime{d: time.Second}, defaultMaxTime, defaultMaxSamples},
		{"250ms", benchtime{d: 250 * time.Millisecond, set: true}, 250 * time.Millisecond, defaultMaxSamples},
		{"7x", benchtime{d: time.Second, n: 7, set: true}, defaultMaxTime, 7},
		{"1x", benchtime{d: time.Second, n: 1, set: true}, defaultMaxTime, defaultK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
			benchtimeFlag = func() (benchtime, error) { return tt.bt, nil }
			b := newFakeB("BenchmarkBT")
			b.run(1, DefaultConfig(), func() {})
			if len(*calls) != 1 || len(b.fatals) != 0 {
				t.Fatalf("%d measurements, Fatal %q", len(*calls), b.fatals)
			}
			if got := (*calls)[0]; got.MaxTime != tt.maxTime || got.MaxSamples != tt.maxSamples {
				t.Errorf("MaxTime %v, MaxSamples %d; want %v, %d", got.MaxTime, got.MaxSamples, tt.maxTime, tt.maxSamples)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
		benchtimeFlag = func() (benchtime, error) {
			return benchtime{}, errors.New(`-test.benchtime "?": cannot read the duration`)
		}
		b := newFakeB("BenchmarkBT")
		b.run(1, DefaultConfig(), func() {})
		if len(b.fatals) != 1 || !strings.Contains(b.fatals[0], "harness.Report: -test.benchtime") {
			t.Errorf("Fatal %q, want one naming -test.benchtime", b.fatals)
		}
	})
}

// sizedResult is recorded() for a function over n elements.
func sizedResult(n float64) Result {
	r := recorded()
	r.Elements, r.Ticks, r.Nanoseconds, r.Cycles = n, 10*n+50, 4*n+20, 13*n+65
	r.TicksPerElement, r.NsPerElement, r.CyclesPerElement = r.Ticks/n, r.Nanoseconds/n, r.Cycles/n
	return r
}

func TestReportSweep(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	measure = func(ctx context.Context, cfg Config, tg Target) (Result, error) {
		*calls = append(*calls, measureCall{cfg, tg, ctx})
		tg.Run()
		return sizedResult(tg.Elements), nil
	}
	sizes := []int{100, 200, 400}
	var built []int
	var ran []int
	build := func(n int) (Target, error) {
		built = append(built, n)
		return Target{Run: func() { ran = append(ran, n) }}, nil
	}
	b := newFakeB("BenchmarkSum")
	b.n = 1
	reportSweep(b, DefaultConfig(), sizes, build)
	if len(b.fatals) != 0 {
		t.Fatalf("Fatal %q", b.fatals)
	}
	var names []string
	for _, sb := range b.subs {
		names = append(names, sb.name)
	}
	if want := []string{"BenchmarkSum/n=100", "BenchmarkSum/n=200", "BenchmarkSum/n=400"}; !slices.Equal(names, want) {
		t.Fatalf("sub-benchmarks %q, want %q", names, want)
	}
	// One build and one measurement per size, though each sub-benchmark's
	// function ran twice (b.N = 1, then 100).
	if !slices.Equal(built, sizes) || len(*calls) != len(sizes) {
		t.Fatalf("built %v and measured %d times, want each of %v once", built, len(*calls), sizes)
	}
	units := []string{"B/op", "allocs/op", "cycles/elem", "cycles/op", "ns/elem", "ns/op", "ticks/elem", "ticks/op"}
	for i, sb := range b.subs {
		n := float64(sizes[i])
		cfg := (*calls)[i]
		if cfg.Elements != n || cfg.Name != sb.name {
			t.Errorf("%s: measured with Elements %v and Name %q, want %v and the sub-benchmark's name", sb.name, cfg.Elements, cfg.Name, n)
		}
		if got := slices.Sorted(maps.Keys(sb.metrics)); !slices.Equal(got, units) {
			t.Errorf("%s: units %v, want %v", sb.name, got, units)
		}
		for u, v := range sb.metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("%s: %s = %v, want finite and ≥ 0", sb.name, u, v)
			}
		}
		if got, want := sb.metrics["cycles/op"], 13*n+65; got != want {
			t.Errorf("%s: cycles/op %v, want %v", sb.name, got, want)
		}
		if got := sb.metrics["cycles/elem"]; got != (13*n+65)/n {
			t.Errorf("%s: cycles/elem %v, want %v", sb.name, got, (13*n+65)/n)
		}
		// The second call of the function is the last of a
		// -benchtime=100x run here only if the framework says so: with the
		// default 1s it was not, so b.N is the framework's.
		if sb.n != 100 {
			t.Errorf("%s: b.N = %d after a call with b.N = 100 in the middle of the ramp, want it left alone", sb.name, sb.n)
		}
	}
	// The allocation pass called each size's function, after the
	// measurement's call.
	if len(ran) < 2*len(sizes) {
		t.Errorf("functions ran %d times, want the measurement's and the allocation pass's", len(ran))
	}

	// A target's Name labels the results as Name/n=SIZE.
	*calls = nil
	reportSweep(newFakeB("BenchmarkNamed"), DefaultConfig(), sizes[:3], func(n int) (Target, error) {
		tg, err := build(n)
		tg.Name = "sum"
		return tg, err
	})
	if len(*calls) != 3 || (*calls)[0].Name != "sum/n=100" {
		t.Errorf("named sweep: Configs %v", *calls)
	}
}

func TestReportSweepElements(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	reportSweep(newFakeB("BenchmarkBytes"), DefaultConfig(), []int{1, 2, 3}, func(n int) (Target, error) {
		return Target{Run: func() {}, Elements: float64(8 * n)}, nil
	})
	var got []float64
	for _, c := range *calls {
		got = append(got, c.Elements)
	}
	if !slices.Equal(got, []float64{8, 16, 24}) {
		t.Errorf("Elements %v, want the instances' [8 16 24]", got)
	}
}

func TestReportSweepBadInput(t *testing.T) {
	ok := func(n int) (Target, error) { return Target{Run: func() {}}, nil }
	tests := []struct {
		name  string
		n     int
		cfg   Config
		sizes []int
		build func(int) (Target, error)
		sub   bool // the failure is in a sub-benchmark (n=100)
		want  string
	}{
		{"nil build", 1, DefaultConfig(), []int{100, 200, 300}, nil, false, "harness.ReportSweep: nil build function"},
		{"no sizes", 1, DefaultConfig(), nil, ok, false, "harness.ReportSweep: bad sizes: empty size list"},
		{"two sizes", 1, DefaultConfig(), []int{100, 200}, ok, false, "harness.ReportSweep: bad sizes: 2 sizes [100 200]"},
		{"decreasing", 1, DefaultConfig(), []int{300, 200, 100}, ok, false, "harness.ReportSweep: bad sizes: size 200 after 300"},
		{"zero size", 1, DefaultConfig(), []int{0, 1, 2}, ok, false, "harness.ReportSweep: bad sizes: size 0"},
		{"bad config", 1, Config{K: -1}, []int{100, 200, 300}, ok, false, "harness.ReportSweep: bad config: K -1"},
		{"inside b.Loop", 0, DefaultConfig(), []int{100, 200, 300}, ok, false, "harness.ReportSweep: called inside a for b.Loop() loop"},
		{"build error", 1, DefaultConfig(), []int{100, 200, 300}, func(n int) (Target, error) {
			return Target{}, errors.New("out of memory")
		}, true, "harness.ReportSweep: n=100: out of memory"},
		{"no Run", 1, DefaultConfig(), []int{100, 200, 300}, func(n int) (Target, error) {
			return Target{}, nil
		}, true, "harness.ReportSweep: n=100: build returned a Target with no Run function"},
		{"NaN elements", 1, DefaultConfig(), []int{100, 200, 300}, func(n int) (Target, error) {
			return Target{Run: func() {}, Elements: math.NaN()}, nil
		}, true, "harness.ReportSweep: n=100: Elements NaN (allowed: ≥ 0, finite; 0 means n)"},
		{"negative elements", 1, DefaultConfig(), []int{100, 200, 300}, func(n int) (Target, error) {
			return Target{Run: func() {}, Elements: -1}, nil
		}, true, "harness.ReportSweep: n=100: Elements -1"},
		{"setup with Repeat", 1, Config{Repeat: 4}, []int{100, 200, 300}, func(n int) (Target, error) {
			return Target{Run: func() {}, Setup: func() {}}, nil
		}, true, "harness.ReportSweep: bad config: Repeat 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
			b := newFakeB("BenchmarkBad")
			b.n = tt.n
			reportSweep(b, tt.cfg, tt.sizes, tt.build)
			fatals := b.fatals
			if tt.sub {
				if len(b.fatals) != 0 || len(b.subs) == 0 {
					t.Fatalf("parent Fatal %q, %d sub-benchmarks; want the failure in n=100", b.fatals, len(b.subs))
				}
				fatals = b.subs[0].fatals
				if len(b.subs[0].metrics) != 0 {
					t.Errorf("metrics reported after Fatal: %v", b.subs[0].metrics)
				}
			} else if len(b.subs) != 0 {
				t.Errorf("%d sub-benchmarks run after Fatal", len(b.subs))
			}
			if len(fatals) != 1 || !strings.Contains(fatals[0], tt.want) || strings.Contains(fatals[0], "\n") {
				t.Fatalf("Fatal calls = %q, want one line containing %q", fatals, tt.want)
			}
			if len(*calls) != 0 {
				t.Errorf("measured %d times", len(*calls))
			}
		})
	}
}

// comparison is a plausible Compare result: B takes a quarter of A's time.
func comparison() Comparison {
	a, b := recorded(), recorded()
	a.Calls, b.Calls = 60000, 60000
	b.Ticks, b.Cycles, b.Nanoseconds = 250, 325, 100
	return Comparison{
		A: a, B: b, BestRatio: 0.25,
		Stats: stats.Comparison{N: 60, Ratio: 0.2501, Lo: 0.2499, Hi: 0.2504, PValue: 1.6e-11, NoiseBand: 0.0004,
			Significant: true, Verdict: stats.VerdictFaster, Reason: "the 95% interval lies beyond the band"},
		Significant: true, Verdict: stats.VerdictFaster, Reason: "the 95% interval lies beyond the band",
	}
}

func TestReportCompare(t *testing.T) {
	fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	var got []CompareOptions
	var cfgs []Config
	compare = func(_ context.Context, cfg Config, a, b Target, opt CompareOptions) (Comparison, error) {
		cfgs, got = append(cfgs, cfg), append(got, opt)
		a.Run()
		b.Run()
		return comparison(), nil
	}
	bt := benchtime{d: 250 * time.Millisecond, set: true}
	benchtimeFlag = func() (benchtime, error) { return bt, nil }
	b := newFakeB("BenchmarkSum4vsSum1")
	body := func(b bench) {
		reportCompare(b, DefaultConfig(), Target{Name: "sum1", Run: func() {}}, Target{Name: "sum4", Run: alloc64}, CompareOptions{Pairs: 30})
	}
	b.call(1, body)
	b.call(maxFrameworkN, body) // the ramp's last call
	if len(b.fatals) != 0 || len(got) != 1 {
		t.Fatalf("Fatal %q, %d comparisons; want none and one", b.fatals, len(got))
	}
	want := map[string]float64{
		"ratio":      0.2501,
		"A-ticks/op": 1000, "B-ticks/op": 250, "A-cycles/op": 1300, "B-cycles/op": 325, "ns/op": 0,
	}
	// One call of each side allocates 0 and 64 B: 32 B and 0.5 allocations
	// on average (other goroutines may add a little).
	if by, n := b.metrics["B/op"], b.metrics["allocs/op"]; by < 32 || by > 33 || n < 0.5 || n > 0.51 {
		t.Errorf("%v B/op, %v allocs/op; want 32 and 0.5", by, n)
	}
	delete(b.metrics, "B/op")
	delete(b.metrics, "allocs/op")
	if !maps.Equal(b.metrics, want) {
		t.Errorf("metrics %v, want %v", b.metrics, want)
	}
	if b.n != 120000 {
		t.Errorf("b.N = %d after the ramp's last call, want the 120000 calls of both sides", b.n)
	}
	if cfgs[0].MaxTime != 250*time.Millisecond || got[0].Pairs != 30 {
		t.Errorf("Compare got MaxTime %v, Pairs %d; want -benchtime's 250ms and the caller's 30 pairs", cfgs[0].MaxTime, got[0].Pairs)
	}
	if len(b.logs) != 1 || !strings.HasPrefix(b.logs[0], "harness.ReportCompare: sum4/sum1 = 0.2501 [0.2499, 0.2504], p = 1.6e-11, noise band 0.0004, 60 pairs: faster (") {
		t.Errorf("logs %q, want the verdict", b.logs)
	}

	// -benchtime=Nx sets the pairs.
	bt = benchtime{d: time.Second, n: 12, set: true}
	newFakeB("BenchmarkNx").call(1, body)
	if got[1].Pairs != 12 || cfgs[1].MaxSamples != 12 {
		t.Errorf("-benchtime 12x: Pairs %d, MaxSamples %d; want 12 and 12", got[1].Pairs, cfgs[1].MaxSamples)
	}
}

func TestReportCompareNoCycles(t *testing.T) {
	fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	compare = func(context.Context, Config, Target, Target, CompareOptions) (Comparison, error) {
		c := comparison()
		c.A.CyclesPerTick, c.B.CyclesPerTick, c.A.Cycles, c.B.Cycles = 0, 0, 0, 0
		return c, nil
	}
	b := newFakeB("BenchmarkNoCycles")
	b.call(1, func(b bench) {
		reportCompare(b, DefaultConfig(), Target{Run: func() {}}, Target{Run: func() {}}, CompareOptions{})
	})
	for _, u := range []string{"A-cycles/op", "B-cycles/op"} {
		if _, ok := b.metrics[u]; ok {
			t.Errorf("%s reported without a cycle estimate", u)
		}
	}
	if b.metrics["A-ticks/op"] != 1000 {
		t.Errorf("A-ticks/op %v, want 1000", b.metrics["A-ticks/op"])
	}
}

func TestReportCompareBadInput(t *testing.T) {
	run := func() {}
	tests := []struct {
		name       string
		n          int
		a, b       Target
		compareErr error
		calErr     error
		want       string
	}{
		{"nil A", 1, Target{}, Target{Run: run}, nil, nil, "harness.ReportCompare: nil Run function"},
		{"nil B", 1, Target{Run: run}, Target{}, nil, nil, "harness.ReportCompare: nil Run function"},
		{"inside b.Loop", 0, Target{Run: run}, Target{Run: run}, nil, nil, "harness.ReportCompare: called inside a for b.Loop() loop"},
		{"bad options", 1, Target{Run: run}, Target{Run: run}, fmt.Errorf("%w: Pairs 3 (allowed: 6 to 100000, or 0 for 200)", ErrBadConfig), nil,
			"harness.ReportCompare: bad config: Pairs 3"},
		{"too short", 1, Target{Run: run}, Target{Run: run}, fmt.Errorf("%w: the functions are too short to compare", ErrTooShort), nil,
			"harness.ReportCompare: region too short: the functions are too short to compare"},
		{"calibration", 1, Target{Run: run}, Target{Run: run}, nil, errors.New("calibrate: no counter"), "harness.ReportCompare: calibrate: no counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakes(t, recorded(), nil, &calibrate.Calibration{}, tt.calErr)
			compared := 0
			compare = func(context.Context, Config, Target, Target, CompareOptions) (Comparison, error) {
				compared++
				return comparison(), tt.compareErr
			}
			b := newFakeB("BenchmarkBadCompare")
			b.call(tt.n, func(b bench) { reportCompare(b, DefaultConfig(), tt.a, tt.b, CompareOptions{}) })
			if len(b.fatals) != 1 || !strings.Contains(b.fatals[0], tt.want) || strings.Contains(b.fatals[0], "\n") {
				t.Fatalf("Fatal calls = %q, want one line containing %q", b.fatals, tt.want)
			}
			if len(b.metrics) != 0 {
				t.Errorf("metrics reported after Fatal: %v", b.metrics)
			}
			if !b.timerOn {
				t.Error("the timer was left stopped")
			}
			if tt.compareErr == nil && compared != 0 {
				t.Errorf("compared %d times", compared)
			}
		})
	}
}

// TestNilB: the helpers do nothing with a nil b.
func TestNilB(t *testing.T) {
	calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	ReportSweep(nil, DefaultConfig(), []int{1, 2, 3}, func(int) (Target, error) { return Target{Run: func() {}}, nil })
	ReportCompare(nil, DefaultConfig(), Target{Run: func() {}}, Target{Run: func() {}}, CompareOptions{})
	if len(*calls) != 0 {
		t.Errorf("measured %d times", len(*calls))
	}
}

// TestRoundTripHelpers runs the child module's ReportSweep, ReportCompare
// and allocating benchmarks with go test -bench -benchmem and reads the
// output back with benchfmt.
func TestRoundTripHelpers(t *testing.T) {
	goBin := goTool(t)
	dir := childModule(t)
	const count = 2
	args := []string{"test", "-run", "^$", "-bench", "^Benchmark(Sweep|Compare|Alloc64|Latency)$", "-benchmem", "-count", fmt.Sprint(count)}
	out, stderr, err := goIn(t, goBin, dir, nil, args...)
	if err != nil {
		t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	t.Logf("go %s:\n%s", strings.Join(args, " "), out)
	vals, iters := parseBench(t, out)
	suffix := ""
	if p := runtime.GOMAXPROCS(0); p > 1 {
		suffix = fmt.Sprintf("-%d", p)
	}
	finite := func(name string, units ...string) {
		t.Helper()
		for _, u := range units {
			got := vals[name][u]
			if len(got) != count {
				t.Errorf("%s: %d values of %s, want %d", name, len(got), u, count)
			}
			for _, v := range got {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Errorf("%s: %s = %v, want finite and ≥ 0", name, u, v)
				}
			}
		}
		for _, it := range iters[name] {
			if it < defaultK || it == maxFrameworkN {
				t.Errorf("%s: iteration count %d, want the calls timed", name, it)
			}
		}
	}
	t.Run("sweep", func(t *testing.T) {
		for _, n := range []int{250, 500, 1000} { // roundtrip.SweepSizes
			name := fmt.Sprintf("Sweep/n=%d%s", n, suffix)
			finite(name, "cycles/op", "ticks/op", "ns/op", "cycles/elem", "ticks/elem", "ns/elem", "B/op", "allocs/op")
			for i, c := range vals[name]["cycles/op"] {
				if e := vals[name]["cycles/elem"][i]; math.Abs(e*float64(n)/c-1) > 0.01 {
					t.Errorf("%s: cycles/elem × n = %.4g, cycles/op %.4g", name, e*float64(n), c)
				}
			}
		}
	})
	t.Run("compare", func(t *testing.T) {
		name := "Compare" + suffix
		finite(name, "ratio", "A-ticks/op", "B-ticks/op", "B/op", "allocs/op")
		for i, r := range vals[name]["ratio"] {
			// Twice the dependent steps: B takes longer whatever the machine.
			if r <= 1 {
				t.Errorf("result %d: B/A = %v for a chain twice as long, want > 1", i, r)
			}
		}
		// The statistics are in the log line, not metrics: benchstat would
		// summarise them as figures.
		for _, u := range []string{"ratio-lo", "ratio-hi", "p-value", "noise-band", "significant", "inconclusive"} {
			if _, ok := vals[name][u]; ok {
				t.Errorf("a comparison printed %s as a metric", u)
			}
		}
		if !strings.Contains(out, ": slower (") {
			t.Errorf("no verdict \"slower\" logged for a chain twice as long:\n%s", out)
		}
		if _, ok := vals[name]["ns/op"]; ok {
			t.Errorf("a comparison printed ns/op")
		}
		if !strings.Contains(out, "harness.ReportCompare: 2000/1000 = ") {
			t.Errorf("the verdict was not logged")
		}
	})
	t.Run("latency", func(t *testing.T) {
		// A latency-mode Report names its result for the mode.
		finite("Latency/mode=latency"+suffix, "cycles/op", "ticks/op", "ns/op")
		if _, ok := vals["Latency"+suffix]; ok {
			t.Errorf("a latency-mode result without the mode in its name")
		}
	})
	t.Run("allocations", func(t *testing.T) {
		name := "Alloc64" + suffix
		finite(name, "ticks/op", "ns/op", "B/op", "allocs/op")
		if by, n := vals[name]["B/op"], vals[name]["allocs/op"]; !slices.Equal(by, []float64{64, 64}) || !slices.Equal(n, []float64{1, 1}) {
			t.Errorf("B/op %v, allocs/op %v; want 64 and 1 in each run", by, n)
		}
	})
}

// TestModeInName: in latency mode the helpers measure in a sub-benchmark
// named mode=latency unless the name already says so, so that go test's
// output says which mode produced the figures; a name that says the other
// mode fails the benchmark without measuring.
func TestModeInName(t *testing.T) {
	lat := DefaultConfig()
	lat.Mode = Latency
	tests := []struct {
		name     string // the benchmark's name
		cfg      Config
		measured string // the name of the b the figures go to ("" none)
		fatal    string // a substring of the Fatal message
	}{
		{"BenchmarkF", DefaultConfig(), "BenchmarkF", ""},
		{"BenchmarkF", lat, "BenchmarkF/mode=latency", ""},
		{"BenchmarkF/mode=latency", lat, "BenchmarkF/mode=latency", ""},
		{"BenchmarkF/Mode=LATENCY/n=8", lat, "BenchmarkF/Mode=LATENCY/n=8", ""},
		{"BenchmarkF/mode=throughput", DefaultConfig(), "BenchmarkF/mode=throughput", ""},
		{"BenchmarkF/mode=throughput", lat, "", "says mode=throughput and cfg.Mode is latency"},
		{"BenchmarkF/mode=latency", DefaultConfig(), "", "says mode=latency and cfg.Mode is throughput"},
		{"BenchmarkF/mode=fast", lat, "BenchmarkF/mode=fast/mode=latency", ""},
	}
	for _, tt := range tests {
		calls := fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
		b := newFakeB(tt.name)
		b.run(1, tt.cfg, func() {})
		got := b
		if len(b.subs) == 1 {
			got = b.subs[0]
		}
		switch {
		case tt.fatal != "":
			if len(b.fatals) != 1 || !strings.Contains(b.fatals[0], tt.fatal) || len(*calls) != 0 || len(b.subs) != 0 {
				t.Errorf("%s, %v: Fatal %q, %d measurements, %d subs; want one Fatal with %q and nothing measured", tt.name, tt.cfg.Mode, b.fatals, len(*calls), len(b.subs), tt.fatal)
			}
		case len(b.fatals)+len(got.fatals) != 0 || len(*calls) != 1:
			t.Errorf("%s, %v: Fatal %q %q, %d measurements; want one measurement", tt.name, tt.cfg.Mode, b.fatals, got.fatals, len(*calls))
		case got.name != tt.measured || (*calls)[0].Name != tt.measured || (*calls)[0].Mode != tt.cfg.Mode || got.metrics["ticks/op"] == 0:
			t.Errorf("%s, %v: measured as %q in mode %v, figures on %q (%v); want them on %q", tt.name, tt.cfg.Mode, (*calls)[0].Name, (*calls)[0].Mode, got.name, got.metrics, tt.measured)
		}
	}

	// ReportSweep: the sizes go under mode=latency.
	fakes(t, recorded(), nil, &calibrate.Calibration{}, nil)
	b := newFakeB("BenchmarkSum")
	reportSweep(b, lat, []int{10, 20, 30}, func(n int) (Target, error) { return Target{Run: func() {}}, nil })
	if len(b.subs) != 1 || b.subs[0].name != "BenchmarkSum/mode=latency" || len(b.subs[0].subs) != 3 || b.subs[0].subs[2].name != "BenchmarkSum/mode=latency/n=30" {
		t.Errorf("ReportSweep in latency mode: subs %v; want BenchmarkSum/mode=latency/n=10...30", subNames(b))
	}
}

func subNames(b *fakeB) []string {
	var names []string
	for _, s := range b.subs {
		names = append(names, s.name)
		names = append(names, subNames(s)...)
	}
	return names
}
