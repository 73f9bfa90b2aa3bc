package tsc

import (
	"math"
	"math/bits"
	"sync"
)

// Names returned by [Counter]; the same words appear in `cyclebench info`.
const (
	CounterRDTSC     = "rdtsc"     // x86 time-stamp counter
	CounterCNTVCT    = "cntvct"    // arm64 virtual generic-timer count
	CounterMonotonic = "monotonic" // Go monotonic clock in nanoseconds (fallback)
)

// AuxCPU extracts the CPU number from an IA32_TSC_AUX value returned by
// [StartCPU] or [StopCPU] on Linux (bits 0–11). Other operating systems may
// load TSC_AUX differently or not at all; see [HasAux].
func AuxCPU(aux uint32) int { return int(aux & 0xfff) }

// StepInfo describes how the counter advances, measured from back-to-back
// reads separated by a varying amount of work.
type StepInfo struct {
	// Step is the counter's effective resolution in ticks: the quantum when
	// the counter is quantized, else the GCD of the differences seen. It may
	// be fractional (a TSC that adds 24.45 ticks every 10 ns has Step 24.45).
	Step float64
	// GCD is the greatest common divisor of the non-zero differences seen.
	GCD uint64
	// MinDelta is the smallest non-zero difference seen, in ticks.
	MinDelta uint64
	// Quantized reports that every difference seen lay within one tick of a
	// whole multiple of Step although GCD is much smaller: the counter jumps
	// by Step at a lower underlying rate (for example a virtual TSC updated
	// from a 100 MHz reference and scaled to the nominal frequency).
	Quantized bool
	// Deltas is the number of non-zero differences the figures rest on.
	Deltas int
}

var (
	stepOnce sync.Once
	stepVal  StepInfo
)

// Step returns the counter's effective resolution in ticks (see
// [StepInfo]), measured once on first use. A tolerance below one step is
// meaningless. The calling thread should be pinned.
func Step() float64 { return Steps().Step }

// Steps returns the full [StepInfo] behind [Step], measured once.
func Steps() StepInfo {
	stepOnce.Do(func() { stepVal = MeasureStep(4000) })
	return stepVal
}

// spinSink keeps the spacing loop in MeasureStep from being removed.
var spinSink uint64

// MeasureStep takes n pairs of counter reads separated by 0 to 63 rounds of
// a short dependent loop, so that the differences spread over many values,
// and derives the step from them. It does not cache; [Steps] does.
func MeasureStep(n int) StepInfo {
	if n < 16 {
		n = 16
	}
	deltas := make([]uint64, 0, n)
	x := spinSink
	for i := 0; i < n; i++ {
		a := Read()
		for j := 0; j < i%64; j++ {
			x = x*3 + 1
		}
		b := Read()
		if b > a {
			deltas = append(deltas, b-a)
		}
	}
	spinSink = x
	return stepFromDeltas(deltas)
}

// stepFromDeltas derives a StepInfo from non-zero read differences. A
// quantum q is accepted when the smallest difference is at least 4× the
// GCD and all but 1 in 200 of the differences up to 64×min lie within one
// tick of a whole multiple of q, where q is fitted as Σd / Σround(d/q),
// first on the differences below 5×min starting from q = min, then on all
// up to 64×min.
func stepFromDeltas(deltas []uint64) StepInfo {
	info := StepInfo{Deltas: len(deltas)}
	if len(deltas) == 0 {
		info.Step, info.GCD = 1, 1
		return info
	}
	min := deltas[0]
	for _, d := range deltas {
		info.GCD = gcd(info.GCD, d)
		if d < min {
			min = d
		}
	}
	info.MinDelta = min
	info.Step = float64(info.GCD)
	if min < 4*info.GCD {
		return info
	}
	// Differences above 64×min are reads interrupted by the OS: they say
	// nothing about the step and, with large multiples, amplify the error of
	// the fitted quantum. Fit q on the small differences first (where
	// round(d/min) cannot be off by one), then refit on all the rest with
	// multiples taken from that q.
	q := float64(min)
	for pass := 0; pass < 2; pass++ {
		var sumD, sumK float64
		for _, d := range deltas {
			if (pass == 0 && d > 5*min) || d > 64*min {
				continue
			}
			sumD += float64(d)
			sumK += math.Round(float64(d) / q)
		}
		q = sumD / sumK
	}
	// Every considered difference must lie within one tick of a multiple;
	// a few strays (at most 1 in 200, from reads that straddled an
	// interrupt's return) are tolerated.
	var checked, strays int
	for _, d := range deltas {
		if d > 64*min {
			continue
		}
		checked++
		k := math.Round(float64(d) / q)
		if k < 1 || math.Abs(float64(d)-k*q) > 1.01 {
			strays++
		}
	}
	if strays > checked/200 {
		return info
	}
	info.Step, info.Quantized = q, true
	return info
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Elapsed returns stop − start in ticks, or 0 when stop < start (a counter
// that went backwards, possible only across CPUs with unsynchronised
// counters). The boolean reports whether the difference was valid.
func Elapsed(start, stop uint64) (uint64, bool) {
	d, borrow := bits.Sub64(stop, start, 0)
	if borrow != 0 {
		return 0, false
	}
	return d, true
}
