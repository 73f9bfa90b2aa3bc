package benchexamples

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

var wantOrder = []string{
	"SumLoop", "HashLoop", "Sleep", "SortInts", "BubbleSort", "Factorize",
	"AddChain", "ImulChain", "AddImmChain", "Psum1", "Psum2",
	"Combine1", "Combine2", "Combine3", "Combine4", "Combine5", "Combine6",
}

// testN returns the size to test kernel k with: its default, or a smaller
// one in -short mode for the slow kernels.
func testN(t *testing.T, k Kernel) int {
	t.Helper()
	if !testing.Short() {
		return k.DefaultN
	}
	switch k.Name {
	case "SortInts":
		return 10_000
	case "Sleep":
		return 5
	case "Factorize":
		return 10007 * 10009
	}
	return k.DefaultN
}

// instance is a kernel prepared for one size, with its state.
type instance struct {
	harness.Target
	state any
}

// mustNew prepares k for size n, as k.New does, or stops the test.
func mustNew(t *testing.T, k Kernel, n int) instance {
	t.Helper()
	i := slices.IndexFunc(specs(), func(s spec) bool { return s.k.Name == k.Name })
	if i < 0 {
		t.Fatalf("no spec for %s", k.Name)
	}
	tg, state, err := specs()[i].newState(n, -1)
	if err != nil {
		t.Fatalf("%s.New(%d): %v", k.Name, n, err)
	}
	if tg.Run == nil || tg.Check == nil {
		t.Fatalf("%s.New(%d): Run or Check is nil", k.Name, n)
	}
	if want := fmt.Sprintf("%s/n=%d", k.Name, n); tg.Name != want {
		t.Fatalf("%s.New(%d): Name %q, want %q", k.Name, n, tg.Name, want)
	}
	return instance{tg, state}
}

// runOnce does Setup (if any), Run and Check.
func runOnce(inst instance) error {
	if inst.Setup != nil {
		inst.Setup()
	}
	inst.Run()
	return inst.Check()
}

func TestAllOrderAndAttributes(t *testing.T) {
	ks := All()
	var got []string
	for _, k := range ks {
		got = append(got, k.Name)
	}
	if !slices.Equal(got, wantOrder) {
		t.Fatalf("All() names = %v, want %v", got, wantOrder)
	}
	cpe := map[string]bool{"SumLoop": true, "HashLoop": true, "AddChain": true, "ImulChain": true, "AddImmChain": true,
		"Psum1": true, "Psum2": true, "Combine1": true, "Combine2": true, "Combine3": true,
		"Combine4": true, "Combine5": true, "Combine6": true}
	units := map[string]bool{"elements": true, "ops": true, "iterations": true, "ms": true, "divisions": true}
	seen := map[string]bool{}
	for _, k := range ks {
		t.Run(k.Name, func(t *testing.T) {
			if seen[k.Name] {
				t.Errorf("name %q appears twice", k.Name)
			}
			seen[k.Name] = true
			if k.Description == "" || k.Seed == "" || k.New == nil {
				t.Errorf("Description %q, Seed %q, New nil %v: all must be set", k.Description, k.Seed, k.New == nil)
			}
			if !units[k.Unit] {
				t.Errorf("Unit %q not one of %v", k.Unit, units)
			}
			if k.MinN < 0 || k.MinN > k.DefaultN || k.DefaultN > k.MaxN {
				t.Errorf("sizes MinN %d ≤ DefaultN %d ≤ MaxN %d violated", k.MinN, k.DefaultN, k.MaxN)
			}
			if k.CPE != cpe[k.Name] {
				t.Errorf("CPE = %v, want %v", k.CPE, cpe[k.Name])
			}
			if k.Default != (k.Name != "Sleep") {
				t.Errorf("Default = %v; only Sleep is outside the default selection", k.Default)
			}
		})
	}
	// All returns a fresh slice: changing it must not change the next call.
	ks[0].Name = "changed"
	if All()[0].Name != wantOrder[0] {
		t.Errorf("changing the slice All returned changed the next call")
	}
}

func TestEveryKernelRunsAndChecks(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			n := testN(t, k)
			inst := mustNew(t, k, n)
			if inst.Elements <= 0 {
				t.Errorf("Elements = %v, want > 0", inst.Elements)
			}
			// Twice: Setup must restore the input for the second Run.
			for rep := range 2 {
				if err := runOnce(inst); err != nil {
					t.Fatalf("n=%d run %d: Check: %v", n, rep, err)
				}
			}
		})
	}
}

