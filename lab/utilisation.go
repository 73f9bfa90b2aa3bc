package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
)

// KernelUtilisation is one kernel's CPU utilisation.
type KernelUtilisation struct {
	Name string
	// Utilisation is cputime's snapshot pair around the run: wall time,
	// process CPU time, share of one CPU and of all CPUs.
	Utilisation cputime.Utilisation
	// ThreadCPU is the measuring thread's CPU time during the run (0 when
	// it could not be read; a warning says why).
	ThreadCPU time.Duration
	// CheckError is what Check returned after the run (nil: right).
	CheckError error
	// Warnings holds soft problems with this kernel's figures.
	Warnings []error
}

// UtilisationResult is what [Utilisation] found.
type UtilisationResult struct {
	Kernels []KernelUtilisation
	// CPU is the CPU the kernels ran on (-1 when not pinned) and Priority
	// the priority obtained.
	CPU      int
	Priority string
	Warnings []error
}

// Utilisation measures how much of the machine each kernel keeps busy:
// each runs once, on a pinned thread with the GC off, between two
// utilisation snapshots (cputime.StartUtilisation and Stop) and two
// readings of the thread's CPU time; Setup runs before, Check after, both
// untimed. A compute-bound kernel keeps one CPU about 100% busy; a kernel
// that sleeps, about 0%. Of cfg it uses CPU, KeepPriority and KeepGC; ctx
// cancels it between kernels and may carry a progress hook
// (harness.WithProgress: Stage "repetitions", 0 of 1, before each kernel).
// Where utilisation is unsupported the error wraps errors.ErrUnsupported
// (cputime.ErrNoProcfs on a Linux without /proc).
func Utilisation(ctx context.Context, cfg Config, kernels ...harness.Target) (UtilisationResult, error) {
	cfg.Methods, cfg.Reps = nil, 0
	cfg, err := cfg.validate(ctx, kernels)
	if err != nil {
		return UtilisationResult{}, err
	}
	var res UtilisationResult
	e, err := onPinnedThread(cfg, func(*env) error {
		for _, k := range kernels {
			if err := cfg.ctx.Err(); err != nil {
				return fmt.Errorf("lab: utilisation cancelled before %s: %w", k.Name, err)
			}
			if cfg.progress != nil {
				cfg.progress(harness.Progress{Name: k.Name, Stage: "repetitions", Max: 1, Spread: math.NaN()})
			}
			ku, err := utilisationOf(k)
			if err != nil {
				return err
			}
			res.Kernels = append(res.Kernels, ku)
		}
		return nil
	})
	res.CPU, res.Priority = e.cpu, e.priority
	res.Warnings = append(e.warnings, res.Warnings...)
	return res, err
}

func utilisationOf(k harness.Target) (KernelUtilisation, error) {
	ku := KernelUtilisation{Name: k.Name}
	if k.Setup != nil {
		k.Setup()
	}
	s, err := cputime.StartUtilisation()
	if err != nil {
		return ku, fmt.Errorf("lab: utilisation of %s: %w", k.Name, err)
	}
	before, errBefore := cputime.Thread()
	k.Run()
	after, errAfter := cputime.Thread()
	u, err := s.Stop()
	if err != nil {
		return ku, fmt.Errorf("lab: utilisation of %s: %w", k.Name, err)
	}
	ku.Utilisation = u
	switch err := errors.Join(errBefore, errAfter); {
	case err != nil:
		ku.Warnings = append(ku.Warnings, fmt.Errorf("lab: no thread cpu time for %s: %w", k.Name, err))
	case before.Source != after.Source || after.Total < before.Total:
		ku.Warnings = append(ku.Warnings, fmt.Errorf("lab: no thread cpu time for %s: readings %v (%s) and %v (%s) not comparable", k.Name, before.Total, before.Source, after.Total, after.Source))
	default:
		ku.ThreadCPU = after.Total - before.Total
	}
	if k.Check != nil {
		ku.CheckError = k.Check()
	}
	return ku, nil
}
