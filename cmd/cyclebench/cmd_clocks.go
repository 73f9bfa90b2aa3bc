package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/internal/sigfig"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/lab"
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
		if err := checkCPU(*cpu); err != nil {
			return err
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
	cfg.CPU, cfg.Reps, cfg.Methods, cfg.NoKBest = *cpu, *reps, clocks, *noKBest
	prog := newProgress(o)
	ctx := harness.WithProgress(in.ctx, func(p harness.Progress) {
		if p.Stage == "" { // the K-best measurement's own samples
			prog.set(step{what: "clocks " + p.Name + " K-best", done: p.Samples, total: p.Max, unit: "samples"})
			return
		}
		prog.set(step{what: "clocks " + p.Name, done: p.Samples, total: p.Max, unit: "repetitions"})
	})
	brand := sys.detectCPU().Brand
	var rep report
	var labErr error
	if *demo == "utilisation" {
		rep, labErr = utilisationDemo(ctx, brand, cfg)
	} else {
		rep, labErr = clocksTables(ctx, brand, *bench, cfg)
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
			return rep.csv().WriteCSV(w)
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

// clocksView and utilisationView are the lab's reports with their
// renderings.
type (
	clocksView      struct{ reports.ClocksReport }
	utilisationView struct{ reports.UtilisationReport }
)

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
func labKernels(pattern string) ([]harness.Target, []benchexamples.Kernel, error) {
	p := pattern
	if p == "" {
		p = defaultClocksBench
	}
	ks, err := benchexamples.Select(p)
	if err != nil {
		return nil, nil, kernelError("-bench", pattern, err)
	}
	var lks []harness.Target
	for _, k := range ks {
		lk, err := k.New(k.DefaultN)
		if err != nil {
			return nil, nil, err
		}
		lks = append(lks, lk)
	}
	return lks, ks, nil
}

// clocksTables runs the lab; the report holds the kernels that finished
// (also when the lab stopped early, with the error).
func clocksTables(ctx context.Context, brand, bench string, cfg lab.Config) (report, error) {
	lks, ks, err := labKernels(bench)
	if err != nil {
		return nil, err
	}
	res, labErr := clocksLab(ctx, cfg, lks...)
	if labErr != nil && len(res.Kernels) == 0 && !errors.Is(labErr, context.Canceled) {
		return nil, cpuError(cfg.CPU, labErr)
	}
	units := map[string]string{}
	for i, lk := range lks {
		units[lk.Name] = ks[i].Unit
	}
	r := clocksView{reports.NewClocksReport(brand, res, units)}
	r.GOOS, r.GOARCH, r.GoVersion = sys.goos, sys.goarch, sys.goVersion
	if labErr != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("stopped early: %v", labErr))
	}
	return r, labErr
}

func formatNs(ns int64) string { return time.Duration(ns).String() }

// kbestRow is the name of the K-best figure's row.
const kbestRow = "cyclebench (K-best)"

func (r clocksView) text(w io.Writer) error {
	d := newDoc(formatTable)
	for _, l := range r.Head() {
		d.Line(l)
	}
	d.Blank()
	t := &table{Cols: []col{{Name: "clock", Left: true}, {Name: "resolution"}, {Name: "empty interval"}, {Name: "source", Left: true}}}
	for _, c := range r.Clocks {
		t.Add(c.Clock, formatNs(c.ResolutionNs), formatNs(c.EmptyNs), c.Source)
	}
	d.Table(t)
	for _, k := range r.Kernels {
		unit, div := k.DisplayUnit()
		d.Blank()
		d.Heading(fmt.Sprintf("%s (%s; times in %s)", k.Name, orDash(k.Unit), unit))
		t := &table{Cols: []col{{Name: "clock", Left: true}}}
		for i := range r.Reps {
			t.Cols = append(t.Cols, col{Name: strconv.Itoa(i + 1)})
		}
		t.Cols = append(t.Cols, col{Name: "min"}, col{Name: "median"}, col{Name: "spread"}, col{Name: "resolution"})
		if k.KBest != nil {
			t.Cols = append(t.Cols, col{Name: "cycles", Digits: 7}, col{Name: "vs K-best"})
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
					vs = sigfig.Signed(100**m.DiffFromKBest, 3) + "%"
				}
				row = append(row, nil, vs)
			}
			t.Add(row...)
		}
		if kb := k.KBestResult; kb != nil {
			// One figure from many runs: no repetitions, no spread of
			// single readings; its converged flag in the last column.
			row := []any{kbestRow}
			for range r.Reps {
				row = append(row, nil)
			}
			t.Add(append(row, in(kb.Nanoseconds), nil, nil, nil, reports.CyclesCell(*kb, kb.Cycles, 7), kbestConverged(*kb))...)
		}
		d.Table(t)
		verdicts(d, k.Verdict)
	}
	return d.Render(w)
}

