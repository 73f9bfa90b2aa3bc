// Package selfcheck checks package harness against code whose cost is
// known, and measures how noisy the machine is now: what cyclebench
// validate runs.
//
// [Validate] measures dependent register ADD and IMUL chains (1 cycle and
// the core's documented multiply latency per link, on every x86-64 core),
// an immediate ADD chain (which Golden Cove-class cores fold at rename),
// and the empty function, over several lengths and in both modes, through
// harness's exported API only (Measure and Compare), and judges slopes
// rather than absolute figures: each chain is judged in cycles of the
// other chain's ruler, never its own. Each [Check] says what was measured,
// the truth and the tolerance; [MachineState] holds the facts about the
// moment (the spread of repeated results, what an A/A comparison resolves
// now), stated and not judged unless [Options].MaxCV asks.
// [Validation.Report] is the whole as a JSON document, and
// [Validation.Failures] names the checks that decide the exit status.
//
// It sits above harness in the imports (leaves, calibrate, harness, then
// lab and selfcheck, then the command) and, like harness, never prints,
// exits or panics: bad options are an error wrapping harness.ErrBadConfig.
package selfcheck
