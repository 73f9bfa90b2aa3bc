package results

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/cyclebench/cyclebench/harness"
)

// Reading the Go benchmark format. benchfmt reads the results and the
// configuration lines; a second pass over the lines picks up what benchfmt
// skips: cyclebench's "#" lines (exact calibration figures, warnings,
// "# not converged", the cpe fits) and go test's "--- BENCH:" logs.

// benchRun is a run read by benchfmt, where it sits in the file.
type benchRun struct {
	line    int
	rawName string // the name as benchfmt read it ("Combine4/n=200-2")
	entry   int
	run     int
}

// machineKeys are the configuration keys that describe the machine: a
// change of one within a file is worth a warning.
var machineKeys = []string{"cpu", "vendor", "family", "model", "hypervisor", "counter", "goos", "goarch", "go"}

// textTable matches the header line of cyclebench's text table of results
// (run, cpe), which a user may have saved with > FILE.
var textTable = regexp.MustCompile(`(?m)^\s*name\s+cycles\s+ticks\s+ns\b|^cpu: .*  counter: `)

func parseBench(path string, data []byte) (File, error) {
	f := File{Path: path, Format: FormatBench, Producer: ProducerGoTest}
	es := newEntrySet(&f)
	var runs []benchRun
	var firstCfg map[string]string
	changed := map[string]bool{}
	var skipped []error
	var firstBad *benchfmt.SyntaxError
	rd := benchfmt.NewReader(bytes.NewReader(data), path)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			skipped = append(skipped, fmt.Errorf("%w: %w", ErrSkippedLine, rec))
			if firstBad == nil {
				firstBad = rec
			}
		case *benchfmt.Result:
			cfg := fileConfig(rec)
			if firstCfg == nil {
				firstCfg = cfg
				machineFromConfig(&f, cfg)
			} else {
				for _, k := range machineKeys {
					if cfg[k] != firstCfg[k] && !changed[k] {
						changed[k] = true
						_, line := rec.Pos()
						f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s:%d: %s: %q, but %q at the first result: the machine is the first one's", ErrMachineChanged, path, line, k, cfg[k], firstCfg[k]))
					}
				}
			}
			_, line := rec.Pos()
			e, r := benchEntry(rec, cfg["pkg"], f.Producer == ProducerCyclebench)
			r.Line = line
			if err := es.add(e, r); err != nil {
				return File{}, err
			}
			runs = append(runs, benchRun{line: line, rawName: rec.Name.String(), entry: es.last, run: len(f.Entries[es.last].Runs) - 1})
		}
	}
	if err := rd.Err(); err != nil {
		return File{}, fmt.Errorf("results: reading %s: %w", path, err)
	}
	f.Warnings = append(skipped, f.Warnings...)
	if len(runs) == 0 {
		if firstBad != nil {
			return File{}, fmt.Errorf("%w: %s: no benchmark line could be read; the first: %w", ErrNoResults, path, firstBad)
		}
		if textTable.Match(data) {
			return File{}, fmt.Errorf("%w: %s: a cyclebench text table (-format table), whose figures are rounded and unlabelled: save results with -o FILE.json (or FILE.txt, the Go benchmark format)", ErrFormat, path)
		}
		return File{}, fmt.Errorf("%w: %s: neither cyclebench JSON (a file starting with '{') nor the Go benchmark format (lines \"BenchmarkName  N  value unit ...\")", ErrFormat, path)
	}
	if more := machineComments(data); len(more) > 0 {
		for k, v := range firstCfg {
			more[k] = v
		}
		machineFromConfig(&f, more)
	}
	benchComments(&f, data, runs)
	partialWarning(&f)
	return f, nil
}

// fileConfig returns a result's file configuration with keys in lower
// case and '_' read as '-' (so "logical_cpus" and "logical-cpus" are one
// key).
func fileConfig(rec *benchfmt.Result) map[string]string {
	cfg := map[string]string{}
	for _, c := range rec.Config {
		if c.File {
			cfg[strings.ReplaceAll(strings.ToLower(c.Key), "_", "-")] = string(c.Value)
		}
	}
	return cfg
}

