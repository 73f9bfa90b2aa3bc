package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/lab"
	"github.com/cyclebench/cyclebench/results"
)

const clocksDescription = `
clocks times the same runs of a kernel with every clock a program can read,
side by side, to show which clock can be trusted at which scale. Each
selected kernel (default: BubbleSort n=1000 and Factorize) runs -reps times on
a pinned thread, and every clock times the same runs: the coarse millisecond
wall clock (GetTickCount / Now), the microsecond wall clock (gettimeofday),
the monotonic clock (QueryPerformanceCounter's analogue), the serialized TSC
(ticks converted with the calibrated frequency), process CPU time and thread
CPU time. The clocks are started from the outermost to the innermost
(process, thread, wall-ms, wall-us, monotonic, tsc) and stopped in the
reverse order; the "empty interval" column is what each reads around
nothing. Setup (restoring the unsorted array) runs untimed before each
repetition.

After a kernel's repetitions, cyclebench measures it as run does (the
K-best method: many runs, the K smallest agreeing within ε, the timing
overhead subtracted, core cycles from the core-clock ruler), on the same CPU:
the row "cyclebench (K-best)" shows that figure in time and cycles, with
whether it converged, and the column "vs K-best" how far each clock's median
reading lies from it. -no-kbest skips it.

One table per kernel, one row per clock, one column per repetition, then
min, median, spread (max − min over median) and resolution, and a verdict
derived from the figures: which clocks cannot resolve the interval (a
reading of 0, or a resolution above 1% of the TSC's median) and which agree
with the TSC within 1%, and which medians lie within 1% of the K-best
figure.

-demo utilisation instead measures CPU utilisation: a compute-bound loop
(HashLoop, 2e8 iterations) and an 800 ms sleep, each between two snapshots
of the system's and the process's CPU time: wall time, process and thread
CPU time, and the share of one CPU and of all CPUs.`

// The lab and the demo, replaced by tests with recorded results.
var (
	clocksLab      = lab.Clocks
	utilisationLab = lab.Utilisation
)

// defaultClocksBench selects the default kernels: a sort and a division.
const defaultClocksBench = "^(BubbleSort|Factorize)$"

// The demo kernels: a loop of 2e8 iterations and an 800 ms sleep.
const (
	demoLoopN  = 200_000_000
	demoSleepN = 800
)

// Verdict thresholds of the utilisation demo.
const (
	busyShare = 95.0 // % of one CPU: compute-bound
	idleShare = 2.0  // % of one CPU: sleeping
)

