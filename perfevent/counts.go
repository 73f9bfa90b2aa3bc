package perfevent

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Counts is one reading of a [Group]: a fixed-size value, so that
// [Group.Read] fills it without allocating. Entries 0 to N-1 of Events, Raw
// and Values are in the group's order.
type Counts struct {
	// N is the number of events in the group.
	N int
	// Events are the group's events.
	Events [MaxEvents]Event
	// Raw are the counts as the kernel reported them: since the group was
	// opened or last reset, while it was enabled and on the counters.
	Raw [MaxEvents]uint64
	// Values are Raw scaled by TimeEnabled/TimeRunning when the group was
	// multiplexed, and equal to Raw otherwise; 0 when the group never ran.
	// Scaled values are estimates.
	Values [MaxEvents]uint64
	// TimeEnabled is how long the group was enabled.
	TimeEnabled time.Duration
	// TimeRunning is how long it was actually on the counters: less than
	// TimeEnabled when the kernel had to share the PMU between more events
	// than it has counters (multiplexing). Software events always run.
	TimeRunning time.Duration
	// Multiplexed reports TimeRunning < TimeEnabled: Values are scaled
	// estimates, not counts.
	Multiplexed bool
}

// Value returns the (scaled) value of event e, and false when e is not in
// the group.
func (c *Counts) Value(e Event) (uint64, bool) {
	for i := 0; i < c.N && i < MaxEvents; i++ {
		if c.Events[i] == e {
			return c.Values[i], true
		}
	}
	return 0, false
}

// Changed reports whether any raw count differs between before and c, or
// the two readings are not of the same events. A measuring loop reads a
// group of software events (context switches, migrations, page faults)
// before and after a sample and discards the sample when Changed is true.
// It does not allocate.
func (c *Counts) Changed(before *Counts) bool {
	if c.N != before.N || c.N > MaxEvents || c.N < 0 {
		return true
	}
	for i := range c.N {
		if c.Events[i] != before.Events[i] || c.Raw[i] != before.Raw[i] {
			return true
		}
	}
	return false
}

// Delta stores after − before in c: raw counts and times subtracted, and
// Values scaled by the difference of the times, which is the right estimate
// for the interval when the group was multiplexed. before and after must be
// readings of the same group in that order; otherwise Delta returns an error
// wrapping [ErrBadRead] and leaves c unchanged. It does not allocate when it
// succeeds; c may be before or after.
func (c *Counts) Delta(before, after *Counts) error {
	if before.N != after.N || after.N < 0 || after.N > MaxEvents {
		return fmt.Errorf("%w: delta of readings with %d and %d events", ErrBadRead, before.N, after.N)
	}
	if after.TimeEnabled < before.TimeEnabled || after.TimeRunning < before.TimeRunning {
		return fmt.Errorf("%w: delta: times went backwards (enabled %v → %v, running %v → %v; reset between the readings, or swapped?)",
			ErrBadRead, before.TimeEnabled, after.TimeEnabled, before.TimeRunning, after.TimeRunning)
	}
	for i := range after.N {
		if before.Events[i] != after.Events[i] {
			return fmt.Errorf("%w: delta: event %d is %s before and %s after", ErrBadRead, i, before.Events[i], after.Events[i])
		}
		if after.Raw[i] < before.Raw[i] {
			return fmt.Errorf("%w: delta: %s went backwards (%d → %d)", ErrBadRead, after.Events[i], before.Raw[i], after.Raw[i])
		}
	}
	d := Counts{N: after.N, Events: after.Events}
	d.TimeEnabled = after.TimeEnabled - before.TimeEnabled
	d.TimeRunning = after.TimeRunning - before.TimeRunning
	d.Multiplexed = d.TimeRunning < d.TimeEnabled
	for i := range after.N {
		d.Raw[i] = after.Raw[i] - before.Raw[i]
		d.Values[i] = scale(d.Raw[i], d.TimeEnabled, d.TimeRunning)
	}
	*c = d
	return nil
}

// scale estimates a multiplexed count for the whole enabled time:
// v·enabled/running, in 128-bit arithmetic, saturating at the largest uint64.
// A group that never ran (running 0 while enabled) has no estimate: 0.
func scale(v uint64, enabled, running time.Duration) uint64 {
	if running >= enabled {
		return v // not multiplexed (or never enabled: both 0)
	}
	if running <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(v, uint64(enabled))
	if hi >= uint64(running) {
		return math.MaxUint64 // the quotient does not fit in 64 bits
	}
	q, _ := bits.Div64(hi, lo, uint64(running))
	return q
}

// Layout of a group read with PERF_FORMAT_GROUP | PERF_FORMAT_ID |
// PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING, in the
// host's byte order (struct read_format in linux/perf_event.h):
//
//	u64 nr; u64 time_enabled; u64 time_running;
//	struct { u64 value; u64 id; } values[nr];
const (
	readHeader = 3 * 8
	readEntry  = 2 * 8
)

// decodeGroup fills into from one group read. events and ids are the
// group's, in the order the events were opened (leader first), which is the
// order the kernel reports them in; n of them are used. It returns an error
// wrapping [ErrBadRead], leaving into unchanged, when buf is short or long,
// reports another number of events, or an id out of place. It never panics
// and does not allocate when it succeeds.
func decodeGroup(buf []byte, n int, events *[MaxEvents]Event, ids *[MaxEvents]uint64, into *Counts) error {
	if n < 1 || n > MaxEvents {
		return fmt.Errorf("%w: group of %d events, want 1 to %d", ErrBadRead, n, MaxEvents)
	}
	if len(buf) < readHeader {
		return fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBadRead, len(buf), readHeader)
	}
	ne := binary.NativeEndian
	if nr := ne.Uint64(buf); nr != uint64(n) {
		return fmt.Errorf("%w: kernel reports %d events, the group has %d", ErrBadRead, nr, n)
	}
	if want := readHeader + n*readEntry; len(buf) != want {
		return fmt.Errorf("%w: %d bytes for %d events, want %d", ErrBadRead, len(buf), n, want)
	}
	for i := range n {
		if id := ne.Uint64(buf[readHeader+i*readEntry+8:]); id != ids[i] {
			return fmt.Errorf("%w: entry %d has id %d, want %d (%s)", ErrBadRead, i, id, ids[i], events[i])
		}
	}
	enabled := ne.Uint64(buf[8:])
	running := ne.Uint64(buf[16:])
	if enabled > math.MaxInt64 || running > math.MaxInt64 {
		return fmt.Errorf("%w: times out of range (enabled %d ns, running %d ns)", ErrBadRead, enabled, running)
	}
	into.N = n
	into.Events = *events
	into.TimeEnabled = time.Duration(enabled)
	into.TimeRunning = time.Duration(running)
	into.Multiplexed = running < enabled
	for i := range n {
		v := ne.Uint64(buf[readHeader+i*readEntry:])
		into.Raw[i] = v
		into.Values[i] = scale(v, into.TimeEnabled, into.TimeRunning)
	}
	for i := n; i < MaxEvents; i++ {
		into.Raw[i], into.Values[i] = 0, 0
	}
	return nil
}