// machineFromConfig fills f's machine and settings from a result's
// configuration; a cyclebench header (counter:, tsc-hz:) makes the file
// cyclebench's.
func machineFromConfig(f *File, cfg map[string]string) {
	m := &f.Machine
	num := func(k string) float64 {
		v, _ := strconv.ParseFloat(cfg[k], 64)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return v
	}
	integer := func(k string) int {
		v, _ := strconv.Atoi(cfg[k])
		return v
	}
	m.CPU, m.Vendor, m.Hypervisor, m.Counter = cfg["cpu"], cfg["vendor"], cfg["hypervisor"], cfg["counter"]
	m.Family, m.Model, m.Stepping = integer("family"), integer("model"), integer("stepping")
	m.LogicalCPUs = integer("logical-cpus")
	m.CounterHz, m.CyclesPerTick, m.CounterStep = num("tsc-hz"), num("core-cycles-per-tick"), num("tsc-step")
	m.GOOS, m.GOARCH, m.GoVersion = cfg["goos"], cfg["goarch"], cfg["go"]
	f.Settings = Settings{K: integer("k"), Epsilon: num("eps"), MaxSamples: integer("m")}
	if _, ok := cfg["counter"]; ok {
		f.Producer = ProducerCyclebench
	}
	if _, ok := cfg["tsc-hz"]; ok {
		f.Producer = ProducerCyclebench
	}
}

// reMachineComment matches a "# KEY: VALUE" line of a configuration key
// that a file of results read from go test output carries as a comment
// (see writeConfig).
var reMachineComment = regexp.MustCompile(`^# (vendor|family|model|stepping|logical-cpus|hypervisor|counter|k|eps|m|go): (.*)$`)

// machineComments returns the configuration keys data gives as "# KEY:
// VALUE" lines, nil when it gives none.
func machineComments(data []byte) map[string]string {
	var cfg map[string]string
	for line := range strings.Lines(string(data)) {
		if m := reMachineComment.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil {
			if cfg == nil {
				cfg = map[string]string{}
			}
			cfg[m[1]] = m[2]
		}
	}
	return cfg
}

// benchEntry turns one benchmark line into an entry and a run.
func benchEntry(rec *benchfmt.Result, pkg string, cyclebench bool) (Entry, Run) {
	nm := ParseName(rec.Name.String())
	e := Entry{Name: nm.Full, Pkg: pkg, Kernel: nm.Base, SizeKey: nm.SizeKey, N: nm.N, Mode: nm.Mode}
	if e.Mode == "" {
		e.Mode = Throughput
	}
	r := Run{Iters: rec.Iters, BenchName: rec.Name.String()}
	hasCycles, hasTicks := false, false
	for _, v := range rec.Values {
		unit, val := v.Unit, v.Value
		if v.OrigUnit != "" { // benchfmt tidied it: ns/op to sec/op
			unit, val = v.OrigUnit, v.OrigValue
		}
		switch unit {
		case "cycles/op":
			r.Cycles, hasCycles = val, true
		case "ticks/op":
			r.Ticks, hasTicks = val, true
		case "ns/op":
			r.NS = val
		case "sec/op":
			r.NS = val * 1e9
		case "cycles/elem":
			r.CyclesPerElem = val
		case "ticks/elem":
			r.TicksPerElem = val
		case "ns/elem":
			r.NsPerElem = val
		default:
			r.Other = append(r.Other, Value{Value: val, Unit: unit})
		}
	}
	switch {
	case hasCycles:
	case cyclebench || hasTicks: // cyclebench and harness.Report leave cycles/op out without a ruler
		r.NoCycles = NoRuler
		r.CyclesPerElem = 0
	default:
		r.NoCycles = NotReported
		r.CyclesPerElem = 0
	}
	r.Elements = elementsOf(r, nm)
	if r.Elements == 0 {
		r.CyclesPerElem, r.TicksPerElem, r.NsPerElem = 0, 0, 0
	}
	return e, r
}

