package calibrate

import (
	"path/filepath"
	"testing"
)

// TestRoomUsualAcrossProcesses: the usual level is the median of the
// latest roomKept levels, per probe length, kept across processes in the
// cache file; odd levels (a measurement in a moment of room) do not move
// it while they are a minority, reach the next process, and move it there
// once they are the majority; bad ones are ignored.
func TestRoomUsualAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core-probe.json")
	useProbeCache(t, path)
	if got := RoomUsual(8); got != 0 {
		t.Fatalf("no level: RoomUsual = %v, want 0", got)
	}
	NoteRoom(8, 491.6)
	NoteRoom(8, 484.2) // a measurement in a moment of room
	NoteRoom(8, -1)
	NoteRoom(0, 491)
	if got := RoomUsual(8); got != 0 {
		t.Fatalf("two levels: RoomUsual = %v, want 0 (three needed)", got)
	}
	NoteRoom(8, 491.9)
	if got := RoomUsual(8); got != 491.6 {
		t.Fatalf("RoomUsual = %v, want the median 491.6", got)
	}
	for range 20 {
		NoteRoom(8, 492)
	}
	for range 7 {
		NoteRoom(8, 484) // seven of fifteen in the rarer state
	}
	if got := RoomUsual(8); got != 492 {
		t.Fatalf("after 20 usual and 7 odd levels RoomUsual = %v, want 492", got)
	}
	if got := RoomUsual(45); got != 0 {
		t.Fatalf("another probe length: RoomUsual = %v, want 0", got)
	}

	// The next process reads the file, odd levels included.
	resetProbe()
	if got := RoomUsual(8); got != 492 {
		t.Fatalf("a new process: RoomUsual = %v, want 492 from %s", got, path)
	}
	NoteRoom(8, 484)
	if got := RoomUsual(8); got != 484 {
		t.Fatalf("eight of fifteen odd: RoomUsual = %v, want 484 (the state moved)", got)
	}

	t.Setenv("CYCLEBENCH_PROBE_CACHE", "off")
	resetProbe()
	NoteRoom(8, 491)
	NoteRoom(8, 491)
	NoteRoom(8, 491)
	if got := RoomUsual(8); got != 491 {
		t.Fatalf("no cache file: RoomUsual = %v, want 491 from this process", got)
	}
}
