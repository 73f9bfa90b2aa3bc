package calibrate

// The usual level of the harness's probes of the host's states on this
// machine. The room probe (restarted IMUL chains back to back,
// internal/chain.Room) reads about 1.6% low while the host's other
// hardware thread leaves the core, and on the Intel Cascade Lake guest
// such a moment outlasted one measurement in fifteen; the calls probe
// (short continued calls) reads 55–75% high in a state that outlasts
// whole measurements too. Only a level learned from other measurements
// tells such a state from the usual one. The usual level is the median
// of the latest measurements' levels, kept in the core-state probe's
// cache file beside its best ([ProbeCachePath]), per processor, probe and
// probe length.

import (
	"fmt"

	"github.com/cyclebench/cyclebench/stats"
)

// roomKept is how many of the latest levels are kept: the median of 15
// is not moved by seven measurements in an odd state.
const roomKept = 15

// roomMove is how far a level, or the median of the kept levels, must lie
// from the file's median for the cache file to be written again: the
// harness's threshold for a moment of room (0.5%). One measurement's
// level moves by up to 0.3% about the usual one on the Intel guest, and a
// file written after each would cost a millisecond a measurement.
const roomMove = 0.005

var room struct {
	levels map[string][]float64 // by cache key: the latest levels, oldest first
	file   map[string]float64   // the median the cache file holds, by key
}

// usualKey names a probe of size units on this processor in the cache
// file ("room 8": a room probe of 8 chains).
func usualKey(name string, size int) string {
	return fmt.Sprintf("%s %s %d", probeKey(), name, size)
}

// Usual returns the usual level on this processor of the harness's probe
// name ("room", "calls") of size units (chains, calls), in core cycles per
// unit: the median of the latest levels [NoteUsual] recorded in this
// process and in the cache file. It returns 0 with fewer than three. It is
// safe for concurrent use.
func Usual(name string, size int) float64 {
	probe.mu.Lock()
	defer probe.mu.Unlock()
	return medianOf(loadRoom(usualKey(name, size)))
}

// NoteUsual records one measurement's level of the probe name of size
// units, in core cycles per unit (the median of its samples, with a
// checked ruler and the core not shared). Levels that are not positive
// and finite are ignored, and so are sizes that are not positive. The
// cache file is written while fewer than roomKept levels are kept, and
// then when a level or the median of the kept ones lies more than 0.5%
// from the median the file holds: levels that repeat the usual one do not
// rewrite it, and the odd ones reach the next process, so that a state
// that lasts moves the usual level there too. A file that cannot be
// written is left as it is.
func NoteUsual(name string, size int, cycles float64) {
	if !usable(cycles) || size <= 0 {
		return
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	key := usualKey(name, size)
	l := append(loadRoom(key), cycles)
	if len(l) > roomKept {
		l = l[len(l)-roomKept:]
	}
	room.levels[key] = l
	m := medianOf(l)
	far := func(a, b float64) bool { return a < b*(1-roomMove) || a > b*(1+roomMove) }
	if old := room.file[key]; len(l) < roomKept || old == 0 || far(m, old) || far(cycles, old) {
		if writeEntry(key, l) == nil {
			room.file[key] = m
		}
	}
}

// loadRoom returns the kept levels under the cache key, reading the cache
// file the first time; probe.mu is held.
func loadRoom(key string) []float64 {
	if room.levels == nil {
		room.levels, room.file = map[string][]float64{}, map[string]float64{}
	}
	if l, ok := room.levels[key]; ok {
		return l
	}
	var l []float64
	for _, v := range readProbeFile(ProbeCachePath())[key] {
		if usable(v) {
			l = append(l, v)
		}
	}
	if len(l) > roomKept {
		l = l[len(l)-roomKept:]
	}
	room.levels[key] = l
	room.file[key] = medianOf(l)
	return l
}

// medianOf is the median of l, or 0 with fewer than three values.
func medianOf(l []float64) float64 {
	if len(l) < 3 {
		return 0
	}
	return stats.Median(l)
}
