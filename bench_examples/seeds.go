package benchexamples

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cyclebench/cyclebench/harness"
)

// Fixed PCG seeds, so every instance of a size gets the same input on every
// machine and results compare across CPUs.
const (
	pcgSeed1 = 0x6379636c6562656e // "cyclebench"
	pcgSeed2 = 0x636873617070     // "chsapp"
)

// ---- SumLoop (seed 001: the CS:APP cycle-counter example) ----

type sumLoopState struct {
	n   int
	sum int
}

// run is the seed's loop: for (i = 0; i < 20000; i++) sum += i. sum is a Go
// int like the seed's C int (64 bits on 64-bit platforms); overflow wraps.
func (s *sumLoopState) run() {
	sum := 0
	for i := 0; i < s.n; i++ {
		sum += i
	}
	s.sum = sum
}

// triangle returns n(n-1)/2 in int arithmetic, wrapping exactly as the
// loop's sum does: the even factor is halved before the multiplication.
func triangle(n int) int {
	a, b := uint(n), uint(n-1)
	if a%2 == 0 {
		a /= 2
	} else {
		b /= 2
	}
	return int(a * b)
}

func (s *sumLoopState) check() error {
	if want := triangle(s.n); s.sum != want {
		return wrong("SumLoop", "sum of i < %d = %d, want %d", s.n, s.sum, want)
	}
	return nil
}

func sumLoopSpec() spec {
	return spec{
		k: Kernel{
			Name:        "SumLoop",
			Description: "sum += i for i < n (CS:APP's cycle-counter example)",
			Seed:        "seed 001",
			DefaultN:    20000,
			MinN:        1,
			MaxN:        1 << 30,
			Unit:        "iterations",
			Default:     true,
			CPE:         true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := &sumLoopState{n: n}
			return harness.Target{Run: s.run, Check: s.check, Elements: float64(n)}, s
		},
	}
}

// ---- HashLoop (seed 002: the compute-heavy demo) ----

type hashLoopState struct {
	n      uint64
	acc    uint64
	want   uint64
	wantOK bool
}

// hashLoop is the seed's loop, acc += (i * 2654435761) ^ (acc >> 3) for
// i = 1 … n, in uint64. The seed declares acc volatile, forcing a memory
// round trip per iteration; here acc stays in a register and only the final
// value is stored, so the loop measures the arithmetic (a 3-cycle dependency
// chain: shift, xor, add).
func hashLoop(n uint64) uint64 {
	var acc uint64
	for i := uint64(1); i <= n; i++ {
		acc += (i * 2654435761) ^ (acc >> 3)
	}
	return acc
}

func (s *hashLoopState) run() { s.acc = hashLoop(s.n) }

func (s *hashLoopState) check() error {
	if !s.wantOK { // computed on first Check, so New stays cheap at 2e8
		s.want, s.wantOK = hashLoop(s.n), true
	}
	if s.acc != s.want {
		return wrong("HashLoop", "acc after %d iterations = %#x, want %#x", s.n, s.acc, s.want)
	}
	return nil
}

func hashLoopSpec() spec {
	return spec{
		k: Kernel{
			Name:        "HashLoop",
			Description: "acc += (i*2654435761) ^ (acc>>3) for i = 1..n (compute-heavy demo; the seed runs 2e8)",
			Seed:        "seed 002",
			DefaultN:    1_000_000,
			MinN:        1,
			MaxN:        1 << 30,
			Unit:        "iterations",
			Default:     true,
			CPE:         true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := &hashLoopState{n: uint64(n)}
			return harness.Target{Run: s.run, Check: s.check, Elements: float64(n)}, s
		},
	}
}

// ---- Sleep (seed 002: the 800 ms sleep demo) ----

type sleepState struct {
	d       time.Duration
	elapsed time.Duration
}

// run sleeps; the two monotonic-clock reads around the sleep (tens of
// nanoseconds) let Check confirm that the sleep happened.
func (s *sleepState) run() {
	t0 := time.Now()
	time.Sleep(s.d)
	s.elapsed = time.Since(t0)
}

func (s *sleepState) check() error {
	if s.elapsed < s.d {
		return wrong("Sleep", "slept %v, want at least %v", s.elapsed, s.d)
	}
	return nil
}

func sleepSpec() spec {
	return spec{
		k: Kernel{
			Name:        "Sleep",
			Description: "time.Sleep(n ms): wall time without CPU use (CPU-utilisation demo)",
			Seed:        "seed 002",
			DefaultN:    800,
			MinN:        1,
			MaxN:        60_000,
			Unit:        "ms",
			Default:     false,
			CPE:         false,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := &sleepState{d: time.Duration(n) * time.Millisecond}
			return harness.Target{Run: s.run, Check: s.check, Elements: float64(n)}, s
		},
	}
}

// ---- SortInts (seed 003) and BubbleSort (seed 004) ----

// sortState holds a pristine shuffled permutation of 0 … n-1 and the work
// slice Run sorts in place. Because the input is a permutation of 0 … n-1,
// the sorted output must be work[i] == i, which checks both order and
// content.
type sortState struct {
	name     string
	pristine []int
	work     []int
}

