package harness

// Recorded throughput figures of calls that overlap, at many R, and the
// overlap check (decideOverlap) replayed over them.
//
// How much a call overlaps the next depends on the code and on the core
// (its reorder buffer, its schedulers): so every machine kind the project
// meets leaves a recording in testdata/overlaps, and TestReplayOverlaps
// judges the check over all of them. Record on a new machine kind, with
// nothing else running, with
//
//	CYCLEBENCH_OVERLAPS=testdata/overlaps/<vendor>-<core>.txt.gz go test -run TestRecordOverlaps -timeout 0 ./harness
//
// then run the replay and read its table (go test -v -run TestReplayOverlaps).

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// overlapKernels are calls that start a fresh chain (they overlap the next
// call by up to the reorder buffer) and one that continues the last call's
// chain through memory (no overlap).
func overlapKernels() []Target {
	var sink uint64
	return []Target{
		{Name: "imul-restarted-1000", Run: func() { sink = chain.ImulFrom(3, 1000) }},
		{Name: "add-restarted-1000", Run: func() { sink = chain.AddFrom(0, 1000) }},
		{Name: "imul-restarted-50", Run: func() { sink = chain.ImulFrom(3, 50) }},
		{Name: "add-continued-1000", Run: func() { sink = chain.AddFrom(sink, 1000) }},
	}
}

// overlapMaxTicks bounds the recorded samples (2 ms at 2.5 GHz), and
// overlapFitTicks the samples the replay fits (0.4 ms).
const overlapMaxTicks, overlapFitTicks = 5e6, 1e6

