package calibrate

import "errors"

// Errors returned or put in Warnings by this package.
var (
	// ErrBadDuration: a calibration interval outside [MinDuration, MaxDuration].
	ErrBadDuration = errors.New("calibrate: bad duration")
	// ErrBadMethod: an unknown frequency method.
	ErrBadMethod = errors.New("calibrate: bad method")
	// ErrBadCount: a sample count outside its allowed range.
	ErrBadCount = errors.New("calibrate: bad count")
	// ErrBadTarget: a frequency uncertainty target that is not a positive number of ppm.
	ErrBadTarget = errors.New("calibrate: bad target")
	// ErrUnstable: the measurement could not be made (migrations, a counter
	// that did not advance).
	ErrUnstable = errors.New("calibrate: unstable measurement")
	// ErrNoKernelFigure: the operating system exposes no TSC frequency
	// (from [KernelFrequency]: none that its monotonic clock counts ticks at).
	ErrNoKernelFigure = errors.New("calibrate: no kernel tsc frequency")
	// ErrSleepBias (a warning): the sleep method counted the sleep's overshoot.
	ErrSleepBias = errors.New("calibrate: sleep method is biased")
	// ErrDisagree (a warning): two frequency sources disagree beyond their uncertainty.
	ErrDisagree = errors.New("calibrate: frequency sources disagree")
	// ErrNotInvariant (a warning): the TSC is not invariant; ticks do not convert to time with one frequency.
	ErrNotInvariant = errors.New("calibrate: tsc is not invariant")
	// ErrVirtual (a warning): running under a hypervisor.
	ErrVirtual = errors.New("calibrate: running under a hypervisor")
	// ErrImprecise (a warning): the counter frequency is known less precisely
	// than MaxFrequencyPPM, so nanosecond figures carry that error.
	ErrImprecise = errors.New("calibrate: frequency imprecise")
	// ErrRulersDisagree (a warning, and the reason for no cycle figure): the
	// register ADD chain and the IMUL chain disagree on the core clock: the
	// IMUL/ADD slope ratio is far from the documented IMUL latency.
	ErrRulersDisagree = errors.New("calibrate: the core-clock rulers disagree")
	// ErrImplausibleClock (a warning, and the reason for no cycle figure):
	// the register ADD chain implies a core clock outside the plausible band.
	ErrImplausibleClock = errors.New("calibrate: implausible core clock")
	// ErrUnchecked (a warning): the cycles-per-tick figure rests on the
	// register ADD chain alone; nothing could check it on this processor.
	ErrUnchecked = errors.New("calibrate: core-clock ruler unchecked")
	// ErrEmulated (a warning): the processor, and so the counter, is
	// emulated (user-mode emulation such as qemu-user); ticks, nanoseconds
	// and cycles describe the emulator, not any hardware.
	ErrEmulated = errors.New("calibrate: counter is emulated")
	// ErrNoMigrationCheck (a warning): counter reads carry no CPU number, so
	// a sample whose thread moved between CPUs cannot be recognised.
	ErrNoMigrationCheck = errors.New("calibrate: migration cannot be detected")
	// ErrInexactChains (a warning): the reference chains are the pure-Go fallback.
	ErrInexactChains = errors.New("calibrate: reference chains are not exact")
)
