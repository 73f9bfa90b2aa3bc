package results

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// ns makes an entry with one run per value (ns per call).
func ns(name, mode string, vs ...float64) Entry {
	e := Entry{Name: name, Mode: mode}
	for _, v := range vs {
		e.Runs = append(e.Runs, Run{NS: v})
	}
	return e
}

// describeFamilies writes families compactly: "Sum[n] throughput: 100×2 200×1".
func describeFamilies(fs []Family) string {
	var b strings.Builder
	for _, f := range fs {
		pkg := ""
		if f.Pkg != "" {
			pkg = f.Pkg + "."
		}
		fmt.Fprintf(&b, "%s%s[%s] %s:", pkg, f.Name, f.SizeKey, f.Mode)
		for _, p := range f.Points {
			fmt.Fprintf(&b, " %d×%d", p.N, len(p.Runs))
		}
		b.WriteString("; ")
	}
	return strings.TrimSuffix(b.String(), "; ")
}

func TestFamilies(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"none", nil, ""},
		{"no sizes", []Entry{ns("A", Throughput, 1), ns("B/x=1", Throughput, 1)}, ""},
		{"one sweep, sizes sorted", []Entry{ns("Sum/n=300", "", 3), ns("Sum/n=100", "", 1, 1), ns("Sum/n=200", "", 2)},
			"Sum[n] throughput: 100×2 200×1 300×1"},
		{"every size key", []Entry{ns("A/size=2", "", 1), ns("B/len=2", "", 1), ns("C/elements=2", "", 1), ns("D/n=2", "", 1)},
			"A[size] throughput: 2×1; B[len] throughput: 2×1; C[elements] throughput: 2×1; D[n] throughput: 2×1"},
		{"modes apart", []Entry{ns("A/n=1", Throughput, 1), ns("A/n=1", Latency, 1), ns("A/n=2", Latency, 1)},
			"A[n] throughput: 1×1; A[n] latency: 1×1 2×1"},
		{"size keys apart", []Entry{ns("A/n=1", "", 1), ns("A/size=2", "", 1)}, "A[n] throughput: 1×1; A[size] throughput: 2×1"},
		{"the size part anywhere", []Entry{ns("Sum/n=1/acc=4", "", 1), ns("Sum/acc=4/n=2", "", 1), ns("Sum/acc=1/n=2", "", 1)},
			"Sum/acc=4[n] throughput: 1×1 2×1; Sum/acc=1[n] throughput: 2×1"},
		{"GOMAXPROCS off, runs of one size pooled", []Entry{ns("Sum/n=8-2", "", 1), ns("Sum/n=8-4", "", 2, 3)}, "Sum[n] throughput: 8×3"},
		{"order of first appearance", []Entry{ns("B/n=1", "", 1), ns("A/n=1", "", 1), ns("B/n=2", "", 1)}, "B[n] throughput: 1×1 2×1; A[n] throughput: 1×1"},
		{"size from the entry, not the name", []Entry{{Name: "Legacy", SizeKey: "n", N: 5, Runs: []Run{{NS: 1}}}}, "Legacy[n] throughput: 5×1"},
		{"packages apart", []Entry{{Name: "S/n=1", Pkg: "a", Runs: []Run{{}}}, {Name: "S/n=1", Pkg: "b", Runs: []Run{{}}}}, "a.S[n] throughput: 1×1; b.S[n] throughput: 1×1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeFamilies(families(tt.entries)); got != tt.want {
				t.Errorf("Families = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFamiliesKeepsNoReference(t *testing.T) {
	es := []Entry{ns("Sum/n=1", "", 1, 2)}
	fs := families(es)
	es[0].Runs[0].NS = 99
	if fs[0].Points[0].Runs[0].NS != 1 {
		t.Error("Families shares the entries' runs")
	}
}

func TestFamiliesTestdata(t *testing.T) {
	tests := []struct {
		file  string
		want  []string
		sizes []int64
		runs  int
	}{
		{"kvm-amd-zen4-cpe.json", []string{"Psum1", "Psum2", "Combine1", "Combine2", "Combine3", "Combine4", "Combine5", "Combine6"},
			[]int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, 1},
		{"kvm-amd-zen4-gotest.txt", []string{"Combine/Combine4", "Combine/Combine5", "Combine/Combine6"}, []int64{200, 1000}, 3},
		{"kvm-amd-zen5-run.txt", []string{"SumLoop", "HashLoop", "SortInts", "BubbleSort", "Factorize", "AddChain", "ImulChain",
			"Psum1", "Psum2", "Combine1", "Combine2", "Combine3", "Combine4", "Combine5", "Combine6"}, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			fs := families(readTestdata(t, tt.file).Entries)
			var names []string
			for _, f := range fs {
				names = append(names, f.Name)
				if tt.sizes != nil && !reflect.DeepEqual(f.Sizes(), tt.sizes) {
					t.Errorf("%s: sizes %v, want %v", f.Name, f.Sizes(), tt.sizes)
				}
				for _, p := range f.Points {
					if len(p.Runs) != tt.runs {
						t.Errorf("%s n=%d: %d runs, want %d", f.Name, p.N, len(p.Runs), tt.runs)
					}
				}
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("families %q, want %q", names, tt.want)
			}
		})
	}
}
