package main

// This file holds the session: the opening of a subcommand (flags,
// arguments, checks, interrupts) and its calibration and header.

import (
	"io"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"github.com/cyclebench/cyclebench/results"
)

// session is a subcommand from its command line to its last word. Every
// subcommand opens one the same way (open: parse, arguments, checks,
// -o and -plot writable, the measuring flags, interrupts; calibrate: the
// calibration and the header of the results), then measures or reads,
// and ends with its results, warnings and exit status (out.status).
type session struct {
	fs  *flagSet
	o   *out
	pf  *plotFlags    // -plot, for the subcommands that draw
	mf  *measureFlags // the measuring flags, for the subcommands that measure
	in  *interrupt
	cfg harness.Config
	cal *calibrate.Calibration
	// calWarnings are the pinning's warnings when it calibrated.
	calWarnings []error
	h           results.Header
	// hint rewords a parse error (package mode: the flags it lacks).
	hint func(error) error
}

// newSession is the session of subcommand name; its -h prints synopsis
// and description (see newFlagSet).
func newSession(name, synopsis, description string, stdout io.Writer) *session {
	return &session{fs: newFlagSet(name, synopsis, description, stdout)}
}

// open parses args (flags anywhere on the line), refuses positional
// arguments unless takesArgs, runs checks in order (the subcommand's own
// ranges), fails on an -o or -plot that cannot be written (before
// anything is measured), reads the measuring flags into s.cfg, and starts
// catching SIGINT and SIGTERM: the caller defers s.close.
func (s *session) open(args []string, takesArgs bool, checks ...func() error) error {
	if err := s.parse(args); err != nil {
		return err
	}
	return s.start(takesArgs, checks...)
}

// parse is the first step of open, for a subcommand that looks at its
// arguments before it knows which checks apply.
func (s *session) parse(args []string) error {
	err := s.fs.parse(args)
	if err != nil && s.hint != nil {
		return s.hint(err)
	}
	return err
}

// start is open after parse.
func (s *session) start(takesArgs bool, checks ...func() error) error {
	if !takesArgs {
		checks = append([]func() error{s.fs.noArgs}, checks...)
	}
	if s.pf != nil {
		checks = append(checks, s.pf.check)
	}
	if s.o != nil {
		checks = append(checks, s.o.check)
	}
	if s.mf != nil {
		if s.o != nil && s.o.strict { // as a flag, so that each run's process gets it
			s.fs.Set("refuse-shared", "true")
		}
		checks = append(checks, func() (err error) { s.cfg, err = s.mf.config(); return err })
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	s.in = catchInterrupts()
	return nil
}

// close stops catching signals.
func (s *session) close() {
	if s.in != nil {
		s.in.stop()
	}
}

// calibrate calibrates on the CPU the measurements will pin to, gives
// s.cfg the calibration, and makes the header of command's results.
func (s *session) calibrate(command string) error {
	cal, warns, err := calibrateOn(s.cfg.CPU)
	if err != nil {
		return err
	}
	s.cal, s.calWarnings, s.cfg.Calibration = cal, warns, cal
	s.h = newHeader(command, cal, s.cfg, warns)
	return nil
}

// newHeader is the header of command's results measured here, on the
// platform sys says.
func newHeader(command string, cal *calibrate.Calibration, cfg harness.Config, warnings []error) results.Header {
	h := results.NewHeader(command, cal, cfg, warnings)
	h.GOOS, h.GOARCH, h.GoVersion = sys.goos, sys.goarch, sys.goVersion
	return h
}

// calibrateOn calibrates (once per process) on a thread pinned to cpu, so
// the figures are those of the CPU the measurements will use.
func calibrateOn(cpu int) (*calibrate.Calibration, []error, error) {
	var cal *calibrate.Calibration
	var warns []error
	err := onThread(cpu, func(th *pinned.Thread) error {
		warns = th.Warnings
		var err error
		cal, err = calibrate.Get()
		return err
	})
	return cal, warns, err
}

// partial marks the header of results a signal cut short: Partial says
// "interrupted by SIGINT" + what + more, a warning "interrupted by a
// signal" + what. Nothing when no signal came.
func (s *session) partial(what, more string) {
	if s.in.exitCode() != 0 {
		s.h.Partial = "interrupted by " + s.in.signal() + what + more
		s.h.Warnings = append(s.h.Warnings, "interrupted by a signal"+what)
	}
}
