package harness

import "strings"

// limitName names the Config field behind a stop at a limit
// (Result.StoppedBy), so that a remedy can name the limit that was hit.
var limitName = map[stopReason]string{stopMaxTime: "MaxTime", stopSamples: "MaxSamples"}

// remedies pairs the text of a warning this package gives (the sentinel
// it wraps) with what may cure it, most specific first. Warnings that say
// how things are (running under a hypervisor, a kernel measured without a
// PMU) have none.
var remedies = []struct{ warning, remedy string }{
	{"the reference chain is the pure-Go fallback", "a build with assembly (without -tags noasm) on amd64 or arm64"},
	{ErrNoCycles.Error(), "a quieter CPU, or more time (Config.MaxTime; go test -benchtime 3s; cyclebench -max-time 30s): the core-clock ruler waits for a steady clock"},
	{"stopped by MaxSamples", "more samples (Config.MaxSamples; go test -benchtime 10000x; cyclebench -m 10000), a larger ε (Config.Epsilon, -eps 0.02), or a quieter CPU"},
	{"stopped by MaxTime", "more time (Config.MaxTime; go test -benchtime 3s; cyclebench -max-time 30s), a larger ε (Config.Epsilon, -eps 0.02), or a quieter CPU"},
	{ErrNotConverged.Error(), "more samples or time (Config.MaxSamples, Config.MaxTime; go test -benchtime 10000x or 3s; cyclebench -m, -max-time), a larger ε (Config.Epsilon, -eps 0.02), or a quieter CPU"},
	{ErrModes.Error(), "none for the figure, which is the faster mode; latency mode (Config.Mode = harness.Latency, -mode latency) or a quieter CPU may leave one mode"},
	{ErrSharedCore.Error(), "measuring again later (cyclebench -count, go test -count: which runs it touched shows in their labels), or a core whose SMT sibling is idle; Config.RefuseShared (-strict) refuses such figures"},
	{ErrNoFloor.Error(), "none for the figure, which repeats where the best sample would not; to compare two versions of such code, cyclebench compare and harness.Compare rank every sample"},
	{ErrFloorUnjudged.Error(), "more samples or time (Config.MaxSamples, Config.MinTime; go test -benchtime 10000x; cyclebench -m 1000, -min-time 2s): 200 samples judge it"},
	{ErrRulerLag.Error(), "measuring again (a shared core's stretches lasted 50 to 250 ms where seen; go test -count, cyclebench -count, show which runs one touched), or a core whose SMT sibling is idle"},
	{ErrDiscards.Error(), "a quieter CPU: other work interrupted the samples"},
	{ErrBlocks.Error(), "a quieter CPU, unless the function sleeps or waits by design"},
	{ErrTooShort.Error(), "more work per call (a larger n)"},
	{ErrRoom.Error(), "measuring again (cyclebench -count, go test -count): such moments come and go within seconds"},
	{ErrOverlap.Error(), "more work per call (a larger n), so that one call's overlap is a smaller part of a sample; or latency mode (Config.Mode = harness.Latency, -mode latency), whose calls do not overlap"},
	{"priority high asked", "root or CAP_SYS_NICE for a raised priority (or Config.KeepPriority, -priority normal, to stop asking)"},
}

// Remedy names what may cure the problem a warning of this package
// describes (Result.Warnings, Comparison.Warnings, or the text of one read
// back from go test output), in words that name the Config field, the go
// test flag and the cyclebench flag. For a measurement that did not
// converge it names the limit that stopped it (the warning says "stopped
// by MaxSamples" or "stopped by MaxTime", [Result.StoppedBy]): "more
// samples (Config.MaxSamples; go test -benchtime 10000x; ...), a larger ε
// (...), or a quieter CPU". It returns "" for a warning that says
// how things are (running under a hypervisor) or that it does not know.
// It goes by the warning's text, so that it serves warnings read from
// files as well.
func Remedy(warning string) string {
	for _, r := range remedies {
		if strings.Contains(warning, r.warning) {
			return r.remedy
		}
	}
	return ""
}
