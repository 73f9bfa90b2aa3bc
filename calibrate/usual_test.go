package calibrate

import (
	"path/filepath"
	"testing"
)

// TestUsualAcrossProcesses: the usual level is the median of the
// latest roomKept levels, per probe length, kept across processes in the
// cache file; odd levels (a measurement in a moment of room) do not move
// it while they are a minority, reach the next process, and move it there
// once they are the majority; bad ones are ignored.
func TestUsualAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core-probe.json")
	useProbeCache(t, path)
	if got := Usual("room", 8); got != 0 {
		t.Fatalf("no level: Usual = %v, want 0", got)
	}
	NoteUsual("room", 8, 491.6)
	NoteUsual("room", 8, 484.2) // a measurement in a moment of room
	NoteUsual("room", 8, -1)
	NoteUsual("room", 0, 491)
	if got := Usual("room", 8); got != 0 {
		t.Fatalf("two levels: Usual = %v, want 0 (three needed)", got)
	}
	NoteUsual("room", 8, 491.9)
	if got := Usual("room", 8); got != 491.6 {
		t.Fatalf("Usual = %v, want the median 491.6", got)
	}
	for range 20 {
		NoteUsual("room", 8, 492)
	}
	for range 7 {
		NoteUsual("room", 8, 484) // seven of fifteen in the rarer state
	}
	if got := Usual("room", 8); got != 492 {
		t.Fatalf("after 20 usual and 7 odd levels Usual = %v, want 492", got)
	}
	if got := Usual("room", 45); got != 0 {
		t.Fatalf("another probe length: Usual = %v, want 0", got)
	}
	if got := Usual("calls", 8); got != 0 {
		t.Fatalf("another probe: Usual(calls, 8) = %v, want 0", got)
	}

	// The next process reads the file, odd levels included.
	resetProbe()
	if got := Usual("room", 8); got != 492 {
		t.Fatalf("a new process: Usual = %v, want 492 from %s", got, path)
	}
	NoteUsual("room", 8, 484)
	if got := Usual("room", 8); got != 484 {
		t.Fatalf("eight of fifteen odd: Usual = %v, want 484 (the state moved)", got)
	}

	t.Setenv("CYCLEBENCH_PROBE_CACHE", "off")
	resetProbe()
	NoteUsual("room", 8, 491)
	NoteUsual("room", 8, 491)
	NoteUsual("room", 8, 491)
	if got := Usual("room", 8); got != 491 {
		t.Fatalf("no cache file: Usual = %v, want 491 from this process", got)
	}
}
