package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/lab"
)

// Illustrative figures (µs) shaped like a run on a quiet KVM guest (EPYC,
// Zen 3): the formatting is under test here, not the machine. The clocks'
// sources, resolutions and empty-interval readings are as measured there.
var recordedClocks = []lab.ClockInfo{
	{Clock: cputime.ClockWallMs, Source: "time.Now truncated to ms", Resolution: time.Millisecond, Empty: 0},
	{Clock: cputime.ClockWallUs, Source: "gettimeofday", Resolution: time.Microsecond, Empty: 2 * time.Microsecond},
	{Clock: cputime.ClockMonotonic, Source: "clock_gettime(CLOCK_MONOTONIC)", Resolution: time.Nanosecond, Empty: 801 * time.Nanosecond},
	{Clock: cputime.ClockTSC, Source: "tsc (rdtsc)", Resolution: 10 * time.Nanosecond, Empty: 60 * time.Nanosecond},
	{Clock: cputime.ClockProcess, Source: "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", Resolution: time.Nanosecond, Empty: 6402 * time.Nanosecond},
	{Clock: cputime.ClockThread, Source: "clock_gettime(CLOCK_THREAD_CPUTIME_ID)", Resolution: time.Nanosecond, Empty: 3197 * time.Nanosecond},
}

// recordedKBest is a K-best figure of ns per call, shaped like harness's
// result on the same guest (TSC 2445.43 MHz, a core clock of about 3.2 GHz),
// that converged or not.
func recordedKBest(name string, ns float64, converged bool) *harness.Result {
	const hz, cpt = 2445431941.5, 1.3086
	cfg := harness.DefaultConfig()
	cfg.CPU = 1
	ticks := ns * hz / 1e9
	r := &harness.Result{
		Name: name, Ticks: ticks, Nanoseconds: ns, Cycles: ticks * cpt, CyclesSource: "ruler",
		Converged: converged, Samples: 23, Repeat: 1, Repeats: []int{1},
		Best: []float64{ticks + 49, ticks + 52, ticks + 61}, Spread: 12 / ticks, OverheadTicks: 48.9, OverheadConverged: true,
		TicksPerSecond: hz, FrequencySource: "bracket: monotonic clock (CLOCK_MONOTONIC via the Go runtime)",
		CyclesPerTick: cpt, ReferenceConverged: true, CyclesChecked: true, Step: 1, Quantum: 24.45, CPU: 1, Priority: "high", Wall: 61 * time.Millisecond, Config: cfg,
	}
	if !converged {
		r.Samples, r.Spread = 1000, 0.013
		r.Warnings = []error{fmt.Errorf("%w: the 3 best samples spread by 1.3%% after 1000 samples (ε = 1%%)", harness.ErrNotConverged)}
	}
	return r
}

// recordedKernel builds a kernel result from readings in µs per clock (in
// the order of recordedClocks) and its K-best figure, deriving the summary
// and the comparisons with the tsc and the K-best figure by the rules
// package lab documents.
func recordedKernel(name string, readings [6][]float64, kbest *harness.Result) lab.KernelResult {
	const tol = lab.DefaultTolerance
	k := lab.KernelResult{Name: name, Reference: cputime.ClockTSC, HasReference: true, Tolerance: tol, KBest: kbest}
	for _, w := range kbest.Warnings {
		k.Warnings = append(k.Warnings, fmt.Errorf("lab: K-best: %w", w))
	}
	for i, us := range readings {
		m := lab.Method{ClockInfo: recordedClocks[i]}
		for _, v := range us {
			m.Readings = append(m.Readings, time.Duration(math.Round(v*1e3)))
		}
		sorted := slices.Sorted(slices.Values(m.Readings))
		m.Min, m.Max, m.Median = sorted[0], sorted[len(sorted)-1], sorted[len(sorted)/2]
		m.Spread = math.NaN()
		if m.Median > 0 {
			m.Spread = float64(m.Max-m.Min) / float64(m.Median)
		}
		for _, r := range m.Readings {
			if r == 0 {
				m.Zeros++
			}
		}
		if m.Clock == cputime.ClockTSC {
			for _, r := range m.Readings {
				m.Ticks = append(m.Ticks, uint64(math.Round(r.Seconds()*2445431941.5)))
			}
		}
		k.Methods = append(k.Methods, m)
	}
	ref, _ := k.Method(cputime.ClockTSC)
	for i := range k.Methods {
		m := &k.Methods[i]
		m.Resolves = m.Zeros == 0 && float64(m.Resolution) <= tol*float64(ref.Median)
		m.DiffFromReference = float64(m.Median-ref.Median) / float64(ref.Median)
		m.Agrees = math.Abs(m.DiffFromReference) <= tol
		m.DiffFromKBest = (float64(m.Median) - kbest.Nanoseconds) / kbest.Nanoseconds
	}
	return k
}

