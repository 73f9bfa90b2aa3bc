package harness

import "context"

// Measure measures t as cfg says and returns per-call figures.
// It runs the measurement on a new goroutine locked to its OS thread
// (package internal/pinned: pinned, prioritised, GC off, everything
// restored afterwards), so the caller's thread is left as it was; t's
// functions are called only from that goroutine, and t.Check after it has
// finished. ctx cancels the measurement and may carry a progress hook
// ([WithProgress]).
//
// An error is returned for a bad Config or Target (wrapping
// ErrBadConfig), a panic or runtime.Goexit in t's functions (ErrPanic), a
// cancelled context, a failed calibration, or a failing t.Check; with a
// cancelled context the Result holds what was measured so far, marked not
// converged, and with a failing Check the figures measured.
func Measure(ctx context.Context, cfg Config, t Target) (Result, error) {
	if err := t.validate(cfg, ""); err != nil {
		return Result{Name: t.Name}, err
	}
	e, abandoned, err := measureTargets(ctx, cfg, runSpec{name: t.Name, targets: []Target{t}})
	if e == nil || abandoned {
		// The realtime guard gave up on t (which may still be running), or
		// no engine existed: t panicked or exited before, or cfg was bad.
		return Result{Name: t.Name}, err
	}
	res, rerr := e.result(e.targets[0])
	res.Warnings = append(e.warnings, res.Warnings...)
	if err != nil {
		return res, err
	}
	if rerr != nil {
		return res, rerr
	}
	return res, t.check()
}
