package results

import (
	"slices"
)

// Family is one benchmark swept over sizes: the entries whose names differ
// only in their size part ("Sum/n=100", "Sum/n=200", ...), with the same
// package and mode. It is what a CPE fit of cost against n takes.
type Family struct {
	// Name is the entries' name without the size part: "Combine4",
	// "Sum/acc=4" for "Sum/n=100/acc=4".
	Name string
	// Pkg is the entries' package ("" outside go test files).
	Pkg string
	// Mode is the entries' mode.
	Mode string
	// SizeKey is the key of the size part ("n", "size", "len",
	// "elements").
	SizeKey string
	// Unit is what the sizes count, from the first entry that says
	// ("elements"); "" when none does.
	Unit string
	// Points holds one point per size, by increasing size.
	Points []Point
}

// Point is one size of a family with every run measured at that size.
type Point struct {
	// N is the size.
	N int64
	// Name is the name of the first entry of this size ("Sum/n=100").
	Name string
	// Runs are the runs of every entry of this size, in the order given.
	Runs []Run
}

// Sizes returns the family's sizes, increasing.
func (f Family) Sizes() []int64 {
	out := make([]int64, len(f.Points))
	for i, p := range f.Points {
		out[i] = p.N
	}
	return out
}

// families groups entries into families: entries with a size part
// ([ParseName]: n=, size=, len=, elements=; or an entry whose SizeKey is
// set though its name has no size part) and the same name without it,
// package, mode and size key form one family. Entries of the same family
// and size pool their runs (several files of one machine, or -count runs
// written as separate entries). Entries without a size are left out. The
// families come in the order their first entry appears, their points by
// increasing size; a family may have a single point (a fit needs at least
// three, which is the caller's to judge). families is pure: it keeps no
// reference to entries' slices.
func families(entries []Entry) []Family {
	type key struct{ name, pkg, mode, sizeKey string }
	var out []Family
	index := map[key]int{}
	for _, e := range entries {
		nm := ParseName(e.Name)
		base, sizeKey, n := nm.Base, nm.SizeKey, nm.N
		if !nm.HasSize() {
			if e.SizeKey == "" {
				continue
			}
			base, sizeKey, n = nm.Full, e.SizeKey, e.N
		}
		mode := e.Mode
		if mode == "" {
			mode = Throughput
		}
		k := key{base, e.Pkg, mode, sizeKey}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Family{Name: base, Pkg: e.Pkg, Mode: mode, SizeKey: sizeKey})
		}
		fam := &out[i]
		if fam.Unit == "" {
			fam.Unit = e.Unit
		}
		j := slices.IndexFunc(fam.Points, func(p Point) bool { return p.N == n })
		if j < 0 {
			fam.Points = append(fam.Points, Point{N: n, Name: e.Name})
			j = len(fam.Points) - 1
		}
		fam.Points[j].Runs = append(fam.Points[j].Runs, e.Runs...)
	}
	for i := range out {
		slices.SortStableFunc(out[i].Points, func(a, b Point) int {
			switch {
			case a.N < b.N:
				return -1
			case a.N > b.N:
				return 1
			}
			return 0
		})
	}
	return out
}

// Entries turns the family back into entries, one per size ([families]
// makes the family of them again).
func (fam Family) Entries() []Entry {
	var es []Entry
	for _, p := range fam.Points {
		es = append(es, Entry{Name: p.Name, Pkg: fam.Pkg, Kernel: fam.Name, SizeKey: fam.SizeKey, N: p.N, Mode: fam.Mode, Unit: fam.Unit, Runs: p.Runs})
	}
	return es
}