// TestSmallSizes runs every kernel except Sleep at the sizes where
// unrolled loops and remainders go wrong.
func TestSmallSizes(t *testing.T) {
	for _, k := range All() {
		if k.Name == "Sleep" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			for n := k.MinN; n <= k.MinN+40; n++ {
				if err := runOnce(mustNew(t, k, n)); err != nil {
					t.Errorf("n=%d: %v", n, err)
				}
			}
		})
	}
}

func TestCheckBeforeRunFails(t *testing.T) {
	// Before any Run the outputs are zero or still shuffled: Check must say so.
	for _, name := range []string{"SumLoop", "HashLoop", "SortInts", "BubbleSort", "Factorize",
		"AddChain", "ImulChain", "AddImmChain", "Combine1", "Combine6"} {
		t.Run(name, func(t *testing.T) {
			k, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			inst := mustNew(t, k, 1000)
			if inst.Setup != nil {
				inst.Setup()
			}
			if err := inst.Check(); !errors.Is(err, ErrWrongResult) {
				t.Errorf("Check before Run = %v, want an error wrapping ErrWrongResult", err)
			}
		})
	}
}

func TestCheckDetectsWrongOutput(t *testing.T) {
	tests := []struct {
		kernel string
		n      int
		what   string
		tamper func(state any)
	}{
		{"SumLoop", 100, "sum off by one", func(s any) { s.(*sumLoopState).sum++ }},
		{"HashLoop", 100, "one bit flipped", func(s any) { s.(*hashLoopState).acc ^= 1 }},
		{"Sleep", 1, "did not sleep", func(s any) { s.(*sleepState).elapsed = 0 }},
		{"SortInts", 100, "two elements swapped", func(s any) { w := s.(*sortState).work; w[10], w[11] = w[11], w[10] }},
		{"SortInts", 100, "sorted but not the input", func(s any) { s.(*sortState).work[0] = -1 }},
		{"BubbleSort", 100, "two elements swapped", func(s any) { w := s.(*sortState).work; w[98], w[99] = w[99], w[98] }},
		{"BubbleSort", 100, "an element duplicated", func(s any) { w := s.(*sortState).work; w[99] = w[98] }},
		{"Factorize", 10007 * 10009, "not a divisor", func(s any) { s.(*factorState).divisor = 3 }},
		{"Factorize", 10007 * 10009, "divisor 1", func(s any) { s.(*factorState).divisor = 1 }},
		{"Factorize", 10007 * 10009, "n itself, not the smallest", func(s any) { f := s.(*factorState); f.divisor = f.n }},
		{"Factorize", 10007 * 10009, "zero", func(s any) { s.(*factorState).divisor = 0 }},
		{"AddChain", 100, "result off by one", func(s any) { s.(*chainState).acc++ }},
		{"ImulChain", 100, "result off by one", func(s any) { s.(*chainState).acc++ }},
		{"AddImmChain", 100, "result off by one", func(s any) { s.(*chainState).acc++ }},
		{"Psum1", 100, "last prefix wrong", func(s any) { p := s.(*psumState).p; p[99]++ }},
		{"Psum2", 100, "first prefix wrong", func(s any) { s.(*psumState).p[0]++ }},
	}
	for i := 1; i <= 6; i++ {
		tests = append(tests, struct {
			kernel string
			n      int
			what   string
			tamper func(state any)
		}{fmt.Sprintf("Combine%d", i), 100, "sum off by one", func(s any) { s.(*combineState).dest++ }})
	}
	for _, tt := range tests {
		t.Run(tt.kernel+"/"+tt.what, func(t *testing.T) {
			k, err := Lookup(tt.kernel)
			if err != nil {
				t.Fatal(err)
			}
			inst := mustNew(t, k, tt.n)
			if err := runOnce(inst); err != nil {
				t.Fatalf("untampered Check: %v", err)
			}
			tt.tamper(inst.state)
			err = inst.Check()
			if !errors.Is(err, ErrWrongResult) {
				t.Fatalf("Check after tampering = %v, want an error wrapping ErrWrongResult", err)
			}
			if !strings.Contains(err.Error(), tt.kernel) {
				t.Errorf("error %q does not name the kernel %s", err, tt.kernel)
			}
		})
	}
}

