package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// hzTolerance is how far two files' counter frequencies may differ and
// still be one machine's: 100 ppm, far above what one machine's
// calibration moves between runs (the bracket method's ≈ 0.1 ppm, see
// DESIGN.md's "Frequency calibration") and far below the gap between two
// machine models.
const hzTolerance = 100e-6

// sameMachine reports whether two files say they were measured on one
// machine with one toolchain: the same CPU name, vendor, family, model and
// stepping, hypervisor, counter, logical CPUs, Go version and platform,
// and counter frequencies within 100 ppm. A field one file gives and the
// other does not differs: two EPYC guests of different generations share
// a CPU name and a 2596 MHz counter, and an older file without the family
// cannot tell them apart. Files that give no CPU name are never the same
// machine. Measured figures (cycles per tick) are not compared: they move
// from run to run.
func sameMachine(a, b Machine) bool {
	if strings.TrimSpace(a.CPU) == "" || strings.TrimSpace(a.CPU) != strings.TrimSpace(b.CPU) {
		return false
	}
	hz := a.CounterHz == b.CounterHz || math.Abs(a.CounterHz-b.CounterHz) <= hzTolerance*math.Max(a.CounterHz, b.CounterHz)
	return a.Vendor == b.Vendor && a.Family == b.Family && a.Model == b.Model && a.Stepping == b.Stepping &&
		a.Hypervisor == b.Hypervisor && a.Counter == b.Counter && a.LogicalCPUs == b.LogicalCPUs &&
		a.GoVersion == b.GoVersion && a.GOOS == b.GOOS && a.GOARCH == b.GOARCH && hz
}

// groupMachines sorts files into groups measured on one machine
// ([sameMachine] with the group's first file), in the order the files
// come: each group lists indices into files. A file with CPE fits (a cpe
// report: one sweep, whose fit cannot be pooled with another's) is a
// group of its own.
func groupMachines(files []File) [][]int {
	var groups [][]int
	for i, f := range files {
		placed := false
		for g, idx := range groups {
			first := files[idx[0]]
			if len(f.Fits) == 0 && len(first.Fits) == 0 && sameMachine(first.Machine, f.Machine) {
				groups[g] = append(groups[g], i)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []int{i})
		}
	}
	return groups
}

// Merge pools files measured on one machine into one File, as if its runs
// had been written to one file: entries that match (package, name, mode)
// hold the runs of every file, in the order given; the others are added
// in order. Path is the paths joined with " + ", the format, producer,
// command, machine and settings are the first file's (the counter
// frequency and cycles per tick too: each run keeps its own ruler), and
// the notes, absent fields and warnings are those of all the files. It
// returns an error wrapping [ErrBadInput] for no files, files with CPE
// fits, or files that are not [sameMachine]. The files are not modified.
func merge(files []File) (File, error) {
	if len(files) == 0 {
		return File{}, fmt.Errorf("%w: Merge needs at least one file", ErrBadInput)
	}
	out := files[0]
	out.Entries, out.Fits = nil, nil
	out.Notes = append([]string(nil), files[0].Notes...)
	out.Absent = append([]string(nil), files[0].Absent...)
	out.Warnings = append([]error(nil), files[0].Warnings...)
	var paths []string
	index := map[entryKey]int{}
	for i, f := range files {
		if len(f.Fits) > 0 {
			return File{}, fmt.Errorf("%w: %s holds CPE fits, one sweep each: it cannot be pooled with another file", ErrBadInput, f.Path)
		}
		if i > 0 {
			if !sameMachine(files[0].Machine, f.Machine) {
				return File{}, fmt.Errorf("%w: %s (%s) and %s (%s) are not one machine's", ErrBadInput, files[0].Path, files[0].Machine, f.Path, f.Machine)
			}
			for _, n := range f.Notes {
				if !slices.Contains(out.Notes, n) {
					out.Notes = append(out.Notes, n)
				}
			}
			for _, a := range f.Absent {
				if !slices.Contains(out.Absent, a) {
					out.Absent = append(out.Absent, a)
				}
			}
			out.Warnings = append(out.Warnings, f.Warnings...)
		}
		paths = append(paths, f.Path)
		for _, e := range f.Entries {
			k := entryKey{pkg: e.Pkg, name: e.Name, mode: e.Mode}
			if j, ok := index[k]; ok {
				if out.Entries[j].Unit == "" {
					out.Entries[j].Unit = e.Unit
				}
				out.Entries[j].Runs = append(out.Entries[j].Runs, e.Runs...)
				continue
			}
			index[k] = len(out.Entries)
			e.Runs = append([]Run(nil), e.Runs...)
			out.Entries = append(out.Entries, e)
		}
	}
	out.Path = strings.Join(paths, " + ")
	return out, nil
}

// Pooled is files pooled by machine ([Pool]): one File per column.
type Pooled struct {
	// Files are the columns' files: a file alone, or the Merge of a
	// machine's files.
	Files []File
	// Names are the columns' names: the given names, a pooled column's
	// names joined with "+"; nil when no name was given and nothing was
	// pooled ([Matrix] makes them then).
	Names []string
	// Baseline is the column of the baseline file.
	Baseline int
	// Notes say what was pooled, one sentence per pooled column.
	Notes []string
}

// Pool merges the files of one machine into one column's runs, so that
// the runs of a machine measured several times are the runs of one
// column: with names (one per file), the files given one name are pooled
// and must be one machine's; without, the files [groupMachines] puts
// together. baseline is the index of the baseline file in files. Errors
// wrap [ErrBadInput]: names that do not fit the files, a baseline out of
// range, files of one name that are not one machine's.
func Pool(files []File, names []string, baseline int) (Pooled, error) {
	if len(names) > 0 && len(names) != len(files) {
		return Pooled{}, fmt.Errorf("%w: %d names for %d files (want one per file)", ErrBadInput, len(names), len(files))
	}
	if baseline < 0 || baseline >= len(files) {
		return Pooled{}, fmt.Errorf("%w: baseline index %d: want 0 to %d, one of the %d files", ErrBadInput, baseline, len(files)-1, len(files))
	}
	var groups [][]int
	if len(names) > 0 {
		at := map[string]int{}
		for i, n := range names {
			if g, ok := at[n]; ok {
				groups[g] = append(groups[g], i)
				continue
			}
			at[n] = len(groups)
			groups = append(groups, []int{i})
		}
	} else {
		groups = groupMachines(files)
	}
	if len(groups) == len(files) {
		return Pooled{Files: files, Names: names, Baseline: baseline}, nil
	}
	if len(names) == 0 {
		names = shortNames(pathsOf(files))
	}
	var p Pooled
	for g, idx := range groups {
		if slices.Contains(idx, baseline) {
			p.Baseline = g
		}
		if len(idx) == 1 {
			p.Files, p.Names = append(p.Files, files[idx[0]]), append(p.Names, names[idx[0]])
			continue
		}
		group := make([]File, len(idx))
		var gnames []string
		for k, i := range idx {
			group[k] = files[i]
			if !slices.Contains(gnames, names[i]) {
				gnames = append(gnames, names[i])
			}
		}
		merged, err := merge(group)
		if err != nil {
			return Pooled{}, err
		}
		name := strings.Join(gnames, "+")
		p.Files, p.Names = append(p.Files, merged), append(p.Names, name)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d files of one machine (%s), pooled as the runs of one column: %s",
			name, len(idx), merged.Machine.Label(), strings.Join(pathsOf(group), ", ")))
	}
	return p, nil
}