// newSortState places the slice Run sorts at offset (placed); the pristine
// copy is only read by Setup.
func newSortState(name string, n, offset int) *sortState {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := rand.New(rand.NewPCG(pcgSeed1, pcgSeed2))
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	work := placed[int](n, offset)
	copy(work, p)
	return &sortState{name: name, pristine: p, work: work}
}

func (s *sortState) setup() { copy(s.work, s.pristine) }

func (s *sortState) sortInts() { slices.Sort(s.work) }

// bubble is the seed's bubble sort: full passes over the array, swapping
// neighbours out of order, until a pass makes no swap.
func (s *sortState) bubble() {
	a := s.work
	for {
		changed := false
		for i := 0; i < len(a)-1; i++ {
			if a[i] > a[i+1] {
				a[i], a[i+1] = a[i+1], a[i]
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

func (s *sortState) check() error {
	for i, v := range s.work {
		if v != i {
			if !slices.IsSorted(s.work) {
				return wrong(s.name, "output not sorted: element %d is %d, want %d", i, v, i)
			}
			return wrong(s.name, "output sorted but not a permutation of 0..%d: element %d is %d", len(s.work)-1, i, v)
		}
	}
	return nil
}

func sortIntsSpec() spec {
	return spec{
		k: Kernel{
			Name:        "SortInts",
			Description: "slices.Sort of n shuffled ints (std::sort of 1e6 shuffled ints in the seed)",
			Seed:        "seed 003",
			DefaultN:    1_000_000,
			MinN:        1,
			MaxN:        1 << 24,
			Unit:        "elements",
			Default:     true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := newSortState("SortInts", n, offset)
			return harness.Target{Run: s.sortInts, Setup: s.setup, Check: s.check, Elements: float64(n)}, s
		},
	}
}

func bubbleSortSpec() spec {
	return spec{
		k: Kernel{
			Name:        "BubbleSort",
			Description: "bubble sort of n shuffled ints, full passes until no swap (the seed's N = 1000)",
			Seed:        "seed 004",
			DefaultN:    1000,
			MinN:        1,
			MaxN:        1 << 16,
			Unit:        "elements",
			Default:     true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := newSortState("BubbleSort", n, offset)
			return harness.Target{Run: s.bubble, Setup: s.setup, Check: s.check, Elements: float64(n)}, s
		},
	}
}

// ---- Factorize (seed 004) ----

// The seed's number and its smallest prime factor:
// 352 700 091 909 229 843 = 7 726 079 × 45 650 593 517.
const (
	seedComposite = 352700091909229843
	seedDivisor   = 7726079
	// smallComposite = 46327 × 46337, both prime: the default where int has
	// 32 bits and cannot hold the seed's number.
	smallComposite = 2146654199
)

// factorizeDefault returns the seed's number where int can hold it.
func factorizeDefault() int {
	if math.MaxInt >= seedComposite {
		v := int64(seedComposite) // a variable: int(seedComposite) would not compile on 32-bit platforms
		return int(v)
	}
	return smallComposite
}

type factorState struct {
	n       uint64
	divisor uint64 // result of the most recent Run
	want    uint64 // from the dry run in New
}

// smallestDivisor does trial division by 2, then by odd d from 3 while
// d·d ≤ n, and returns the first divisor found (n when n is prime). The seed
// tries every d from 2 to √n; skipping even d halves the work and finds the
// same divisor. d·d cannot overflow: d stays below 2³² + 2 for any n < 2⁶⁴.
func smallestDivisor(n uint64) uint64 {
	if n%2 == 0 {
		return 2
	}
	for d := uint64(3); d*d <= n; d += 2 {
		if n%d == 0 {
			return d
		}
	}
	return n
}

// divisions returns the number of divisions smallestDivisor(n) performs
// when it returns d.
func divisions(n, d uint64) uint64 {
	switch {
	case d == 2:
		return 1
	case d < n: // odd divisor found after trying 3, 5, …, d
		return 1 + (d-3)/2 + 1
	}
	// prime: every odd d with d·d ≤ n was tried
	var r uint64 = uint64(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	if r < 3 {
		return 1
	}
	return 1 + (r-3)/2 + 1
}

func (s *factorState) run() { s.divisor = smallestDivisor(s.n) }

func (s *factorState) check() error {
	d := s.divisor
	switch {
	case d < 2 || d > s.n || s.n%d != 0:
		return wrong("Factorize", "%d is not a divisor of %d", d, s.n)
	case d != s.want:
		return wrong("Factorize", "divisor of %d = %d, want the smallest, %d", s.n, d, s.want)
	case s.n == seedComposite && d != seedDivisor:
		return wrong("Factorize", "divisor of %d = %d, want %d", s.n, d, seedDivisor)
	}
	return nil
}

func factorizeSpec() spec {
	return spec{
		k: Kernel{
			Name:        "Factorize",
			Description: "smallest divisor of n by trial division (352700091909229843 = 7726079 × 45650593517)",
			Seed:        "seed 004",
			DefaultN:    factorizeDefault(),
			MinN:        4,
			MaxN:        math.MaxInt,
			Unit:        "divisions",
			Default:     true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := &factorState{n: uint64(n)}
			s.want = smallestDivisor(s.n)
			return harness.Target{Run: s.run, Check: s.check, Elements: float64(divisions(s.n, s.want))}, s
		},
	}
}
