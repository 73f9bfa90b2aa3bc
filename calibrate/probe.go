package calibrate

// The core-state probe's best on this machine. A figure measured while a
// busy hardware thread shared the core reads slower than the code runs
// with the core to itself, and the ruler cannot see it (its dependent
// chains use a fraction of the core's width). The probe can: a loop of one
// taken branch per iteration slows by a quarter to a half or more. What it
// costs alone is not documented per core, so it is learned: the best it
// has shown here. A process that starts while the core is shared would
// learn a slow best and see nothing; so the best is also kept in the
// user's cache directory, per processor, for the next process. One reading
// from a ruler that was off would make every later figure look shared, and
// the best only ever falls: so the few lowest readings are kept, and the
// best is the third of them, which two bad readings cannot move.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

// ProbeIters is the probe's length in iterations: a few thousand cycles,
// long enough that the counter's quantum and the variation of the timing's
// fixed cost (a few ticks in 60) stay below a tenth of a percent.
const ProbeIters = 2000

// probeSlack is how much faster than a kept reading a new one must be to
// take its place: a reading that only repeats one does not rewrite the
// file.
const probeSlack = 0.001

// probeKept is how many of the lowest readings are kept, and probeRank
// which of them is the best ([ProbeAlone]): the third, so that two
// readings from a ruler that was off (a lying ruler in a test, a moment
// the ruler's check missed) cannot make every later figure look shared.
const (
	probeKept = 5
	probeRank = 3
)

var probe struct {
	mu     sync.Mutex
	loaded bool
	low    []float64 // the lowest readings, ascending, at most probeKept
	file   []float64 // what the cache file holds for this processor
}

// ProbeAlone returns the best the core-state probe has shown on this
// processor, in core cycles per iteration of [ProbeIters] iterations of
// [chain.Branch] (the timing's fixed cost included), from the lowest
// readings of the calibration, of [NoteProbe] in this process and of the
// cache file (see [ProbeCachePath]): the third lowest, or the highest of
// fewer. It returns 0 when there is none. It is safe for concurrent use.
func ProbeAlone() float64 {
	probe.mu.Lock()
	defer probe.mu.Unlock()
	loadProbe()
	return rankedBest(probe.low)
}

// rankedBest is the probeRank-th lowest of low (ascending), or the highest
// of fewer; 0 for none.
func rankedBest(low []float64) float64 {
	if len(low) == 0 {
		return 0
	}
	return low[min(probeRank, len(low))-1]
}

// keepLow adds v to low (ascending, at most probeKept) when it is lower
// than a kept reading by more than probeSlack or there is room; it
// reports whether low changed.
func keepLow(low []float64, v float64) ([]float64, bool) {
	if len(low) == probeKept && v >= low[len(low)-1]*(1-probeSlack) {
		return low, false
	}
	for _, x := range low {
		if math.Abs(x-v) <= probeSlack*x {
			return low, false // a repeat of a kept reading
		}
	}
	low = append(low, v)
	slices.Sort(low)
	if len(low) > probeKept {
		low = low[:probeKept]
	}
	return low, true
}

// NoteProbe records a reading of the probe in core cycles per iteration
// (a measurement's best, with a checked ruler): the lowest readings are
// kept (see [ProbeAlone]) and written to the cache file when they change.
// Readings that are not positive and finite are ignored; a cache file that
// cannot be written is left as it is (the readings then last for this
// process).
func NoteProbe(cycles float64) {
	if !usable(cycles) {
		return
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	loadProbe()
	var changed bool
	if probe.low, changed = keepLow(probe.low, cycles); changed && !slices.Equal(probe.low, probe.file) && writeEntry(probeKey(), probe.low) == nil {
		probe.file = slices.Clone(probe.low)
	}
}

// ProbeCachePath is the file that keeps the probe's best across processes:
// cyclebench/core-probe.json in os.UserCacheDir, or the file
// CYCLEBENCH_PROBE_CACHE names; "" when CYCLEBENCH_PROBE_CACHE is "off" or
// there is no cache directory. The file maps a processor (architecture,
// vendor, family, model, stepping, brand) to its lowest readings.
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
	probe.low, probe.file = nil, nil
	for _, v := range readProbeFile(ProbeCachePath())[probeKey()] {
		if usable(v) {
			probe.low, _ = keepLow(probe.low, v)
		}
	}
	probe.file = slices.Clone(probe.low)
}

// readProbeFile returns the cache file's entries (none when it is missing
// or unreadable: a cache, not a record).
func readProbeFile(path string) map[string][]float64 {
	m := map[string][]float64{}
	if path == "" {
		return m
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	if json.Unmarshal(b, &m) != nil {
		return map[string][]float64{} // another version's file, or a broken one
	}
	return m
}

// writeEntry sets the cache file's entry key to v, written whole to a
// temporary file and renamed over it.
func writeEntry(key string, v []float64) error {
	path := ProbeCachePath()
	if path == "" {
		return os.ErrNotExist
	}
	m := readProbeFile(path)
	m[key] = slices.Clone(v)
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
		// The old file goes first: ext4 flushes a file renamed over
		// another to disk before the rename returns (auto_da_alloc),
		// 1–2 ms on the KVM guests against 0.01 ms for a rename to a free
		// name, and a measurement notes its levels each time (the library
		// row of bench/peers's start-up table). A reader in between finds
		// no file, and a crash may leave an empty one: a cache, not a
		// record.
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			werr = rerr
		}
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
	room.levels = nil
}
