package results

// Where a file's measurements came from: the code (module, revision,
// dirty flag), when, by which command line and tool, and in which code
// layouts. Two files measured apart in time each carry the host's
// stretch they were measured in (docs/compare.md), so a comparison of
// files says when they were measured apart.

import (
	"encoding/json"
	"fmt"
	"time"
)

// Provenance is where the measurements of a file came from. It encodes
// as the "provenance" object of a JSON report's header; fields that are
// not known are left out.
type Provenance struct {
	// Module is the module path of the code measured (the main module of
	// the test binary, or cyclebench's own for its kernels).
	Module string `json:"module,omitempty"`
	// Revision is the version-control revision of that code (a git
	// commit), "" when it is not in a repository.
	Revision string `json:"revision,omitempty"`
	// Dirty is set when the working tree had changes the revision does
	// not hold.
	Dirty bool `json:"dirty,omitempty"`
	// Date is when the measuring started (UTC, seconds).
	Date time.Time `json:"date,omitzero"`
	// CommandLine is the command that measured, as typed.
	CommandLine string `json:"command_line,omitempty"`
	// Tool is the version of cyclebench that measured (its module version
	// and, when the build recorded one, its revision).
	Tool string `json:"tool,omitempty"`
	// LayoutSeeds is the code layout of each run, in run order: the seed
	// given to the linker's -randlayout, 0 for the linker's default
	// layout. Empty when every run used the one binary's layout.
	LayoutSeeds []int64 `json:"layout_seeds,omitempty"`
}

// Line is the provenance in one line: "github.com/me/pkg at 1a2b3c4d
// (dirty), 2026-11-27 18:20 UTC, cyclebench v0.3.0", the parts it knows.
func (p Provenance) Line() string {
	s := p.Module
	if p.Revision != "" {
		s += " at " + ShortRevision(p.Revision)
		if p.Dirty {
			s += " (dirty)"
		}
	}
	if !p.Date.IsZero() {
		if s != "" {
			s += ", "
		}
		s += p.Date.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if p.Tool != "" {
		s += ", cyclebench " + p.Tool
	}
	if n := len(p.LayoutSeeds); n > 0 {
		s += fmt.Sprintf(", %d runs over layouts %v", n, distinctSeeds(p.LayoutSeeds))
	}
	return s
}

// ShortRevision is a revision as a line shows it: its first 12
// characters (a git commit's, unambiguous in any repository of a size
// people measure).
func ShortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// distinctSeeds is seeds without repeats, in the order first seen.
func distinctSeeds(seeds []int64) []int64 {
	var out []int64
	seen := map[int64]bool{}
	for _, s := range seeds {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// readProvenance reads the "provenance" object of a JSON report's
// header into f, when there is one. A malformed one is a warning: the
// measurements stand without it.
func readProvenance(data []byte, f *File) {
	var top struct {
		Provenance *Provenance `json:"provenance"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		f.Warnings = append(f.Warnings, fmt.Errorf("%w: %s: its \"provenance\" cannot be read (%v): where the file came from is unknown", ErrAbsentField, f.Path, err))
		return
	}
	f.Provenance = top.Provenance
}

// MeasuredApart says that a and b were measured at different times,
// how far apart when both files say when, and that their difference
// therefore holds whatever the host did between them, with how to measure
// both sides interleaved. Two files are never interleaved: even seconds
// apart, each holds the host's stretch it was measured in
// (docs/compare.md).
func MeasuredApart(a, b File) string {
	const how = ": the host's slow stretches and each build's code layout move the figures between them. " +
		"To measure two revisions interleaved over several layouts: cyclebench compare -base REF ./PKG"
	if a.Provenance == nil || b.Provenance == nil || a.Provenance.Date.IsZero() || b.Provenance.Date.IsZero() {
		return "the two files were measured one after the other (a file does not say when)" + how
	}
	d := b.Provenance.Date.Sub(a.Provenance.Date).Abs()
	return fmt.Sprintf("the two files were measured %s apart (%s and %s UTC)%s", d.Round(time.Second),
		a.Provenance.Date.UTC().Format(time.DateTime), b.Provenance.Date.UTC().Format(time.DateTime), how)
}
