package calibrate

// The room probe's usual level on this machine. The harness's room probe
// (restarted IMUL chains back to back, internal/chain.Room) reads about
// 1.6% low while the host's other hardware thread leaves the core, and on
// the Intel Cascade Lake guest such a moment outlasted one measurement in
// fifteen: only a level learned from other measurements tells it from the
// usual one. The usual level is the median of the latest measurements'
// levels, kept in the core-state probe's cache file beside its best
// ([ProbeCachePath]), per processor and per probe length.

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
	levels map[int][]float64 // by probe length: the latest levels, oldest first
	file   map[int]float64   // the median the cache file holds, by length
}

func roomKey(calls int) string { return fmt.Sprintf("%s room %d", probeKey(), calls) }

// RoomUsual returns the room probe's usual level on this processor for a
// probe of calls chains, in core cycles per chain: the median of the
// latest levels [NoteRoom] recorded in this process and in the cache file.
// It returns 0 with fewer than three. It is safe for concurrent use.
func RoomUsual(calls int) float64 {
	probe.mu.Lock()
	defer probe.mu.Unlock()
	return medianOf(loadRoom(calls))
}

// NoteRoom records one measurement's level of a room probe of calls
// chains, in core cycles per chain (the median of its samples, with a
// checked ruler and the core not shared). Levels that are not positive
// and finite are ignored. The cache file is written while fewer than
// roomKept levels are kept, and then when a level or the median of the
// kept ones lies more than 0.5% from the median the file holds: levels
// that repeat the usual one do not rewrite it, and the odd ones reach the
// next process, so that a state that lasts moves the usual level there
// too. A file that cannot be written is left as it is.
func NoteRoom(calls int, cycles float64) {
	if !usable(cycles) || calls <= 0 {
		return
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	l := append(loadRoom(calls), cycles)
	if len(l) > roomKept {
		l = l[len(l)-roomKept:]
	}
	room.levels[calls] = l
	m := medianOf(l)
	far := func(a, b float64) bool { return a < b*(1-roomMove) || a > b*(1+roomMove) }
	if old := room.file[calls]; len(l) < roomKept || old == 0 || far(m, old) || far(cycles, old) {
		if writeEntry(roomKey(calls), l) == nil {
			room.file[calls] = m
		}
	}
}

// loadRoom returns the kept levels for calls, reading the cache file the
// first time; probe.mu is held.
func loadRoom(calls int) []float64 {
	if room.levels == nil {
		room.levels, room.file = map[int][]float64{}, map[int]float64{}
	}
	if l, ok := room.levels[calls]; ok {
		return l
	}
	var l []float64
	for _, v := range readProbeFile(ProbeCachePath())[roomKey(calls)] {
		if usable(v) {
			l = append(l, v)
		}
	}
	if len(l) > roomKept {
		l = l[len(l)-roomKept:]
	}
	room.levels[calls] = l
	room.file[calls] = medianOf(l)
	return l
}

// medianOf is the median of l, or 0 with fewer than three values.
func medianOf(l []float64) float64 {
	if len(l) < 3 {
		return 0
	}
	return stats.Median(l)
}
