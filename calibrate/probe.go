package calibrate

// The core-state probe's best on this machine. A figure measured while a
// busy hardware thread shared the core reads slower than the code runs
// with the core to itself, and the ruler cannot see it (its dependent
// chains use a fraction of the core's width). The probe can: a loop of one
// taken branch per iteration slows by a quarter to a half or more. What it
// costs alone is not documented per core, so it is learned: the best it
// has shown here. A process that starts while the core is shared would
// learn a slow best and see nothing; so the best is also kept in the
// user's cache directory, per processor, for the next process.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// ProbeIters is the probe's length in iterations: a few thousand cycles,
// long enough that the counter's quantum and the variation of the timing's
// fixed cost (a few ticks in 60) stay below a tenth of a percent.
const ProbeIters = 2000

// probeSlack is how much faster than the kept best a new reading must be to
// be written to the cache file: a reading that only repeats the best does
// not rewrite it.
const probeSlack = 0.001

var probe struct {
	mu     sync.Mutex
	loaded bool
	best   float64 // cycles per iteration; +Inf when none
	file   float64 // what the cache file holds for this processor; +Inf when none
}

// ProbeAlone returns the best the core-state probe has shown on this
// processor, in core cycles per iteration of [ProbeIters] iterations of
// [chain.Branch] (the timing's fixed cost included): the lowest of the
// calibration's reading, the readings passed to [NoteProbe] in this
// process, and the cache file's (see [ProbeCachePath]). It returns 0 when
// there is none. It is safe for concurrent use.
func ProbeAlone() float64 {
	probe.mu.Lock()
	defer probe.mu.Unlock()
	loadProbe()
	if math.IsInf(probe.best, 1) {
		return 0
	}
	return probe.best
}

// NoteProbe records a reading of the probe in core cycles per iteration
// (a measurement's best, with a checked ruler): [ProbeAlone] keeps the
// lowest, and a reading lower than the cache file's by more than a tenth
// of a percent is written there. Readings that are not positive and finite
// are ignored; a cache file that cannot be written is left as it is (the
// best then lasts for this process).
func NoteProbe(cycles float64) {
	if !usable(cycles) {
		return
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	loadProbe()
	probe.best = math.Min(probe.best, cycles)
	if cycles < probe.file*(1-probeSlack) && writeProbe(cycles) == nil {
		probe.file = cycles
	}
}

// ProbeCachePath is the file that keeps the probe's best across processes:
// cyclebench/core-probe.json in os.UserCacheDir, or the file
// CYCLEBENCH_PROBE_CACHE names; "" when CYCLEBENCH_PROBE_CACHE is "off" or
// there is no cache directory. The file maps a processor (architecture,
// vendor, family, model, stepping, brand) to its best.
func ProbeCachePath() string {
	if p := os.Getenv("CYCLEBENCH_PROBE_CACHE"); p != "" {
		if p == "off" {
			return ""
		}
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "cyclebench", "core-probe.json")
}

// probeKey names this processor in the cache file.
func probeKey() string {
	c := DetectCPU()
	return fmt.Sprintf("%s %s family %d model %d stepping %d %s", runtime.GOARCH, c.Vendor, c.Family, c.Model, c.Stepping, c.Brand)
}

// loadProbe reads the cache file once; probe.mu is held.
func loadProbe() {
	if probe.loaded {
		return
	}
	probe.loaded = true
	probe.best, probe.file = math.Inf(1), math.Inf(1)
	if v, ok := readProbeFile(ProbeCachePath())[probeKey()]; ok && usable(v) {
		probe.best, probe.file = v, v
	}
}

// readProbeFile returns the cache file's entries (none when it is missing
// or unreadable: a cache, not a record).
func readProbeFile(path string) map[string]float64 {
	m := map[string]float64{}
	if path == "" {
		return m
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	if json.Unmarshal(b, &m) != nil {
		return map[string]float64{}
	}
	return m
}

// writeProbe sets this processor's entry of the cache file to v, written
// whole to a temporary file and renamed over it.
func writeProbe(v float64) error {
	path := ProbeCachePath()
	if path == "" {
		return os.ErrNotExist
	}
	m := readProbeFile(path)
	m[probeKey()] = v
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".core-probe-*.json")
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// resetProbe forgets what this process learned (tests).
func resetProbe() {
	probe.mu.Lock()
	defer probe.mu.Unlock()
	probe.loaded = false
}
