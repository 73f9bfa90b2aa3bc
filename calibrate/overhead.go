package calibrate

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/cyclebench/cyclebench/tsc"
)

// Overhead is the cost of an empty serialized start/stop pair, in ticks.
type Overhead struct {
	// Min and Median are over empty tsc.StartCPU/tsc.StopCPU pairs called
	// from Go, the pair the harness brackets every sample with.
	Min, Median float64
	// AsmMin and AsmMedian are over tsc.PairInAsm: the same sequences back
	// to back inside one assembly function, with no call in between. The
	// difference from Min/Median is the cost of the calls.
	AsmMin, AsmMedian float64
	Pairs             int // pairs timed of each kind
	Discarded         int // pairs discarded because start and stop ran on different CPUs
}

// Limits on the number of pairs [MeasureOverhead] takes.
const (
	MinPairs = 10
	MaxPairs = 10_000_000
)

// MeasureOverhead times pairs empty start/stop pairs of each kind. It locks
// the calling goroutine's OS thread while it runs; pin it first for
// figures that match a pinned measurement.
func MeasureOverhead(pairs int) (Overhead, error) {
	if pairs < MinPairs || pairs > MaxPairs {
		return Overhead{}, fmt.Errorf("%w: pairs %d (allowed: %d to %d)", ErrBadCount, pairs, MinPairs, MaxPairs)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	o := Overhead{Pairs: pairs}
	goPairs := make([]float64, 0, pairs)
	asmPairs := make([]float64, 0, pairs)
	for i := 0; i < pairs; i++ {
		a, auxA := tsc.StartCPU()
		b, auxB := tsc.StopCPU()
		if auxA != auxB || b < a {
			o.Discarded++
		} else {
			goPairs = append(goPairs, float64(b-a))
		}
		asmPairs = append(asmPairs, float64(tsc.PairInAsm()))
	}
	if len(goPairs) == 0 {
		return o, fmt.Errorf("%w: all %d pairs straddled a CPU migration", ErrUnstable, pairs)
	}
	o.Min, o.Median = minMedian(goPairs)
	o.AsmMin, o.AsmMedian = minMedian(asmPairs)
	return o, nil
}

// minMedian sorts v in place and returns its minimum and median.
func minMedian(v []float64) (min, median float64) {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[0], v[n/2]
	}
	return v[0], (v[n/2-1] + v[n/2]) / 2
}
