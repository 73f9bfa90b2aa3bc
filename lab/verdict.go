package lab

import (
	"fmt"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
)

// reference returns the method the others are compared with.
func (k *KernelResult) reference() (Method, bool) {
	for _, c := range []cputime.Clock{cputime.ClockTSC, cputime.ClockMonotonic} {
		if m, ok := k.Method(c); ok {
			return m, true
		}
	}
	return Method{}, false
}

// kbestNs returns the K-best figure in nanoseconds per call, and whether
// there is one above 0 to compare with.
func (k *KernelResult) kbestNs() (float64, bool) {
	if k.KBest == nil || !(k.KBest.Nanoseconds > 0) {
		return 0, false
	}
	return k.KBest.Nanoseconds, true
}

// scale returns what a clock's resolution is judged against, and whose it
// is: the reference's median; without a reference clock, the K-best
// figure; without either, the clock's own median.
func (k *KernelResult) scale(m Method) (time.Duration, string) {
	if ref, ok := k.reference(); ok {
		return ref.Median, "the " + ref.Clock.String() + " median"
	}
	if ns, ok := k.kbestNs(); ok {
		return time.Duration(math.Round(ns)), "the K-best figure"
	}
	return m.Median, "its median"
}

// judge sets the reference and every method's Resolves, DiffFromReference,
// Agrees and DiffFromKBest.
func (k *KernelResult) judge() {
	ref, hasRef := k.reference()
	k.Reference, k.HasReference = ref.Clock, hasRef
	kb, hasKBest := k.kbestNs()
	for i := range k.Methods {
		m := &k.Methods[i]
		scale, _ := k.scale(*m)
		m.Resolves = m.Zeros == 0 && m.Resolution > 0 && float64(m.Resolution) <= k.Tolerance*float64(scale)
		m.DiffFromReference, m.Agrees, m.DiffFromKBest = math.NaN(), false, math.NaN()
		if hasRef && ref.Median > 0 {
			m.DiffFromReference = float64(m.Median-ref.Median) / float64(ref.Median)
			m.Agrees = math.Abs(m.DiffFromReference) <= k.Tolerance
		}
		if hasRef && m.Clock == ref.Clock {
			m.DiffFromReference, m.Agrees = 0, true
		}
		if hasKBest {
			m.DiffFromKBest = (float64(m.Median) - kb) / kb
		}
	}
}

