package reports

// The warnings of a report, summarized for a person: one line per
// distinct problem per benchmark, each with what may cure it.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
)

// Warning is one problem of one result, as a report carries it.
type Warning struct {
	// Subject names the result ("Sum1/n=800", "Sum4vsSum1"), with its mode
	// after a space when it is latency ("Sum1/n=800 (latency)"); "" for
	// the run as a whole (the calibration, pinning).
	Subject string
	// Text is the warning as the library or go test's log gave it.
	Text string
}

// helperPrefix is what the go test helpers (harness.Report, ReportSweep,
// ReportCompare) put before a warning they log ("harness.ReportSweep:
// warning: ").
var helperPrefix = regexp.MustCompile(`^harness\.Report\w*: warning: `)

// packagePrefix matches the package name a warning's text starts with.
var packagePrefix = regexp.MustCompile(`^(harness|calibrate|affinity|perfevent|cputime|stats|results): `)

// problemOf splits a warning's text into its problem, the sentinel's text
// ("harness: two modes"), and the rest.
func problemOf(text string) (kind, rest string) {
	pkg := packagePrefix.FindString(text)
	kind, rest, _ = strings.Cut(text[len(pkg):], ": ")
	return pkg + kind, rest
}

// cleanWarning drops what a warning's text repeats: the helper's prefix
// and the result's own name after the problem's ("harness: two modes:
// BenchmarkSum1/mode=latency/n=800: the samples ...", where the subject
// says which result it is). A remedy logged with it ("; remedy: ...") is
// taken off and returned apart; else the remedy is harness.Remedy's.
func cleanWarning(subject, text string) (clean, remedy string) {
	text = helperPrefix.ReplaceAllString(text, "")
	text, remedy, _ = strings.Cut(text, "; remedy: ")
	kind, rest := problemOf(text)
	if subject != "" {
		if name, after, ok := strings.Cut(rest, ": "); ok && !strings.ContainsAny(name, " \t") {
			own := results.ParseName(strings.TrimPrefix(name, "Benchmark"))
			subj := results.ParseName(strings.Fields(subject)[0])
			if own.Full == subj.Full || own.Base == subj.Base || strings.HasSuffix(subj.Full, own.Full) {
				text = kind + ": " + after
			}
		}
	}
	if remedy == "" {
		remedy = harness.Remedy(text)
	}
	return text, remedy
}

// Warnings are the warnings of a report of measurements ms under h, as
// WarningLines takes them: h's (with those every measurement carries
// moved there, [HoistWarnings]), then each measurement's failed output
// check and warnings, with the measurement as their subject ("Sum/n=8
// (latency)" for latency).
func Warnings(h results.Header, ms []results.Measurement) []Warning {
	h, ms = h.HoistMeasurements(ms)
	ws := headerWarnings(h)
	for _, m := range ms {
		subject := m.Name
		if m.Mode == harness.Latency {
			subject += " (latency)"
		}
		ws = append(ws, resultWarnings(subject, m.Check, m.Warnings)...)
	}
	return ws
}

// SweepWarnings are the warnings of a report of sweeps ss under h: h's,
// then each sweep's failed check and warnings, and its points'.
func SweepWarnings(h results.Header, ss []*results.Sweep) []Warning {
	ws := headerWarnings(h)
	for _, s := range ss {
		ws = append(ws, resultWarnings(s.Name, s.Check, s.Warnings)...)
		for _, p := range s.Points {
			ws = append(ws, resultWarnings(p.Name, "", p.Warnings)...)
		}
	}
	return ws
}

// PairedWarnings are the warnings of a report of comparisons cs under h:
// h's, then each comparison's.
func PairedWarnings(h results.Header, cs []results.Paired) []Warning {
	ws := headerWarnings(h)
	for _, c := range cs {
		for _, w := range c.Warnings {
			ws = append(ws, Warning{Subject: c.Name, Text: w})
		}
	}
	return ws
}

func headerWarnings(h results.Header) []Warning {
	var ws []Warning
	for _, w := range h.Warnings {
		ws = append(ws, Warning{Text: w})
	}
	return ws
}

// resultWarnings are one result's failed check ("" and "ok" are none)
// and warnings, about subject.
func resultWarnings(subject, check string, errs []error) []Warning {
	var ws []Warning
	if check != "" && check != "ok" {
		ws = append(ws, Warning{Subject: subject, Text: "output check failed: " + check})
	}
	for _, w := range errs {
		ws = append(ws, Warning{Subject: subject, Text: w.Error()})
	}
	return ws
}

// WarningLines summarizes ws for a person: the run's own warnings
// (Subject "") first, each once, and every warning of the calibration
// ("calibrate: ...") among them whichever result carried it; then one
// line per benchmark and problem, however many sizes or runs had it,
// naming them, with the first one's details; each line with its remedy
// (the one logged with it, else harness.Remedy's). Problems counts those
// per-benchmark lines and Benchmarks the benchmarks they are about. The
// helpers' prefix ("harness.ReportSweep: warning: ") and a result's name
// repeated after the problem are left out.
func WarningLines(ws []Warning) (lines []string, problems, benchmarks int) {
	type group struct {
		bench, kind, text, remedy string
		first                     string // the first result's size ("n=800")
		subject                   string // the first result's subject
		sizes                     []string
		count                     int
	}
	var groups []*group
	for _, w := range ws {
		text, remedy := cleanWarning(w.Subject, w.Text)
		if strings.HasPrefix(helperPrefix.ReplaceAllString(w.Text, ""), "calibrate: ") {
			w.Subject = "" // about the machine, whichever result carried it
		}
		if w.Subject == "" {
			if remedy != "" {
				text += "; remedy: " + remedy
			}
			if !slices.Contains(lines, text) {
				lines = append(lines, text)
			}
			continue
		}
		name, mode, _ := strings.Cut(w.Subject, " ")
		nm := results.ParseName(name)
		bench := strings.TrimSpace(nm.Base + " " + mode)
		kind, _ := problemOf(text)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.bench == bench && g.kind == kind })
		if i < 0 {
			groups = append(groups, &group{bench: bench, kind: kind, text: text, remedy: remedy, first: nm.Size(), subject: w.Subject})
			i = len(groups) - 1
		}
		g := groups[i]
		g.count++
		if s := nm.Size(); s != "" && !slices.Contains(g.sizes, s) {
			g.sizes = append(g.sizes, s)
		}
	}
	benches := map[string]bool{}
	for _, g := range groups {
		benches[g.bench] = true
		_, detail := problemOf(g.text)
		var line string
		switch {
		case g.count == 1:
			line = g.subject + ": " + g.text
		default:
			line = fmt.Sprintf("%s: %s in %d results", g.bench, g.kind, g.count)
			if len(g.sizes) > 0 {
				line += " (" + strings.Join(g.sizes, ", ") + ")"
			}
			if detail != "" {
				line += "; the first"
				if g.first != "" {
					line += ", at " + g.first
				}
				line += ": " + detail
			}
		}
		if g.remedy != "" {
			line += "; remedy: " + g.remedy
		}
		lines = append(lines, line)
	}
	return lines, len(groups), len(benches)
}
