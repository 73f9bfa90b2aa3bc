package harness

// The engine's view of what the kernel counts for the measuring thread:
// context switches and page faults that mark disturbed samples (read with
// getrusage, see threadUsage), and the extra events Config.Events asks for,
// counted per call (package perfevent).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/perfevent"
)

// Disturbances counts target samples discarded because something else
// happened on the measuring thread during them, by cause (a sample with
// several causes counts under the first of the order below). They are
// included in Result.Discarded.
type Disturbances struct {
	// Monitored reports whether the thread's context switches and page
	// faults could be read; when false, only RDTSCP's CPU number
	// (Migrations) was checked.
	Monitored bool `json:"monitored"`
	// ContextSwitches: the thread left its CPU during the sample. Only
	// while that is the exception: when more than half of the samples
	// switch, the function itself blocks or sleeps, samples are kept and
	// ErrBlocks says so.
	ContextSwitches int `json:"context_switches"`
	// Migrations: the thread moved to another CPU (RDTSCP's CPU number
	// differing between start and stop or from the pinned CPU). A
	// migration switches the thread out, so where the counter carries no
	// CPU number (arm64) it is counted under ContextSwitches.
	Migrations int `json:"migrations"`
	// PageFaults: the sample took a page fault. Only while faults are rare:
	// when more than half of the samples fault, the faults are the kernel's
	// own cost, samples are kept and a warning says so.
	PageFaults int `json:"page_faults"`
	// Room: the room probe read the core's reorder buffer wider than
	// usual around the sample (throughput mode; room.go): a moment in
	// which the host's other hardware thread had left the core, when
	// calls overlap further and read low. The figure is the core's usual
	// state's.
	Room int `json:"room"`
	// Calls: the calls probe read short continued calls more than 30%
	// slower than usual around the sample (throughput mode; room.go): a
	// state of the host in which such calls, and long continued chains,
	// run slower. The figure is the core's usual state's, or labelled
	// shared (Result.Shared) when the state outlasted the wait.
	Calls int `json:"calls"`
	// FaultingSamples counts every sample that took a page fault, discarded
	// or kept, and SwitchingSamples every sample with a context switch.
	FaultingSamples  int `json:"faulting_samples"`
	SwitchingSamples int `json:"switching_samples"`
}

// Counter is one extra event counted per call (Config.Events).
type Counter struct {
	// Event is the event's perf name ("instructions", "branch-misses", ...).
	Event string `json:"event"`
	// PerCall is the count per call in the target's best sample (the one
	// with the fewest ticks), less the overhead's count (Result.OverheadTicks:
	// the empty region's over the target's calls in throughput mode, the
	// fenced empty call's in latency mode) in its best sample.
	PerCall float64 `json:"per_call"`
	// Multiplexed reports that the kernel shared the PMU between more events
	// than it has counters: the figure is a scaled estimate.
	Multiplexed bool `json:"multiplexed,omitempty"`
}

// ErrCounters (a warning): the performance counters asked for, or the
// thread's context switches and page faults that mark disturbed samples,
// could not be read.
var ErrCounters = errors.New("harness: performance counters")

// monitor reads the counters around samples, on the measuring thread.
type monitor struct {
	soft         bool             // the thread's switches and faults can be read
	before       usage            // at the start of the sample
	after        usage            // at its end
	hw           *perfevent.Group // nil without Config.Events
	hwBefore     perfevent.Counts
	hwAfter      perfevent.Counts
	hwDelta      perfevent.Counts
	hwOK         bool // the last hardware delta is valid
	faultsKept   bool // faults are the kernel's own: no longer a cause
	switchesKept bool // context switches are the kernel's own (it blocks)
	warnings     []error
}

// usage is what the kernel has counted for the measuring thread so far.
type usage struct {
	switches int64 // voluntary and involuntary context switches
	faults   int64 // minor and major page faults
	ok       bool  // read
}

// newMonitor prepares the counters for thread tid (the pinned measuring
// thread; it may be called from another goroutine, so that opening the
// Config.Events group, which can take 15 ms, overlaps the warm-up).
// Failures are warnings: the measurement goes on without them.
//
// The switches and faults come from getrusage(RUSAGE_THREAD), not from
// perf_event_open's software events: opening any per-thread perf event
// makes the kernel turn its context-switch hooks on, and after a second
// without one that takes 7 to 16 ms (an RCU grace period; measured on an
// AMD Zen 4 guest), longer than a whole short measurement. getrusage
// counts the same switches and faults of the calling thread, in about
// 0.35 µs.
func newMonitor(cfg Config, tid int) *monitor {
	m := &monitor{}
	if !cfg.NoDisturbances {
		var u usage
		if err := threadUsage(&u); err != nil {
			m.warnings = append(m.warnings, fmt.Errorf("%w: disturbed samples cannot be told from others by their context switches and page faults (only RDTSCP migrations are checked): %w", ErrCounters, err))
		} else {
			m.soft = true
		}
	}
	if len(cfg.Events) > 0 {
		evs, err := perfevent.Parse(strings.Join(cfg.Events, ","))
		if err == nil {
			var g *perfevent.Group
			if g, err = perfevent.OpenThread(tid, evs); err == nil {
				if err = g.Enable(); err != nil {
					_ = g.Close()
				} else {
					m.hw = g
					m.warnings = append(m.warnings, g.Warnings...)
				}
			}
		}
		if err != nil {
			m.warnings = append(m.warnings, fmt.Errorf("%w: the events %v are not counted: %w", ErrCounters, cfg.Events, err))
		}
	}
	return m
}