func TestRecordOverlaps(t *testing.T) {
	path, b, cal := startRecording(t, "CYCLEBENCH_OVERLAPS", "overlap_test.go", "overlaps: M kernel rep overhead-ticks need-ticks counter-Hz, then one line per R: R, the best sample of R calls in ticks")
	for rep := range 8 {
		for _, k := range overlapKernels() {
			cfg := DefaultConfig()
			cfg.Calibration, cfg.NoSettle = cal, true
			best := map[int]uint64{}
			tracer = func(s traceSample) {
				if s.Kind == 'T' && s.OK {
					if v, ok := best[s.N]; !ok || s.Ticks < v {
						best[s.N] = s.Ticks
					}
				}
			}
			need := cal.Step.Step * regionSteps(cfg.MinRegionSteps, cfg.Epsilon)
			for r := 1; r <= 4096; r *= 2 {
				cfg.Repeat = r
				if _, err := Measure(context.Background(), cfg, k); err != nil {
					t.Fatal(err)
				}
				if float64(best[r]) > overlapMaxTicks {
					break
				}
			}
			tracer = nil
			fmt.Fprintf(b, "M %s %d %.6g %.6g %.10g\n", k.Name, rep, cal.Overhead.Median, need, cal.Frequency.Hz)
			for r := 1; r <= 4096; r *= 2 {
				if v, ok := best[r]; ok {
					fmt.Fprintf(b, "%d %d\n", r, v)
				}
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(b, "# load after: %s", load)
	writeGzip(t, path, b.String())
}

// overlapRun is one recorded sweep: the best sample at each R.
type overlapRun struct {
	kernel             string
	overhead, need, hz float64
	best               map[int]float64
}

func readOverlaps(t *testing.T, path string) []overlapRun {
	t.Helper()
	sc := gzipLines(t, path)
	var runs []overlapRun
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0 || fs[0] == "#":
		case fs[0] == "M" && len(fs) == 6:
			o, err1 := strconv.ParseFloat(fs[3], 64)
			n, err2 := strconv.ParseFloat(fs[4], 64)
			hz, err3 := strconv.ParseFloat(fs[5], 64)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("%s:%d: %v %v %v", path, line, err1, err2, err3)
			}
			runs = append(runs, overlapRun{kernel: fs[1], overhead: o, need: n, hz: hz, best: map[int]float64{}})
		case len(fs) == 2 && len(runs) > 0:
			r, err1 := strconv.Atoi(fs[0])
			v, err2 := strconv.ParseFloat(fs[1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s:%d: %v %v", path, line, err1, err2)
			}
			runs[len(runs)-1].best[r] = v
		default:
			t.Fatalf("%s:%d: cannot read %q", path, line, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// overlapFigures returns a kernel's figure at each recorded R, in ticks per
// call (the median over its sweeps, less those more than 10% above the
// best: a shared core), its cost per call in a loop and how much that
// varies between sweeps (IQR/median). The cost is the median figure of the
// three longest R whose samples stay within overlapFitTicks: long samples,
// where quantization and the sample's ends are the smallest part, but not
// so long that few are free of an interrupt (from about 1 ms on their best
// reads 0.3% high).
func overlapFigures(runs []overlapRun) (fig map[int]float64, perCall, spread float64) {
	byR := map[int][]float64{}
	for _, u := range runs {
		for r, v := range u.best {
			byR[r] = append(byR[r], (v-u.overhead)/float64(r))
		}
	}
	fig = map[int]float64{}
	var long []int
	for r, v := range byR {
		lo := slices.Min(v)
		v = slices.DeleteFunc(v, func(x float64) bool { return x > 1.1*lo })
		byR[r] = v
		fig[r] = median(v)
		if slices.Max(v)*float64(r) <= overlapFitTicks {
			long = append(long, r)
		}
	}
	slices.Sort(long)
	if len(long) < 3 {
		return fig, math.NaN(), math.NaN()
	}
	long = long[len(long)-3:]
	var figs, spreads []float64
	for _, r := range long {
		v := slices.Sorted(slices.Values(byR[r]))
		n := len(v)
		figs, spreads = append(figs, fig[r]), append(spreads, (v[3*(n-1)/4]-v[(n-1)/4])/fig[r])
	}
	return fig, median(figs), median(spreads)
}

// TestReplayOverlaps replays the overlap check over every recording: for
// each sweep, the R the engine would choose (the first power of two whose
// sample spans the need, as chooseRepeat's) and the R the check raises it
// to from that sweep's samples of R and 4R. The figure at that R (at the
// recorded R just below it, which reads no lower) must lie within
// 2·overlapBias of the kernel's cost per call in a loop, or within the
// spread of that cost between sweeps where it is wider, in at least 7
// sweeps of 8, and the R chosen without the check must not already do as
// well (else the check would be for nothing).
func TestReplayOverlaps(t *testing.T) {
	paths, err := filepath.Glob("testdata/overlaps/*.txt.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings in testdata/overlaps (%v)", err)
	}
	for _, path := range paths {
		byKernel, names := groupInOrder(readOverlaps(t, path), func(u overlapRun) string { return u.kernel })
		var checked, before int
		for _, name := range names {
			us := byKernel[name]
			fig, b, spread := overlapFigures(us)
			tol := math.Max(2*overlapBias, spread)
			// at is the figure at the recorded R at or below r.
			at := func(r int) float64 {
				best := 0
				for x := range fig {
					if x <= r && x > best {
						best = x
					}
				}
				return fig[best]
			}
			var within, withinBefore, judged int
			var rs []int
			for _, u := range us {
				r := 0
				for _, x := range slices.Sorted(maps.Keys(u.best)) {
					if u.best[x] >= u.need {
						r = x
						break
					}
				}
				t4, ok := u.best[4*r]
				if r == 0 || !ok {
					continue
				}
				judged++
				d := decideOverlap(r, u.best[r], t4, u.overhead, 2, overlapMinSample*u.hz, overlapMaxSample*u.hz)
				rs = append(rs, d.R)
				if math.Abs(at(d.R)/b-1) <= tol {
					within++
				}
				if math.Abs(at(r)/b-1) <= tol {
					withinBefore++
				}
			}
			t.Logf("%s %s: %.1f ticks a call in a loop (sweeps ±%.2g%%); within %.2g%%: %d of %d sweeps with the check (R %v), %d without",
				filepath.Base(path), name, b, 50*spread, 100*tol, within, judged, rs, withinBefore)
			if judged < 4 || math.IsNaN(b) {
				t.Errorf("%s %s: only %d sweeps reach 4R", path, name, judged)
				continue
			}
			if 8*within < 7*judged {
				t.Errorf("%s %s: the check's R kept the figure within %.2g%% in %d of %d sweeps", path, name, 100*tol, within, judged)
			}
			checked, before = checked+within, before+withinBefore
		}
		if before >= checked {
			t.Errorf("%s: without the check, %d sweeps read within tolerance; with it, %d", path, before, checked)
		}
	}
}

// groupInOrder groups xs by key, and returns the keys in the order they
// first appear.
func groupInOrder[T any](xs []T, key func(T) string) (map[string][]T, []string) {
	groups := map[string][]T{}
	var keys []string
	for _, x := range xs {
		k := key(x)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], x)
	}
	return groups, keys
}
