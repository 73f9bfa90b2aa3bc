package perfevent

import (
	"fmt"
	"strings"
)

// Event names one counter the kernel can count for a thread. The zero value
// is not an event: [Open] rejects it.
type Event uint8

// The events this package knows, in the order [Known] lists them. The first
// six are counted by the processor's performance monitoring unit (PMU) and
// need one; the rest are counted by the kernel in software and work wherever
// perf_event_open does.
const (
	Cycles          Event = iota + 1 // core clock cycles (PERF_COUNT_HW_CPU_CYCLES)
	Instructions                     // instructions retired
	BranchMisses                     // mispredicted branches retired
	Branches                         // branch instructions retired
	CacheMisses                      // last-level cache misses, as the PMU defines them
	CacheReferences                  // last-level cache accesses, as the PMU defines them
	ContextSwitches                  // times the thread left its CPU (software)
	CPUMigrations                    // times the thread moved to another CPU (software)
	PageFaults                       // page faults, minor and major (software)
	MinorFaults                      // page faults served without I/O (software)
	MajorFaults                      // page faults that waited for I/O (software)
	TaskClock                        // nanoseconds the thread ran on a CPU (software)

	numEvents = int(TaskClock)
)

// MaxEvents is the largest number of events in one [Group], so that [Counts]
// is a fixed-size value that reading never allocates. It is more than the
// number of distinct events this package knows.
const MaxEvents = 16

// names holds each event's perf name, indexed by Event.
var names = [numEvents + 1]string{
	Cycles:          "cycles",
	Instructions:    "instructions",
	BranchMisses:    "branch-misses",
	Branches:        "branches",
	CacheMisses:     "cache-misses",
	CacheReferences: "cache-references",
	ContextSwitches: "context-switches",
	CPUMigrations:   "cpu-migrations",
	PageFaults:      "page-faults",
	MinorFaults:     "minor-faults",
	MajorFaults:     "major-faults",
	TaskClock:       "task-clock",
}

// aliases are the other names perf(1) accepts for the same events.
var aliases = []struct {
	name string
	ev   Event
}{
	{"cs", ContextSwitches},
	{"migrations", CPUMigrations},
	{"faults", PageFaults},
	{"cpu-cycles", Cycles},
	{"branch-instructions", Branches},
}

// Known returns every event this package knows, hardware events first, in a
// new slice.
func Known() []Event {
	evs := make([]Event, numEvents)
	for i := range evs {
		evs[i] = Event(i + 1)
	}
	return evs
}

// String returns the event's perf name ("cycles", "context-switches"), or
// "event(N)" for a value that is not an event.
func (e Event) String() string {
	if e.valid() {
		return names[e]
	}
	return fmt.Sprintf("event(%d)", uint8(e))
}

// Hardware reports whether the event is counted by the processor's PMU
// (cycles, instructions, branches, caches) rather than by the kernel.
func (e Event) Hardware() bool { return e >= Cycles && e <= CacheReferences }

// MarshalText returns the event's name, so that JSON shows "cycles" rather
// than a number.
func (e Event) MarshalText() ([]byte, error) {
	if !e.valid() {
		return nil, fmt.Errorf("%w: %d is not an event", ErrUnknownEvent, uint8(e))
	}
	return []byte(names[e]), nil
}

// UnmarshalText sets the event from one name or alias, as [Parse] accepts.
func (e *Event) UnmarshalText(b []byte) error {
	ev, err := parseOne(string(b))
	if err != nil {
		return err
	}
	*e = ev
	return nil
}

func (e Event) valid() bool { return e >= 1 && int(e) <= numEvents }

// Parse reads a comma-separated list of event names ("cycles,instructions",
// "cs,migrations,faults"). Names are perf's, case-insensitive, with spaces
// around commas allowed; the aliases cs, migrations, faults, cpu-cycles and
// branch-instructions are accepted. An unknown name is an error wrapping
// [ErrUnknownEvent] that names it and lists the known ones; an empty list, an
// empty name, a repeated event or more than [MaxEvents] events is an error
// wrapping [ErrBadEvents].
func Parse(list string) ([]Event, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("%w: empty list (known: %s)", ErrBadEvents, knownList())
	}
	parts := strings.Split(list, ",")
	if len(parts) > MaxEvents {
		return nil, fmt.Errorf("%w: %d events in %q, at most %d in one group", ErrBadEvents, len(parts), list, MaxEvents)
	}
	evs := make([]Event, 0, len(parts))
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("%w: empty name at position %d in %q", ErrBadEvents, i+1, list)
		}
		ev, err := parseOne(p)
		if err != nil {
			return nil, err
		}
		for _, prev := range evs {
			if prev == ev {
				return nil, fmt.Errorf("%w: %q repeats %s in %q", ErrBadEvents, strings.TrimSpace(p), ev, list)
			}
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func parseOne(name string) (Event, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for i := 1; i <= numEvents; i++ {
		if names[i] == n {
			return Event(i), nil
		}
	}
	for _, a := range aliases {
		if a.name == n {
			return a.ev, nil
		}
	}
	return 0, fmt.Errorf("%w %q (known: %s)", ErrUnknownEvent, name, knownList())
}

// knownList spells the allowed names for error messages.
func knownList() string {
	var b strings.Builder
	for i := 1; i <= numEvents; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(names[i])
	}
	b.WriteString("; aliases")
	for i, a := range aliases {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" " + a.name)
	}
	return b.String()
}

// checkEvents validates the list given to Open: what Parse guarantees for
// names, checked again for lists built in code.
func checkEvents(evs []Event) error {
	if len(evs) == 0 {
		return fmt.Errorf("%w: no events (known: %s)", ErrBadEvents, knownList())
	}
	if len(evs) > MaxEvents {
		return fmt.Errorf("%w: %d events, at most %d in one group", ErrBadEvents, len(evs), MaxEvents)
	}
	for i, ev := range evs {
		if !ev.valid() {
			return fmt.Errorf("%w: %s at position %d (known: %s)", ErrUnknownEvent, ev, i+1, knownList())
		}
		for _, prev := range evs[:i] {
			if prev == ev {
				return fmt.Errorf("%w: %s appears twice", ErrBadEvents, ev)
			}
		}
	}
	return nil
}