// close releases the Config.Events group.
func (m *monitor) close() {
	if m.hw != nil {
		_ = m.hw.Close()
	}
}

// begin reads the counters just before a sample (outside its timed
// region).
func (m *monitor) begin() {
	if m.soft {
		m.before.ok = threadUsage(&m.before) == nil
	}
	if m.hw != nil {
		m.hwOK = m.hw.Read(&m.hwBefore) == nil
	}
}

// end reads the counters just after a sample and returns the event that
// moved, perfevent.ContextSwitches or perfevent.PageFaults (0 when none
// did, or when they cannot be read). The hardware counts of the sample are
// left in hwDelta (hwOK).
func (m *monitor) end() perfevent.Event {
	if m.hw != nil && m.hwOK {
		m.hwOK = m.hw.Read(&m.hwAfter) == nil && m.hwDelta.Delta(&m.hwBefore, &m.hwAfter) == nil
	}
	if !m.soft || !m.before.ok || threadUsage(&m.after) != nil {
		return 0
	}
	switch {
	case m.after.switches != m.before.switches:
		return perfevent.ContextSwitches
	case m.after.faults != m.before.faults:
		return perfevent.PageFaults
	}
	return 0
}

// hwCounts is one sample's hardware counts, kept for the best sample.
type hwCounts struct {
	ticks  uint64
	r      int // calls in the sample; 0 for the empty region
	counts perfevent.Counts
	set    bool
}

// keepBest records the current hardware delta in *best when the sample of
// ticks (r calls) is the best so far per call.
func (m *monitor) keepBest(best *hwCounts, ticks uint64, r int) {
	if m.hw == nil || !m.hwOK {
		return
	}
	// r is 0 for the empty region (throughput mode's overhead): its
	// samples compare by their ticks.
	if !best.set || float64(ticks)/float64(max(r, 1)) < float64(best.ticks)/float64(max(best.r, 1)) {
		*best = hwCounts{ticks: ticks, r: r, counts: m.hwDelta, set: true}
	}
}

// counters turns the best target and overhead samples' counts into
// per-call figures.
func counters(target, over hwCounts) []Counter {
	if target.r == 0 {
		return nil
	}
	var out []Counter
	for i := 0; i < target.counts.N; i++ {
		e := target.counts.Events[i]
		v := float64(target.counts.Values[i]) / float64(target.r)
		if ov, ok := over.counts.Value(e); ok && over.set {
			// The empty loop's counts per call, or the empty region's
			// (r = 0) per sample of the target's calls.
			v -= float64(ov) / float64(cmp.Or(over.r, target.r))
		}
		out = append(out, Counter{Event: e.String(), PerCall: v, Multiplexed: target.counts.Multiplexed})
	}
	return out
}

// classify decides what a moved event means for a target sample:
// whether to discard it, counting the cause in d. Context switches and page
// faults discard a sample only while they are the exception (at most half
// of the samples so far, after the first eight): a kernel that sleeps or
// blocks switches out in every sample, one that touches new memory faults
// in every sample, and discarding them all would leave nothing to measure;
// then the samples are kept and a warning says why (ErrBlocks, or the
// page-fault warning). Nor do they discard a sample while none has been
// kept (kept is the target's kept samples): a measurement cut short by
// MaxTime after a few long samples, each switched out by the scheduler's
// tick (seen under qemu-user, where a sample lasts milliseconds), must
// still have a figure, and noise only adds time, which the smallest
// samples that follow leave out. A migration always discards: the thread
// is pinned.
func (m *monitor) classify(cause perfevent.Event, d *Disturbances, taken, kept int) (discard bool) {
	switch cause {
	case perfevent.ContextSwitches:
		d.SwitchingSamples++
		if kept == 0 {
			return false
		}
		if m.switchesKept || 2*d.SwitchingSamples > max(taken, 8) {
			m.switchesKept = true
			return false
		}
		d.ContextSwitches++
		return true
	case perfevent.CPUMigrations:
		d.Migrations++
		return true
	case perfevent.PageFaults:
		d.FaultingSamples++
		if kept == 0 {
			return false
		}
		if m.faultsKept || 2*d.FaultingSamples > max(taken, 8) {
			m.faultsKept = true
			return false
		}
		d.PageFaults++
		return true
	}
	return false
}

// CounterValue returns the per-call figure of event in r.Counters.
func (r Result) CounterValue(event string) (float64, bool) {
	i := slices.IndexFunc(r.Counters, func(c Counter) bool { return c.Event == event })
	if i < 0 {
		return 0, false
	}
	return r.Counters[i].PerCall, true
}