func recordedLab() lab.Result {
	return lab.Result{
		Reps: 5, Tolerance: lab.DefaultTolerance, Clocks: recordedClocks,
		Nesting:        lab.Nesting(),
		CPU:            1,
		Priority:       "high",
		TicksPerSecond: 2445431941.5, FrequencySource: "bracket: monotonic clock (CLOCK_MONOTONIC via the Go runtime)",
		Kernels: []lab.KernelResult{
			recordedKernel("BubbleSort/n=1000", [6][]float64{
				{0, 0, 0, 0, 0},
				{552, 551, 553, 552, 556},
				{551.809, 550.516, 552.434, 551.627, 555.902},
				{550.415, 549.552, 551.292, 550.583, 554.789},
				{562.947, 557.439, 560.380, 559.142, 563.253},
				{556.087, 552.743, 554.929, 554.395, 558.557},
			}, recordedKBest("BubbleSort/n=1000", 549321.6, true)),
			recordedKernel("Factorize/n=352700091909229843", [6][]float64{
				{9000, 8000, 9000, 9000, 9000},
				{8691, 8507, 8585, 8592, 8540},
				{8688.850, 8505.589, 8581.119, 8590.406, 8537.812},
				{8680.534, 8500.758, 8569.988, 8583.004, 8530.129},
				{8724.187, 8515.467, 8597.691, 8610.230, 8549.305},
				{8699.181, 8508.466, 8591.970, 8600.331, 8544.012},
			}, recordedKBest("Factorize/n=352700091909229843", 8496103.7, false)),
		},
		Warnings: []error{errors.New("calibrate: running under a hypervisor (KVMKVMKVM): the counter may be virtualised and other guests share the host")},
	}
}

func recordedUtilisation() lab.UtilisationResult {
	src := "/proc/stat + /proc/self/stat (USER_HZ 100); process cpu: clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"
	return lab.UtilisationResult{
		CPU: 1, Priority: "high",
		Kernels: []lab.KernelUtilisation{
			{Name: "HashLoop/n=200000000", ThreadCPU: 199071234 * time.Nanosecond, Utilisation: cputime.Utilisation{
				Wall: 200143890 * time.Nanosecond, ProcessCPU: 199854321 * time.Nanosecond, OfOneCPU: 99.855, OfAllCPUs: 49.93,
				NumCPU: 2, SystemBusy: 51.2, SystemCPU: 400 * time.Millisecond, TickShare: 50, Source: src,
				Warnings: []error{errors.New("cputime: only 40 scheduler ticks of system time passed (10ms each): SystemBusy and TickShare are coarse, ±2 ticks")},
			}},
			{Name: "Sleep/n=800", ThreadCPU: 39604 * time.Nanosecond, Utilisation: cputime.Utilisation{
				Wall: 801093759 * time.Nanosecond, ProcessCPU: 258721 * time.Nanosecond, OfOneCPU: 0.0323, OfAllCPUs: 0.0162,
				NumCPU: 2, SystemBusy: 1.5, SystemCPU: 1600 * time.Millisecond, TickShare: 0, Source: src,
			}},
		},
	}
}

