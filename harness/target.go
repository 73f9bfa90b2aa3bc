package harness

import (
	"fmt"
	"math"
)

// Target is one piece of code to time: what [Measure], [Compare] and the
// Report helpers take, and what a [Sweep]'s Build returns for one size.
//
// The protocol is: Setup (when not nil, untimed), Run (timed), and, after
// the measurement, Check (untimed) on the output of the latest Run.
type Target struct {
	// Name labels the target's results; empty means a generated name
	// ("the function" in messages, "A" and "B" in a comparison, the
	// benchmark's name in the Report helpers).
	Name string
	// Run is the timed work; it must not be nil. It should leave its
	// result somewhere the compiler cannot prove dead (a package variable),
	// or the work may be deleted.
	Run func()
	// Setup, when not nil, is called before every sample, untimed, to
	// restore an input Run consumes (an array to sort); it forces one call
	// per sample (Config.Repeat 0 or 1).
	Setup func()
	// Elements, when > 0, is the number of elements one call of Run
	// processes: the result then has per-element figures, and it is the x
	// of a CPE fit (in a Sweep, 0 means the size n).
	Elements float64
	// Check, when not nil, verifies the output of the latest Run; it is
	// called once, untimed, after the measurement. A Check that returns an
	// error makes the measurement fail with that error (wrapped, naming
	// the target), the figures still returned.
	Check func() error
}

// name is t's name, or "the function".
func (t Target) name() string { return nameOr(t.Name) }

// validate checks what a Target must hold against cfg; an error wraps
// ErrBadConfig and names the target, the field, its value and what is
// allowed. who says where the target came from ("sweep s, n=100").
func (t Target) validate(cfg Config, who string) error {
	if who == "" {
		who = t.name()
	}
	switch {
	case t.Run == nil:
		return fmt.Errorf("%w: %s: Run is nil (allowed: a function to time)", ErrBadConfig, who)
	case math.IsNaN(t.Elements) || math.IsInf(t.Elements, 0) || t.Elements < 0:
		return fmt.Errorf("%w: %s: Elements %v (allowed: ≥ 0, finite)", ErrBadConfig, who, t.Elements)
	case t.Setup != nil && cfg.Repeat > 1:
		return &ConfigError{Field: "Repeat", Value: cfg.Repeat, Allowed: "0 or 1 with a Setup function, which runs once per sample"}
	}
	return nil
}

// check runs t.Check, when there is one, after a measurement.
func (t Target) check() error {
	if t.Check == nil {
		return nil
	}
	if err := t.Check(); err != nil {
		return fmt.Errorf("harness: %s: the check after measuring failed: %w", t.name(), err)
	}
	return nil
}
