package benchexamples

import (
	"fmt"
	"regexp"
	"strings"
)

// Instance is one kernel prepared for one size by a Kernel's New.
//
// The measuring protocol is: Setup (if not nil, untimed), Run (timed), and,
// when the output should be verified, Check. An Instance is not safe for
// concurrent use: Run writes its result into the instance's own state.
type Instance struct {
	// Run is the timed work. It never allocates (except Sleep, which only
	// sleeps) and writes its result into the instance's state so the
	// compiler cannot delete the work.
	Run func()
	// Setup is nil, or restores the input before each sample (untimed): the
	// sorts copy the pristine shuffled slice back into the slice Run sorts.
	Setup func()
	// Check verifies the output of the most recent Run (call Setup, Run,
	// Check). It returns nil or an error wrapping [ErrWrongResult] that says
	// what is wrong. Check may be slow (it can recompute the reference); it
	// is never timed.
	Check func() error
	// Elements is the count per-element figures divide by, in the kernel's
	// Unit: n for most kernels; for Factorize the number of trial divisions
	// one Run performs (1 for the test by 2, plus one per odd candidate
	// tried), computed in New by one untimed dry run.
	Elements float64

	state any // the kernel's state, for this package's tests
}

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
	// Unit names what Instance.Elements counts: "elements", "ops",
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
	// range) and prepares an Instance, allocating its inputs. It does the
	// untimed preparation: shuffling, computing reference results where that
	// is cheap, Factorize's dry run.
	New func(n int) (Instance, error)
}

// spec is the unexported description of a kernel from which [All] builds
// the exported Kernel; build is only called with a validated n.
type spec struct {
	k     Kernel
	build func(n int) Instance
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
	build := s.build
	k.New = func(n int) (Instance, error) {
		if n < k.MinN || n > k.MaxN {
			return Instance{}, fmt.Errorf("%w: %s n=%d, allowed %d to %d", ErrBadSize, k.Name, n, k.MinN, k.MaxN)
		}
		return build(n), nil
	}
	return k
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