// Verdict returns a few sentences derived from the figures: which clocks
// cannot resolve the interval and why (readings of 0, a resolution above
// the tolerance of the reference's median, or of the K-best figure when no
// reference clock was read), which agree with the reference within the
// tolerance and which do not, the repetitions in which the thread's CPU
// time fell short of the reference by more than the tolerance (preempted,
// or sleeping), how much the reference's repetitions spread, and how far
// each clock's median reading lies from the K-best figure (the clocks
// time one run each; the K-best figure is what many runs agree on, with
// the timing overhead subtracted). It never returns an empty list.
func (k KernelResult) Verdict() []string {
	ref, hasRef := k.reference()
	tol := sigfig.Sig(100*k.Tolerance, 3) + "%"
	var cannot, agree, differ []string
	for _, m := range k.Methods {
		if !m.Resolves {
			var why []string
			if m.Zeros > 0 {
				why = append(why, fmt.Sprintf("read 0 in %d of %d repetitions", m.Zeros, len(m.Readings)))
			}
			scale, whose := k.scale(m)
			switch {
			case m.Resolution == 0:
				why = append(why, "resolution unknown")
			case float64(m.Resolution) > k.Tolerance*float64(scale):
				why = append(why, fmt.Sprintf("resolution %v > %s of %s %v", m.Resolution, tol, whose, scale))
			}
			cannot = append(cannot, fmt.Sprintf("%s (%s)", m.Clock, strings.Join(why, "; ")))
		}
		if !hasRef || m.Clock == ref.Clock || math.IsNaN(m.DiffFromReference) {
			continue
		}
		d := sigfig.Signed(100*m.DiffFromReference, 3) + "%"
		if m.Agrees {
			agree = append(agree, fmt.Sprintf("%s (%s)", m.Clock, d))
			continue
		}
		// A clock that sees the reads of the clocks nested inside it may
		// differ by that alone: say so when it explains half the gap.
		if gap := math.Abs(float64(m.Median - ref.Median)); m.Empty > 0 && float64(m.Empty) >= gap/2 {
			d += fmt.Sprintf("; it reads %v around nothing", m.Empty)
		}
		differ = append(differ, fmt.Sprintf("%s (%s)", m.Clock, d))
	}
	var v []string
	if len(cannot) > 0 {
		v = append(v, "cannot resolve the interval: "+strings.Join(cannot, ", "))
	} else {
		v = append(v, "every clock resolves the interval to "+tol)
	}
	if hasRef {
		if len(agree) > 0 {
			v = append(v, fmt.Sprintf("agree with %s within %s: %s", ref.Clock, tol, strings.Join(agree, ", ")))
		}
		if len(differ) > 0 {
			v = append(v, fmt.Sprintf("differ from %s by more than %s: %s", ref.Clock, tol, strings.Join(differ, ", ")))
		}
		if th, ok := k.Method(cputime.ClockThread); ok && ref.Clock != cputime.ClockThread && len(th.Readings) == len(ref.Readings) {
			var reps, shares []string
			for i, r := range ref.Readings {
				if r > 0 && float64(th.Readings[i]) < (1-k.Tolerance)*float64(r) {
					reps = append(reps, strconv.Itoa(i+1))
					shares = append(shares, sigfig.Sig(100*float64(th.Readings[i])/float64(r), 3)+"%")
				}
			}
			if len(reps) > 0 {
				word := "repetition"
				if len(reps) > 1 {
					word += "s"
				}
				v = append(v, fmt.Sprintf("in %s %s the thread ran for only %s of the %s interval: it was preempted, or the kernel sleeps or blocks", word, strings.Join(reps, ", "), strings.Join(shares, ", "), ref.Clock))
			}
		}
		if !math.IsNaN(ref.Spread) {
			v = append(v, fmt.Sprintf("the %s's %d repetitions spread by %s%% (max − min over median); noise only adds time, so the minimum, %v, is the best estimate", ref.Clock, len(ref.Readings), sigfig.Sig(100*ref.Spread, 3), ref.Min))
		}
	}
	if line := k.kbestVerdict(tol); line != "" {
		v = append(v, line)
	}
	return v
}

// kbestVerdict says how far each clock's median lies from the K-best
// figure; "" without one.
func (k KernelResult) kbestVerdict(tol string) string {
	ns, ok := k.kbestNs()
	if !ok {
		return ""
	}
	state := "converged"
	switch kb := k.KBest; {
	case kb.Converged:
	case len(kb.Best) > 1 && !math.IsNaN(kb.Spread):
		state = fmt.Sprintf("not converged: its %d best samples spread by %s%%, a rough figure", len(kb.Best), sigfig.Sig(100*kb.Spread, 3))
	default:
		state = "not converged: a rough figure"
	}
	var near, far []string
	for _, m := range k.Methods {
		if math.IsNaN(m.DiffFromKBest) {
			continue
		}
		d := fmt.Sprintf("%s (%s%%)", m.Clock, sigfig.Signed(100*m.DiffFromKBest, 3))
		if math.Abs(m.DiffFromKBest) <= k.Tolerance {
			near = append(near, d)
		} else {
			far = append(far, d)
		}
	}
	parts := []string{fmt.Sprintf("cyclebench's K-best figure is %v per call (%s)", time.Duration(math.Round(ns)), state)}
	if len(near) > 0 {
		parts = append(parts, fmt.Sprintf("the median reading is within %s of it for %s", tol, strings.Join(near, ", ")))
	}
	if len(far) > 0 {
		parts = append(parts, fmt.Sprintf("more than %s off for %s", tol, strings.Join(far, ", ")))
	}
	return strings.Join(parts, "; ")
}
