package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	benchexamples "github.com/cyclebench/cyclebench/bench_examples"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/gotest"
	"github.com/cyclebench/cyclebench/internal/reports"
	"github.com/cyclebench/cyclebench/results"
)

const runDescription = `Measure the example kernels selected by -bench with the K-best method and print
per-call core cycles, counter ticks and nanoseconds, and per-element cycles.
-mode says what "per call" means: throughput (calls back to back, the default),
latency (each call after a serializing fence), or both side by side.
-format bench writes the Go benchmark format, which benchstat reads; -count 6
or more gives benchstat the repetitions it needs for a confidence interval.
With -count 2 or more (and -o), each run is a process of its own (see -in-process).

The converged column says yes when the result converged: ` + convergedRule + `.
It says nearly when the K best samples agree within 2ε, NO otherwise; neither
changes the exit status unless -strict.
A "~" before a cycle figure marks a core-clock ruler that did not converge; a "!"
marks a figure measured on a shared core (another hardware thread had part of it
to the end of the measurement: front-end- and branch-bound code reads slow), which
-strict refuses; a "<" marks a figure measured while the core had more room than
usual (the host's other thread left it for longer than the measurement waits:
calls that overlap the next may read low), on which -strict fails the run.`

func runRun(args []string, stdout, stderr io.Writer) error {
	if err := checkPaths(args); err != nil {
		return err
	}
	if packageArgs(args) { // cyclebench run ./mypkg: go test's benchmarks
		return runPackages(args, stdout, stderr)
	}
	s := newSession("run", "[-bench REGEXP] [-n N] [-count N] [-format table|bench|json|csv] [-o FILE] [flags]", runDescription, stdout)
	s.fs.more = func() string { return packageHelp("run") }
	start := time.Now()
	fs := s.fs
	bench := fs.String("bench", "", "`REGEXP` selecting kernels by name (default: the default kernels, those that take a few seconds in all; see -list)")
	n := fs.Int("n", 0, "size `N` of every selected kernel (default: each kernel's own)")
	count := fs.Int("count", 1, fmt.Sprintf("measure each kernel `N` times, 1 to 10000 (default 1; %d with -o FILE, so that two saved\nruns compare by the spread between runs: cyclebench compare old.json new.json)", results.FileRuns))
	list := fs.Bool("list", false, "list the kernels with their sizes and exit")
	dataOffset := fs.Int("data-offset", -1, "start each kernel's input `BYTES` past a 4 KiB boundary, 0 to 4088 in steps of 8; -1 leaves it\nwhere Go puts it, the same in every process of one build (the offset moves some kernels'\nfigures: docs/measurements/layouts.sh)")
	inProcess := inProcessFlag(fs)
	var seeds []int64
	fs.Var(layoutsValue{&seeds}, "layouts", "from a source checkout of cyclebench: rebuild it in `L` code layouts (go build -ldflags=-randlayout=N,\n"+
		"N from 1 to L) and take each run in a process of its own layout's build, at least L runs (default 0: this binary)")
	s.o = addOutputFlags(fs, stdout, stderr, true, resultFormats...)
	s.mf = addMeasureFlags(fs, true)
	fs.example("cyclebench run", "every default kernel, as a table")
	fs.example("cyclebench run -bench 'Psum|Combine4' -n 1000 -mode both", "two kernels at n = 1000, throughput and latency side by side")
	fs.example("cyclebench run -o new.json", fmt.Sprintf("%d runs of every default kernel, in JSON (from the extension); then cyclebench compare old.json new.json", results.FileRuns))
	fs.example("cyclebench run -bench SortInts -count 6 -o new.txt", "six runs in the Go benchmark format (from the extension); then benchstat old.txt new.txt")
	var kernels []benchexamples.Kernel
	if err := s.open(args, false, func() (err error) {
		if *list {
			return errList
		}
		if s.o.path != "" && given(fs, "count") == "" {
			*count = results.FileRuns
		}
		if kernels, err = benchexamples.Select(*bench); err != nil {
			return kernelError("-bench", *bench, err)
		}
		if err := benchexamples.CheckDataOffset(*dataOffset); err != nil {
			return kernelError("-data-offset", fmt.Sprint(*dataOffset), err)
		}
		if *bench == "" {
			kernels = slices.DeleteFunc(kernels, func(k benchexamples.Kernel) bool { return slowKernels[k.Name] != "" })
		}
		if *n < 0 {
			return usageErrorf("-n %d: out of range (allowed: 0 for each kernel's default, or a positive size)", *n)
		}
		if *count < 1 || *count > 10000 {
			return usageErrorf("-count %d: out of range (allowed: 1 to 10000)", *count)
		}
		return nil
	}); errors.Is(err, errList) {
		return listKernels(stdout)
	} else if err != nil {
		return err
	}
	defer s.close()
	child, err := childRun(os.Getenv(childEnv))
	if err != nil {
		return err
	}
	perRun := len(kernels) * len(s.mf.modes())
	total, done := perRun**count, 0 // done: the measurements of the runs before this process's
	if child != nil {
		total, done, *count = perRun*child.count, perRun*child.index, 1
	}
	var rs []results.Measurement
	var runSeeds []int64
	switch {
	case child == nil && len(seeds) > 0:
		if *inProcess {
			return usageErrorf("-layouts and -in-process: each layout is a build of its own, so its runs cannot share this process")
		}
		if rs, runSeeds, err = s.runKernelLayouts(*count, seeds); err != nil {
			return err
		}
		total = perRun * max(*count, len(seeds))
	case child == nil && *count >= 2 && !*inProcess:
		rs, err = s.runProcesses(*count)
	}
	if startErr := err; len(seeds) == 0 && (child != nil || *count < 2 || *inProcess || gotest.CannotStart(err)) {
		if rs, err = s.measureKernels(kernels, *n, *dataOffset, *count, done, total); startErr != nil {
			s.h.Warnings = append(s.h.Warnings, gotest.SharedProcessWarning(startErr))
		}
	}
	if err != nil {
		return err
	}
	if child != nil { // hand the results to the parent; the signal's exit status after one
		s.partial(" in a child process", "")
		if err := gotest.WriteProcessRun(stdout, gotest.ProcessRun{PID: os.Getpid(), Header: s.h, Measurements: rs}); err != nil || s.in.exitCode() == 0 {
			return err
		}
		return &exitError{code: s.in.exitCode()}
	}
	s.partial(fmt.Sprintf(" after %d of %d measurements", len(rs), total), "; the last one stopped before it converged")
	s.h.Provenance = kernelProvenance(start)
	s.h.Provenance.LayoutSeeds = runSeeds
	if err := s.o.emit(func(w io.Writer) error { return writeResults(w, s.o.format, s.h, rs) }); err != nil {
		return err
	}
	s.o.warnResults(reports.ResultWarnings(s.h, rs))
	return s.o.status(s.in, results.Failure(rs, s.o.strict, s.cfg.MaxTime, "results"))
}

