package benchexamples

import (
	"fmt"
	"math/rand/v2"

	"github.com/cyclebench/cyclebench/harness"
)

// smallInts returns n pseudo-random integers in [0, 16) as float64, the same
// for every call with the same n. Integer values keep every sum exact in
// float64 up to n = 2⁴⁹ (and in float32 up to n = 2²⁰), so all Combine
// variants, which add in different orders, must agree to the last bit.
//
// The slice starts offset bytes past a 4 KiB boundary (placed).
func smallInts(n, offset int) []float64 {
	r := rand.New(rand.NewPCG(pcgSeed1, pcgSeed2))
	v := placed[float64](n, offset)
	for i := range v {
		v[i] = float64(r.IntN(16))
	}
	return v
}

// ---- Psum1, Psum2: prefix sums (CS:APP 3e figure 5.1) ----

// psumState holds the input a and the output p, in float32 as in CS:APP.
type psumState struct {
	name string
	a, p []float32
}

// psum1 is CS:APP's psum1: p[i] = p[i-1] + a[i]. Each element reloads the
// value just stored, so the loop-carried chain runs through memory.
//
// The re-slicing at the top (a to n, p to len(a)) lets the compiler prove
// every index in range, so neither loop has a bounds check (verified with
// go build -gcflags=-d=ssa/check_bce); the loop tests use len(a), which the
// compiler relates to the indexes, where CS:APP uses n.
func psum1(a, p []float32, n int) {
	a = a[:n]
	p = p[:len(a)]
	p[0] = a[0]
	for i := 1; i < len(a); i++ {
		p[i] = p[i-1] + a[i]
	}
}

// psum2 is CS:APP's psum2: two elements per iteration, the middle value
// kept in a register.
func psum2(a, p []float32, n int) {
	a = a[:n]
	p = p[:len(a)]
	p[0] = a[0]
	i := 1
	for ; i < len(a)-1; i += 2 {
		midVal := p[i-1] + a[i]
		p[i] = midVal
		p[i+1] = midVal + a[i+1]
	}
	// For even n, finish the remaining element.
	if i < len(a) {
		p[i] = p[i-1] + a[i]
	}
}

func (s *psumState) run1() { psum1(s.a, s.p, len(s.a)) }
func (s *psumState) run2() { psum2(s.a, s.p, len(s.a)) }

// check recomputes the prefix sums in the same order (so float32 rounding is
// identical) and compares every element.
func (s *psumState) check() error {
	var sum float32
	for i, x := range s.a {
		sum += x
		if s.p[i] != sum {
			return wrong(s.name, "p[%d] = %v, want %v", i, s.p[i], sum)
		}
	}
	return nil
}

func newPsumState(name string, n, offset int) *psumState {
	v := smallInts(n, -1)
	// The input is placed; the output is not, so that the two do not
	// alias by 4 KiB at every offset.
	s := &psumState{name: name, a: placed[float32](n, offset), p: make([]float32, n)}
	for i, x := range v {
		s.a[i] = float32(x)
	}
	return s
}

func psumSpec(which int) spec {
	name := fmt.Sprintf("Psum%d", which)
	desc := "prefix sum p[i] = p[i-1] + a[i], float32 (CS:APP 3e fig. 5.1 psum1)"
	if which == 2 {
		desc = "prefix sum unrolled 2x, middle value in a register, float32 (CS:APP 3e fig. 5.1 psum2)"
	}
	return spec{
		k: Kernel{
			Name:        name,
			Description: desc,
			Seed:        "CS:APP 5",
			DefaultN:    1000,
			MinN:        1,
			MaxN:        1 << 24,
			Unit:        "elements",
			Default:     true,
			CPE:         true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := newPsumState(name, n, offset)
			run := s.run1
			if which == 2 {
				run = s.run2
			}
			return harness.Target{Run: run, Check: s.check, Elements: float64(n)}, s
		},
	}
}

// ---- Combine1 … Combine6: vector sum (CS:APP 3e §5.3–5.9) ----
//
// CS:APP abstracts the combining operation as OP with identity IDENT and the
// element type as data_t; here data_t is float64 and OP is +, IDENT 0.
// Floating-point addition has a latency of 3–4 cycles and a throughput of
// two per cycle on current cores, so Combine4 and Combine5 are latency-bound
// at about the add latency per element and Combine6, with two independent
// accumulators, at about half of it.

// vec is CS:APP's vec_rec: a length and the data. The length is len(data).
type vec struct {
	data []float64
}

// vecLength is CS:APP's vec_length. It is kept out of line, as in CS:APP
// where vec.c is a separate compilation unit, so Combine1 pays for a call
// per element to evaluate its loop test.
//
//go:noinline
func vecLength(v *vec) int { return len(v.data) }

// getVecElement is CS:APP's get_vec_element: it stores element idx of v in
// *dest and reports whether idx was in range. Kept out of line like
// vecLength, so Combine1 and Combine2 pay for a call and a bounds check per
// element.
//
//go:noinline
func getVecElement(v *vec, idx int, dest *float64) bool {
	if idx < 0 || idx >= len(v.data) {
		return false
	}
	*dest = v.data[idx]
	return true
}