// elementsOf recovers the elements per call of a benchmark line from its
// per-call and per-element figures: the name's size when they agree
// within 1% (the figures are rounded: go test prints 4 digits), else the
// ratio, rounded when it is within 0.1% of a whole number.
func elementsOf(r Run, nm Name) float64 {
	var e float64
	switch {
	case r.NsPerElem > 0 && r.NS > 0:
		e = r.NS / r.NsPerElem
	case r.TicksPerElem > 0 && r.Ticks > 0:
		e = r.Ticks / r.TicksPerElem
	case r.CyclesPerElem > 0 && r.Cycles > 0:
		e = r.Cycles / r.CyclesPerElem
	default:
		return 0
	}
	if nm.HasSize() && nm.N > 0 && math.Abs(e/float64(nm.N)-1) < 0.01 {
		return float64(nm.N)
	}
	if rd := math.Round(e); rd > 0 && math.Abs(e-rd) <= 1e-3*e {
		return rd
	}
	return e
}

var (
	reTSCHz   = regexp.MustCompile(`^# tsc-hz measured: ([0-9.eE+-]+) Hz ± ([0-9.eE+-]+) ppm \((.*)\)$`)
	reRuler   = regexp.MustCompile(`^# core-cycles-per-tick measured: ([0-9.eE+-]+)`)
	reStep    = regexp.MustCompile(`^# tsc-step: ([0-9.eE+-]+) ticks`)
	reCPEFit  = regexp.MustCompile(`^# cpe (.+?): ([0-9.eE+-]+) ± ([0-9.eE+-]+) (cycles|ticks|ns)/(\S+) \(95%\), intercept ([0-9.eE+-]+) ± ([0-9.eE+-]+) \S+, R² ([0-9.eE+-]+), outlier sizes \[([0-9 ]*)\]$`)
	reGoLog   = regexp.MustCompile(`^\s+\S+\.go:\d+: `)
	reGoBlock = regexp.MustCompile(`^--- (BENCH|FAIL|SKIP): Benchmark(\S+)`)
)

