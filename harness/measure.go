package harness

// Measure measures f as [Config] describes and returns per-call figures.
// It runs the measurement on a new goroutine locked to its OS thread
// (package internal/pinned: pinned, prioritised, GC off, everything
// restored afterwards), so the caller's thread is left as it was; f is
// called only from that goroutine. An error is returned for a bad Config
// (wrapping ErrBadConfig), a nil f, a panic or runtime.Goexit in f, a
// cancelled context, or a failed calibration; with a cancelled context the
// Result holds what was measured so far, marked not converged.
func Measure(cfg Config, f func()) (Result, error) {
	if f == nil {
		return Result{Name: cfg.Name}, ErrNilFunc
	}
	in := Instance{Name: cfg.Name, Run: f, Setup: cfg.Setup, Elements: cfg.Elements}
	e, abandoned, err := measureInstances(cfg, []Instance{in}, false, nil, nil)
	if e == nil || abandoned {
		// The realtime guard gave up on f (which may still be running), or
		// no engine existed: f panicked or exited before, or cfg was bad.
		return Result{Name: cfg.Name}, err
	}
	res, rerr := e.result(e.targets[0])
	res.Warnings = append(e.warnings, res.Warnings...)
	if err != nil {
		return res, err
	}
	return res, rerr
}
