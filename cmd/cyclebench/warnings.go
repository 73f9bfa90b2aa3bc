package main

// Warnings on stderr: one line per distinct problem per benchmark, each
// with what may cure it, and a count at the end.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/results"
)

// warning is one problem of one result.
type warning struct {
	// subject names the result ("Sum1/n=800", "Sum4vsSum1"), with its mode
	// after a space when it is latency ("Sum1/n=800 (latency)"); "" for
	// the run as a whole (the calibration, pinning).
	subject string
	text    string
}

// headerWarnings are the warnings of a run as a whole, from its header.
func headerWarnings(h results.Header) []warning {
	var ws []warning
	for _, w := range h.Warnings {
		ws = append(ws, warning{text: w})
	}
	return ws
}

// helperPrefix is what earlier versions of the go test helpers put before
// a warning ("harness.ReportSweep: warning: ").
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

// warnResults prints ws on stderr unless -q: the run's own warnings
// (subject "") first, each once; then one line per benchmark and problem,
// however many sizes or runs had it, naming them, with the first one's
// details and the remedy; and, when any benchmark had a problem, how many
// problems in how many benchmarks.
func (o *out) warnResults(ws []warning) {
	if o.quiet {
		return
	}
	type group struct {
		bench, kind, text, remedy string
		first                     string // the first result's size ("n=800")
		subject                   string // the first result's subject
		sizes                     []string
		count                     int
	}
	var general []string
	var groups []*group
	for _, w := range ws {
		text, remedy := cleanWarning(w.subject, w.text)
		if strings.HasPrefix(helperPrefix.ReplaceAllString(w.text, ""), "calibrate: ") {
			w.subject = "" // about the machine, whichever result carried it
		}
		if w.subject == "" {
			if remedy != "" {
				text += "; remedy: " + remedy
			}
			if !slices.Contains(general, text) {
				general = append(general, text)
			}
			continue
		}
		name, mode, _ := strings.Cut(w.subject, " ")
		nm := results.ParseName(name)
		bench := strings.TrimSpace(nm.Base + " " + mode)
		kind, _ := problemOf(text)
		i := slices.IndexFunc(groups, func(g *group) bool { return g.bench == bench && g.kind == kind })
		if i < 0 {
			groups = append(groups, &group{bench: bench, kind: kind, text: text, remedy: remedy, first: nm.Size(), subject: w.subject})
			i = len(groups) - 1
		}
		g := groups[i]
		g.count++
		if s := nm.Size(); s != "" && !slices.Contains(g.sizes, s) {
			g.sizes = append(g.sizes, s)
		}
	}
	for _, t := range general {
		o.warn(t)
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
		o.warn(line)
	}
	if len(groups) > 0 {
		o.warn(fmt.Sprintf("%d %s in %d %s, above (-q leaves warnings out)", len(groups), pluralize(len(groups), "problem"), len(benches), pluralize(len(benches), "benchmark")))
	}
}

// pluralize is word, with an s unless n is 1.
func pluralize(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
