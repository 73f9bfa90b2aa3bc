package calibrate

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/cyclebench/cyclebench/internal/chain"
	"github.com/cyclebench/cyclebench/tsc"
)

// CoreClock is the ratio of core cycles to counter ticks, measured with
// dependent instruction chains of known latency.
type CoreClock struct {
	// CyclesPerTick is core cycles per counter tick: the inverse of the ADD
	// chain's slope in ticks per ADD (one ADD takes one core cycle).
	CyclesPerTick float64
	// AddTicksPerOp and ImulTicksPerOp are the chains' slopes, ticks per op.
	AddTicksPerOp, ImulTicksPerOp float64
	// ImulAddRatio is ImulTicksPerOp / AddTicksPerOp; the truth is
	// ImulLatency (3 on x86-64, 2 to 4 on arm64 depending on the core). Far
	// from it, the core clock moved while the chains ran, or the machine
	// was busy.
	ImulAddRatio float64
	// ImulLatency is the documented latency of one IMUL (arm64: 64-bit MUL)
	// in cycles on this processor, 0 when not known (see [CPU.ImulLatency]);
	// the ratio is checked only when it is known.
	ImulLatency float64
	// Short and Long are the two chain lengths timed.
	Short, Long int
	// Reps is how many times each of the four chains was timed; the
	// minimum of each is used.
	Reps int
	// Exact reports that the chains are the assembly ones with known
	// latency; the pure-Go fallback's figures are approximate.
	Exact    bool
	Warnings []error
}

// CoreOptions sets how [MeasureCoreClock] runs; the zero value gives the
// defaults.
type CoreOptions struct {
	Short int // short chain length in ops; 0 means 2,000
	Long  int // long chain length in ops; 0 means 100,000 (must exceed Short by at least 1,000)
	Reps  int // times each chain is timed; 0 means 30 (1 to 100,000)
	// RatioTolerance is the relative deviation of ImulAddRatio from the
	// documented latency that draws a warning; 0 means 0.03.
	RatioTolerance float64
}

// DefaultCoreOptions holds the defaults behind a zero [CoreOptions].
var DefaultCoreOptions = CoreOptions{Short: 2000, Long: 100_000, Reps: 30, RatioTolerance: 0.03}

func (o CoreOptions) withDefaults() (CoreOptions, error) {
	if o.Short == 0 {
		o.Short = DefaultCoreOptions.Short
	}
	if o.Long == 0 {
		o.Long = DefaultCoreOptions.Long
	}
	if o.Reps == 0 {
		o.Reps = DefaultCoreOptions.Reps
	}
	if o.RatioTolerance == 0 {
		o.RatioTolerance = DefaultCoreOptions.RatioTolerance
	}
	switch {
	case o.Short < 1:
		return o, fmt.Errorf("%w: short chain length %d (allowed: ≥ 1)", ErrBadCount, o.Short)
	case o.Long < o.Short+1000 || o.Long > 1e9:
		return o, fmt.Errorf("%w: long chain length %d (allowed: %d to 1e9, at least 1000 above the short length)", ErrBadCount, o.Long, o.Short+1000)
	case o.Reps < 1 || o.Reps > 100_000:
		return o, fmt.Errorf("%w: reps %d (allowed: 1 to 100000)", ErrBadCount, o.Reps)
	case !(o.RatioTolerance > 0 && o.RatioTolerance < 1):
		return o, fmt.Errorf("%w: ratio tolerance %v (allowed: between 0 and 1)", ErrBadCount, o.RatioTolerance)
	}
	return o, nil
}

// timeChain returns the ticks one call of f(n) took, and false when start
// and stop ran on different CPUs.
func timeChain(f func(int) uint64, n int) (uint64, bool) {
	// The chains are assembly (or //go:noinline Go), so the compiler cannot
	// drop the call even though its result is not used.
	a, auxA := tsc.StartCPU()
	f(n)
	b, auxB := tsc.StopCPU()
	if auxA != auxB || b < a {
		return 0, false
	}
	return b - a, true
}

var (
	imulOnce  sync.Once
	imulLat   float64
	imulKnown bool
)

// MeasureCoreClock times the ADD and IMUL chains at two lengths, each
// o.Reps times, interleaved, keeps the minimum of each, and derives core
// cycles per tick from the ADD slope. The IMUL/ADD ratio is checked against
// [CPU.ImulLatency] of this processor (detected once) where it is known. It
// locks the calling goroutine's OS thread while it runs; pin it first.
func MeasureCoreClock(o CoreOptions) (CoreClock, error) {
	imulOnce.Do(func() { imulLat, imulKnown = DetectCPU().ImulLatency() })
	return measureCoreClock(o, imulLat, imulKnown)
}

// measureCoreClock is MeasureCoreClock with the IMUL latency given.
func measureCoreClock(o CoreOptions, lat float64, known bool) (CoreClock, error) {
	o, err := o.withDefaults()
	if err != nil {
		return CoreClock{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !known {
		lat = 0
	}
	cc := CoreClock{Short: o.Short, Long: o.Long, Reps: o.Reps, Exact: chain.Exact(), ImulLatency: lat}
	chains := []func(int) uint64{chain.Add, chain.Imul}
	lengths := []int{o.Short, o.Long}
	var best [2][2]uint64 // [chain][length]
	for i := range best {
		for j := range best[i] {
			best[i][j] = math.MaxUint64
		}
	}
	chain.Add(o.Long) // warm up: page in the code, let the core clock settle
	for r := 0; r < o.Reps; r++ {
		for i, f := range chains {
			for j, n := range lengths {
				if t, ok := timeChain(f, n); ok && t < best[i][j] {
					best[i][j] = t
				}
			}
		}
	}
	for i := range best {
		for j := range best[i] {
			if best[i][j] == math.MaxUint64 {
				return cc, fmt.Errorf("%w: every timing of a chain straddled a CPU migration", ErrUnstable)
			}
		}
	}
	dn := float64(o.Long - o.Short)
	cc.AddTicksPerOp = (float64(best[0][1]) - float64(best[0][0])) / dn
	cc.ImulTicksPerOp = (float64(best[1][1]) - float64(best[1][0])) / dn
	if cc.AddTicksPerOp <= 0 || cc.ImulTicksPerOp <= 0 {
		return cc, fmt.Errorf("%w: chain slopes add %.4g, imul %.4g ticks/op are not positive", ErrUnstable, cc.AddTicksPerOp, cc.ImulTicksPerOp)
	}
	cc.CyclesPerTick = 1 / cc.AddTicksPerOp
	cc.ImulAddRatio = cc.ImulTicksPerOp / cc.AddTicksPerOp
	if !cc.Exact {
		cc.Warnings = append(cc.Warnings, fmt.Errorf("%w: this build uses the pure-Go chains (GOARCH %s or -tags noasm); core cycles are approximate", ErrInexactChains, runtime.GOARCH))
	}
	if known && math.Abs(cc.ImulAddRatio/lat-1) > o.RatioTolerance {
		cc.Warnings = append(cc.Warnings, fmt.Errorf("%w: imul/add = %.3f, expected %.2f ± %.0f%%: the core clock changed while the chains ran, or the machine is busy", ErrRatio, cc.ImulAddRatio, lat, o.RatioTolerance*100))
	}
	return cc, nil
}
