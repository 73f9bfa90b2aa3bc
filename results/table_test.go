package results

import (
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func readAll(t *testing.T, names ...string) []File {
	t.Helper()
	var fs []File
	for _, n := range names {
		fs = append(fs, readTestdata(t, n))
	}
	return fs
}

// Golden tables: the committed files of the Zen 5 and Zen 4 guests and
// the synthetic arm64 file, in each kind of file.
var goldenSets = []struct {
	name  string
	files []string
	opt   MatrixOptions
}{
	{"three-machines", []string{"kvm-amd-zen5-run.json", "kvm-amd-zen4-run.json", "synthetic-arm64-cntvct-nocycles-run.json"}, DefaultMatrixOptions()},
	{"bench-count3", []string{"kvm-amd-zen5-run.txt", "kvm-amd-zen4-run.txt"}, DefaultMatrixOptions()},
	{"bench-count3-iqr-zen4", []string{"kvm-amd-zen5-run.txt", "kvm-amd-zen4-run.txt"}, MatrixOptions{Baseline: 1, Spread: SpreadIQR, Tie: 0.05}},
	{"cpe", []string{"kvm-amd-zen5-cpe.json", "kvm-amd-zen4-cpe.json"}, DefaultMatrixOptions()},
	{"modes-nocycles", []string{"kvm-amd-zen4-modes.txt", "kvm-amd-zen5-run.json", "kvm-amd-zen4-nocycles.json"}, MatrixOptions{Baseline: 1, Names: []string{"zen4 modes", "zen5", "zen4 no-cycles"}}},
	{"gotest", []string{"kvm-amd-zen4-gotest.txt"}, MatrixOptions{AllSizes: true}},
}

func TestMatrixGolden(t *testing.T) {
	for _, gs := range goldenSets {
		t.Run(gs.name, func(t *testing.T) {
			tb, err := Matrix(readAll(t, gs.files...), gs.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := tb.String()
			path := filepath.Join("testdata", "golden", gs.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("table differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// TestMatrixInvariants checks what holds for every table.
func TestMatrixInvariants(t *testing.T) {
	for _, gs := range goldenSets {
		t.Run(gs.name, func(t *testing.T) {
			files := readAll(t, gs.files...)
			tb, err := Matrix(files, gs.opt)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Matrix(files, gs.opt)
			if !reflect.DeepEqual(tb, again) {
				t.Error("two Matrix calls on the same files differ")
			}
			if len(tb.Columns) != len(files) || tb.Baseline != gs.opt.Baseline {
				t.Fatalf("%d columns, baseline %d", len(tb.Columns), tb.Baseline)
			}
			total := 0
			for _, f := range files {
				total = max(total, len(f.Entries)+len(f.Fits))
			}
			if len(tb.Rows) < total {
				t.Errorf("%d rows, fewer than a file's %d benchmarks", len(tb.Rows), total)
			}
			seen := map[string]bool{}
			for _, r := range tb.Rows {
				if seen[r.Label()] {
					t.Errorf("row %s twice", r.Label())
				}
				seen[r.Label()] = true
				if len(r.Cells) != len(files) {
					t.Fatalf("%s: %d cells", r.Label(), len(r.Cells))
				}
				present := false
				for ci, c := range r.Cells {
					checkCell(t, tb, r, ci, c)
					present = present || !c.Missing
				}
				if !present {
					t.Errorf("%s: missing everywhere", r.Label())
				}
			}
			for _, v := range tb.Verdicts {
				checkVerdict(t, tb, v)
			}
		})
	}
}

func checkCell(t *testing.T, tb *Table, r Row, ci int, c Cell) {
	t.Helper()
	where := r.Label() + " on " + tb.Columns[ci].Name
	if c.Missing {
		if !reflect.DeepEqual(c, Cell{Missing: true}) {
			t.Errorf("%s: missing cell with figures %+v", where, c)
		}
		return
	}
	for _, s := range []Stat{c.Cycles, c.CyclesPerElem, c.NS, c.NsPerElem} {
		if s.N > 0 && !(s.Lo <= s.Median && s.Median <= s.Hi) || s.N > c.Runs {
			t.Errorf("%s: stat %+v of %d runs", where, s, c.Runs)
		}
	}
	if (c.NoCycles == HasCycles) != (c.value().N > 0) {
		t.Errorf("%s: NoCycles %v with cycles %+v", where, c.NoCycles, c.value())
	}
	if !r.Fit && c.NS.N == 0 {
		t.Errorf("%s: no ns", where)
	}
	base := r.Cells[tb.Baseline]
	switch {
	case c.NoCycles != HasCycles || base.Missing || base.NoCycles != HasCycles:
		if c.Ratio != 0 {
			t.Errorf("%s: ratio %v without two cycle figures", where, c.Ratio)
		}
	case ci == tb.Baseline:
		if c.Ratio != 1 {
			t.Errorf("%s: baseline ratio %v", where, c.Ratio)
		}
	default:
		if want := c.value().Median / base.value().Median; math.Abs(c.Ratio-want) > 1e-12*want {
			t.Errorf("%s: ratio %v, want %v", where, c.Ratio, want)
		}
	}
}

func checkVerdict(t *testing.T, tb *Table, v Verdict) {
	t.Helper()
	if len(v.Wins) != len(tb.Columns) || len(v.Rows) < 2 || !strings.HasPrefix(v.Text, v.heading()+": ") {
		t.Errorf("verdict %+v", v)
	}
	for ci, w := range v.Wins {
		if w.Fastest < 0 {
			if w.Variants >= 2 {
				t.Errorf("%s on %s: %d variants and no winner", v.Group, tb.Columns[ci].Name, w.Variants)
			}
			continue
		}
		if w.Factor < 1 || w.SlowFactor < w.Factor || w.Fastest == w.RunnerUp {
			t.Errorf("%s on %s: win %+v", v.Group, tb.Columns[ci].Name, w)
		}
		for _, ri := range v.Rows {
			r := tb.Rows[ri]
			if r.Fit != v.Fit || r.N != v.N || r.Mode != v.Mode {
				t.Errorf("%s: row %s compared at %s", v.Group, r.Label(), v.heading())
			}
		}
	}
}

// file builds a file of one machine from name/value pairs: each value a
// run in cycles per call, or a run without cycles when negative (its ns
// is the absolute value).
func file(path string, entries map[string][]float64, order ...string) File {
	f := File{Path: path, Format: FormatRunJSON, Producer: ProducerCyclebench}
	for _, name := range order {
		nm := ParseName(name)
		e := Entry{Name: nm.Full, Kernel: nm.Base, SizeKey: nm.SizeKey, N: nm.N, Mode: Throughput}
		for _, v := range entries[name] {
			r := Run{Cycles: v, NS: v / 3}
			if v < 0 {
				r = Run{NoCycles: NoRuler, NS: -v}
			}
			e.Runs = append(e.Runs, r)
		}
		f.Entries = append(f.Entries, e)
	}
	return f
}

func TestMatrixCells(t *testing.T) {
	a := file("a.json", map[string][]float64{"K/n=1": {1, 2, 3, 4, 100}, "Only/n=1": {5}}, "K/n=1", "Only/n=1")
	b := file("b.json", map[string][]float64{"K/n=1": {-30}, "New": {7}}, "K/n=1", "New")
	for _, tt := range []struct {
		spread Spread
		lo, hi float64
	}{{SpreadRange, 1, 100}, {SpreadIQR, 2, 4}} {
		t.Run(tt.spread.String(), func(t *testing.T) {
			tb, err := Matrix([]File{a, b}, MatrixOptions{Spread: tt.spread})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range tb.Rows {
				names = append(names, r.Name)
			}
			if strings.Join(names, " ") != "K/n=1 Only/n=1 New" {
				t.Errorf("rows %q: want the first file's order, then the second's new ones", names)
			}
			k := tb.Rows[0].Cells
			if k[0].Cycles != (Stat{N: 5, Median: 3, Lo: tt.lo, Hi: tt.hi}) || k[0].Ratio != 1 {
				t.Errorf("a's K: %+v", k[0])
			}
			if k[1].NoCycles != NoRuler || k[1].NS != (Stat{N: 1, Median: 30, Lo: 30, Hi: 30}) || k[1].Ratio != 0 {
				t.Errorf("b's K: %+v: want ns and no ratio", k[1])
			}
			if !tb.Rows[1].Cells[1].Missing || !tb.Rows[2].Cells[0].Missing || tb.Rows[2].Cells[1].Ratio != 0 {
				t.Errorf("missing cells: %+v, %+v", tb.Rows[1].Cells, tb.Rows[2].Cells)
			}
			if tb.Columns[1].NoCycles != HasCycles { // b's New has cycles
				t.Errorf("b: column NoCycles %v", tb.Columns[1].NoCycles)
			}
			if !strings.Contains(strings.Join(tb.Notes, "\n"), "b has cycles for some rows only") {
				t.Errorf("notes %q", tb.Notes)
			}
		})
	}
}

func TestMatrixVerdicts(t *testing.T) {
	tests := []struct {
		name  string
		files []File
		opt   MatrixOptions
		want  []string
	}{
		{"one winner everywhere",
			[]File{
				file("m1.json", map[string][]float64{"C1/n=8": {80}, "C2/n=8": {40}, "C3/n=8": {8}}, "C1/n=8", "C2/n=8", "C3/n=8"),
				file("m2.json", map[string][]float64{"C1/n=8": {90}, "C2/n=8": {30}, "C3/n=8": {10}}, "C1/n=8", "C2/n=8", "C3/n=8"),
			}, MatrixOptions{},
			[]string{"C n=8: C3 fastest on both machines: m1 (8.00 cycles/op, 5.00× C2), m2 (10.0 cycles/op, 3.00× C2)"}},
		{"winners differ, a tie within Tie, a machine with one variant",
			[]File{
				file("m1.json", map[string][]float64{"S/one": {10}, "S/four": {4}}, "S/one", "S/four"),
				file("m2.json", map[string][]float64{"S/one": {10}, "S/four": {10.1}}, "S/one", "S/four"),
				file("m3.json", map[string][]float64{"S/one": {10}}, "S/one"),
			}, MatrixOptions{Tie: 0.02},
			[]string{"S: four fastest on m1 (4.00 cycles/op, 2.50× one); one fastest on m2 (10.0 cycles/op, tied with four: 1.01×); fewer than two variants on m3"}},
		{"a tie by overlapping spreads, Tie 0",
			[]File{file("m.json", map[string][]float64{"P1": {10, 12, 14}, "P2": {11, 13, 15}}, "P1", "P2")}, MatrixOptions{},
			[]string{"P: P1 fastest on m (12.0 cycles/op, tied with P2: 1.08×)"}},
		{"no tie without overlap, Tie 0",
			[]File{file("m.json", map[string][]float64{"P1": {10, 11}, "P2": {12, 13}}, "P1", "P2")}, MatrixOptions{},
			[]string{"P: P1 fastest on m (10.5 cycles/op, 1.19× P2)"}},
		{"no cycles: ranked by ns",
			[]File{file("m.json", map[string][]float64{"P1": {-5}, "P2": {-2}}, "P1", "P2")}, MatrixOptions{},
			[]string{"P: P2 fastest on m (2.00 ns/op, 2.50× P1)"}},
		{"largest size only, or every size",
			[]File{file("m.json", map[string][]float64{"P1/n=1": {1}, "P2/n=1": {2}, "P1/n=9": {9}, "P2/n=9": {3}, "P3/n=99": {1}}, "P1/n=1", "P2/n=1", "P1/n=9", "P2/n=9", "P3/n=99")}, MatrixOptions{},
			[]string{"P n=9: P2 fastest on m (3.00 cycles/op, 3.00× P1)"}},
		{"every size",
			[]File{file("m.json", map[string][]float64{"P1/n=1": {1}, "P2/n=1": {2}, "P1/n=9": {9}, "P2/n=9": {3}}, "P1/n=1", "P2/n=1", "P1/n=9", "P2/n=9")}, MatrixOptions{AllSizes: true},
			[]string{"P n=1: P1 fastest on m (1.00 cycles/op, 2.00× P2)", "P n=9: P2 fastest on m (3.00 cycles/op, 3.00× P1)"}},
		{"not a group: no digits, or one variant",
			[]File{file("m.json", map[string][]float64{"AddChain": {1}, "ImulChain": {3}, "Sum1": {2}}, "AddChain", "ImulChain", "Sum1")}, MatrixOptions{},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, err := Matrix(tt.files, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range tb.Verdicts {
				got = append(got, v.Text)
				checkVerdict(t, tb, v)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("verdicts\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestMatrixFitRowsFollowTheirKernel(t *testing.T) {
	f := readTestdata(t, "kvm-amd-zen4-cpe.json")
	tb, err := Matrix([]File{f}, MatrixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range tb.Rows {
		if r.Fit != (i%11 == 10) || r.Kernel != tb.Rows[i/11*11].Kernel {
			t.Fatalf("row %d is %s: want each kernel's 10 sizes, then its fit", i, r.Label())
		}
	}
	c := tb.Rows[10].Cells[0]
	if c.CyclesPerElem.Median != f.Fits[0].Cycles.PerElement || math.Abs(c.CyclesPerElem.Hi-c.CyclesPerElem.Median-f.Fits[0].Cycles.PerElementCI) > 1e-12 || c.Cycles.N != 0 {
		t.Errorf("fit cell %+v, fit %+v", c, f.Fits[0].Cycles)
	}
}

func TestMatrixErrors(t *testing.T) {
	one := []File{file("a", map[string][]float64{"K": {1}}, "K")}
	two := append(one, file("b", map[string][]float64{"K": {1}}, "K"))
	tests := []struct {
		name  string
		files []File
		opt   MatrixOptions
		say   string
	}{
		{"no files", nil, MatrixOptions{}, "at least one file"},
		{"baseline below", one, MatrixOptions{Baseline: -1}, "baseline index -1: want 0 to 0"},
		{"baseline above", two, MatrixOptions{Baseline: 2}, "baseline index 2: want 0 to 1"},
		{"tie NaN", one, MatrixOptions{Tie: math.NaN()}, "Tie NaN"},
		{"tie 1", one, MatrixOptions{Tie: 1}, "0 ≤ Tie < 1"},
		{"tie negative", one, MatrixOptions{Tie: -0.1}, "Tie -0.1"},
		{"spread", one, MatrixOptions{Spread: 7}, "Spread 7"},
		{"names count", two, MatrixOptions{Names: []string{"x"}}, "1 names for 2 files"},
		{"names twice", two, MatrixOptions{Names: []string{"x", "x"}}, `"x" given twice`},
		{"name empty", two, MatrixOptions{Names: []string{"x", " "}}, "name 2 is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Matrix(tt.files, tt.opt)
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("err %v: want ErrBadInput saying %q", err, tt.say)
			}
		})
	}
}

func TestVariantOf(t *testing.T) {
	tests := []struct {
		in, group, variant string
		ok                 bool
	}{
		{"Combine4", "Combine", "4", true},
		{"Psum12", "Psum", "12", true},
		{"Sum/one", "Sum", "one", true},
		{"Combine/Combine4", "Combine", "Combine4", true},
		{"a/b/c", "a/b", "c", true},
		{"Sha256", "Sha", "256", true},
		{"AddChain", "", "", false},
		{"SortInts", "", "", false},
		{"42", "", "", false},
		{"/x", "", "", false},
		{"x/", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g, v, ok := variantOf(tt.in)
			if g != tt.group || v != tt.variant || ok != tt.ok {
				t.Errorf("VariantOf(%q) = %q, %q, %v; want %q, %q, %v", tt.in, g, v, ok, tt.group, tt.variant, tt.ok)
			}
		})
	}
}

func TestShortNames(t *testing.T) {
	tests := []struct {
		name       string
		paths, out []string
	}{
		{"common start and end", []string{"r/kvm-amd-zen5-run.json", "kvm-amd-zen4-run.txt"}, []string{"zen5", "zen4"}},
		{"common end only", []string{"kvm-amd-zen5-run.json", "kvm-amd-zen4-run.json", "synthetic-arm64-run.json"}, []string{"kvm-amd-zen5", "kvm-amd-zen4", "synthetic-arm64"}},
		{"one file keeps its name", []string{"a/kvm-amd-zen5-run.json"}, []string{"kvm-amd-zen5-run"}},
		{"one name would be empty", []string{"zen5.json", "zen5-old.json"}, []string{"zen5", "zen5-old"}},
		{"same base names: paths", []string{"a/run.json", "b/run.json"}, []string{"a/run.json", "b/run.json"}},
		{"same paths: numbered", []string{"x.json", "x.json", "x.json"}, []string{"x.json", "x.json#2", "x.json#3"}},
		{"underscores and dots", []string{"m_a.1.txt", "m_b.1.txt"}, []string{"a", "b"}},
		{"no extension", []string{"zen5", "zen4"}, []string{"zen5", "zen4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortNames(tt.paths); !reflect.DeepEqual(got, tt.out) {
				t.Errorf("ShortNames(%q) = %q, want %q", tt.paths, got, tt.out)
			}
		})
	}
}

func TestSelectBaseline(t *testing.T) {
	files := readAll(t, "kvm-amd-zen5-run.json", "kvm-amd-zen4-run.json", "synthetic-arm64-cntvct-nocycles-run.json")
	tests := []struct {
		sel  string
		want int
		err  string
	}{
		{"", 0, ""},
		{"testdata/kvm-amd-zen4-run.json", 1, ""},
		{"./testdata/../testdata/kvm-amd-zen4-run.json", 1, ""},
		{"3", 2, ""},
		{"1", 0, ""},
		{"kvm-amd-zen4", 1, ""},          // short name
		{"kvm-amd-zen4-run.json", 1, ""}, // base name
		{"synthetic-arm64-cntvct-nocycles-run", 2, ""}, // base name without extension
		{"ZEN4", 1, ""},               // part of the path, any case
		{"arm64 test machine", 2, ""}, // part of the CPU
		{"cntvct", 2, ""},             // part of the label
		{"AMD EPYC", 0, `matches 2 files`},
		{"7", 0, "matches no file"},
		{"zen3", 0, "matches no file"},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			got, err := SelectBaseline(files, tt.sel)
			if tt.err != "" {
				if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "kvm-amd-zen5-run.json") {
					t.Errorf("err %v: want ErrBadInput saying %q and listing the files", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("SelectBaseline(%q) = %d, %v; want %d", tt.sel, got, err, tt.want)
			}
		})
	}
	if _, err := SelectBaseline(nil, "x"); !errors.Is(err, ErrBadInput) {
		t.Errorf("no files: err %v", err)
	}
}

// TestTableJSON: a table encodes as JSON with its reasons and kinds in
// words, for a command line's -format json.
func TestTableJSON(t *testing.T) {
	tb, err := Matrix(readAll(t, "kvm-amd-zen5-run.json", "synthetic-arm64-cntvct-nocycles-run.json"), DefaultMatrixOptions())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(tb)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Spread":"min–max"`, `"NoCycles":"measured without the core-clock ruler (-no-cycles)"`, `"Format":"cyclebench run (json)"`, `"Missing":true`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}
