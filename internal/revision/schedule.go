package revision

import (
	"fmt"

	"github.com/cyclebench/cyclebench/results"
)

// Side is one side of a comparison: A, the base revision, or B, the
// head.
type Side int

// The two sides.
const (
	A Side = iota
	B
)

func (s Side) String() string {
	if s == A {
		return "A"
	}
	return "B"
}

// Slot is one process of a comparison: which side's test binary, built
// in which layout (an index into the seeds), and which repetition of
// that layout.
type Slot struct {
	Side   Side
	Layout int
	Rep    int
}

// MaxLayouts bounds the layouts of one side: each is a link of the test
// binary (about a second) and at least one process.
const MaxLayouts = 1000

// Schedule is the order of the processes of a comparison over layouts
// layouts and count processes per layout and side: rounds of one process
// per side, the sides alternated A B, B A, A B, … (so A B B A A B B A),
// layout after layout, then the layouts again for each further count.
// Both sides thus share the host's slow stretches, which last seconds to
// minutes (DESIGN.md), and neither always goes first.
func Schedule(layouts, count int) ([]Slot, error) {
	if layouts < 1 || layouts > MaxLayouts {
		return nil, fmt.Errorf("%w: %d layouts (allowed: 1 to %d)", results.ErrBadInput, layouts, MaxLayouts)
	}
	if count < 1 || count > 10000 {
		return nil, fmt.Errorf("%w: %d processes per layout (allowed: 1 to 10000)", results.ErrBadInput, count)
	}
	slots := make([]Slot, 0, 2*layouts*count)
	for r := 0; r < layouts*count; r++ {
		first, second := A, B
		if r%2 == 1 {
			first, second = B, A
		}
		l, rep := r%layouts, r/layouts
		slots = append(slots, Slot{first, l, rep}, Slot{second, l, rep})
	}
	return slots, nil
}

// Seeds are the -randlayout seeds of n layouts: 1 to n. Seed 0 is the
// linker's default layout, which the working tree's ordinary build
// already has; the comparison wants layouts that differ from each other
// and are the same ones on both sides.
func Seeds(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i + 1)
	}
	return s
}