// useRecordedLab replaces the lab and the demo with recorded results until
// the test ends, and returns the configurations they were called with.
func useRecordedLab(t *testing.T, rec lab.Result, util lab.UtilisationResult) *[]lab.Config {
	t.Helper()
	useFake(t)
	oldLab, oldUtil := clocksLab, utilisationLab
	t.Cleanup(func() { clocksLab, utilisationLab = oldLab, oldUtil })
	var calls []lab.Config
	clocksLab = func(ctx context.Context, cfg lab.Config, ks ...harness.Target) (lab.Result, error) {
		if ctx == nil {
			t.Error("the lab got no context")
		}
		calls = append(calls, cfg)
		return rec, nil
	}
	utilisationLab = func(ctx context.Context, cfg lab.Config, ks ...harness.Target) (lab.UtilisationResult, error) {
		if ctx == nil {
			t.Error("the lab got no context")
		}
		calls = append(calls, cfg)
		return util, nil
	}
	return &calls
}

func TestClocksGolden(t *testing.T) {
	skipOn32Bit(t)
	tests := []struct {
		file string
		args []string
	}{
		{"clocks_lab.golden", []string{"clocks"}},
		{"clocks_lab.json.golden", []string{"clocks", "-format", "json"}},
		{"clocks_lab.csv.golden", []string{"clocks", "-format", "csv"}},
		{"clocks_utilisation.golden", []string{"clocks", "-demo", "utilisation"}},
		{"clocks_utilisation.json.golden", []string{"clocks", "-demo", "utilisation", "-format", "json"}},
		{"clocks_utilisation.csv.golden", []string{"clocks", "-demo", "utilisation", "-format", "csv"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			calls := useRecordedLab(t, recordedLab(), recordedUtilisation())
			out, errOut, err := runCLI(t, tt.args...)
			if err != nil {
				t.Fatalf("run: %v (stderr %q)", err, errOut)
			}
			checkOnlyWarnings(t, errOut)
			if len(*calls) != 1 || (*calls)[0].CPU != -1 || (*calls)[0].Reps != 5 {
				t.Errorf("lab called with %+v, want once with CPU -1 and 5 reps", *calls)
			}
			if strings.Contains(tt.file, ".json") && !json.Valid([]byte(out)) {
				t.Errorf("output is not one valid JSON value:\n%s", out)
			}
			golden(t, tt.file, out)
		})
	}
	t.Run("help", func(t *testing.T) {
		out, errOut, err := runCLI(t, "clocks", "-h")
		if err != nil || errOut != "" {
			t.Fatalf("run(clocks -h) = %v, stderr %q; want nil and nothing on stderr", err, errOut)
		}
		golden(t, "clocks_help.golden", out)
	})
}

// TestClocksFlags checks that the flags reach the lab's configuration.
func TestClocksFlags(t *testing.T) {
	calls := useRecordedLab(t, recordedLab(), recordedUtilisation())
	if _, _, err := runCLI(t, "clocks", "-reps", "7", "-cpu", "0", "-methods", "tsc, Monotonic", "-bench", "Sleep"); err != nil {
		t.Fatal(err)
	}
	c := (*calls)[0]
	if c.Reps != 7 || c.CPU != 0 || !slices.Equal(c.Methods, []cputime.Clock{cputime.ClockTSC, cputime.ClockMonotonic}) || c.NoKBest {
		t.Errorf("config %+v, want 7 reps on cpu 0 with tsc and monotonic, and the K-best figure", c)
	}
	if _, _, err := runCLI(t, "clocks", "-no-kbest"); err != nil || !(*calls)[1].NoKBest {
		t.Errorf("clocks -no-kbest: %v, NoKBest %v; want it set", err, (*calls)[1].NoKBest)
	}
}