func runClocks(args []string, stdout, stderr io.Writer) error {
	s := newSession("clocks", "[-bench REGEXP] [-reps N] [-methods LIST] [-no-kbest] [-format table|json|csv] [-cpu N] [-demo utilisation] [-o FILE]", clocksDescription, stdout)
	fs := s.fs
	bench := fs.String("bench", "", "`REGEXP` selecting kernels by name (default: BubbleSort and Factorize; see cyclebench run -list)")
	reps := fs.Int("reps", lab.DefaultReps, fmt.Sprintf("repetitions `N` of each kernel (1 to %d; at least 5 for a spread worth reading)", lab.MaxReps))
	methods := fs.String("methods", "", "comma-separated clocks to read: `LIST` of "+clockList(lab.Methods())+" (default: all)")
	noKBest := fs.Bool("no-kbest", false, "skip the K-best measurement of each kernel beside the clocks (it takes up to 10 s a kernel)")
	s.o = addOutputFlags(fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	cpu := cpuFlag(fs)
	demo := choiceFlag(fs, "demo", "none", "run a demo instead (utilisation: a compute loop and an 800 ms sleep, with their CPU shares)", "none", "utilisation")
	fs.example("cyclebench clocks", "every clock around 5 runs of BubbleSort and of Factorize")
	fs.example("cyclebench clocks -bench SortInts -reps 10 -methods tsc,monotonic,wall-ms", "three clocks around 10 runs of SortInts")
	fs.example("cyclebench clocks -demo utilisation", "CPU time and utilisation of a busy loop and a sleep")
	var clocks []cputime.Clock
	if err := s.open(args, false, func() (err error) {
		if *reps < 1 || *reps > lab.MaxReps {
			return usageErrorf("-reps %d: out of range (allowed: 1 to %d)", *reps, lab.MaxReps)
		}
		if clocks, err = parseClocks(*methods); err != nil {
			return err
		}
		if *cpu < -1 {
			return usageErrorf("-cpu %d: out of range (allowed: -1 for any, or a CPU number)", *cpu)
		}
		if *cpu >= 0 {
			if allowed, err := sys.allowed(); err == nil && !slices.Contains(allowed, *cpu) {
				return usageErrorf("-cpu %d: not a CPU this process may use (allowed set %s)", *cpu, affinity.FormatCPUs(allowed))
			}
		}
		var extra []string
		fs.Visit(func(f *flag.Flag) {
			if slices.Contains([]string{"bench", "reps", "methods", "no-kbest"}, f.Name) {
				extra = append(extra, "-"+f.Name)
			}
		})
		if *demo != "none" && len(extra) > 0 {
			return usageErrorf("-demo %s runs its own kernels: %s not allowed with it", *demo, strings.Join(extra, ", "))
		}
		return nil
	}); err != nil {
		return err
	}
	defer s.close()
	o, in := s.o, s.in
	cfg := lab.DefaultConfig()
	cfg.CPU, cfg.Reps, cfg.Methods, cfg.NoKBest, cfg.Context = *cpu, *reps, clocks, *noKBest, in.ctx
	prog := newProgress(o)
	cfg.Progress = func(p lab.Progress) {
		if p.KBest {
			prog.set(step{what: "clocks " + p.Kernel + " K-best", done: p.Done, total: p.Total, unit: "samples"})
			return
		}
		prog.set(step{what: "clocks " + p.Kernel, done: p.Done, total: p.Total, unit: "repetitions"})
	}
	brand := sys.detectCPU().Brand
	var rep report
	var labErr error
	if *demo == "utilisation" {
		rep, labErr = utilisationDemo(brand, cfg)
	} else {
		rep, labErr = clocksTables(brand, *bench, cfg)
	}
	prog.done()
	var ue *usageError
	if rep == nil || errors.As(labErr, &ue) || labErr != nil && in.exitCode() == 0 {
		return labErr
	}
	if err := o.emit(func(w io.Writer) error {
		switch o.format {
		case formatJSON:
			return writeJSON(w, rep)
		case formatCSV:
			return rep.csv().writeCSV(w)
		}
		return rep.text(w)
	}); err != nil {
		return err
	}
	warnings, failed := rep.notes()
	o.warnAll(warnings)
	summary := ""
	if len(failed) > 0 {
		summary = fmt.Sprintf("%d kernels failed their output check (%s)", len(failed), strings.Join(failed, ", "))
	}
	return o.status(in, summary)
}

// report is what clocks writes: the lab or the utilisation demo.
type report interface {
	text(io.Writer) error
	csv() *table
	notes() (warnings, failedChecks []string)
}

// clockList names clocks, comma-separated.
func clockList(cs []cputime.Clock) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

// parseClocks parses -methods: nil for all.
func parseClocks(list string) ([]cputime.Clock, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var cs []cputime.Clock
	for _, name := range strings.Split(list, ",") {
		c, err := cputime.ParseClock(name)
		if err != nil {
			return nil, usageErrorf("-methods %q: %v", list, err)
		}
		for _, prev := range cs {
			if prev == c {
				return nil, usageErrorf("-methods %q: %s given twice", list, c)
			}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// labKernels prepares the kernels -bench selects at their default sizes.
func labKernels(pattern string) ([]lab.Kernel, []benchexamples.Kernel, error) {
	p := pattern
	if p == "" {
		p = defaultClocksBench
	}
	ks, err := benchexamples.Select(p)
	if err != nil {
		return nil, nil, kernelError("-bench", pattern, err)
	}
	var lks []lab.Kernel
	for _, k := range ks {
		lk, err := labKernel(k, k.DefaultN)
		if err != nil {
			return nil, nil, err
		}
		lks = append(lks, lk)
	}
	return lks, ks, nil
}

func labKernel(k benchexamples.Kernel, n int) (lab.Kernel, error) {
	inst, err := k.New(n)
	if err != nil {
		return lab.Kernel{}, err
	}
	return lab.Kernel{Name: fmt.Sprintf("%s/n=%d", k.Name, n), Setup: inst.Setup, Run: inst.Run, Check: inst.Check}, nil
}

// labError turns a bad -cpu into a usage error.
func labError(cpu int, err error) error {
	if errors.Is(err, affinity.ErrInvalidCPU) || errors.Is(err, affinity.ErrInvalidOption) {
		return usageErrorf("-cpu %d: %w", cpu, err)
	}
	return err
}

// clocksTables runs the lab; the report holds the kernels that finished
// (also when the lab stopped early, with the error).
func clocksTables(brand, bench string, cfg lab.Config) (report, error) {
	lks, ks, err := labKernels(bench)
	if err != nil {
		return nil, err
	}
	res, labErr := clocksLab(cfg, lks...)
	if labErr != nil && len(res.Kernels) == 0 && !errors.Is(labErr, context.Canceled) {
		return nil, labError(cfg.CPU, labErr)
	}
	units := map[string]string{}
	for i, lk := range lks {
		units[lk.Name] = ks[i].Unit
	}
	r := newClocksReport(brand, res, units)
	if labErr != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("stopped early: %v", labErr))
	}
	return r, labErr
}

// clocksReport is what clocks prints, as JSON, CSV and tables. Times are in
// nanoseconds; ticks are TSC ticks.
type clocksReport struct {
	Command     string             `json:"command"`
	CPU         string             `json:"cpu"`
	PinnedCPU   int                `json:"pinned_cpu"`
	Priority    string             `json:"priority"`
	TSCHz       float64            `json:"tsc_hz"`
	TSCHzSource string             `json:"tsc_hz_source"`
	Reps        int                `json:"reps"`
	Tolerance   float64            `json:"tolerance"`
	Nesting     []string           `json:"nesting"`
	Clocks      []clockJSON        `json:"clocks"`
	Kernels     []clocksKernelJSON `json:"kernels"`
	GOOS        string             `json:"goos"`
	GOARCH      string             `json:"goarch"`
	GoVersion   string             `json:"go_version"`
	Warnings    []string           `json:"warnings"`
}

type clockJSON struct {
	Clock        string `json:"clock"`
	Source       string `json:"source"`
	ResolutionNs int64  `json:"resolution_ns"`
	EmptyNs      int64  `json:"empty_ns"`
}

type clocksKernelJSON struct {
	Name      string       `json:"name"`
	Unit      string       `json:"unit"`
	Reference string       `json:"reference"`
	Redone    int          `json:"redone"`
	Check     string       `json:"check"`
	Methods   []methodJSON `json:"methods"`
	// KBest is the harness's figure, as run writes it; null with -no-kbest.
	KBest    *results.ResultJSON `json:"kbest"`
	Verdict  []string            `json:"verdict"`
	Warnings []string            `json:"warnings"`

	kbest *harness.Result // behind KBest, for the table
}

type methodJSON struct {
	Clock             string   `json:"clock"`
	Source            string   `json:"source"`
	ResolutionNs      int64    `json:"resolution_ns"`
	EmptyNs           int64    `json:"empty_ns"`
	ReadingsNs        []int64  `json:"readings_ns"`
	Ticks             []uint64 `json:"ticks,omitempty"`
	MinNs             int64    `json:"min_ns"`
	MedianNs          int64    `json:"median_ns"`
	MaxNs             int64    `json:"max_ns"`
	Spread            *float64 `json:"spread"`
	Zeros             int      `json:"zeros"`
	Resolves          bool     `json:"resolves"`
	DiffFromReference *float64 `json:"diff_from_reference"`
	Agrees            bool     `json:"agrees"`
	DiffFromKBest     *float64 `json:"diff_from_kbest"`
}

// finite returns a pointer to v, or nil (JSON null) when v is NaN or ±Inf.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func newClocksReport(brand string, res lab.Result, units map[string]string) clocksReport {
	r := clocksReport{
		Command: "clocks", CPU: brand, PinnedCPU: res.CPU, Priority: res.Priority,
		TSCHz: res.TicksPerSecond, TSCHzSource: res.FrequencySource, Reps: res.Reps, Tolerance: res.Tolerance,
		Nesting: []string{}, Clocks: []clockJSON{}, Kernels: []clocksKernelJSON{},
		GOOS: sys.goos, GOARCH: sys.goarch, GoVersion: sys.goVersion, Warnings: errorStrings(res.Warnings),
	}
	for _, c := range res.Nesting {
		r.Nesting = append(r.Nesting, c.String())
	}
	for _, c := range res.Clocks {
		r.Clocks = append(r.Clocks, clockJSON{Clock: c.Clock.String(), Source: string(c.Source), ResolutionNs: c.Resolution.Nanoseconds(), EmptyNs: c.Empty.Nanoseconds()})
	}
	for _, k := range res.Kernels {
		kj := clocksKernelJSON{Name: k.Name, Unit: units[k.Name], Redone: k.Redone, Check: "ok", Methods: []methodJSON{}, Verdict: k.Verdict(), Warnings: errorStrings(k.Warnings)}
		if k.HasReference {
			kj.Reference = k.Reference.String()
		}
		if k.CheckError != nil {
			kj.Check = k.CheckError.Error()
		}
		if k.KBest != nil {
			j := results.Measurement{Result: *k.KBest, Unit: units[k.Name]}.JSON()
			kj.KBest, kj.kbest = &j, k.KBest
		}
		for _, m := range k.Methods {
			mj := methodJSON{
				Clock: m.Clock.String(), Source: string(m.Source), ResolutionNs: m.Resolution.Nanoseconds(), EmptyNs: m.Empty.Nanoseconds(),
				ReadingsNs: make([]int64, len(m.Readings)), Ticks: m.Ticks,
				MinNs: m.Min.Nanoseconds(), MedianNs: m.Median.Nanoseconds(), MaxNs: m.Max.Nanoseconds(),
				Spread: finite(m.Spread), Zeros: m.Zeros, Resolves: m.Resolves, DiffFromReference: finite(m.DiffFromReference), Agrees: m.Agrees,
				DiffFromKBest: finite(m.DiffFromKBest),
			}
			for i, d := range m.Readings {
				mj.ReadingsNs[i] = d.Nanoseconds()
			}
			kj.Methods = append(kj.Methods, mj)
		}
		r.Kernels = append(r.Kernels, kj)
	}
	return r
}

// displayUnit picks the unit of a kernel's table from its reference (or
// longest) median: ms below 100 s, else s; six decimals either way, so a
// millisecond table shows nanoseconds.
func displayUnit(k clocksKernelJSON) (name string, ns float64) {
	var med int64
	for _, m := range k.Methods {
		if m.Clock == k.Reference {
			med = m.MedianNs
			break
		}
		med = max(med, m.MedianNs)
	}
	if med >= 100e9 {
		return "s", 1e9
	}
	return "ms", 1e6
}

func formatNs(ns int64) string { return time.Duration(ns).String() }

// kbestRow is the name of the K-best figure's row.
const kbestRow = "cyclebench (K-best)"

func (r clocksReport) text(w io.Writer) error {
	d := newDoc(formatTable)
	head := fmt.Sprintf("clocks: %d repetitions of each kernel, every clock around the same runs", r.Reps)
	if slices.ContainsFunc(r.Kernels, func(k clocksKernelJSON) bool { return k.KBest != nil }) {
		head += "; cyclebench's K-best figure beside them"
	}
	d.line(head)
	d.line(fmt.Sprintf("cpu: %s  pinned: %s  priority: %s", orDash(r.CPU), pinnedWord(r.PinnedCPU), orDash(r.Priority)))
	if r.TSCHz > 0 {
		d.line(fmt.Sprintf("tsc: %s (%s)", formatHz(r.TSCHz), r.TSCHzSource))
	}
	d.line("nesting, outer to inner: " + strings.Join(r.Nesting, ", "))
	d.blank()
	t := &table{cols: []col{{name: "clock", left: true}, {name: "resolution"}, {name: "empty interval"}, {name: "source", left: true}}}
	for _, c := range r.Clocks {
		t.add(c.Clock, formatNs(c.ResolutionNs), formatNs(c.EmptyNs), c.Source)
	}
	d.table(t)
	for _, k := range r.Kernels {
		unit, div := displayUnit(k)
		d.blank()
		d.heading(fmt.Sprintf("%s (%s; times in %s)", k.Name, orDash(k.Unit), unit))
		t := &table{cols: []col{{name: "clock", left: true}}}
		for i := range r.Reps {
			t.cols = append(t.cols, col{name: strconv.Itoa(i + 1)})
		}
		t.cols = append(t.cols, col{name: "min"}, col{name: "median"}, col{name: "spread"}, col{name: "resolution"})
		if k.KBest != nil {
			t.cols = append(t.cols, col{name: "cycles", digits: 7}, col{name: "vs K-best"})
		}
		in := func(ns float64) string { return strconv.FormatFloat(ns/div, 'f', 6, 64) }
		for _, m := range k.Methods {
			row := []any{m.Clock}
			for _, v := range m.ReadingsNs {
				row = append(row, in(float64(v)))
			}
			spread := "-"
			if m.Spread != nil {
				spread = pct(*m.Spread, 3)
			}
			row = append(row, in(float64(m.MinNs)), in(float64(m.MedianNs)), spread, formatNs(m.ResolutionNs))
			if k.KBest != nil {
				vs := "-"
				if m.DiffFromKBest != nil {
					vs = signedSig(100**m.DiffFromKBest, 3) + "%"
				}
				row = append(row, nil, vs)
			}
			t.add(row...)
		}
		if kb := k.kbest; kb != nil {
			// One figure from many runs: no repetitions, no spread of
			// single readings; its converged flag in the last column.
			row := []any{kbestRow}
			for range r.Reps {
				row = append(row, nil)
			}
			t.add(append(row, in(kb.Nanoseconds), nil, nil, nil, cyclesCell(*kb, kb.Cycles, 7), kbestConverged(*kb))...)
		}
		d.table(t)
		verdicts(d, k.Verdict)
	}
	return d.writeTo(w)
}

// verdicts writes a report's verdict lines as a list.
func verdicts(d *doc, vs []string) {
	d.line("verdict:")
	for _, v := range vs {
		d.item("  " + v)
	}
}

// kbestConverged says whether a K-best figure converged: "converged",
// "nearly converged" (its K best agree within 2ε), or "NOT converged".
func kbestConverged(r harness.Result) shown {
	switch c := convergedText(r); c.text {
	case "yes":
		return shown{true, "converged"}
	case "nearly":
		return shown{false, "nearly converged"}
	}
	return shown{false, "NOT converged"}
}

func (r clocksReport) notes() ([]string, []string) {
	var ks [][3]any
	own := r.Warnings
	for _, k := range r.Kernels {
		ks = append(ks, [3]any{k.Name, k.Check, k.Warnings})
		if kb := k.kbest; kb != nil && kb.CyclesPerTick > 0 && !kb.ReferenceConverged && !slices.Contains(own, rulerNote) {
			own = append(slices.Clip(own), rulerNote)
		}
	}
	return kernelNotes(ks, own)
}

// kernelNotes lists the warnings of a report's kernels ({name, check,
// warnings}) and then its own, and the kernels whose output check failed.
func kernelNotes(kernels [][3]any, own []string) (warnings, failed []string) {
	for _, k := range kernels {
		name, check := k[0].(string), k[1].(string)
		if check != "ok" {
			failed = append(failed, name)
			warnings = append(warnings, fmt.Sprintf("%s: output check failed: %s", name, check))
		}
		for _, w := range k[2].([]string) {
			warnings = append(warnings, name+": "+w)
		}
	}
	return append(warnings, own...), failed
}

func pinnedWord(cpu int) string {
	if cpu < 0 {
		return "no"
	}
	return "cpu " + strconv.Itoa(cpu)
}

// csv is one row per kernel and clock, with one column per repetition,
// times in nanoseconds.
func (r clocksReport) csv() *table {
	t := &table{}
	names := []string{"kernel", "unit", "clock", "source", "resolution_ns", "empty_ns"}
	for i := range r.Reps {
		names = append(names, fmt.Sprintf("rep%d_ns", i+1))
	}
	names = append(names, "min_ns", "median_ns", "max_ns", "spread", "zeros", "resolves", "reference", "diff_from_reference", "agrees", "diff_from_kbest", "cycles", "converged", "check")
	for _, n := range names {
		t.cols = append(t.cols, col{name: n})
	}
	opt := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, k := range r.Kernels {
		for _, m := range k.Methods {
			row := []any{k.Name, k.Unit, m.Clock, m.Source, m.ResolutionNs, m.EmptyNs}
			for _, v := range m.ReadingsNs {
				row = append(row, v)
			}
			t.add(append(row, m.MinNs, m.MedianNs, m.MaxNs, opt(m.Spread), m.Zeros, m.Resolves, k.Reference, opt(m.DiffFromReference), m.Agrees, opt(m.DiffFromKBest), nil, nil, k.Check)...)
		}
		if kb := k.KBest; kb != nil {
			// The K-best figure in min_ns (ns per call, overhead
			// subtracted), its cycles and whether it converged; what
			// describes single readings stays empty.
			row := []any{k.Name, k.Unit, kbestRow, "harness K-best", nil, nil}
			for range r.Reps {
				row = append(row, nil)
			}
			var cycles any
			if kb.Cycles != nil && *kb.Cycles > 0 {
				cycles = *kb.Cycles
			}
			t.add(append(row, kb.Nanoseconds, nil, nil, nil, nil, nil, k.Reference, nil, nil, nil, cycles, kb.Converged, k.Check)...)
		}
	}
	return t
}

// utilisationReport is what clocks -demo utilisation prints.
type utilisationReport struct {
	Command   string            `json:"command"`
	Demo      string            `json:"demo"`
	CPU       string            `json:"cpu"`
	PinnedCPU int               `json:"pinned_cpu"`
	Priority  string            `json:"priority"`
	Kernels   []utilisationJSON `json:"kernels"`
	Verdict   []string          `json:"verdict"`
	GOOS      string            `json:"goos"`
	GOARCH    string            `json:"goarch"`
	GoVersion string            `json:"go_version"`
	Warnings  []string          `json:"warnings"`
}

type utilisationJSON struct {
	Name         string   `json:"name"`
	WallNs       int64    `json:"wall_ns"`
	ProcessCPUNs int64    `json:"process_cpu_ns"`
	ThreadCPUNs  int64    `json:"thread_cpu_ns"`
	OfOneCPU     float64  `json:"of_one_cpu_pct"`
	OfAllCPUs    float64  `json:"of_all_cpus_pct"`
	NumCPU       int      `json:"num_cpu"`
	SystemBusy   float64  `json:"system_busy_pct"`
	TickShare    float64  `json:"tick_share_pct"`
	Source       string   `json:"source"`
	Check        string   `json:"check"`
	Warnings     []string `json:"warnings"`
}

// utilisationDemo runs the utilisation demo; the report holds the kernels
// that finished (also when it stopped early, with the error).
func utilisationDemo(brand string, cfg lab.Config) (report, error) {
	var lks []lab.Kernel
	for _, d := range []struct {
		name string
		n    int
	}{{"HashLoop", demoLoopN}, {"Sleep", demoSleepN}} {
		k, err := benchexamples.Lookup(d.name)
		if err != nil {
			return nil, err
		}
		lk, err := labKernel(k, d.n)
		if err != nil {
			return nil, err
		}
		lks = append(lks, lk)
	}
	res, labErr := utilisationLab(cfg, lks...)
	if labErr != nil && len(res.Kernels) == 0 && !errors.Is(labErr, context.Canceled) {
		return nil, labError(cfg.CPU, labErr)
	}
	r := utilisationReport{
		Command: "clocks", Demo: "utilisation", CPU: brand, PinnedCPU: res.CPU, Priority: res.Priority,
		Kernels: []utilisationJSON{}, Verdict: []string{},
		GOOS: sys.goos, GOARCH: sys.goarch, GoVersion: sys.goVersion, Warnings: errorStrings(res.Warnings),
	}
	if labErr != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("stopped early: %v", labErr))
	}
	for _, k := range res.Kernels {
		u := k.Utilisation
		j := utilisationJSON{
			Name: k.Name, WallNs: u.Wall.Nanoseconds(), ProcessCPUNs: u.ProcessCPU.Nanoseconds(), ThreadCPUNs: k.ThreadCPU.Nanoseconds(),
			OfOneCPU: u.OfOneCPU, OfAllCPUs: u.OfAllCPUs, NumCPU: u.NumCPU, SystemBusy: u.SystemBusy, TickShare: u.TickShare,
			Source: u.Source, Check: "ok", Warnings: append(errorStrings(u.Warnings), errorStrings(k.Warnings)...),
		}
		if k.CheckError != nil {
			j.Check = k.CheckError.Error()
		}
		r.Kernels = append(r.Kernels, j)
		r.Verdict = append(r.Verdict, utilisationVerdict(j))
	}
	return r, labErr
}

