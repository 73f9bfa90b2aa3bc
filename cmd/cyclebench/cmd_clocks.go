package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/reports"

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

// notes are the report's warnings (reports.ClocksReport.Notes) with the
// legend of the "~" mark when the table shows one.
func (r clocksView) notes() ([]string, []string) {
	warnings, failed := r.Notes()
	if r.RulerUnconverged() {
		warnings = append(warnings, reports.RulerNote)
	}
	return warnings, failed
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

func (r utilisationView) notes() ([]string, []string) { return r.Notes() }

func (r clocksView) text(w io.Writer) error      { return r.Doc().Render(w) }
func (r clocksView) csv() *table                 { return r.Table() }
func (r utilisationView) text(w io.Writer) error { return r.Doc().Render(w) }
func (r utilisationView) csv() *table            { return r.Table() }