// verdicts writes a report's verdict lines as a list.
func verdicts(d *doc, vs []string) {
	d.Line("verdict:")
	for _, v := range vs {
		d.Item("  " + v)
	}
}

// kbestConverged says whether a K-best figure converged: "converged",
// "nearly converged" (its K best agree within 2ε), or "NOT converged".
func kbestConverged(r harness.Result) shown {
	switch c := reports.ConvergedText(r); c.Text {
	case "yes":
		return shown{V: true, Text: "converged"}
	case "nearly":
		return shown{V: false, Text: "nearly converged"}
	}
	return shown{V: false, Text: "NOT converged"}
}

// notes are the report's warnings (reports.ClocksReport.Notes) with the
// legend of the "~" mark when the table shows one.
func (r clocksView) notes() ([]string, []string) {
	warnings, failed := r.Notes()
	if r.RulerUnconverged() {
		warnings = append(warnings, reports.RulerNote)
	}
	return warnings, failed
}

// csv is one row per kernel and clock, with one column per repetition,
// times in nanoseconds.
func (r clocksView) csv() *table {
	t := &table{}
	names := []string{"kernel", "unit", "clock", "source", "resolution_ns", "empty_ns"}
	for i := range r.Reps {
		names = append(names, fmt.Sprintf("rep%d_ns", i+1))
	}
	names = append(names, "min_ns", "median_ns", "max_ns", "spread", "zeros", "resolves", "reference", "diff_from_reference", "agrees", "diff_from_kbest", "cycles", "converged", "check")
	for _, n := range names {
		t.Cols = append(t.Cols, col{Name: n})
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
			t.Add(append(row, m.MinNs, m.MedianNs, m.MaxNs, opt(m.Spread), m.Zeros, m.Resolves, k.Reference, opt(m.DiffFromReference), m.Agrees, opt(m.DiffFromKBest), nil, nil, k.Check)...)
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
			t.Add(append(row, kb.Nanoseconds, nil, nil, nil, nil, nil, k.Reference, nil, nil, nil, cycles, kb.Converged, k.Check)...)
		}
	}
	return t
}

// utilisationDemo runs the utilisation demo; the report holds the kernels
// that finished (also when it stopped early, with the error).
func utilisationDemo(ctx context.Context, brand string, cfg lab.Config) (report, error) {
	var lks []harness.Target
	for _, d := range []struct {
		name string
		n    int
	}{{"HashLoop", demoLoopN}, {"Sleep", demoSleepN}} {
		k, err := benchexamples.Lookup(d.name)
		if err != nil {
			return nil, err
		}
		lk, err := k.New(d.n)
		if err != nil {
			return nil, err
		}
		lks = append(lks, lk)
	}
	res, labErr := utilisationLab(ctx, cfg, lks...)
	if labErr != nil && len(res.Kernels) == 0 && !errors.Is(labErr, context.Canceled) {
		return nil, cpuError(cfg.CPU, labErr)
	}
	r := utilisationView{reports.NewUtilisationReport(brand, res)}
	r.GOOS, r.GOARCH, r.GoVersion = sys.goos, sys.goarch, sys.goVersion
	if labErr != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("stopped early: %v", labErr))
	}
	return r, labErr
}

func (r utilisationView) text(w io.Writer) error {
	d := newDoc(formatTable)
	for _, l := range r.Head() {
		d.Line(l)
	}
	d.Blank()
	numCPU := 0
	for _, k := range r.Kernels {
		numCPU = max(numCPU, k.NumCPU)
	}
	t := &table{Cols: []col{{Name: "kernel", Left: true}, {Name: "wall"}, {Name: "process cpu"}, {Name: "thread cpu"}, {Name: "% of one cpu"},
		{Name: fmt.Sprintf("%% of all %d cpus", numCPU)}, {Name: "system busy %"}}}
	us := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	for _, k := range r.Kernels {
		t.Add(k.Name, us(k.WallNs), us(k.ProcessCPUNs), us(k.ThreadCPUNs), f2(k.OfOneCPU), f2(k.OfAllCPUs), f2(k.SystemBusy))
	}
	d.Table(t)
	verdicts(d, r.Verdict)
	return d.Render(w)
}

func (r utilisationView) notes() ([]string, []string) { return r.Notes() }

func (r utilisationView) csv() *table {
	t := &table{}
	for _, n := range []string{"kernel", "wall_ns", "process_cpu_ns", "thread_cpu_ns", "of_one_cpu_pct", "of_all_cpus_pct", "num_cpu", "system_busy_pct", "tick_share_pct", "source", "check"} {
		t.Cols = append(t.Cols, col{Name: n})
	}
	for _, k := range r.Kernels {
		t.Add(k.Name, k.WallNs, k.ProcessCPUNs, k.ThreadCPUNs, k.OfOneCPU, k.OfAllCPUs, k.NumCPU, k.SystemBusy, k.TickShare, k.Source, k.Check)
	}
	return t
}