// utilisationVerdict says in one line what a kernel's share of one CPU
// shows.
func utilisationVerdict(j utilisationJSON) string {
	share := sig(j.OfOneCPU, 3) + "%"
	wall := time.Duration(j.WallNs).Round(time.Microsecond)
	switch {
	case j.OfOneCPU >= busyShare:
		return fmt.Sprintf("%s kept one CPU busy (%s of one CPU, ≥ %g%%) for %v: compute-bound", j.Name, share, busyShare, wall)
	case j.OfOneCPU <= idleShare:
		return fmt.Sprintf("%s used %s of one CPU (≤ %g%%) over %v of wall time: it sleeps or blocks", j.Name, share, idleShare, wall)
	}
	return fmt.Sprintf("%s used %s of one CPU over %v: partly busy, or preempted", j.Name, share, wall)
}

func (r utilisationReport) text(w io.Writer) error {
	d := newDoc(formatTable)
	d.line("utilisation demo: each kernel once, between two snapshots of the system's and the process's cpu time")
	d.line(fmt.Sprintf("cpu: %s  pinned: %s  priority: %s", orDash(r.CPU), pinnedWord(r.PinnedCPU), orDash(r.Priority)))
	d.blank()
	numCPU := 0
	for _, k := range r.Kernels {
		numCPU = max(numCPU, k.NumCPU)
	}
	t := &table{cols: []col{{name: "kernel", left: true}, {name: "wall"}, {name: "process cpu"}, {name: "thread cpu"}, {name: "% of one cpu"},
		{name: fmt.Sprintf("%% of all %d cpus", numCPU)}, {name: "system busy %"}}}
	us := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, k := range r.Kernels {
		t.add(k.Name, us(k.WallNs), us(k.ProcessCPUNs), us(k.ThreadCPUNs), f2(k.OfOneCPU), f2(k.OfAllCPUs), f2(k.SystemBusy))
	}
	d.table(t)
	verdicts(d, r.Verdict)
	return d.writeTo(w)
}

func (r utilisationReport) notes() ([]string, []string) {
	var ks [][3]any
	for _, k := range r.Kernels {
		ks = append(ks, [3]any{k.Name, k.Check, k.Warnings})
	}
	return kernelNotes(ks, r.Warnings)
}

func (r utilisationReport) csv() *table {
	t := &table{}
	for _, n := range []string{"kernel", "wall_ns", "process_cpu_ns", "thread_cpu_ns", "of_one_cpu_pct", "of_all_cpus_pct", "num_cpu", "system_busy_pct", "tick_share_pct", "source", "check"} {
		t.cols = append(t.cols, col{name: n})
	}
	for _, k := range r.Kernels {
		t.add(k.Name, k.WallNs, k.ProcessCPUNs, k.ThreadCPUNs, k.OfOneCPU, k.OfAllCPUs, k.NumCPU, k.SystemBusy, k.TickShare, k.Source, k.Check)
	}
	return t
}
