package harness

// Recorded sample streams of code with and without a floor, and the rules
// replayed over them (floor.go).
//
// Whether a measurement's best sample is the code's cost depends on the
// code and on the machine: so every machine kind the project meets leaves
// a recording in testdata/floors, and TestReplayFloors judges every
// candidate rule over all of them. Record on a new machine kind, with
// nothing else running, with
//
//	CYCLEBENCH_FLOORS=testdata/floors/<vendor>-<core>.txt.gz go test -run TestRecordFloors -timeout 0 ./harness
//
// then run the replay and read its table (go test -v -run TestReplayFloors).

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// floorKernel is a kernel of the floor recordings.
type floorKernel struct {
	name  string
	truth float64 // cycles per call where known, else 0 (a call's own share of a throughput figure is not)
	t     Target
}

// floorKernels are code whose cost varies from call to call (two sorts of
// a fixed shuffle: the same input in every sample) and code with a floor
// (a chain, a vector sum).
func floorKernels() []floorKernel {
	var sink uint64
	shuffled := func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		rand.New(rand.NewPCG(4, 4)).Shuffle(n, func(i, j int) { s[i], s[j] = s[j], s[i] })
		return s
	}
	sortTarget := func(n int, sortf func([]int)) Target {
		in, work := shuffled(n), make([]int, n)
		return Target{Setup: func() { copy(work, in) }, Run: func() { sortf(work) }}
	}
	// The seed's bubble sort (bench_examples' BubbleSort, which this
	// package cannot import: it imports harness).
	bubble := func(a []int) {
		for {
			changed := false
			for i := 0; i < len(a)-1; i++ {
				if a[i] > a[i+1] {
					a[i], a[i+1] = a[i+1], a[i]
					changed = true
				}
			}
			if !changed {
				return
			}
		}
	}
	insertion := func(a []int) {
		for i := 1; i < len(a); i++ {
			v, j := a[i], i-1
			for ; j >= 0 && a[j] > v; j-- {
				a[j+1] = a[j]
			}
			a[j+1] = v
		}
	}
	vec := make([]float64, 2048)
	for i := range vec {
		vec[i] = float64(i%7) * 0.5
	}
	var fsink float64
	return []floorKernel{
		{"bubble1000", 0, sortTarget(1000, bubble)},
		{"insertion600", 0, sortTarget(600, insertion)},
		{"add1000", 0, Target{Run: func() { sink = chain.AddFrom(sink, 1000) }}},
		{"sum2048", 0, Target{Run: func() {
			var a, b float64
			for i := 0; i+1 < len(vec); i += 2 {
				a += vec[i]
				b += vec[i+1]
			}
			fsink += a + b
		}}},
	}
}

// floorRecordSamples is how many samples each recorded measurement takes:
// enough for every prefix the replay judges.
const floorRecordSamples = 1000

