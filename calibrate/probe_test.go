package calibrate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// useProbeCache points the probe's cache at path for the test and forgets
// what the process learned before and after it.
func useProbeCache(t *testing.T, path string) {
	t.Helper()
	t.Setenv("CYCLEBENCH_PROBE_CACHE", path)
	resetProbe()
	t.Cleanup(resetProbe)
}

func TestProbeAloneKeepsTheBestAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "core-probe.json")
	useProbeCache(t, path)
	if got := ProbeAlone(); got != 0 {
		t.Fatalf("ProbeAlone with no reading = %v, want 0", got)
	}
	NoteProbe(2.04) // a process that started while the core was shared
	NoteProbe(-1)
	NoteProbe(0)
	if got := ProbeAlone(); got != 2.04 {
		t.Fatalf("ProbeAlone = %v, want 2.04 (bad readings ignored)", got)
	}
	NoteProbe(1.06)
	if got := ProbeAlone(); got != 2.04 {
		t.Fatalf("with two readings ProbeAlone = %v, want the higher, 2.04", got)
	}
	NoteProbe(1.055)
	NoteProbe(1.0551) // a repeat of a kept reading: not kept again
	if got := ProbeAlone(); got != 2.04 {
		t.Fatalf("ProbeAlone = %v, want the third lowest of 1.055, 1.06, 2.04", got)
	}
	NoteProbe(1.057)
	if got := ProbeAlone(); got != 1.06 {
		t.Fatalf("ProbeAlone = %v, want the third lowest, 1.06", got)
	}
	// A new process reads the file.
	resetProbe()
	if got := ProbeAlone(); got != 1.06 {
		t.Fatalf("after a restart ProbeAlone = %v, want the file's 1.06", got)
	}
	var m map[string][]float64
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil || !slices.Equal(m[probeKey()], []float64{1.055, 1.057, 1.06, 2.04}) {
		t.Fatalf("cache file %s = %s (%v), want %q: the four readings kept", path, b, err, probeKey())
	}
	// Another processor's entry is kept when this one's is written.
	m["other cpu"] = []float64{3}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	resetProbe()
	NoteProbe(1.0)
	if got := readProbeFile(path); !slices.Equal(got["other cpu"], []float64{3}) || !slices.Equal(got[probeKey()], []float64{1.0, 1.055, 1.057, 1.06, 2.04}) {
		t.Fatalf("cache file after a new reading: %v", got)
	}
}

// TestProbeAloneResistsBadReadings: readings from a ruler that was off
// (too low) cannot make every later figure look shared: two of them do not
// move the best, and the kept readings stay at most probeKept.
func TestProbeAloneResistsBadReadings(t *testing.T) {
	useProbeCache(t, filepath.Join(t.TempDir(), "core-probe.json"))
	for _, v := range []float64{1.054, 1.056, 1.058, 1.07, 1.09, 1.2} {
		NoteProbe(v)
	}
	if got := ProbeAlone(); got != 1.058 {
		t.Fatalf("ProbeAlone = %v, want the third lowest, 1.058", got)
	}
	NoteProbe(0.992)
	NoteProbe(0.95)
	if got := ProbeAlone(); got != 1.054 {
		t.Fatalf("after two bad readings ProbeAlone = %v, want 1.054, within the good ones", got)
	}
	if len(probe.low) != probeKept {
		t.Fatalf("kept %d readings, want at most %d", len(probe.low), probeKept)
	}
}

func TestProbeCacheOffAndBroken(t *testing.T) {
	useProbeCache(t, "off")
	if ProbeCachePath() != "" {
		t.Fatalf("CYCLEBENCH_PROBE_CACHE=off: path %q, want none", ProbeCachePath())
	}
	NoteProbe(1.1)
	if got := ProbeAlone(); got != 1.1 {
		t.Fatalf("without a cache file ProbeAlone = %v, want this process's 1.1", got)
	}
	broken := filepath.Join(t.TempDir(), "core-probe.json")
	if err := os.WriteFile(broken, []byte(`{"x": 1.0}`), 0o644); err != nil { // another version's form
		t.Fatal(err)
	}
	useProbeCache(t, broken)
	if got := ProbeAlone(); got != 0 {
		t.Fatalf("an unreadable cache file gave %v, want none", got)
	}
	NoteProbe(1.2)
	if got := readProbeFile(broken)[probeKey()]; !slices.Equal(got, []float64{1.2}) {
		t.Fatalf("an unreadable cache file is replaced by a good one: read %v", got)
	}
}