// getVecStart is CS:APP's get_vec_start: direct access to the data.
func getVecStart(v *vec) []float64 { return v.data }

// combine1 is the baseline (CS:APP fig. 5.5): vec_length in the loop test,
// get_vec_element for every element, the running value kept in *dest.
func combine1(v *vec, dest *float64) {
	*dest = 0
	for i := 0; i < vecLength(v); i++ {
		var val float64
		getVecElement(v, i, &val)
		*dest = *dest + val
	}
}

// combine2 moves the call to vec_length out of the loop (fig. 5.6).
func combine2(v *vec, dest *float64) {
	length := vecLength(v)
	*dest = 0
	for i := 0; i < length; i++ {
		var val float64
		getVecElement(v, i, &val)
		*dest = *dest + val
	}
}

// combine3 reads the data directly, without calls or bounds checks (fig.
// 5.9): re-slicing to length lets the compiler prove every index in range.
// The running value still goes through *dest, a load and a store per element.
func combine3(v *vec, dest *float64) {
	length := vecLength(v)
	data := getVecStart(v)[:length]
	*dest = 0
	for i := 0; i < length; i++ {
		*dest = *dest + data[i]
	}
}

// combine4 accumulates in a local variable and stores *dest once (fig. 5.10).
func combine4(v *vec, dest *float64) {
	length := vecLength(v)
	data := getVecStart(v)[:length]
	acc := 0.0
	for i := 0; i < length; i++ {
		acc = acc + data[i]
	}
	*dest = acc
}

// combine5 unrolls 2×1: two elements per iteration, one accumulator (fig. 5.16).
func combine5(v *vec, dest *float64) {
	data := getVecStart(v)[:vecLength(v)]
	length := len(data) // the same value; in this form the compiler drops the bounds checks
	limit := length - 1
	acc := 0.0
	i := 0
	// Combine 2 elements at a time.
	for ; i < limit; i += 2 {
		acc = (acc + data[i]) + data[i+1]
	}
	// Finish any remaining elements.
	for ; i < length; i++ {
		acc = acc + data[i]
	}
	*dest = acc
}

// combine6 unrolls 2×2: two elements per iteration into two independent
// accumulators, so two addition chains run in parallel (fig. 5.21).
func combine6(v *vec, dest *float64) {
	data := getVecStart(v)[:vecLength(v)]
	length := len(data) // the same value; in this form the compiler drops the bounds checks
	limit := length - 1
	acc0, acc1 := 0.0, 0.0
	i := 0
	// Combine 2 elements at a time.
	for ; i < limit; i += 2 {
		acc0 = acc0 + data[i]
		acc1 = acc1 + data[i+1]
	}
	// Finish any remaining elements.
	for ; i < length; i++ {
		acc0 = acc0 + data[i]
	}
	*dest = acc0 + acc1
}

var combines = [...]func(*vec, *float64){nil, combine1, combine2, combine3, combine4, combine5, combine6}

var combineDescs = [...]string{
	"",
	"vector sum, float64 +: vec_length and get_vec_element calls every element, total kept in *dest (CS:APP 3e fig. 5.5)",
	"vector sum: vec_length hoisted out of the loop (CS:APP 3e fig. 5.6)",
	"vector sum: direct data access, no calls, no bounds checks; total still kept in *dest (CS:APP 3e fig. 5.9)",
	"vector sum: accumulate in a local variable (CS:APP 3e fig. 5.10)",
	"vector sum: 2x1 loop unrolling, one accumulator (CS:APP 3e fig. 5.16)",
	"vector sum: 2x2 loop unrolling, two parallel accumulators (CS:APP 3e fig. 5.21)",
}

// combineState holds the vector, the destination Run writes, and the exact
// sum (the data are small integers).
type combineState struct {
	name string
	fn   func(*vec, *float64)
	v    vec
	dest float64
	want float64
}

func (s *combineState) run() { s.fn(&s.v, &s.dest) }

func (s *combineState) check() error {
	if s.dest != s.want {
		return wrong(s.name, "sum of %d elements = %v, want %v", len(s.v.data), s.dest, s.want)
	}
	return nil
}

func newCombineState(which, n, offset int) *combineState {
	s := &combineState{name: fmt.Sprintf("Combine%d", which), fn: combines[which], v: vec{data: smallInts(n, offset)}}
	for _, x := range s.v.data {
		s.want += x
	}
	return s
}

func combineSpec(which int) spec {
	return spec{
		k: Kernel{
			Name:        fmt.Sprintf("Combine%d", which),
			Description: combineDescs[which],
			Seed:        "CS:APP 5",
			DefaultN:    1000,
			MinN:        1,
			MaxN:        1 << 24,
			Unit:        "elements",
			Default:     true,
			CPE:         true,
		},
		build: func(n, offset int) (harness.Target, any) {
			s := newCombineState(which, n, offset)
			return harness.Target{Run: s.run, Check: s.check, Elements: float64(n)}, s
		},
	}
}