// measureKernels measures count runs of kernels at size n (0: each
// kernel's own), their inputs at offset (-1: Go's placement; the header
// says which), in this process, after calibrating; its progress lines
// count done measurements before them, of total. After a signal it
// returns what it measured, the last one marked when it was cut short.
func (s *session) measureKernels(kernels []benchexamples.Kernel, n, offset, count, done, total int) ([]results.Measurement, error) {
	// A signal while the counter is calibrated stops the run before it
	// measures, leaving -o untouched.
	if err := s.calibrate("run"); err != nil {
		return nil, err
	}
	if code := s.in.exitCode(); code != 0 {
		return nil, &exitError{code: code}
	}
	if offset >= 0 {
		if s.h.Extra == nil {
			s.h.Extra = map[string]string{}
		}
		s.h.Extra["data-offset"] = fmt.Sprintf("%d bytes past a 4 KiB boundary", offset)
	}
	prog := newProgress(s.o)
	defer prog.done()
	var rs []results.Measurement
	modes := s.mf.modes()
measuring:
	for rep := 0; rep < count; rep++ {
		for _, k := range kernels {
			size := k.DefaultN
			if n > 0 {
				size = n
			}
			inst, err := k.NewAt(size, offset)
			if err != nil {
				return nil, kernelError("-n", fmt.Sprint(size), err)
			}
			// The output is checked below, into the result's Check field.
			check := inst.Check
			inst.Check = nil
			for _, mode := range modes {
				c := s.cfg
				c.Mode = mode
				st := step{what: fmt.Sprintf("run %s (%s)", inst.Name, mode), done: done + len(rs), total: total, unit: "measurements", cap: c.MaxTime, perUnit: true}
				prog.set(st)
				ctx := harness.WithProgress(s.in.ctx, func(p harness.Progress) {
					st.detail = fmt.Sprintf("%d samples, spread %s", p.Samples, spreadText(p.Spread))
					st.elapsed = p.Elapsed
					prog.set(st)
				})
				res, err := harness.Measure(ctx, c, inst)
				m := results.Measurement{Result: res, Kernel: k.Name, N: size, Unit: k.Unit, Check: "ok", Bench: results.BenchName(inst.Name, mode), PerElement: inst.Elements > 0, PID: os.Getpid()}
				if err != nil {
					if s.in.exitCode() == 0 {
						return nil, fmt.Errorf("%s: %w", inst.Name, err)
					}
					// Interrupted: keep what this measurement had, marked.
					if res.Samples > 0 && res.Ticks > 0 {
						m.Converged = false
						m.Warnings = append(m.Warnings, fmt.Errorf("interrupted after %d samples: not converged", res.Samples))
						rs = append(rs, m)
					}
					break measuring
				}
				if err := check(); err != nil {
					m.Check = err.Error()
				}
				rs = append(rs, m)
				prog.finished(fmt.Sprintf("run %d/%d %s: %s, %s", done+len(rs), total, st.what[len("run "):], figureText(m), convergedWords(m.Result)))
			}
		}
	}
	return rs, nil
}

