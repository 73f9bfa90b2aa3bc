package perfevent

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []Event
		err     error
		mention []string // substrings the error must contain
	}{
		{in: "cycles,instructions", want: []Event{Cycles, Instructions}},
		{in: "cs,migrations,faults", want: []Event{ContextSwitches, CPUMigrations, PageFaults}},
		{in: " Context-Switches , cpu-migrations,page-faults ", want: []Event{ContextSwitches, CPUMigrations, PageFaults}},
		{in: "cpu-cycles,branch-instructions,branch-misses", want: []Event{Cycles, Branches, BranchMisses}},
		{in: "cache-misses,cache-references,minor-faults,major-faults,task-clock", want: []Event{CacheMisses, CacheReferences, MinorFaults, MajorFaults, TaskClock}},
		{in: "cycels", err: ErrUnknownEvent, mention: []string{`"cycels"`, "cycles, instructions", "task-clock", "cs, migrations, faults"}},
		{in: "cycles,bogus", err: ErrUnknownEvent, mention: []string{`"bogus"`}},
		{in: "", err: ErrBadEvents, mention: []string{"empty list", "cycles"}},
		{in: "  ", err: ErrBadEvents, mention: []string{"empty list"}},
		{in: "cycles,,instructions", err: ErrBadEvents, mention: []string{"empty name at position 2"}},
		{in: "cs,context-switches", err: ErrBadEvents, mention: []string{`"context-switches" repeats context-switches`}},
		{in: strings.Repeat("cycles,", MaxEvents) + "cycles", err: ErrBadEvents, mention: []string{"at most 16"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
				}
				for _, m := range tt.mention {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not mention %q", err, m)
					}
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestKnownNamesRoundTrip(t *testing.T) {
	known := Known()
	if len(known) != numEvents || len(known) > MaxEvents {
		t.Fatalf("Known() has %d events, want %d (≤ MaxEvents %d)", len(known), numEvents, MaxEvents)
	}
	hw := 0
	for i, e := range known {
		t.Run(e.String(), func(t *testing.T) {
			if i > 0 && e.Hardware() && !known[i-1].Hardware() {
				t.Errorf("hardware event %s listed after a software one", e)
			}
			got, err := Parse(e.String())
			if err != nil || len(got) != 1 || got[0] != e {
				t.Errorf("Parse(%q) = %v, %v", e, got, err)
			}
			b, err := json.Marshal(e)
			if err != nil || string(b) != `"`+e.String()+`"` {
				t.Errorf("json.Marshal(%s) = %s, %v", e, b, err)
			}
			var back Event
			if err := json.Unmarshal(b, &back); err != nil || back != e {
				t.Errorf("json.Unmarshal(%s) = %v, %v", b, back, err)
			}
		})
		if e.Hardware() {
			hw++
		}
	}
	if hw != 6 {
		t.Errorf("%d hardware events, want 6", hw)
	}
}

func TestInvalidEvent(t *testing.T) {
	for _, e := range []Event{0, Event(numEvents + 1), 255} {
		if e.valid() || e.Hardware() {
			t.Errorf("%d: valid or hardware", uint8(e))
		}
		if !strings.HasPrefix(e.String(), "event(") {
			t.Errorf("String() = %q", e.String())
		}
		if _, err := e.MarshalText(); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("MarshalText(%d) error = %v", uint8(e), err)
		}
	}
	var e Event
	if err := e.UnmarshalText([]byte("nope")); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("UnmarshalText error = %v", err)
	}
}

func TestCheckEvents(t *testing.T) {
	tests := []struct {
		name string
		in   []Event
		err  error
	}{
		{"ok", []Event{ContextSwitches, CPUMigrations, PageFaults}, nil},
		{"empty", nil, ErrBadEvents},
		{"zero", []Event{ContextSwitches, 0}, ErrUnknownEvent},
		{"out of range", []Event{Event(numEvents + 1)}, ErrUnknownEvent},
		{"repeat", []Event{PageFaults, ContextSwitches, PageFaults}, ErrBadEvents},
		{"too many", make([]Event, MaxEvents+1), ErrBadEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkEvents(tt.in)
			if tt.err == nil && err != nil || !errors.Is(err, tt.err) {
				t.Errorf("checkEvents(%v) = %v, want %v", tt.in, err, tt.err)
			}
			// Open reports the same error before touching the kernel, on
			// every platform.
			if tt.err != nil {
				if g, err := Open(tt.in); g != nil || !errors.Is(err, tt.err) {
					t.Errorf("Open(%v) = %v, %v; want %v", tt.in, g, err, tt.err)
				}
			}
		})
	}
}
