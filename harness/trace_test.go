package harness

// Recorded sample streams and the estimators replayed over them.
//
// The engine turns a measurement's samples (the target's, the empty loop's,
// the ruler's, round by round) into one cycle figure. Which rule does that
// best depends on how the machine's core clock and load behave, and that
// differs between machines: so every machine kind the project meets leaves
// its streams in testdata/streams, and TestReplayEstimators runs every
// candidate rule over all of them. Record on a new machine with
//
//	CYCLEBENCH_RECORD=testdata/streams/<vendor>-<core>-<quiet|busy>.txt.gz go test -run TestRecordStreams ./harness
//
// (busy: with `taskset -c 0 sh -c 'while :; do :; done'` burning the other
// CPU), then run the replay and choose from its table.

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/stats"
)

// streamKernel is a kernel the recording measures, with its truth in
// cycles per call where one is known (0: none; the replay then judges
// against the median of the measurements).
type streamKernel struct {
	name  string
	mode  Mode
	truth float64
	run   func()
}

func streamKernels() []streamKernel {
	var sink uint64
	sum := make([]float64, 2048)
	for i := range sum {
		sum[i] = float64(i%7) * 0.5
	}
	var fsink float64
	return []streamKernel{
		// Continued chains: calls back to back cost exactly n links.
		{"add1000", Throughput, 1000, func() { sink = chain.AddFrom(sink, 1000) }},
		{"imul1000", Throughput, 3000, func() { sink = chain.ImulFrom(sink, 1000) }},
		{"add3700", Throughput, 3700, func() { sink = chain.AddFrom(sink, 3700) }},
		// A fenced call: its fixed cost (the intercept) is not known.
		{"add1000-fenced", Latency, 0, func() { sink += chain.Add(1000) }},
		// A throughput-bound kernel of real code: four accumulators.
		{"sum4x2048", Throughput, 0, func() {
			var a, b, c, d float64
			for i := 0; i+3 < len(sum); i += 4 {
				a += sum[i]
				b += sum[i+1]
				c += sum[i+2]
				d += sum[i+3]
			}
			fsink += a + b + c + d
		}},
	}
}

