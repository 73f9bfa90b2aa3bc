package harness

import (
	"errors"

	"github.com/cyclebench/cyclebench/internal/pinned"
)

// Errors returned by this package, or put in Result.Warnings.
var (
	// ErrBadConfig: a Config field outside its allowed range, or a Target
	// or Sweep that cannot be measured (a nil function); the message names
	// the field, its value and what is allowed.
	ErrBadConfig = errors.New("harness: bad config")
	// ErrPanic: the measured function panicked or called runtime.Goexit;
	// the message says which.
	ErrPanic = pinned.ErrPanic
	// ErrRealtimeLimit: a Realtime measurement used up its share of
	// Config.RTTimeLimit (Linux: a guard watches it); the measuring thread
	// was put back to normal priority and the measurement returned without
	// waiting for the measured function, which is left running.
	ErrRealtimeLimit = pinned.ErrRealtimeLimit
	// ErrNotConverged (a warning): MaxSamples or MaxTime was reached first.
	ErrNotConverged = errors.New("harness: did not converge")
	// ErrDiscards (a warning): many samples were discarded (migrations).
	ErrDiscards = errors.New("harness: many samples discarded")
	// ErrUnpinned (a warning): the thread could not be pinned on this platform.
	ErrUnpinned = pinned.ErrUnpinned
	// ErrTooShort (a warning): a sample spans few counter steps and R could not be raised.
	ErrTooShort = errors.New("harness: region too short")
	// ErrOverlap (a warning): consecutive calls overlap by more than the
	// longest sample allowed can make small (see Result.Overlap): the
	// throughput figure reads high by the share the warning gives.
	ErrOverlap = errors.New("harness: calls overlap beyond the sample")
	// ErrNoCycles (a warning): core cycles could not be estimated.
	ErrNoCycles = errors.New("harness: no core-cycle estimate")
	// ErrModes (a warning): the samples form two clusters (see
	// Result.Modes): the function runs in two modes, and the figure is the
	// faster one.
	ErrModes = errors.New("harness: two modes")
	// ErrRulerLag (a warning): the ruler's register ADD chain ran slower
	// than its IMUL chain implies, beyond their tolerance, to the end of
	// the measurement: the core was probably shared (a busy SMT sibling),
	// and cycle figures may read low by as much.
	ErrRulerLag = errors.New("harness: the ruler's ADD chain lagged its IMUL chain")
	// ErrSharedCore (a warning; with Config.RefuseShared, the reason there
	// is no cycle figure): the core-state probe ran slower than its best
	// on this machine to the end of the measurement: another hardware
	// thread shared the core, and the figure is that of the code with
	// less of a core (Result.Shared).
	ErrSharedCore = errors.New("harness: the core was shared")
	// ErrRoom (a warning): in throughput mode the room probe read the
	// core's reorder buffer wider than usual on this machine for longer
	// than the measurement waits (the host's other hardware thread had
	// left the core), so calls that overlap the next may read low: the
	// figure may be that of the rarer state (Disturbances.Room).
	ErrRoom = errors.New("harness: the core had more room than usual")
	// ErrNoFloor (a warning): the code's cost varies from call to call and
	// its best sample was a rare call (fewer than half of the samples came
	// within ε of it), so the figure is the samples' 5th percentile
	// (Result.Quantile).
	ErrNoFloor = errors.New("harness: no floor")
	// ErrFloorUnjudged (a warning): fewer than half of the samples came
	// within ε of the best, and too few were taken to tell a floor the code
	// reaches often from a rare call; the figure is the best sample, which
	// more samples may lower.
	ErrFloorUnjudged = errors.New("harness: floor not judged")
)