func TestClocksOutputFile(t *testing.T) {
	skipOn32Bit(t)
	useRecordedLab(t, recordedLab(), recordedUtilisation())
	path := filepath.Join(t.TempDir(), "lab.json")
	out, _, err := runCLI(t, "clocks", "-format", "json", "-o", path)
	if err != nil || out != "" {
		t.Fatalf("run = %v, stdout %q; want nil and nothing on stdout", err, out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != readGolden(t, "clocks_lab.json.golden") {
		t.Errorf("file differs from clocks.json.golden:\n%s", got)
	}
}

func TestClocksCheckFails(t *testing.T) {
	rec := recordedLab()
	rec.Kernels[0].CheckError = errors.New("benchexamples: wrong result: BubbleSort: output not sorted")
	useRecordedLab(t, rec, recordedUtilisation())
	_, errOut, err := runCLI(t, "clocks")
	var msg bytes.Buffer
	if st := exitStatus(err, &msg); st != exitFailure {
		t.Errorf("exit status %d (err %v), want %d", st, err, exitFailure)
	}
	if !strings.Contains(errOut, "warning: BubbleSort/n=1000: output check failed: benchexamples: wrong result") {
		t.Errorf("stderr does not report the failed check:\n%s", errOut)
	}
	if want := "cyclebench clocks: 1 kernels failed their output check (BubbleSort/n=1000); results on stdout\n"; msg.String() != want {
		t.Errorf("summary %q, want %q", msg.String(), want)
	}
}

func TestClocksUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"clocks", "-reps", "0"}, "-reps 0"},
		{[]string{"clocks", "-reps", "-3"}, "-reps -3"},
		{[]string{"clocks", "-reps", "1001"}, "-reps 1001"},
		{[]string{"clocks", "-reps", "many"}, `"many"`},
		{[]string{"clocks", "-methods", "tsc,sundial"}, `unknown clock "sundial"`},
		{[]string{"clocks", "-methods", "tsc,TSC"}, "tsc given twice"},
		{[]string{"clocks", "-bench", "NoSuchKernel"}, `"NoSuchKernel"`},
		{[]string{"clocks", "-bench", "("}, `"("`},
		{[]string{"clocks", "-format", "bench"}, "table, json, csv"},
		{[]string{"clocks", "-demo", "cpu"}, "none, utilisation"},
		{[]string{"clocks", "-demo", "utilisation", "-bench", "Sleep"}, "-bench not allowed"},
		{[]string{"clocks", "-demo", "utilisation", "-reps", "9", "-methods", "tsc"}, "-methods, -reps not allowed"},
		{[]string{"clocks", "-demo", "utilisation", "-no-kbest"}, "-no-kbest not allowed"},
		{[]string{"clocks", "-cpu", "-5"}, "-cpu -5"},
		{[]string{"clocks", "-cpu", "9999"}, "-cpu 9999"},
		{[]string{"clocks", "extra"}, `"extra"`},
		{[]string{"clocks", "-o", "/no/such/dir/lab.txt"}, "/no/such/dir"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			useRecordedLab(t, recordedLab(), recordedUtilisation())
			out, errOut, err := runCLI(t, tt.args...)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("run(%q) = %v (%T), want a *usageError", tt.args, err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line naming %q", err, tt.want)
			}
			if out != "" || errOut != "" {
				t.Errorf("stdout %q, stderr %q; want nothing (main prints the error)", out, errOut)
			}
			if st := exitStatus(err, new(bytes.Buffer)); st != exitUsage {
				t.Errorf("exit status %d, want %d", st, exitUsage)
			}
		})
	}
}

// clocksRows returns, for each kernel table of the clocks output, its
// name and the first word of each clock row.
func clocksRows(out string) map[string][]string {
	tables := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "; times in "):
			cur, _, _ = strings.Cut(line, " ")
			tables[cur] = nil
		case line == "" || strings.HasPrefix(line, "verdict:"):
			cur = ""
		case cur != "":
			f := strings.Fields(line)
			tables[cur] = append(tables[cur], f[0])
		}
	}
	return tables
}