// benchComments reads the lines benchfmt skips and applies them to f:
// cyclebench's calibration figures, warnings, convergence, output checks
// and cpe fits, and go test's benchmark logs.
func benchComments(f *File, data []byte, runs []benchRun) {
	lines := bytes.Split(data, []byte("\n"))
	// last returns the last run above line (by file order), or nil.
	last := func(line int, rawName string) *Run {
		i := sort.Search(len(runs), func(i int) bool { return runs[i].line >= line }) - 1
		for ; i >= 0; i-- {
			if rawName == "" || runs[i].rawName == rawName {
				return &f.Entries[runs[i].entry].Runs[runs[i].run]
			}
		}
		return nil
	}
	fits := map[string]*Fit{}
	var fitOrder []string
	var block struct {
		kind, name string
		run        *Run
	}
	for i, b := range lines {
		line := i + 1
		s := strings.TrimRight(string(b), "\r")
		if block.kind != "" {
			if (strings.HasPrefix(s, "    ") || strings.HasPrefix(s, "\t")) && strings.TrimSpace(s) != "" {
				msg := strings.TrimSpace(reGoLog.ReplaceAllString(s, ""))
				switch {
				case block.kind == "BENCH" && block.run != nil:
					block.run.Warnings = append(block.run.Warnings, msg)
					// go test output records convergence only in harness's
					// warnings: ErrNotConverged's text is about the figure,
					// ErrNoCycles' "the reference chain did not converge"
					// about the ruler behind its cycles.
					switch {
					case strings.Contains(msg, "harness: did not converge"):
						block.run.NotConverged = true
					case strings.Contains(msg, rulerWarning):
						block.run.RulerNotConverged = true
					case strings.Contains(msg, harness.ErrSharedCore.Error()):
						block.run.Shared = true
					case strings.Contains(msg, harness.ErrRoom.Error()):
						block.run.Room = true
					case strings.Contains(msg, harness.ErrNoFloor.Error()):
						block.run.Quantile = harness.Quantile
					}
				default:
					f.Notes = append(f.Notes, fmt.Sprintf("Benchmark%s: %s: %s", block.name, strings.ToLower(block.kind), msg))
				}
				continue
			}
			block.kind = ""
		}
		if m := reGoBlock.FindStringSubmatch(s); m != nil {
			block.kind, block.name, block.run = m[1], m[2], nil
			if m[1] == "BENCH" {
				block.run = last(line, m[2])
			}
			continue
		}
		if !strings.HasPrefix(s, "#") {
			continue
		}
		before := len(runs) == 0 || line < runs[0].line
		switch {
		case reTSCHz.MatchString(s):
			m := reTSCHz.FindStringSubmatch(s)
			if hz, err := strconv.ParseFloat(m[1], 64); err == nil && hz > 0 {
				f.Machine.CounterHz = hz
			}
			f.Machine.CounterHzPPM, _ = strconv.ParseFloat(m[2], 64)
			f.Machine.CounterHzSource = m[3]
			f.Producer = ProducerCyclebench
		case reRuler.MatchString(s):
			if v, err := strconv.ParseFloat(reRuler.FindStringSubmatch(s)[1], 64); err == nil {
				f.Machine.CyclesPerTick = v
			}
		case reStep.MatchString(s):
			if v, err := strconv.ParseFloat(reStep.FindStringSubmatch(s)[1], 64); err == nil {
				f.Machine.CounterStep = v
			}
		case strings.HasPrefix(s, "# partial: "):
			f.Partial = strings.TrimPrefix(s, "# partial: ")
		case strings.HasPrefix(s, "# warning: ") && before:
			f.Notes = append(f.Notes, strings.TrimPrefix(s, "# warning: "))
		case strings.HasPrefix(s, "# warning: "):
			if r := last(line, ""); r != nil {
				r.Warnings = append(r.Warnings, strings.TrimPrefix(s, "# warning: "))
				r.Shared = r.Shared || strings.Contains(s, harness.ErrSharedCore.Error())
				r.Room = r.Room || strings.Contains(s, harness.ErrRoom.Error())
				if strings.Contains(s, harness.ErrNoFloor.Error()) {
					r.Quantile = harness.Quantile
				}
			}
		case strings.HasSuffix(s, rulerLine):
			if r := last(line, ""); r != nil {
				r.RulerNotConverged = true
			}
		case strings.HasPrefix(s, "# not converged: "):
			if r := last(line, ""); r != nil {
				r.NotConverged = true
				r.Warnings = append(r.Warnings, strings.TrimPrefix(s, "# "))
			}
		case strings.HasPrefix(s, "# error: ") && strings.Contains(s, "output check failed: "):
			if r := last(line, ""); r != nil {
				_, r.Check, _ = strings.Cut(s, "output check failed: ")
			}
		case reCPEFit.MatchString(s):
			m := reCPEFit.FindStringSubmatch(s)
			fit := fits[m[1]]
			if fit == nil {
				fit = &Fit{Kernel: m[1], Unit: plural(m[5]), Line: line}
				fits[m[1]] = fit
				fitOrder = append(fitOrder, m[1])
			}
			fl := FitLine{}
			fl.PerElement, _ = strconv.ParseFloat(m[2], 64)
			fl.PerElementCI, _ = strconv.ParseFloat(m[3], 64)
			fl.Intercept, _ = strconv.ParseFloat(m[6], 64)
			fl.InterceptCI, _ = strconv.ParseFloat(m[7], 64)
			fl.R2, _ = strconv.ParseFloat(m[8], 64)
			for _, w := range strings.Fields(m[9]) {
				if n, err := strconv.ParseInt(w, 10, 64); err == nil {
					fl.OutlierSizes = append(fl.OutlierSizes, n)
				}
			}
			switch m[4] {
			case "cycles":
				fit.Cycles = fl
			case "ticks":
				fit.Ticks = fl
			case "ns":
				fit.NS = fl
			}
		}
	}
	for _, k := range fitOrder {
		fit := fits[k]
		fit.Mode = Throughput
		first := true
		for _, e := range f.Entries {
			if e.Kernel != fit.Kernel || e.SizeKey == "" {
				continue
			}
			if first {
				fit.Mode, first = e.Mode, false
			}
			if e.Mode == fit.Mode {
				fit.Sizes = append(fit.Sizes, e.N)
			}
		}
		for _, fl := range []*FitLine{&fit.Cycles, &fit.Ticks, &fit.NS} {
			if fl.PerElement != 0 || fl.R2 != 0 {
				fl.N = len(fit.Sizes)
			}
		}
		f.Fits = append(f.Fits, *fit)
	}
}

// plural turns the element word of a fit ("element", "op") into the unit
// of a kernel ("elements", "ops").
func plural(w string) string {
	if w == "" || strings.HasSuffix(w, "s") {
		return w
	}
	return w + "s"
}
