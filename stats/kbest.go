package stats

import (
	"fmt"
	"math"
)

// KBest keeps the K smallest of a stream of samples, in ascending order, and
// says when they agree: the CS:APP K-best rule (see the package doc).
//
// With v1 ≤ … ≤ vK the kept values, the samples have converged when K values
// are kept and
//
//	vK − v1 ≤ max(ε·|v1|, AbsTol)
//
// which for positive samples is exactly CS:APP's (1+ε)·v1 ≥ vK, extended by
// an absolute floor AbsTol (in the samples' unit, for example TSC ticks). For
// v1 ≤ 0 only the absolute floor (or exact agreement) can converge.
//
// Every call to [KBest.Add] counts as one sample taken, including NaN and ±Inf
// samples, which are otherwise ignored and counted in [KBest.Rejected]; so
// MaxSamples bounds the number of Add calls and a stream of bad samples still
// ends. Adding after [KBest.Done] is allowed: the sample is still taken into
// account (convergence can be lost when a new, much smaller value arrives).
//
// A KBest is not safe for concurrent use. The zero value is not usable; call
// [NewKBest].
type KBest struct {
	k          int
	eps        float64
	absTol     float64
	maxSamples int

	best     []float64 // len = number kept (≤ k), cap = k, ascending
	count    int       // calls to Add
	rejected int       // NaN/Inf samples among them
}

// NewKBest returns a K-best tracker keeping the k smallest samples, with
// relative tolerance eps (ε, for example 0.01 for 1%), absolute tolerance
// absTol (same unit as the samples; 0 disables the floor) and a limit of
// maxSamples samples.
//
// It returns an error wrapping [ErrBadParam] unless k ≥ 1, eps and absTol are
// finite and ≥ 0, and maxSamples ≥ k.
func NewKBest(k int, eps, absTol float64, maxSamples int) (*KBest, error) {
	switch {
	case k < 1:
		return nil, fmt.Errorf("%w: k = %d, want k >= 1", ErrBadParam, k)
	case !(eps >= 0) || math.IsInf(eps, 0):
		return nil, fmt.Errorf("%w: eps = %v, want a finite value >= 0", ErrBadParam, eps)
	case !(absTol >= 0) || math.IsInf(absTol, 0):
		return nil, fmt.Errorf("%w: absTol = %v, want a finite value >= 0", ErrBadParam, absTol)
	case maxSamples < k:
		return nil, fmt.Errorf("%w: maxSamples = %d, want maxSamples >= k = %d", ErrBadParam, maxSamples, k)
	}
	return &KBest{
		k:          k,
		eps:        eps,
		absTol:     absTol,
		maxSamples: maxSamples,
		best:       make([]float64, 0, k),
	}, nil
}

// Add takes one sample and reports whether measuring can stop: the kept
// values have converged or maxSamples samples have been taken. NaN and ±Inf
// samples count as taken but are otherwise ignored (see [KBest.Rejected]).
// Add does not allocate.
func (kb *KBest) Add(v float64) (done bool) {
	kb.count++
	if math.IsNaN(v) || math.IsInf(v, 0) {
		kb.rejected++
		return kb.Done()
	}
	n := len(kb.best)
	if n < kb.k {
		kb.best = kb.best[:n+1] // within capacity: no allocation
	} else if v >= kb.best[n-1] {
		return kb.Done()
	} else {
		n-- // drop the largest kept value
	}
	// Insertion: shift larger values up one place, as CS:APP's swaps do.
	i := n
	for i > 0 && kb.best[i-1] > v {
		kb.best[i] = kb.best[i-1]
		i--
	}
	kb.best[i] = v
	return kb.Done()
}

// Converged reports whether K values are kept and they agree within the
// tolerances: vK − v1 ≤ max(ε·|v1|, AbsTol).
func (kb *KBest) Converged() bool {
	n := len(kb.best)
	if n < kb.k {
		return false
	}
	v1, vk := kb.best[0], kb.best[n-1]
	return vk-v1 <= max(kb.eps*math.Abs(v1), kb.absTol)
}

// Done reports whether measuring can stop: [KBest.Converged] is true or
// maxSamples samples have been taken.
func (kb *KBest) Done() bool {
	return kb.count >= kb.maxSamples || kb.Converged()
}

// Count returns the number of samples taken: calls to [KBest.Add] since
// creation or the last [KBest.Reset], rejected ones included.
func (kb *KBest) Count() int { return kb.count }

// Rejected returns how many of the samples taken were NaN or ±Inf and so
// were ignored.
func (kb *KBest) Rejected() int { return kb.rejected }

// Kept returns the number of values kept, min(K, Count−Rejected).
func (kb *KBest) Kept() int { return len(kb.best) }

// K returns the number of values that must agree.
func (kb *KBest) K() int { return kb.k }

// Best returns a copy of the kept values in ascending order (at most K of
// them; nil when none).
func (kb *KBest) Best() []float64 {
	if len(kb.best) == 0 {
		return nil
	}
	return append([]float64(nil), kb.best...)
}

// Min returns v1, the smallest sample seen, or NaN when no valid sample has
// been added.
func (kb *KBest) Min() float64 {
	if len(kb.best) == 0 {
		return math.NaN()
	}
	return kb.best[0]
}

// Spread returns (vK − v1)/v1, the relative spread of the kept values that
// the convergence rule compares with ε, or NaN when fewer than K values are
// kept. When v1 is 0 it is +Inf (or NaN if vK is 0 too), as the division
// gives.
func (kb *KBest) Spread() float64 {
	n := len(kb.best)
	if n < kb.k {
		return math.NaN()
	}
	return (kb.best[n-1] - kb.best[0]) / kb.best[0]
}

// Reset forgets all samples, keeping k, ε, AbsTol and maxSamples, so the
// tracker can be reused without allocating.
func (kb *KBest) Reset() {
	kb.best = kb.best[:0]
	kb.count = 0
	kb.rejected = 0
}