func TestClocksLive(t *testing.T) {
	// The clocks' rows, then the K-best figure's ("cyclebench (K-best)").
	want := append(append([]string{"clock"}, clockNamesOf(lab.Methods())...), "cyclebench")
	t.Run("table", func(t *testing.T) {
		out := liveRun(t, "clocks", "-reps", "5")
		tables := clocksRows(out)
		if len(tables) != 2 {
			t.Fatalf("%d kernel tables, want BubbleSort and Factorize:\n%s", len(tables), out)
		}
		for name, rows := range tables {
			if !slices.Equal(rows, want) {
				t.Errorf("%s: rows %q, want %q", name, rows, want)
			}
		}
		if got := strings.Count(out, "\nverdict:\n"); got != 2 {
			t.Errorf("%d verdicts, want 2:\n%s", got, out)
		}
		// The golden table has the same lines once numbers are masked, up
		// to the verdict and warnings, which depend on the figures.
		g, o := strings.Split(mask(readGolden(t, "clocks_lab.golden")), "\n"), strings.Split(mask(out), "\n")
		for i := range 4 {
			if i < len(o) && i < len(g) && !strings.HasPrefix(g[i], "cpu:") && !strings.HasPrefix(g[i], "tsc:") && o[i] != g[i] { // the counter and its frequency source depend on the build
				t.Errorf("line %d: %q, want %q", i+1, o[i], g[i])
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		out := liveRun(t, "clocks", "-reps", "6", "-format", "json")
		sameJSONShape(t, "clocks", nullsToZero(decode(t, out)), nullsToZero(decode(t, readGolden(t, "clocks_lab.json.golden"))))
		var r reports.ClocksReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Reps != 6 || len(r.Kernels) != 2 || len(r.Clocks) != 6 || r.TSCHz <= 0 {
			t.Fatalf("reps %d, %d kernels, %d clocks, tsc %v Hz", r.Reps, len(r.Kernels), len(r.Clocks), r.TSCHz)
		}
		for _, k := range r.Kernels {
			if k.Check != "ok" || k.Reference != "tsc" || len(k.Verdict) == 0 {
				t.Errorf("%s: check %q, reference %q, verdict %q", k.Name, k.Check, k.Reference, k.Verdict)
			}
			if kb := k.KBest; kb == nil || kb.Name != k.Name || kb.Nanoseconds <= 0 || kb.Samples == 0 || kb.CPU != r.PinnedCPU {
				t.Errorf("%s: K-best %+v, want the kernel's figure, measured on cpu %d", k.Name, kb, r.PinnedCPU)
			}
			for _, m := range k.Methods {
				if len(m.ReadingsNs) != 6 || m.MinNs > m.MedianNs || m.MedianNs > m.MaxNs || m.MinNs != slices.Min(m.ReadingsNs) {
					t.Errorf("%s/%s: readings %v, min %d median %d max %d", k.Name, m.Clock, m.ReadingsNs, m.MinNs, m.MedianNs, m.MaxNs)
				}
				if m.DiffFromKBest == nil && m.MedianNs > 0 {
					t.Errorf("%s/%s: no difference from the K-best figure", k.Name, m.Clock)
				}
				if (m.Clock == "tsc") != (len(m.Ticks) == 6) {
					t.Errorf("%s/%s: %d tick readings", k.Name, m.Clock, len(m.Ticks))
				}
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		// Without the K-best figure (the table and JSON runs have it; a noisy
		// machine can take seconds over it).
		out := liveRun(t, "clocks", "-format", "csv", "-methods", "tsc,thread", "-no-kbest")
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1+2*2 {
			t.Fatalf("%d records, want a header and 2 kernels × 2 clocks:\n%s", len(recs), out)
		}
		if !slices.Contains(recs[0], "rep5_ns") || slices.Contains(recs[0], "rep6_ns") {
			t.Errorf("header %q, want rep1_ns … rep5_ns", recs[0])
		}
		for _, rec := range recs[1:] {
			if rec[2] != "tsc" && rec[2] != "thread" {
				t.Errorf("row for clock %q, want only tsc and thread", rec[2])
			}
		}
	})
	t.Run("no K-best", func(t *testing.T) {
		out := liveRun(t, "clocks", "-bench", "SortInts", "-methods", "tsc", "-no-kbest")
		if strings.Contains(out, "K-best") {
			t.Errorf("-no-kbest, but the output speaks of K-best:\n%s", out)
		}
		rows := clocksRows(out)
		for name, r := range rows {
			if !strings.HasPrefix(name, "SortInts/") || !slices.Equal(r, []string{"clock", "tsc"}) {
				t.Errorf("table %s: rows %q, want SortInts with the tsc alone", name, r)
			}
		}
		if len(rows) != 1 {
			t.Errorf("%d kernel tables, want SortInts alone:\n%s", len(rows), out)
		}
	})
	t.Run("demo", func(t *testing.T) {
		out := liveRun(t, "clocks", "-demo", "utilisation", "-format", "json")
		sameJSONShape(t, "utilisation", decode(t, out), decode(t, readGolden(t, "clocks_utilisation.json.golden")))
		var r reports.UtilisationReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Kernels) != 2 || len(r.Verdict) != 2 {
			t.Fatalf("%d kernels, %d verdicts, want 2 each", len(r.Kernels), len(r.Verdict))
		}
		loop, sleep := r.Kernels[0], r.Kernels[1]
		if sleep.WallNs < (demoSleepN * time.Millisecond).Nanoseconds() {
			t.Errorf("the sleep lasted %v, want at least %d ms", time.Duration(sleep.WallNs), demoSleepN)
		}
		if loop.ThreadCPUNs <= sleep.ThreadCPUNs || loop.OfOneCPU <= sleep.OfOneCPU || sleep.OfOneCPU >= 50 {
			t.Errorf("loop %.3g%% of one cpu, sleep %.3g%%: want the loop busier and the sleep under 50%%", loop.OfOneCPU, sleep.OfOneCPU)
		}
		for _, k := range r.Kernels {
			if k.ThreadCPUNs > k.WallNs || math.Abs(k.OfAllCPUs*float64(k.NumCPU)-k.OfOneCPU) > 0.2*k.OfOneCPU+1 {
				t.Errorf("%s: thread cpu %d ns, wall %d ns, %.3g%% of one, %.3g%% of %d", k.Name, k.ThreadCPUNs, k.WallNs, k.OfOneCPU, k.OfAllCPUs, k.NumCPU)
			}
		}
	})
}

// nullsToZero replaces the nulls of the figures that are null when
// undefined (a spread or a difference over a median of 0) by 0, so a live
// run and the golden file compare by type whichever it was.
func nullsToZero(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil && (k == "spread" || k == "diff_from_reference") {
				x[k] = 0.0
				continue
			}
			x[k] = nullsToZero(e)
		}
	case []any:
		for i, e := range x {
			x[i] = nullsToZero(e)
		}
	}
	return v
}

func clockNamesOf(cs []cputime.Clock) []string {
	var s []string
	for _, c := range cs {
		s = append(s, c.String())
	}
	return s
}

// skipOn32Bit skips tests that replay the lab recorded on a 64-bit build:
// its Factorize kernel (n = 352700091909229843) does not exist where int is
// 32 bits (the default there is 2146654199), so its unit cannot be found.
func skipOn32Bit(t *testing.T) {
	t.Helper()
	if strconv.IntSize == 32 {
		t.Skip("the recorded lab's Factorize size does not fit a 32-bit int")
	}
}