func TestBadSizes(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			bad := []int{k.MinN - 1, -1, math.MinInt}
			if k.MaxN < math.MaxInt {
				bad = append(bad, k.MaxN+1)
			}
			for _, n := range bad {
				inst, err := k.New(n)
				if !errors.Is(err, ErrBadSize) {
					t.Errorf("New(%d) = %v, want an error wrapping ErrBadSize", n, err)
					continue
				}
				if inst.Run != nil {
					t.Errorf("New(%d) returned a runnable Target with its error", n)
				}
				msg := err.Error()
				for _, want := range []string{k.Name, "n=" + strconv.Itoa(n), strconv.Itoa(k.MinN), strconv.Itoa(k.MaxN)} {
					if !strings.Contains(msg, want) {
						t.Errorf("New(%d) error %q does not contain %q", n, msg, want)
					}
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	for _, name := range wantOrder {
		k, err := Lookup(name)
		if err != nil || k.Name != name {
			t.Errorf("Lookup(%q) = %q, %v", name, k.Name, err)
		}
	}
	for _, name := range []string{"", "combine1", "Combine", "Combine7", " SumLoop"} {
		t.Run(name, func(t *testing.T) {
			_, err := Lookup(name)
			if !errors.Is(err, ErrUnknown) {
				t.Fatalf("Lookup(%q) = %v, want an error wrapping ErrUnknown", name, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(name)) || !strings.Contains(err.Error(), "Combine6") {
				t.Errorf("error %q should quote the name and list the known ones", err)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	allButSleep := slices.DeleteFunc(slices.Clone(wantOrder), func(s string) bool { return s == "Sleep" })
	tests := []struct {
		pattern string
		want    []string
		err     error
	}{
		{"", allButSleep, nil},
		{".", wantOrder, nil},
		{"Combine", []string{"Combine1", "Combine2", "Combine3", "Combine4", "Combine5", "Combine6"}, nil},
		{"^Sort", []string{"SortInts"}, nil},
		{"Sort", []string{"SortInts", "BubbleSort"}, nil},
		{"Sleep", []string{"Sleep"}, nil},
		{"Chain$|^Psum", []string{"AddChain", "ImulChain", "AddImmChain", "Psum1", "Psum2"}, nil},
		{"(", nil, ErrBadPattern},
		{"[z-a]", nil, ErrBadPattern},
		{"nothing", nil, ErrNoMatch},
		{"combine", nil, ErrNoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			ks, err := Select(tt.pattern)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Select(%q) error = %v, want one wrapping %v", tt.pattern, err, tt.err)
				}
				if !strings.Contains(err.Error(), strconv.Quote(tt.pattern)) {
					t.Errorf("error %q does not name the pattern", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Select(%q): %v", tt.pattern, err)
			}
			var got []string
			for _, k := range ks {
				got = append(got, k.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Select(%q) = %v, want %v", tt.pattern, got, tt.want)
			}
		})
	}
}

// TestCombineAndPsumAgree runs every Combine variant and both prefix sums
// on the same data: all sums must be identical (the data are small
// integers, so every order of addition is exact) and equal to the last
// prefix sum.
func TestCombineAndPsumAgree(t *testing.T) {
	sizes := []int{1, 2, 3, 4, 5, 7, 8, 999, 1000, 1001, 65537}
	if !testing.Short() {
		sizes = append(sizes, 1<<20+1)
	}
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var sums []float64
			for i := 1; i <= 6; i++ {
				k, _ := Lookup(fmt.Sprintf("Combine%d", i))
				inst := mustNew(t, k, n)
				if err := runOnce(inst); err != nil {
					t.Fatal(err)
				}
				sums = append(sums, inst.state.(*combineState).dest)
			}
			for i, s := range sums {
				if s != sums[0] {
					t.Errorf("Combine%d = %v, Combine1 = %v", i+1, s, sums[0])
				}
			}
			var ps [][]float32
			for _, name := range []string{"Psum1", "Psum2"} {
				k, _ := Lookup(name)
				inst := mustNew(t, k, n)
				if err := runOnce(inst); err != nil {
					t.Fatal(err)
				}
				ps = append(ps, inst.state.(*psumState).p)
			}
			if !slices.Equal(ps[0], ps[1]) {
				t.Errorf("Psum1 and Psum2 differ")
			}
			if got := float64(ps[0][n-1]); got != sums[0] {
				t.Errorf("last prefix sum %v, vector sum %v", got, sums[0])
			}
		})
	}
}

func TestRunDoesNotAllocate(t *testing.T) {
	for _, k := range All() {
		if k.Name == "Sleep" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			n := min(k.DefaultN, 1000)
			if k.Name == "Factorize" {
				n = 10007 * 10009
			}
			inst := mustNew(t, k, n)
			if inst.Setup != nil {
				inst.Setup()
			}
			if a := testing.AllocsPerRun(10, inst.Run); a != 0 {
				t.Errorf("Run allocates %v times per call, want 0", a)
			}
		})
	}
}

func TestFactorizeSeed(t *testing.T) {
	k, _ := Lookup("Factorize")
	if math.MaxInt < seedComposite {
		if k.DefaultN != smallComposite {
			t.Errorf("DefaultN = %d on a 32-bit int, want %d", k.DefaultN, smallComposite)
		}
		t.Skip("int has 32 bits: the seed's number does not fit")
	}
	if int64(k.DefaultN) != seedComposite {
		t.Fatalf("DefaultN = %d, want the seed's %d", k.DefaultN, int64(seedComposite))
	}
	if testing.Short() {
		t.Skip("a dry run and a run of the seed's factorisation take tens of ms")
	}
	inst := mustNew(t, k, k.DefaultN)
	if err := runOnce(inst); err != nil {
		t.Fatal(err)
	}
	if d := inst.state.(*factorState).divisor; d != seedDivisor {
		t.Errorf("divisor = %d, want %d", d, seedDivisor)
	}
	if want := float64(1 + (seedDivisor-3)/2 + 1); inst.Elements != want {
		t.Errorf("Elements = %v divisions, want %v", inst.Elements, want)
	}
}

// TestDivisions compares the closed-form division count with a counting
// copy of the trial-division loop.
func TestDivisions(t *testing.T) {
	count := func(n uint64) (d, divs uint64) {
		divs++
		if n%2 == 0 {
			return 2, divs
		}
		for d := uint64(3); d*d <= n; d += 2 {
			divs++
			if n%d == 0 {
				return d, divs
			}
		}
		return n, divs
	}
	ns := []uint64{10007 * 10009, 1<<31 - 1, 2146654199, 999999937, 1e12 + 39}
	for n := uint64(4); n < 3000; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		d, want := count(n)
		if got := smallestDivisor(n); got != d {
			t.Errorf("smallestDivisor(%d) = %d, want %d", n, got, d)
		}
		if got := divisions(n, d); got != want {
			t.Errorf("divisions(%d, %d) = %d, want %d", n, d, got, want)
		}
	}
}

func TestKnownValues(t *testing.T) {
	// Computed independently (Python, arbitrary-precision integers masked to 64 bits).
	for _, tt := range []struct {
		n    uint64
		want uint64
	}{{1, 2654435761}, {1000, 1017492695769212318}, {20000, 1923008535634899478}} {
		if got := hashLoop(tt.n); got != tt.want {
			t.Errorf("hashLoop(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	for _, n := range []int{0, 1, 2, 3, 20000, 1 << 24} {
		s := sumLoopState{n: n}
		s.run()
		if want := triangle(n); s.sum != want {
			t.Errorf("SumLoop(%d) = %d, triangle = %d", n, s.sum, want)
		}
	}
	if triangle(20000) != 199990000 {
		t.Errorf("triangle(20000) = %d, want 199990000", triangle(20000))
	}
	for _, n := range []int{0, 1, 2, 17, 1000} {
		want := uint64(1)
		for range n {
			want *= chain.ImulMultiplier
		}
		if got := powMod64(chain.ImulMultiplier, n); got != want {
			t.Errorf("powMod64(m, %d) = %#x, want %#x", n, got, want)
		}
	}
}

func TestInputsAreDeterministic(t *testing.T) {
	a, b := newSortState("x", 1000, -1), newSortState("x", 1000, -1)
	if !slices.Equal(a.pristine, b.pristine) {
		t.Errorf("two shuffles of the same size differ")
	}
	if slices.IsSorted(a.pristine) {
		t.Errorf("the shuffled input is already sorted")
	}
	if !slices.Equal(smallInts(100, -1), smallInts(100, -1)) {
		t.Errorf("two vectors of the same size differ")
	}
}
