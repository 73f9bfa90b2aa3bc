package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/harness"
)

// measureFlags are the flags every measuring subcommand shares. They bind
// straight into a harness.DefaultConfig(), whose WithDefaults is the one
// place their ranges are checked.
type measureFlags struct {
	cfg      harness.Config
	priority *string
	mode     *string
	events   *string
}

// modeBoth is run's -mode value that measures each kernel in both modes.
const modeBoth = "both"

// addMeasureFlags defines the shared flags on fs; withBoth adds "both" to
// the values of -mode.
func addMeasureFlags(fs *flagSet, withBoth bool) *measureFlags {
	m := &measureFlags{cfg: harness.DefaultConfig()}
	c := &m.cfg
	c.Waits = &harness.Waits{} // one command is one run: a core shared throughout costs two waits
	fs.IntVar(&c.K, "k", c.K, "the `K` smallest samples must agree for a result to converge (1 to 1000)")
	fs.Float64Var(&c.Epsilon, "eps", c.Epsilon, "relative tolerance `ε` (a fraction: 0.01 is 1%) within which a result's figures must agree to\nconverge (run -h says which figures); 0 ≤ ε < 1, 0 asks for equal figures")
	fs.IntVar(&c.MaxSamples, "m", c.MaxSamples, "give up on one measurement after `M` samples (at least K)")
	durationFlag(fs, &c.MaxTime, "max-time", "give up on one measurement after this long (a number with a unit: 500ms, 10s, 2m)")
	durationFlag(fs, &c.MinTime, "min-time", "sample each measurement for at least this long (and at most -m samples), even when it\nconverges sooner; 0, the default, stops once it converges, which no measurement does before\nits 16th round; 100ms lets the K best samples come from around a shared host's short\nmoments, for figures that repeat across processes (docs/how-it-measures.md)")
	fs.IntVar(&c.CPU, "cpu", c.CPU, "pin the measuring thread to CPU `N`; -1 picks the highest-numbered allowed CPU")
	m.priority = choiceFlag(fs, "priority", "high", "priority of the measuring thread (realtime: SCHED_FIFO, bounded by RLIMIT_RTTIME)", "normal", "high", "realtime")
	fs.BoolVar(&c.NoCycles, "no-cycles", false, "skip the core-clock reference chain (no cycle figures, ticks and ns only)")
	m.events = fs.String("events", "", "also count these performance-counter `EVENTS` per call, comma-separated perf names\n(cycles, instructions, branch-misses, cache-misses, ...; cyclebench info lists what this machine can count)")
	fs.BoolVar(&c.NoSettle, "no-wait", false, "do not wait (up to 250 ms) for a shared core to be free (the ruler's ADD chain lags its\nIMUL chain, or the core-state probe runs slow): stop as soon as the samples converge, and\nonly label the figure")
	fs.BoolVar(&c.RefuseShared, "refuse-shared", false, "give no cycle figure for a measurement whose core was shared to its end (marked ! in\nthe table); set where results are strict")
	fs.BoolVar(&c.NoDisturbances, "no-disturb", false, "do not read the thread's context switches and page faults\naround each sample to discard disturbed ones")
	modes := []string{harness.Throughput.String(), harness.Latency.String()}
	usage := "what a call's cost means: throughput (calls back to back) or latency (calls fenced apart)"
	if withBoth {
		modes = append(modes, modeBoth)
		usage += ", or both side by side"
	}
	m.mode = choiceFlag(fs, "mode", harness.Throughput.String(), usage, modes...)
	return m
}

// flagOf names the flag that sets each harness.Config field.
var flagOf = map[string]string{
	"K": "-k", "Epsilon": "-eps", "MaxSamples": "-m", "MaxTime": "-max-time", "MinTime": "-min-time", "CPU": "-cpu", "Events": "-events",
}

// config returns the harness configuration the flags set, checked by
// harness (a bad value is a *usageError naming the flag); with -mode both
// it is the throughput one (see modes).
func (m *measureFlags) config() (harness.Config, error) {
	cfg := m.cfg
	cfg.KeepPriority, cfg.Realtime = *m.priority == "normal", *m.priority == "realtime"
	if *m.mode == harness.Latency.String() {
		cfg.Mode = harness.Latency
	}
	if *m.events != "" {
		cfg.Events = strings.Split(*m.events, ",")
	}
	if _, err := cfg.WithDefaults(); err != nil {
		var ce *harness.ConfigError
		if errors.As(err, &ce) && flagOf[ce.Field] != "" {
			if ce.Field == "Events" {
				return cfg, usageErrorf("-events %s: %s", *m.events, withoutPackages.Replace(ce.Allowed))
			}
			return cfg, usageErrorf("%s %v: out of range (allowed: %s)", flagOf[ce.Field], ce.Value, ce.Allowed)
		}
		return cfg, usageErrorf("%w", err)
	}
	return cfg, checkCPU(cfg.CPU)
}

// checkCPU returns a *usageError when -cpu names a CPU this process may
// not use (-1, any, is fine).
func checkCPU(cpu int) error {
	if cpu >= 0 {
		if allowed, err := sys.allowed(); err == nil && !slices.Contains(allowed, cpu) {
			return usageErrorf("-cpu %d: not a CPU this process may use (allowed set %s)", cpu, affinity.FormatCPUs(allowed))
		}
	}
	return nil
}

// modes returns the modes -mode asks for, in the order they are measured.
func (m *measureFlags) modes() []harness.Mode {
	switch *m.mode {
	case harness.Latency.String():
		return []harness.Mode{harness.Latency}
	case modeBoth:
		return []harness.Mode{harness.Throughput, harness.Latency}
	}
	return []harness.Mode{harness.Throughput}
}
