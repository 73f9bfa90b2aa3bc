package main

import (
	"io"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/internal/pinned"
)

const calibrateDescription = `
calibrate measures the counter frequency on a thread pinned to one CPU.
bracket (the default) reads the monotonic clock between two counter reads
many times at each end of the interval and keeps the tightest bracket: a
fraction of a ppm in 100ms. sleep is the textbook method: ticks across a
sleep divided by the time asked for, biased high by the sleep's overshoot.
both runs bracket, then sleep, and reports how far sleep is from bracket.
Each figure is compared with every other source this machine offers.`

// Values of calibrate -method beyond calibrate's own.
const methodBoth = "both"

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("calibrate", "[-duration D] [-method bracket|sleep|both] [-json] [-cpu N]", calibrateDescription, stderr)
	duration := fs.Duration("duration", calibrate.DefaultOptions.Duration, "calibration interval of each method")
	method := choiceFlag(fs, "method", calibrate.MethodBracket, "`method` used to measure the frequency", calibrate.MethodBracket, calibrate.MethodSleep, methodBoth)
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	cpu := cpuFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	if err := checkCalibrationDuration(*duration); err != nil {
		return err
	}
	r, err := gatherCalibration(*cpu, *duration, *method)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, r)
	}
	return r.writeText(stdout)
}

// calibrateReport is what calibrate prints.
type calibrateReport struct {
	Counter   string          `json:"counter"`
	PinnedCPU int             `json:"pinned_cpu"`
	Methods   []frequencyJSON `json:"methods"`
	// SleepVsBracketPPM is (sleep − bracket) / bracket in ppm, for -method both.
	SleepVsBracketPPM *float64 `json:"sleep_vs_bracket_ppm,omitempty"`
	Warnings          []string `json:"warnings"`
}

// frequencyJSON is one calibrate.Frequency.
type frequencyJSON struct {
	Method      string           `json:"method"`
	Hz          float64          `json:"hz"`
	PPM         float64          `json:"ppm"`
	Source      string           `json:"source"`
	Seconds     float64          `json:"interval_seconds"`
	Ticks       uint64           `json:"ticks"`
	Brackets    *[2]uint64       `json:"bracket_ticks,omitempty"` // start and end widths, bracket only
	CrossChecks []crossCheckJSON `json:"cross_checks"`
}

// gatherCalibration measures with method on a thread pinned to cpu.
func gatherCalibration(cpu int, d time.Duration, method string) (*calibrateReport, error) {
	var r *calibrateReport
	var warnings []error
	var hz = map[string]float64{}
	err := onThread(cpu, func(th *pinned.Thread) error {
		c := sys.detectCPU()
		r = &calibrateReport{Counter: c.Counter, PinnedCPU: th.CPU}
		warnings = append(warnings, th.Warnings...)
		return measureMethods(r, c, d, method, hz, &warnings)
	})
	if err != nil {
		return nil, err
	}
	if method == methodBoth {
		diff := ppmDiff(hz[calibrate.MethodSleep], hz[calibrate.MethodBracket])
		r.SleepVsBracketPPM = &diff
	}
	r.Warnings = errorStrings(warnings)
	return r, nil
}

// measureMethods measures the frequency with method (or both) into r, on
// the pinned thread.
func measureMethods(r *calibrateReport, c calibrate.CPU, d time.Duration, method string, hz map[string]float64, warnings *[]error) error {
	for _, m := range []string{calibrate.MethodBracket, calibrate.MethodSleep} {
		if method != m && method != methodBoth {
			continue
		}
		measure := sys.bracket
		if m == calibrate.MethodSleep {
			measure = sys.sleep
		}
		f, err := measure(d)
		if err != nil {
			return err
		}
		sys.crossChecks(&f, c)
		fj := frequencyJSON{
			Method:      f.Method,
			Hz:          f.Hz,
			PPM:         f.PPM,
			Source:      f.Source,
			Seconds:     f.Duration.Seconds(),
			Ticks:       f.Ticks,
			CrossChecks: crossChecks(f),
		}
		if f.Method == calibrate.MethodBracket {
			b := f.Brackets
			fj.Brackets = &b
		}
		r.Methods = append(r.Methods, fj)
		*warnings = append(*warnings, f.Warnings...)
		hz[m] = f.Hz
	}
	return nil
}

// writeText prints one block per method, the sleep-vs-bracket difference,
// and the warnings.
func (r *calibrateReport) writeText(w io.Writer) error {
	var t table
	row := t.row
	row("counter", "%s", r.Counter)
	if r.PinnedCPU >= 0 {
		row("pinned_cpu", "%d", r.PinnedCPU)
	} else {
		row("pinned_cpu", "none (pinning unsupported)")
	}
	for _, m := range r.Methods {
		t.blank()
		row("method", "%s", m.Method)
		row("tsc_hz", "%s", formatHz(m.Hz))
		row("tsc_hz_ppm", "±%s", sig(m.PPM, 3))
		row("source", "%s", m.Source)
		row("interval", "%.6fs", m.Seconds)
		row("ticks", "%d", m.Ticks)
		if m.Brackets != nil {
			row("bracket_ticks", "start %d, end %d", m.Brackets[0], m.Brackets[1])
		}
		if len(m.CrossChecks) == 0 {
			row("cross_check", "none available")
		}
		for _, c := range m.CrossChecks {
			row("cross_check", "%s ppm: %.0f Hz from %s", signedSig(c.DiffPPM, 3), c.Hz, c.Source)
		}
	}
	if r.SleepVsBracketPPM != nil {
		t.blank()
		row("sleep_vs_bracket", "%s ppm", signedSig(*r.SleepVsBracketPPM, 4))
	}
	if len(r.Warnings) > 0 {
		t.blank()
	}
	for _, wn := range r.Warnings {
		row("warning", "%s", wn)
	}
	return t.write(w)
}
