package benchexamples

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
)

// Kernel is a named example kernel that can be prepared for a size n.
type Kernel struct {
	// Name is the kernel's unique, case-sensitive name, e.g. "Combine4".
	Name string
	// Description says in one line what the timed work is.
	Description string
	// Seed names the source of the kernel: "seed 001" … "seed 004" for the
	// source articles, "CS:APP 5" for Bryant and O'Hallaron's chapter 5,
	// "reference chain" for the known-latency instruction chains.
	Seed string
	// DefaultN is the size used when none is given.
	DefaultN int
	// MinN and MaxN bound the sizes New accepts (inclusive).
	MinN, MaxN int
	// Unit names what Target.Elements counts: "elements", "ops",
	// "iterations", "ms" or "divisions". For Factorize n is the number to
	// factor and the unit is that of Elements (divisions).
	Unit string
	// Default reports whether the kernel belongs to the default `run`
	// selection ([Select] with an empty pattern); Sleep does not.
	Default bool
	// CPE reports whether a sweep over n gives a meaningful cycles-per-element
	// slope (the kernel's work is linear in n with a constant per-element cost).
	CPE bool
	// New validates n (an error wrapping [ErrBadSize] names n and the allowed
	// range) and prepares the kernel for size n as a harness.Target named
	// Name/n=SIZE, allocating its inputs. It does the untimed preparation:
	// shuffling, computing reference results where that is cheap,
	// Factorize's dry run.
	//
	// The Target follows the harness's protocol: Setup (nil, or untimed:
	// the sorts copy the pristine shuffled slice back into the slice Run
	// sorts), Run (timed; it never allocates, except Sleep, which only
	// sleeps, and writes its result into the kernel's own state so the
	// compiler cannot delete the work), and Check, which verifies the
	// output of the most recent Run and returns nil or an error wrapping
	// [ErrWrongResult] that says what is wrong (it may be slow; it is
	// never timed). Elements is the count per-element figures divide by,
	// in Unit: n for most kernels; for Factorize the number of trial
	// divisions one Run performs (1 for the test by 2, plus one per odd
	// candidate tried), computed by one untimed dry run. A Target is not
	// safe for concurrent use: Run writes into its state.
	New func(n int) (harness.Target, error)
	// NewAt is New with the kernel's input (the slice the sorts sort, the
	// vector Combine reads, Psum's input) starting offset bytes past a
	// 4 KiB boundary (0 to 4088, a multiple of 8; −1: where Go puts
	// them, as New does; else an error wrapping [ErrBadOffset]). Kernels
	// without data ignore it.
	NewAt func(n, offset int) (harness.Target, error)
}

// spec is the unexported description of a kernel from which [All] builds
// the exported Kernel; build is only called with a validated n, and
// returns the kernel's state beside its Target, for this package's tests.
type spec struct {
	k     Kernel
	build func(n, offset int) (harness.Target, any)
}

// specs lists the kernels in the documented order of [All]. It is a function,
// not a package variable, so nothing is built before it is asked for and
// callers cannot change what later calls return.
func specs() []spec {
	return []spec{
		sumLoopSpec(),
		hashLoopSpec(),
		sleepSpec(),
		sortIntsSpec(),
		bubbleSortSpec(),
		factorizeSpec(),
		addChainSpec(),
		imulChainSpec(),
		addImmChainSpec(),
		psumSpec(1),
		psumSpec(2),
		combineSpec(1),
		combineSpec(2),
		combineSpec(3),
		combineSpec(4),
		combineSpec(5),
		combineSpec(6),
	}
}

// All returns every kernel, in this stable order: the seed kernels in the
// order of the source articles (SumLoop, HashLoop, Sleep, SortInts,
// BubbleSort, Factorize), then the reference chains (AddChain, ImulChain,
// AddImmChain),
// then the CS:APP chapter 5 kernels (Psum1, Psum2, Combine1 … Combine6).
// Each call returns a new slice.
func All() []Kernel {
	ss := specs()
	ks := make([]Kernel, len(ss))
	for i, s := range ss {
		ks[i] = s.kernel()
	}
	return ks
}

func (s spec) kernel() Kernel {
	k := s.k
	k.New = func(n int) (harness.Target, error) {
		t, _, err := s.newState(n, -1)
		return t, err
	}
	k.NewAt = func(n, offset int) (harness.Target, error) {
		t, _, err := s.newState(n, offset)
		return t, err
	}
	return k
}

// newState is NewAt with the kernel's state, for this package's tests.
func (s spec) newState(n, offset int) (harness.Target, any, error) {
	k := s.k
	if n < k.MinN || n > k.MaxN {
		return harness.Target{}, nil, fmt.Errorf("%w: %s n=%d, allowed %d to %d", ErrBadSize, k.Name, n, k.MinN, k.MaxN)
	}
	if err := CheckDataOffset(offset); err != nil {
		return harness.Target{}, nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	t, state := s.build(n, offset)
	t.Name = fmt.Sprintf("%s/n=%d", k.Name, n)
	return t, state, nil
}

// names returns the kernel names in the order of [All], comma-separated.
func names(ks []Kernel) string {
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Name)
	}
	return b.String()
}

// Lookup returns the kernel with exactly this (case-sensitive) name, or an
// error wrapping [ErrUnknown] that lists the known names.
func Lookup(name string) (Kernel, error) {
	ks := All()
	for _, k := range ks {
		if k.Name == name {
			return k, nil
		}
	}
	return Kernel{}, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, names(ks))
}

// Select returns the kernels whose names match the regular expression
// pattern (unanchored, like go test -bench: "Combine" selects Combine1 …
// Combine6, "^Sort" only SortInts), in the order of [All]. A pattern can
// select kernels outside the default set, such as Sleep. The empty pattern
// selects the kernels with Default set (all but Sleep).
//
// An invalid pattern gives an error wrapping [ErrBadPattern] naming it; a
// pattern that matches nothing gives an error wrapping [ErrNoMatch] that
// lists the known names.
func Select(pattern string) ([]Kernel, error) {
	ks := All()
	var out []Kernel
	if pattern == "" {
		for _, k := range ks {
			if k.Default {
				out = append(out, k)
			}
		}
		return out, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadPattern, pattern, err)
	}
	for _, k := range ks {
		if re.MatchString(k.Name) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrNoMatch, pattern, names(ks))
	}
	return out, nil
}

// wrong returns an error wrapping ErrWrongResult for kernel name.
func wrong(name, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrWrongResult, name, fmt.Sprintf(format, args...))
}