// TestRecordStreams records the sample streams of ten measurements of each
// stream kernel, interleaved, into the file CYCLEBENCH_RECORD names.
func TestRecordStreams(t *testing.T) {
	path, b, cal := startRecording(t, "CYCLEBENCH_RECORD", "trace_test.go", "sample streams: round kind index n ticks (ticks -1: discarded); M starts a measurement")
	ks := streamKernels()
	for rep := range 10 {
		for _, k := range ks {
			fmt.Fprintf(b, "M %s-%d %s %s %g\n", k.name, rep, k.name, k.mode, k.truth)
			tracer = func(s traceSample) {
				ticks := int64(s.Ticks)
				if !s.OK {
					ticks = -1
				}
				fmt.Fprintf(b, "%d %c %d %d %d\n", s.Round, s.Kind, s.Index, s.N, ticks)
			}
			cfg := DefaultConfig()
			cfg.Mode, cfg.Calibration = k.mode, cal
			r, err := Measure(context.Background(), cfg, Target{Name: k.name, Run: k.run})
			tracer = nil
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(b, "# result %.6g cycles, converged %v\n", r.Cycles, r.Converged)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(b, "# load after: %s", load)
	writeGzip(t, path, b.String())
}

// startRecording skips t unless the environment variable env names the
// file to write (doc says how to record); it writes the recording's header,
// saying what it holds, and resets the tracer when t ends.
func startRecording(t *testing.T, env, doc, what string) (path string, b *strings.Builder, cal *calibrate.Calibration) {
	t.Helper()
	if path = os.Getenv(env); path == "" {
		t.Skipf("records only when %s names the file to write (see %s)", env, doc)
	}
	b = &strings.Builder{}
	cal = recordingHeader(t, b, what)
	t.Cleanup(func() { tracer = nil })
	return path, b, cal
}

// recordingHeader calibrates and writes a recording's first lines to b:
// what it holds, the machine and the load before.
func recordingHeader(t *testing.T, b io.Writer, what string) *calibrate.Calibration {
	t.Helper()
	cal, err := calibrate.Get()
	if err != nil {
		t.Fatal(err)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(b, "# cyclebench %s\n", what)
	fmt.Fprintf(b, "# machine: %s %s family %d model %d, hypervisor %s, counter %s at %.0f Hz, step %.4g, core %.4g cycles/tick\n",
		cal.CPU.Vendor, cal.CPU.Brand, cal.CPU.Family, cal.CPU.Model, cal.CPU.Hypervisor, cal.CPU.Counter, cal.Frequency.Hz, cal.Step.Step, cal.Core.CyclesPerTick)
	fmt.Fprintf(b, "# load before: %s", load)
	return cal
}

// writeGzip writes text, gzipped, to the file at path.
func writeGzip(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// streamRun is one measurement of a stream file.
type streamRun struct {
	kernel  string
	mode    Mode
	truth   float64
	samples []traceSample
}

// engineView returns m's samples as the engine now takes them. Streams
// recorded before throughput mode subtracted the empty region (R = 0)
// instead of an empty function's loop hold the loop's samples (O at N =
// R): those are dropped and each round gets an empty region of 0 ticks,
// which shifts every figure of a measurement by the same 52 to 78 ticks
// over R calls (under 0.05% for these kernels) and moves no spread.
func engineView(m streamRun) []traceSample {
	if m.mode != Throughput || !slices.ContainsFunc(m.samples, func(s traceSample) bool { return s.Kind == 'O' && s.N > 0 }) {
		return m.samples
	}
	out := make([]traceSample, 0, len(m.samples))
	round := -1
	for _, s := range m.samples {
		if s.Round != round {
			round = s.Round
			out = append(out, traceSample{Round: round, Kind: 'O', OK: true})
		}
		if s.Kind != 'O' {
			out = append(out, s)
		}
	}
	return out
}

// gzipLines returns a scanner over the lines of the gzipped file at path
// (lines up to 1 MiB), closed when the test ends.
func gzipLines(t *testing.T, path string) *bufio.Scanner {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	return sc
}

func readStreams(t *testing.T, path string) (machine string, ms []streamRun) {
	t.Helper()
	sc := gzipLines(t, path)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0:
		case fs[0] == "#":
			if len(fs) > 2 && fs[1] == "machine:" {
				machine = strings.Join(fs[2:], " ")
			}
		case fs[0] == "M" && len(fs) == 5:
			truth, err := strconv.ParseFloat(fs[4], 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			mode, err := parseMode(fs[3])
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			if mode == Throughput {
				// The continued chains' n links held for a figure less an
				// empty function's loop; the call's share of a throughput
				// figure is not known.
				truth = 0
			}
			ms = append(ms, streamRun{kernel: fs[2] + " (" + fs[3] + ")", mode: mode, truth: truth})
		case len(fs) == 5 && len(ms) > 0:
			var v [4]int64
			for i, j := range []int{0, 2, 3, 4} {
				var err error
				if v[i], err = strconv.ParseInt(fs[j], 10, 64); err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
			}
			s := traceSample{Round: int(v[0]), Kind: fs[1][0], Index: int(v[1]), N: int(v[2]), Ticks: uint64(max(v[3], 0)), OK: v[3] >= 0}
			ms[len(ms)-1].samples = append(ms[len(ms)-1].samples, s)
		default:
			t.Fatalf("%s:%d: cannot read %q", path, line, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return machine, ms
}

// estimator turns one measurement into cycles per call (NaN when it
// cannot).
type estimator struct {
	name string
	f    func(m streamRun) float64
}

// Ruler stream indexes, as calibrate numbers them.
const (
	trAddShort = int(calibrate.AddShort)
	trAddLong  = int(calibrate.AddLong)
)

// finalOps returns the last length of each ruler stream (the engine may
// lengthen the long chain during a measurement and start its stream again).
func finalOps(samples []traceSample) map[int]int {
	ops := map[int]int{}
	for _, s := range samples {
		if s.Kind == 'R' {
			ops[s.Index] = s.N
		}
	}
	return ops
}

// minEstimate is the engine's rule: per R variant the best target sample
// less the best overhead sample (of that R, or of the empty region, R =
// 0, where only that was taken), the smallest over variants, times the
// ruler's cycles per tick from the best samples of its chains.
func minEstimate(samples []traceSample) float64 {
	ops := finalOps(samples)
	tmin, omin := map[int]float64{}, map[int]float64{}
	rmin := map[int]float64{}
	low := func(m map[int]float64, k int, v float64) {
		if old, ok := m[k]; !ok || v < old {
			m[k] = v
		}
	}
	for _, s := range samples {
		if !s.OK {
			continue
		}
		switch s.Kind {
		case 'T':
			low(tmin, s.N, float64(s.Ticks))
		case 'O':
			low(omin, s.N, float64(s.Ticks))
		case 'R':
			if s.N == ops[s.Index] {
				low(rmin, s.Index, float64(s.Ticks))
			}
		}
	}
	ticks := math.Inf(1)
	for r, v := range tmin {
		if o, ok := overheadOf(omin, r); ok {
			ticks = math.Min(ticks, (v-o)/float64(r))
		}
	}
	cpt := float64(ops[trAddLong]-ops[trAddShort]) / (rmin[trAddLong] - rmin[trAddShort])
	return ticks * cpt
}

// overheadOf returns the overhead sample for a target sample of r calls:
// the one of the same R, else the empty region's (R = 0).
func overheadOf(o map[int]float64, r int) (float64, bool) {
	if v, ok := o[r]; ok {
		return v, true
	}
	v, ok := o[0]
	return v, ok
}

// roundFigures converts every round's target sample with that round's own
// overhead (overheadOf) and its own ruler (the round's best long and short
// chains): one cycle figure per round.
func roundFigures(samples []traceSample) []float64 {
	ops := finalOps(samples)
	type round struct {
		t, o  map[int]float64 // by R
		long  float64
		short float64
	}
	rounds := map[int]*round{}
	get := func(i int) *round {
		if rounds[i] == nil {
			rounds[i] = &round{t: map[int]float64{}, o: map[int]float64{}, long: math.Inf(1), short: math.Inf(1)}
		}
		return rounds[i]
	}
	for _, s := range samples {
		if !s.OK {
			continue
		}
		r := get(s.Round)
		switch s.Kind {
		case 'T':
			if old, ok := r.t[s.N]; !ok || float64(s.Ticks) < old {
				r.t[s.N] = float64(s.Ticks)
			}
		case 'O':
			r.o[s.N] = float64(s.Ticks)
		case 'R':
			if s.N != ops[s.Index] {
				continue
			}
			switch s.Index {
			case trAddLong:
				r.long = math.Min(r.long, float64(s.Ticks))
			case trAddShort:
				r.short = math.Min(r.short, float64(s.Ticks))
			}
		}
	}
	var out []float64
	for _, r := range rounds {
		if math.IsInf(r.long, 1) || math.IsInf(r.short, 1) || r.long <= r.short {
			continue
		}
		cpt := float64(ops[trAddLong]-ops[trAddShort]) / (r.long - r.short)
		for n, t := range r.t {
			if o, ok := overheadOf(r.o, n); ok {
				out = append(out, (t-o)/float64(n)*cpt)
			}
		}
	}
	return out
}

func quantileOf(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// estimators are the candidates: the engine's rule first. All but the
// second see the samples as the engine now takes them (engineView); the
// second is the rule before throughput mode stopped subtracting an empty
// function's loop, on the streams that hold one (NaN on the others).
var estimators = []estimator{
	{"min (engine)", func(m streamRun) float64 { return minEstimate(engineView(m)) }},
	{"min, empty loop", func(m streamRun) float64 {
		if m.mode == Throughput && !slices.ContainsFunc(m.samples, func(s traceSample) bool { return s.Kind == 'O' && s.N > 0 }) {
			return math.NaN()
		}
		return minEstimate(m.samples)
	}},
	{"round median", func(m streamRun) float64 { return quantileOf(roundFigures(engineView(m)), 0.5) }},
	{"round q10", func(m streamRun) float64 { return quantileOf(roundFigures(engineView(m)), 0.1) }},
	{"round q25", func(m streamRun) float64 { return quantileOf(roundFigures(engineView(m)), 0.25) }},
}

// TestReplayEstimators runs every estimator over every recorded stream and
// reports, per machine and kernel, each one's spread (CV) over the
// measurements and its mean distance from the truth where one is known,
// else from the median of its own figures (a per-call figure's truth is
// not known in either mode: the call's share). One truth holds in
// throughput mode whatever the call costs: 3700 and 1000 chained ADDs
// through the same wrapper differ by 2700 cycles, so each recording also
// has a row for that difference, measurement by measurement. It fails when
// another estimator is better than the engine's by more than a third on
// the mean distance over the rows both have: the engine's rule must then
// be chosen again, from every machine's streams.
func TestReplayEstimators(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.txt.gz"))
	if len(files) == 0 {
		t.Skip("no recorded streams in testdata/streams")
	}
	sort.Strings(files)
	// own[i] and engine[i] sum estimator i's distances and the engine's
	// over the rows where i has figures.
	own := make([]float64, len(estimators))
	engine := make([]float64, len(estimators))
	rows := make([]int, len(estimators))
	var report strings.Builder
	fmt.Fprintf(&report, "%-30s %-32s", "recording", "kernel")
	for _, e := range estimators {
		fmt.Fprintf(&report, " %20s", e.name)
	}
	report.WriteString("   (CV% / mean distance%)\n")
	row := func(path, name string, truth float64, figs [][]float64) {
		fmt.Fprintf(&report, "%-30s %-32s", filepath.Base(path), name)
		dists := make([]float64, len(figs))
		for i, f := range figs {
			if len(f) == 0 {
				fmt.Fprintf(&report, " %20s", "-")
				dists[i] = math.NaN()
				continue
			}
			ref := truth
			if ref == 0 {
				ref = stats.Median(f)
			}
			for _, v := range f {
				dists[i] += math.Abs(v/ref - 1)
			}
			dists[i] /= float64(len(f))
			s, _ := stats.Summarize(f)
			fmt.Fprintf(&report, " %9.3f / %8.3f", 100*s.CV, 100*dists[i])
		}
		report.WriteString("\n")
		for i, d := range dists {
			if !math.IsNaN(d) {
				own[i] += d
				engine[i] += dists[0]
				rows[i]++
			}
		}
	}
	for _, path := range files {
		machine, ms := readStreams(t, path)
		if machine == "" || len(ms) == 0 {
			t.Fatalf("%s: no machine line or no measurement", path)
		}
		byKernel := map[string][]streamRun{}
		var kernels []string
		for _, m := range ms {
			if byKernel[m.kernel] == nil {
				kernels = append(kernels, m.kernel)
			}
			byKernel[m.kernel] = append(byKernel[m.kernel], m)
		}
		all := map[string][][]float64{}
		for _, k := range kernels {
			rs := byKernel[k]
			figs := make([][]float64, len(estimators))
			for i, e := range estimators {
				for _, r := range rs {
					v := e.f(r)
					if math.IsNaN(v) && i > 0 {
						figs[i] = nil
						break
					}
					if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
						t.Fatalf("%s, %s: estimator %q gave %v", path, k, e.name, v)
					}
					figs[i] = append(figs[i], v)
				}
			}
			all[k] = figs
			row(path, k, rs[0].truth, figs)
		}
		short, long := all["add1000 (throughput)"], all["add3700 (throughput)"]
		if short == nil || long == nil {
			continue
		}
		diff := make([][]float64, len(estimators))
		for i := range estimators {
			if len(short[i]) == len(long[i]) {
				for j := range short[i] {
					diff[i] = append(diff[i], long[i][j]-short[i][j])
				}
			}
		}
		row(path, "add3700 − add1000 (2700)", 2700, diff)
	}
	fmt.Fprintf(&report, "%-63s", "mean distance, the engine's over the same rows")
	for i := range estimators {
		fmt.Fprintf(&report, " %9.4f / %8.4f", 100*own[i]/float64(rows[i]), 100*engine[i]/float64(rows[i]))
	}
	t.Log("\n" + report.String())
	for i := 1; i < len(estimators); i++ {
		if rows[i] > 0 && engine[i] > own[i]*4/3 {
			t.Errorf("over %d rows the engine's estimator is off by %.4f%% on average, %q by %.4f%%: choose the engine's rule again (see the table)", rows[i], 100*engine[i]/float64(rows[i]), estimators[i].name, 100*own[i]/float64(rows[i]))
		}
	}
}