// TestRecordFloors records, for ten measurements of each floor kernel
// (interleaved), every accepted target sample in order, into the file
// CYCLEBENCH_FLOORS names.
func TestRecordFloors(t *testing.T) {
	path, b, cal := startRecording(t, "CYCLEBENCH_FLOORS", "floor_test.go", "floors: M kernel rep truth cycles/tick overhead-ticks probe-limit-ticks, then one line per accepted target sample: R ticks probe-ticks (-1: none)")
	for rep := range 10 {
		for _, k := range floorKernels() {
			var ts []traceSample
			probe := map[int]int64{}
			tracer = func(s traceSample) {
				switch {
				case s.Kind == 'T' && s.OK:
					ts = append(ts, s)
				case s.Kind == 'R' && s.Index == int(calibrate.Probe) && s.OK:
					probe[s.Round] = int64(s.Ticks)
				}
			}
			cfg := DefaultConfig()
			cfg.Calibration, cfg.MaxSamples, cfg.MinTime, cfg.MaxTime = cal, floorRecordSamples, cfg.MaxTime, 2*cfg.MaxTime
			k.t.Name = k.name
			r, err := Measure(context.Background(), cfg, k.t)
			tracer = nil
			if err != nil {
				t.Fatal(err)
			}
			// The probe sample above which a round counts as shared
			// (engine.aloneLimit), -1 when unknown.
			limit := calibrate.ProbeAlone() * r.Ruler.AddTicksPerOp * calibrate.ProbeIters * (1 + calibrate.DefaultRulerThresholds.Shared)
			if !(limit > 0) {
				limit = -1
			}
			fmt.Fprintf(b, "M %s %d %g %.6g %.6g %.6g\n", k.name, rep, k.truth, r.CyclesPerTick, r.OverheadTicks, limit)
			for _, s := range ts {
				p, ok := probe[s.Round]
				if !ok {
					p = -1
				}
				fmt.Fprintf(b, "%d %d %d\n", s.N, s.Ticks, p)
			}
			fmt.Fprintf(b, "# result %.6g cycles, quantile %g, floor share %.3g, converged %v\n", r.Cycles, r.Quantile, r.FloorShare, r.Converged)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(b, "# load after: %s", load)
	writeGzip(t, path, b.String())
}

// floorRun is one recorded measurement: its samples per call in cycles,
// overhead subtracted (per) and as timed (gross), in the order taken,
// with their round's probe sample in ticks (NaN: none).
type floorRun struct {
	kernel string
	truth  float64
	per    []float64
	gross  []float64
	probe  []float64
	limit  float64 // engine.aloneLimit, NaN when unknown
}

// alone is r's samples as the engine judges them (target.alone and
// engine.aloneLimit): those whose round's probe sample was at most the
// limit, or, where it is not known, within the shared-core threshold of
// the best probe sample among them.
func (r floorRun) alone() (per, gross []float64) {
	limit := r.limit
	if math.IsNaN(limit) {
		best := math.Inf(1)
		for _, p := range r.probe {
			best = math.Min(best, p)
		}
		limit = best * (1 + calibrate.DefaultRulerThresholds.Shared)
	}
	for i := range r.per {
		if r.probe[i] <= limit {
			per, gross = append(per, r.per[i]), append(gross, r.gross[i])
		}
	}
	return per, gross
}

func readFloors(t *testing.T, path string) (machine string, runs []floorRun) {
	t.Helper()
	sc := gzipLines(t, path)
	var cpt, over float64
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		bad := func(err error) {
			t.Fatalf("%s:%d: %q: %v", path, line, sc.Text(), err)
		}
		switch {
		case len(fs) == 0:
		case fs[0] == "#":
			if len(fs) > 2 && fs[1] == "machine:" {
				machine = strings.Join(fs[2:], " ")
			}
		case fs[0] == "M" && len(fs) == 7:
			var v [4]float64
			for i := range v {
				var err error
				if v[i], err = strconv.ParseFloat(fs[3+i], 64); err != nil {
					bad(err)
				}
			}
			cpt, over = v[1], v[2]
			if !(cpt > 0) {
				bad(fmt.Errorf("cycles per tick %v: want > 0", cpt))
			}
			if v[3] < 0 {
				v[3] = math.NaN()
			}
			runs = append(runs, floorRun{kernel: fs[1], truth: v[0], limit: v[3]})
		case len(fs) == 3 && len(runs) > 0:
			r, err1 := strconv.Atoi(fs[0])
			ticks, err2 := strconv.ParseFloat(fs[1], 64)
			probe, err3 := strconv.ParseFloat(fs[2], 64)
			if err := cmpErr(err1, err2, err3); err != nil || r < 1 {
				bad(fmt.Errorf("want R ≥ 1, ticks and the probe's ticks: %v", err))
			}
			if probe < 0 {
				probe = math.NaN()
			}
			m := &runs[len(runs)-1]
			m.per = append(m.per, (ticks-over)/float64(r)*cpt)
			m.gross = append(m.gross, ticks/float64(r)*cpt)
			m.probe = append(m.probe, probe)
		default:
			bad(fmt.Errorf("not a line of a floor recording"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return machine, runs
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// floorRule turns the first samples of a measurement into its figure.
type floorRule struct {
	name string
	f    func(per, gross []float64, eps float64) float64
}

// withFloor is the rule of floor.go with its share and quantile as
// parameters: the best sample when at least share of the samples lie
// within eps of it (or half of them, at any count), else the quantile q.
func withFloor(share, q float64) func(per, gross []float64, eps float64) float64 {
	return func(per, gross []float64, eps float64) float64 {
		tol := eps * slices.Min(gross)
		best := slices.Min(per)
		within := 0
		for _, x := range per {
			if x <= best+tol {
				within++
			}
		}
		if float64(within) >= share*float64(len(per)) || len(per) < floorSamples {
			return best
		}
		return quantileOf(per, q)
	}
}

func quantileRule(q float64) func(per, gross []float64, eps float64) float64 {
	return func(per, _ []float64, _ float64) float64 { return quantileOf(per, q) }
}

// floorRules are the candidates, the engine's first.
var floorRules = []floorRule{
	{"engine (floor.go)", func(per, gross []float64, eps float64) float64 {
		g := slices.Min(gross)
		if _, v := decideFloor(per, eps*g); v == floorNone {
			return floorFigure(per)
		}
		return slices.Min(per)
	}},
	{"best", func(per, _ []float64, _ float64) float64 { return slices.Min(per) }},
	{"q1", quantileRule(0.01)},
	{"q5", quantileRule(0.05)},
	{"q10", quantileRule(0.10)},
	{"median", quantileRule(0.5)},
	{"floor 50%, q5", withFloor(0.50, 0.05)},
	{"floor 25%, q5", withFloor(0.25, 0.05)},
	{"floor 5%, q5", withFloor(0.05, 0.05)},
	{"floor 2%, q2", withFloor(0.02, 0.02)},
	{"floor 10%, q10", withFloor(0.10, 0.10)},
	{"floor 20%, q20", withFloor(0.20, 0.20)},
}

// floorPrefixes are the counts of samples with the core alone at which
// the replay takes each measurement's figure: where the engine stops
// depends on the moment, and a figure that repeats must not depend on it.
// The engine judges a floor from floorSamples of them; a measurement with
// fewer keeps its best sample with a warning (ErrFloorUnjudged), and is
// not replayed.
var floorPrefixes = []int{floorSamples, 400, 800}

// TestReplayFloors runs every rule over every recorded measurement, at
// every prefix, and scores each rule per kernel by the spread of its
// figures (the interquartile range over the median, over the measurements
// and prefixes) plus, where the truth is known, the median's distance from
// it. It fails when the engine's rule gives a code with a floor a figure
// other than the best sample's, or when another rule's total score beats
// the engine's by more than a third.
func TestReplayFloors(t *testing.T) {
	paths, err := filepath.Glob("testdata/floors/*.txt.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no floor recordings in testdata/floors (%v): record one (floor_test.go)", err)
	}
	eps := DefaultConfig().Epsilon
	score := make([]float64, len(floorRules))
	for _, path := range paths {
		machine, runs := readFloors(t, path)
		byKernel, kernels := groupInOrder(runs, func(r floorRun) string { return r.kernel })
		t.Logf("%s (%s): spread (IQR/median) [distance from the truth]", filepath.Base(path), machine)
		for _, k := range kernels {
			row := fmt.Sprintf("  %-14s", k)
			for i, rule := range floorRules {
				var figs []float64
				for _, r := range byKernel[k] {
					per, gross := r.alone()
					for _, n := range floorPrefixes {
						if len(per) >= n {
							figs = append(figs, rule.f(per[:n], gross[:n], eps))
						}
					}
				}
				if len(figs) < 2 {
					t.Fatalf("%s: %s: %d figures with the core alone: record again in a quieter moment", path, k, len(figs))
				}
				med := quantileOf(figs, 0.5)
				s := (quantileOf(figs, 0.75) - quantileOf(figs, 0.25)) / med
				if truth := byKernel[k][0].truth; truth > 0 {
					s += math.Abs(med/truth - 1)
				}
				score[i] += s
				row += fmt.Sprintf(" %s %.3f%%", rule.name, 100*s)
			}
			t.Log(row)
		}
		// Code with a floor keeps its best sample as the figure.
		for _, r := range runs {
			if r.kernel != "add1000" && r.kernel != "sum2048" {
				continue
			}
			per, gross := r.alone()
			if len(per) == 0 {
				continue
			}
			if _, v := decideFloor(per, eps*slices.Min(gross)); v == floorNone {
				t.Errorf("%s: %s, a kernel with a floor, was judged without one", path, r.kernel)
			}
		}
	}
	for i := 1; i < len(floorRules); i++ {
		if score[i] < score[0]*2/3 {
			t.Errorf("rule %q scores %.3f%%, the engine's %.3f%%: choose the rule again (see the table)", floorRules[i].name, 100*score[i], 100*score[0])
		}
	}
}

func TestDecideFloor(t *testing.T) {
	// spread returns n samples: share of them at 1000, the rest spread
	// evenly from 1020 to 1080 (2% to 8% above).
	spread := func(n int, share float64) []float64 {
		xs := make([]float64, n)
		at := int(share * float64(n))
		for i := range xs {
			xs[i] = 1000
			if i >= at {
				xs[i] = 1020 + 60*float64(i-at)/float64(n-at)
			}
		}
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		return xs
	}
	for _, tt := range []struct {
		name  string
		per   []float64
		want  floorVerdict
		share float64
	}{
		{"no samples", nil, floorNotJudged, math.NaN()},
		{"2 samples, 1 at the best: too few to say", []float64{1000, 1050}, floorNotJudged, 0.5},
		{"a chain: every sample at the floor", spread(40, 1), floorFound, 1},
		{"half at the floor, few samples", spread(40, 0.5), floorFound, 0.5},
		{"a quarter at the floor, too few to judge", spread(199, 0.25), floorNotJudged, 49.0 / 199},
		{"a quarter at the floor of 200", spread(200, 0.25), floorNone, 0.25},
		{"a sort: one best call in 1000", spread(1000, 0.001), floorNone, 0.001},
	} {
		share, v := decideFloor(tt.per, 10)
		if v != tt.want || !(share == tt.share || math.IsNaN(share) && math.IsNaN(tt.share)) {
			t.Errorf("%s: decideFloor = %.4g, %v; want %.4g, %v", tt.name, share, v, tt.share, tt.want)
		}
	}
	// The figure of samples without a floor is their 5th percentile: of
	// 1000 samples 0, 1, ..., 999 in any order, the 50th.
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(999 - i)
	}
	if got := floorFigure(xs); got != 49 {
		t.Errorf("floorFigure(0..999) = %v, want 49", got)
	}
	if xs[0] != 999 {
		t.Error("floorFigure sorted its argument")
	}
}

func TestFloorHalvesAgree(t *testing.T) {
	// 400 samples, odd rounds 0.5% above the even ones.
	per, odd := make([]float64, 400), make([]bool, 400)
	for i := range per {
		odd[i] = i%2 == 1
		per[i] = 1000 + float64(i/2%100)
		if odd[i] {
			per[i] *= 1.005
		}
	}
	if !floorHalvesAgree(per, odd, 10) {
		t.Error("halves 0.5% apart disagree within 1%")
	}
	if floorHalvesAgree(per, odd, 2) {
		t.Error("halves 0.5% apart agree within 0.2%")
	}
	if floorHalvesAgree(per[:150], odd[:150], 10) {
		t.Error("halves of 75 samples judged: want floorSamples/2 each")
	}
}

func TestBuildResultNoFloor(t *testing.T) {
	// A sort: 400 samples from 1000 to 1399 ticks per call, one at each.
	m := cleanMeasured()
	m.perCall = make([]float64, 400)
	for i := range m.perCall {
		m.perCall[i] = 1000 + float64((i*7)%400)
	}
	m.vmin = []float64{8048, 9050, 10056, 11067}
	m.floorJudged, m.alone = true, m.perCall
	m.floorShare, m.floor = decideFloor(m.alone, 10)
	r, err := buildResult(m)
	if err != nil {
		t.Fatal(err)
	}
	if m.floor != floorNone || r.Quantile != 0.05 || r.Ticks != 1019 || r.Cycles != 1019*1.5 {
		t.Errorf("no floor: verdict %v, Quantile %v, Ticks %v, Cycles %v; want floorNone, 0.05, 1019 (the 20th of 400), 1528.5", m.floor, r.Quantile, r.Ticks, r.Cycles)
	}
	if w := warningsOf(r.Warnings, ErrNoFloor); len(w) != 1 || !strings.Contains(w[0], "5th percentile") || Remedy(w[0]) == "" {
		t.Errorf("warnings %v: want one ErrNoFloor naming the 5th percentile, with a remedy", r.Warnings)
	}
	// Most samples from shared rounds: labelled shared, and refused with
	// RefuseShared (measured() drops the ruler's figure).
	for _, tt := range []struct {
		v          floorVerdict
		alone, all int
		want       bool
	}{{floorNone, 400, 1000, true}, {floorNone, 500, 1000, false}, {floorFound, 100, 1000, false}, {floorNotJudged, 100, 1000, true}, {floorNotJudged, 10, 150, false}} {
		if got := floorShared(tt.v, tt.alone, tt.all); got != tt.want {
			t.Errorf("floorShared(%v, %d, %d) = %v, want %v", tt.v, tt.alone, tt.all, got, tt.want)
		}
	}
	ms := m
	ms.floorShared, ms.shared, ms.nAlone = true, true, 150
	if r, _ := buildResult(ms); !r.Shared || len(warningsOf(r.Warnings, ErrSharedCore)) != 1 {
		t.Errorf("shared rounds: Shared %v, warnings %v; want the label and one ErrSharedCore", r.Shared, r.Warnings)
	}
	// None with the core alone (every round's probe read shared): the
	// label still comes with its warning.
	ms.alone, ms.nAlone, ms.floor = nil, 0, floorNotJudged
	if r, _ := buildResult(ms); !r.Shared || len(warningsOf(r.Warnings, ErrSharedCore)) != 1 {
		t.Errorf("no sample alone: Shared %v, warnings %v; want the label and one ErrSharedCore", r.Shared, r.Warnings)
	}
	// Too few samples with the core alone, but enough taken: judged on all
	// of them, and labelled shared.
	judged, _, v, shared := finalFloor(m.perCall[:150], m.perCall, 10)
	if len(judged) != 400 || v != floorNone || !shared {
		t.Errorf("finalFloor(150 alone of 400) judged %d samples, %v, shared %v; want 400, floorNone, true", len(judged), v, shared)
	}
	if judged, _, v, shared := finalFloor(m.perCall[:150], m.perCall[:180], 10); len(judged) != 150 || v != floorNotJudged || shared {
		t.Errorf("finalFloor(150 alone of 180) judged %d samples, %v, shared %v; want 150, not judged, false", len(judged), v, shared)
	}
	// Alone samples at their floor keep the best, however few: a kernel
	// with a floor measured mostly on a shared core.
	floored := []float64{1000, 1001, 1002, 1003, 1300, 1000, 1001, 1002, 1003, 1001, 1000, 1001, 1002, 1003, 1300, 1000, 1001, 1002, 1003, 1001}
	if judged, _, v, shared := finalFloor(floored, m.perCall, 10); len(judged) != len(floored) || v != floorFound || shared {
		t.Errorf("finalFloor(20 alone at a floor, of 400) judged %d samples, %v, shared %v; want 20, a floor, not shared", len(judged), v, shared)
	}
	// Too few alone to say: the best stays, labelled shared.
	if judged, _, v, shared := finalFloor(m.perCall[:5], m.perCall, 10); len(judged) != 5 || v != floorNotJudged || !shared {
		t.Errorf("finalFloor(5 alone of 400) judged %d samples, %v, shared %v; want 5, not judged, shared", len(judged), v, shared)
	}
	// Too few samples to judge: the best stays the figure, and says so.
	m.perCall, m.alone = m.perCall[:100], m.perCall[:100]
	m.floorShare, m.floor = decideFloor(m.alone, 10)
	r, _ = buildResult(m)
	if r.Quantile != 0 || r.Ticks != 1000 || len(warningsOf(r.Warnings, ErrFloorUnjudged)) != 1 {
		t.Errorf("unjudged: Quantile %v, Ticks %v, warnings %v; want 0, 1000 and ErrFloorUnjudged", r.Quantile, r.Ticks, r.Warnings)
	}
	// A clean measurement (every sample within ε of the best) says nothing.
	m = cleanMeasured()
	m.floorJudged, m.alone = true, m.perCall
	m.floorShare, m.floor = decideFloor(m.alone, 10)
	if r, _ := buildResult(m); r.Quantile != 0 || len(r.Warnings) != 0 || r.FloorShare != 1 {
		t.Errorf("a floor: Quantile %v, FloorShare %v, warnings %v", r.Quantile, r.FloorShare, r.Warnings)
	}
}

// TestRecordKeepsTheLatest: a measurement that waited out a host's state
// takes samples past MaxSamples, and the record the floor check judges
// keeps the latest MaxSamples, in the order taken: the Intel guest's
// floor check judged the first 1,000 samples, all from a state at the
// start (probe 2.5× its best), and labelled shared a SumLoop figure from
// after it (4 of 19,783 measurements in 4 minutes).
func TestRecordKeepsTheLatest(t *testing.T) {
	cfg, err := DefaultConfig().WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxSamples = 4
	e := &engine{cfg: cfg, overs: map[int]*stream{}, room: newRoom(false, 0, 0, 100), calls: newCalls(false, 100)}
	tg := &target{r: 1, quantum: 2}
	e.targets = []*target{tg}
	if err := e.reset(tg); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		e.accept(tg, rawSample{ticks: uint64(1000 + i), round: i, probe: 10})
	}
	tg.overs[0].kb.Add(40) // an overhead of 40 ticks
	got := tg.perCall()
	if want := []float64{966, 967, 968, 969}; !slices.Equal(got, want) {
		t.Errorf("10 samples into a record of 4: %v, want the latest %v in order", got, want)
	}
	if alone, _ := tg.alone(20); len(alone) != 4 {
		t.Errorf("alone: %d samples, want the 4 recorded", len(alone))
	}
}

// TestFloorWait: the loop waits for floorSamples samples while the
// record has room, and, past MaxSamples if need be, for floorMinAlone
// samples with the core alone when a host's state left fewer among
// floorSamples or more, only while the latest round reads alone (the state
// ended): otherwise the figure, from after the state, would be labelled
// shared for want of them.
func TestFloorWait(t *testing.T) {
	for _, tt := range []struct {
		name              string
		v                 floorVerdict
		alone, recorded   int
		latestAlone, room bool
		wait, past        bool
	}{
		{"room below floorSamples", floorNotJudged, 100, 150, true, true, true, false},
		{"a floor found", floorFound, 100, 150, true, true, false, false},
		{"no floor", floorNone, 300, 300, true, false, false, false},
		{"the state ended: 4 alone of 900", floorNotJudged, 4, 900, true, false, true, true},
		{"the state goes on", floorNotJudged, 4, 900, false, false, false, false},
		{"8 alone: judged", floorNotJudged, 8, 900, true, false, false, false},
		{"most alone: no label to avoid", floorNotJudged, 4, 6, true, false, false, false},
	} {
		wait, past := floorWait(tt.v, tt.alone, tt.recorded, tt.latestAlone, tt.room)
		if wait != tt.wait || past != tt.past {
			t.Errorf("%s: floorWait = %v, %v; want %v, %v", tt.name, wait, past, tt.wait, tt.past)
		}
	}
	// latestAlone reads the newest sample of the ring.
	tg := &target{raw: make([]rawSample, 0, 3)}
	if tg.latestAlone(10) {
		t.Errorf("no sample: latestAlone true")
	}
	for i, p := range []float64{5, 5, 5, 20, 5, 20} {
		tg.record(rawSample{probe: p})
		if got, want := tg.latestAlone(10), p <= 10; got != want {
			t.Errorf("after sample %d (probe %v): latestAlone %v, want %v", i, p, got, want)
		}
	}
	if !tg.latestAlone(math.Inf(1)) {
		t.Errorf("no limit: latestAlone false")
	}
}
