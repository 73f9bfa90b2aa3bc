package results

// Examples and tests of what the package uses inside: the grouping of
// kernels into families and variants, the names of files in a matrix,
// runs left out as disturbed, warnings hoisted into a header.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Group a sweep's sub-benchmarks into families: what a CPE fit of cost
// against n takes.
func Example_families() {
	f, err := Read("testdata/kvm-amd-zen4-gotest.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, fam := range families(f.Entries) {
		fmt.Printf("%s: %s %v, %d runs at n=%d\n", fam.Name, fam.SizeKey, fam.Sizes(), len(fam.Points[0].Runs), fam.Points[0].N)
	}
	// Output:
	// Combine/Combine4: n [200 1000], 3 runs at n=200
	// Combine/Combine5: n [200 1000], 3 runs at n=200
	// Combine/Combine6: n [200 1000], 3 runs at n=200
}

func Example_variantOf() {
	for _, k := range []string{"Combine4", "Sum/four", "AddChain"} {
		g, v, ok := variantOf(k)
		fmt.Printf("%s: %q %q %v\n", k, g, v, ok)
	}
	// Output:
	// Combine4: "Combine" "4" true
	// Sum/four: "Sum" "four" true
	// AddChain: "" "" false
}

func Example_shortNames() {
	fmt.Println(shortNames([]string{"results/kvm-amd-zen5-run.json", "results/kvm-amd-zen4-run.json"}))
	// Output:
	// [zen5 zen4]
}

// Fit the sweeps of go test output: every run a point, the runs slowed
// by other jobs left out.
func ExampleFitFiles() {
	f, err := Read("testdata/kvm-amd-gotest-sums.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	sweeps, _, err := FitFiles([]File{f}, nil, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sweeps {
		fit, unit := s.Primary()
		fmt.Printf("%s: %.3f %s/%s, R² %s\n", s.Name, fit.Slope, unit, ElementWord(s.Unit), r2Text(fit.R2))
		if l := s.LeftOutText(); l != "" {
			fmt.Println("  left out:", l)
		}
	}
	// Output:
	// Sum1: 1.001 cycles/element, R² 0.9999331
	//   left out: n = 3200: 6033, 5321 cycles (4 runs kept: 3219–3221); disturbed: runs outside the largest cluster of their size (runs within 5% of its fastest); never half of the runs or more
	// Sum4: 0.780 cycles/element, R² 0.9998271
}

// The rule by which a file's run is left out of a fit: outside the
// largest cluster of runs of its size, slow or fast.
func Example_disturbed() {
	fmt.Println(disturbed([]float64{3219, 3219, 3220, 6033, 5321, 3221}))
	fmt.Println(disturbed([]float64{1760, 1766, 1598, 1762, 1764, 1761}))
	// Output:
	// [false false false true true false]
	// [false false true false false false]
}

// TestHoistWarnings: a warning every list has goes to the header once;
// the lists keep only their own, and none the header already had.
func TestHoistWarnings(t *testing.T) {
	vm, own, old := errors.New("vm"), errors.New("own"), errors.New("old")
	tests := []struct {
		name   string
		lists  [][]error
		header []string
		rest   [][]error
	}{
		{"common", [][]error{{vm, own}, {vm}}, []string{"old", "vm"}, [][]error{{own}, nil}},
		{"none common", [][]error{{own}, {vm}}, []string{"old"}, [][]error{{own}, {vm}}},
		{"already in the header", [][]error{{old, own}}, []string{"old", "own"}, [][]error{nil}},
		{"no lists", nil, []string{"old"}, [][]error{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Header{Warnings: []string{old.Error()}}
			rest := hoistWarnings(&h, tt.lists)
			if strings.Join(h.Warnings, ",") != strings.Join(tt.header, ",") || len(rest) != len(tt.rest) {
				t.Fatalf("header %q, rest %v; want %q, %v", h.Warnings, rest, tt.header, tt.rest)
			}
			for i := range rest {
				if len(rest[i]) != len(tt.rest[i]) {
					t.Errorf("list %d: %v, want %v", i, rest[i], tt.rest[i])
				}
			}
		})
	}
}