// errList is what run's checks return for -list: list the kernels
// instead of measuring.
var errList = errors.New("list the kernels")

// slowKernels are left out of run's default selection, with the reason:
// every result takes at least 32 calls (16 rounds of the engine, two
// samples each), so a kernel whose call takes tens of milliseconds alone
// would hold the default selection far beyond its budget of 3 seconds.
// -bench names them.
var slowKernels = map[string]string{
	"SortInts": "about 70 ms a call: 2.3 s for the 32 calls a result takes at least",
}

// convergedWords says in words whether r converged, for a progress line.
func convergedWords(r harness.Result) string {
	switch reports.ConvergedText(r).Text {
	case "yes":
		return "converged"
	case "nearly":
		return "nearly converged (within 2ε)"
	}
	return "did not converge"
}

// figureText is a result's main figure for a progress line: cycles per
// call, or ticks without a cycle estimate.
func figureText(m results.Measurement) string {
	if m.CyclesPerTick > 0 {
		return sig(m.Cycles, 6) + " cycles"
	}
	return sig(m.Ticks, 6) + " ticks"
}

// spreadText formats a K-best spread for the progress line ("-" before K
// samples, when it is NaN).
func spreadText(v float64) string {
	if s, ok := reports.SpreadCell(v).(shown); ok {
		return s.Text
	}
	return "-"
}

// listKernels prints every kernel with its default size and whether the
// default selection includes it.
func listKernels(w io.Writer) error {
	t := kvTable()
	for _, k := range benchexamples.All() {
		def := ""
		switch {
		case !k.Default:
			def = " (not in the default selection)"
		case slowKernels[k.Name] != "":
			def = " (not in the default selection: " + slowKernels[k.Name] + ")"
		}
		t.KV(k.Name, "n=%d %s, %s%s", k.DefaultN, k.Unit, withoutSeeds.Replace(k.Description), def)
	}
	return t.WriteText(w)
}

// withoutSeeds rewords the kernels' descriptions, which call the example
// programs they come from "seeds", a word the user was never told.
var withoutSeeds = strings.NewReplacer("the seed's", "the original's", "in the seed", "in the original program", "the seed", "the original program")
