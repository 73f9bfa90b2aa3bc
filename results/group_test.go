package results

import (
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestSameMachine(t *testing.T) {
	zen4 := Machine{CPU: "AMD EPYC", Vendor: "AuthenticAMD", Family: 25, Model: 17, Stepping: 1, Hypervisor: "KVMKVMKVM", Counter: "rdtsc",
		CounterHz: 2596141819, LogicalCPUs: 2, GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", CyclesPerTick: 1.4219}
	with := func(f func(m *Machine)) Machine { m := zen4; f(&m); return m }
	tests := []struct {
		name string
		b    Machine
		want bool
	}{
		{"itself", zen4, true},
		{"calibrated again", with(func(m *Machine) { m.CounterHz, m.CyclesPerTick = 2596142000, 1.43 }), true},
		{"an older file without family", with(func(m *Machine) { m.Family, m.Model, m.Stepping = 0, 0, 0 }), false},
		{"a go test file", Machine{CPU: "AMD EPYC", GOOS: "linux", GOARCH: "amd64"}, false},
		{"another model", with(func(m *Machine) { m.Model = 1 }), false},
		{"another counter rate", with(func(m *Machine) { m.CounterHz = 2445406000 }), false},
		{"another Go", with(func(m *Machine) { m.GoVersion = "go1.27.0" }), false},
		{"another CPU count", with(func(m *Machine) { m.LogicalCPUs = 4 }), false},
		{"bare metal", with(func(m *Machine) { m.Hypervisor = "" }), false},
		{"no CPU name", Machine{GOOS: "linux"}, false},
	}
	gotest := Machine{CPU: "AMD EPYC", GOOS: "linux", GOARCH: "amd64"}
	if !sameMachine(gotest, gotest) {
		t.Errorf("two go test files of one CPU are not one machine")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameMachine(zen4, tt.b); got != tt.want {
				t.Errorf("SameMachine = %v, want %v", got, tt.want)
			}
			if got := sameMachine(tt.b, zen4); got != tt.want {
				t.Errorf("SameMachine, swapped = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGroupAndMerge: two files of one machine (the same file read twice)
// are one group, the other machines' files groups of their own; merged,
// every entry has the runs of both, in order.
func TestGroupAndMerge(t *testing.T) {
	read := func(name string) File {
		t.Helper()
		f, err := Read(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	zen4 := read("kvm-amd-zen4-run-count3.json")
	zen5 := read("kvm-amd-zen5-run.txt")
	again := zen4
	again.Path = "again.json"
	cpe := read("kvm-amd-zen4-cpe.json")
	files := []File{zen4, zen5, again, cpe}
	got := groupMachines(files)
	want := [][]int{{0, 2}, {1}, {3}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Fatalf("GroupMachines = %v, want %v", got, want)
	}
	m, err := merge([]File{zen4, again})
	if err != nil {
		t.Fatal(err)
	}
	if m.Path != zen4.Path+" + again.json" || len(m.Entries) != len(zen4.Entries) {
		t.Errorf("merged %q with %d entries, want both paths and %d entries", m.Path, len(m.Entries), len(zen4.Entries))
	}
	for i, e := range m.Entries {
		if len(e.Runs) != 2*len(zen4.Entries[i].Runs) || e.Runs[0].Line != zen4.Entries[i].Runs[0].Line {
			t.Errorf("%s: %d runs, want the %d of each file in order", e.Name, len(e.Runs), len(zen4.Entries[i].Runs))
		}
	}
	if len(zen4.Entries[0].Runs) != 3 {
		t.Errorf("Merge changed its input: %d runs", len(zen4.Entries[0].Runs))
	}
	for _, bad := range [][]File{nil, {zen4, zen5}, {zen4, cpe}} {
		if _, err := merge(bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("Merge of %d files: %v, want ErrBadInput", len(bad), err)
		}
	}
}

// TestTextWidth: the text of a matrix fits the width asked for, whatever
// the number of machines and the lengths of their names: the per-element
// columns go first, then the machines are shown in blocks, each with the
// benchmark column; long names become m1, m2, ... with a legend. Only a
// word longer than a line (a path) may stick out.
func TestTextWidth(t *testing.T) {
	names := []string{"kvm-amd-zen5-run.json", "kvm-amd-zen4-run.json", "synthetic-arm64-cntvct-nocycles-run.json",
		"kvm-amd-zen5-run.txt", "kvm-amd-zen4-modes.txt", "kvm-amd-zen4-nocycles.json"}
	files := readAll(t, names...)
	for _, n := range []int{1, 2, 3, 6} {
		for _, width := range []int{80, 100, 140} {
			tab, err := Matrix(files[:n], MatrixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			text := tab.Text(width)
			longest := 0
			for _, l := range strings.Split(text, "\n") {
				if w := len([]rune(l)); w > width && !strings.Contains(l, "testdata/") {
					t.Errorf("%d files at width %d: a line of %d runes: %q", n, width, w, l)
				}
				longest = max(longest, len([]rune(l)))
			}
			for _, r := range tab.Rows {
				if !strings.Contains(text, r.Label()) {
					t.Errorf("%d files at width %d: row %s missing", n, width, r.Label())
				}
			}
			blocks := strings.Count(text, "\nbenchmark ")
			if n == 1 && blocks != 1 {
				t.Errorf("one file at width %d: %d blocks", width, blocks)
			}
			if n == 6 && width == 80 && blocks < 2 {
				t.Errorf("six files at width 80 in %d block", blocks)
			}
		}
	}
	tab, err := Matrix(files[:3], MatrixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.String() != tab.Text(defaultWidth) {
		t.Errorf("String is not Text(defaultWidth)")
	}
	if !regexp.MustCompile(`\n  m3 +synthetic-arm64-cntvct-nocycles: SYNTHETIC`).MatchString(tab.String()) {
		t.Errorf("the legend does not name m3:\n%s", tab)
	}
}

// TestPool: files of one machine pool into one column (by machine, or by
// the names given), the baseline follows its file, a note says what was
// pooled; names that do not fit are bad input.
func TestPool(t *testing.T) {
	zen4 := readTestdata(t, "kvm-amd-zen4-run-count3.json")
	again := zen4
	again.Path = "again.json"
	zen5 := readTestdata(t, "kvm-amd-zen5-run.json")
	files := []File{zen5, zen4, again}
	tests := []struct {
		name     string
		files    []File
		names    []string
		baseline int
		columns  []string // the names of the columns; nil: none given and nothing pooled
		base     int
		notes    int
		err      string
	}{
		{"by machine", files, nil, 2, []string{"kvm-amd-zen5-run", "kvm-amd-zen4-run-count3+again"}, 1, 1, ""},
		{"by name", files, []string{"a", "b", "b"}, 0, []string{"a", "b"}, 0, 1, ""},
		{"nothing to pool", files[:2], nil, 1, nil, 1, 0, ""},
		{"one name, two machines", files, []string{"x", "x", "y"}, 0, nil, 0, 0, "not one machine's"},
		{"names for other files", files, []string{"x", "y"}, 0, nil, 0, 0, "2 names for 3 files"},
		{"baseline out of range", files, nil, 3, nil, 0, 0, "baseline index 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Pool(tt.files, tt.names, tt.baseline)
			if tt.err != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Pool = %v, want ErrBadInput saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Names, tt.columns) || p.Baseline != tt.base || len(p.Notes) != tt.notes {
				t.Errorf("names %q, baseline %d, notes %q; want %q, %d, %d notes", p.Names, p.Baseline, p.Notes, tt.columns, tt.base, tt.notes)
			}
			if tt.notes > 0 && (len(p.Files) != 2 || len(p.Files[1].Entries[0].Runs) != 6) {
				t.Errorf("pooled column: %d files, %d runs of the first entry; want 2 files, 6 runs", len(p.Files), len(p.Files[1].Entries[0].Runs))
			}
		})
	}
}

func TestKeep(t *testing.T) {
	run, cpe := readTestdata(t, "kvm-amd-zen4-run.json"), readTestdata(t, "kvm-amd-zen4-cpe.json")
	tests := []struct {
		f             File
		re            string
		entries, fits int
	}{
		{run, "^Combine", 6, 0},
		{run, "Nope", 0, 0},
		{cpe, "^Psum1", 10, 1},
	}
	for _, tt := range tests {
		k := tt.f.Keep(regexp.MustCompile(tt.re))
		if len(k.Entries) != tt.entries || len(k.Fits) != tt.fits {
			t.Errorf("%s, %q: %d entries, %d fits; want %d, %d", tt.f.Path, tt.re, len(k.Entries), len(k.Fits), tt.entries, tt.fits)
		}
	}
	if n := len(run.Entries); n != 15 {
		t.Errorf("Keep changed the file it was given: %d entries", n)
	}
}
