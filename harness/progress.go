package harness

import (
	"context"
	"time"
)

// Progress reports the state of a running measurement to the hook of
// [WithProgress]. It is the one progress report of the module: package lab
// and package selfcheck report their own steps with it too, through the
// same hook.
type Progress struct {
	// Name is the target's name (a sweep's name for [CPE]); for a lab, the
	// kernel's; for a selfcheck step, what it does.
	Name string
	// Stage is "" for a measurement's own samples, "repetitions" for a
	// lab's timed repetitions of a kernel (Samples of Max done), and
	// "validate" for a selfcheck step (Name says which).
	Stage string
	// Samples is the target samples taken, of at most Max (MaxSamples);
	// for a sweep or a comparison, the sizes or pairs done of Max.
	Samples, Max int
	// Spread is (vK − v1)/v1 of the target so far; NaN before K samples
	// and for a sweep or a comparison.
	Spread float64
	// Elapsed is the time since sampling began.
	Elapsed time.Duration
	// Converged reports that the target (every size, every pair) is done.
	Converged bool
}

// progressKey is the context key of the progress hook.
type progressKey struct{}

// WithProgress returns a copy of ctx that carries f as the progress hook
// of the measurements made with it, as net/http/httptrace carries its
// hooks: [Measure], [CPE] and [Compare] call f from the measuring
// goroutine between samples, at most every 50 ms, outside every timed
// region; package lab and package selfcheck call it between their steps
// too. f must return quickly and must not block. A nil f removes the hook.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ProgressOf returns the progress hook ctx carries ([WithProgress]), or
// nil: for the packages built on measurements to report their own steps.
func ProgressOf(ctx context.Context) func(Progress) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	return f
}
