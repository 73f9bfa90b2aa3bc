package calibrate

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	NoteProbe(1.02)
	NoteProbe(1.5)
	if got := ProbeAlone(); got != 1.02 {
		t.Fatalf("ProbeAlone = %v, want the lowest, 1.02", got)
	}
	// A new process reads the file.
	resetProbe()
	if got := ProbeAlone(); got != 1.02 {
		t.Fatalf("after a restart ProbeAlone = %v, want the file's 1.02", got)
	}
	var m map[string]float64
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m[probeKey()] != 1.02 {
		t.Fatalf("cache file %s = %s (%v), want %q: 1.02", path, b, err, probeKey())
	}
	// Another processor's entry is kept when this one's is written.
	m["other cpu"] = 3
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	resetProbe()
	NoteProbe(1.0)
	if got := readProbeFile(path); got["other cpu"] != 3 || got[probeKey()] != 1.0 {
		t.Fatalf("cache file after a new best: %v", got)
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
	if err := os.WriteFile(broken, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	useProbeCache(t, broken)
	if got := ProbeAlone(); got != 0 {
		t.Fatalf("a broken cache file gave %v, want none", got)
	}
	NoteProbe(1.2)
	if got := readProbeFile(broken)[probeKey()]; got != 1.2 {
		t.Fatalf("a broken cache file is replaced by a good one: read %v", got)
	}
}
