package perfevent

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// groupBytes lays out a group read as the kernel does (read_format GROUP |
// ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), in the host's byte order:
// little-endian on every platform this project tests.
func groupBytes(nr, enabled, running uint64, vals, ids []uint64) []byte {
	b := make([]byte, 0, readHeader+len(vals)*readEntry)
	ne := binary.NativeEndian
	b = ne.AppendUint64(b, nr)
	b = ne.AppendUint64(b, enabled)
	b = ne.AppendUint64(b, running)
	for i := range vals {
		b = ne.AppendUint64(b, vals[i])
		b = ne.AppendUint64(b, ids[i])
	}
	return b
}

func TestDecodeGroup(t *testing.T) {
	events := [MaxEvents]Event{ContextSwitches, CPUMigrations, PageFaults}
	ids := [MaxEvents]uint64{101, 102, 103}
	ok := groupBytes(3, 5000, 5000, []uint64{7, 1, 300}, ids[:3])
	tests := []struct {
		name        string
		buf         []byte
		n           int
		raw, values []uint64
		multiplexed bool
		err         string // substring of the error; "" for success
	}{
		{name: "software group", buf: ok, n: 3, raw: []uint64{7, 1, 300}, values: []uint64{7, 1, 300}},
		{name: "never enabled", buf: groupBytes(3, 0, 0, []uint64{0, 0, 0}, ids[:3]), n: 3, raw: []uint64{0, 0, 0}, values: []uint64{0, 0, 0}},
		{name: "multiplexed half the time", buf: groupBytes(2, 2000, 1000, []uint64{10, 333}, ids[:2]), n: 2,
			raw: []uint64{10, 333}, values: []uint64{20, 666}, multiplexed: true},
		{name: "multiplexed a third", buf: groupBytes(1, 3000, 1000, []uint64{5}, ids[:1]), n: 1,
			raw: []uint64{5}, values: []uint64{15}, multiplexed: true},
		{name: "enabled but never ran", buf: groupBytes(1, 3000, 0, []uint64{0}, ids[:1]), n: 1,
			raw: []uint64{0}, values: []uint64{0}, multiplexed: true},
		{name: "scaled value saturates", buf: groupBytes(1, 1<<62, 1, []uint64{1 << 40}, ids[:1]), n: 1,
			raw: []uint64{1 << 40}, values: []uint64{math.MaxUint64}, multiplexed: true},
		{name: "empty", buf: nil, n: 3, err: "0 bytes, shorter than the 24-byte header"},
		{name: "short header", buf: ok[:23], n: 3, err: "23 bytes"},
		{name: "header only", buf: ok[:24], n: 3, err: "24 bytes for 3 events, want 72"},
		{name: "cut in a value", buf: ok[:len(ok)-1], n: 3, err: "71 bytes for 3 events"},
		{name: "trailing bytes", buf: append(append([]byte(nil), ok...), 0, 0, 0, 0, 0, 0, 0, 0), n: 3, err: "80 bytes"},
		{name: "other count", buf: ok, n: 2, err: "kernel reports 3 events, the group has 2"},
		{name: "huge count", buf: groupBytes(math.MaxUint64, 1, 1, nil, nil), n: 3, err: "kernel reports 18446744073709551615 events"},
		{name: "id out of place", buf: groupBytes(3, 1, 1, []uint64{1, 2, 3}, []uint64{101, 103, 102}), n: 3, err: "entry 1 has id 103, want 102 (cpu-migrations)"},
		{name: "times out of range", buf: groupBytes(1, math.MaxUint64, 1, []uint64{1}, ids[:1]), n: 1, err: "times out of range"},
		{name: "no events", buf: ok, n: 0, err: "group of 0 events"},
		{name: "too many events", buf: ok, n: MaxEvents + 1, err: "group of 17 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sentinel := Counts{N: -7}
			c := sentinel
			err := decodeGroup(tt.buf, tt.n, &events, &ids, &c)
			if tt.err != "" {
				if !errors.Is(err, ErrBadRead) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrBadRead mentioning %q", err, tt.err)
				}
				if c != sentinel {
					t.Errorf("Counts changed on error: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.N != tt.n || c.Multiplexed != tt.multiplexed {
				t.Errorf("N = %d, Multiplexed = %v; want %d, %v", c.N, c.Multiplexed, tt.n, tt.multiplexed)
			}
			if c.Multiplexed != (c.TimeRunning < c.TimeEnabled) {
				t.Errorf("Multiplexed %v with enabled %v, running %v", c.Multiplexed, c.TimeEnabled, c.TimeRunning)
			}
			for i := range tt.n {
				if c.Events[i] != events[i] || c.Raw[i] != tt.raw[i] || c.Values[i] != tt.values[i] {
					t.Errorf("entry %d = %s raw %d value %d; want %s %d %d", i, c.Events[i], c.Raw[i], c.Values[i], events[i], tt.raw[i], tt.values[i])
				}
				if v, ok := c.Value(events[i]); !ok || v != tt.values[i] {
					t.Errorf("Value(%s) = %d, %v", events[i], v, ok)
				}
			}
			for i := tt.n; i < MaxEvents; i++ {
				if c.Raw[i] != 0 || c.Values[i] != 0 {
					t.Errorf("entry %d beyond N not cleared: %d %d", i, c.Raw[i], c.Values[i])
				}
			}
			if _, ok := c.Value(Cycles); ok {
				t.Error("Value(cycles) found in a group without it")
			}
		})
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		v                uint64
		enabled, running time.Duration
		want             uint64
	}{
		{v: 100, enabled: 10, running: 10, want: 100},
		{v: 100, enabled: 0, running: 0, want: 100},
		{v: 100, enabled: 10, running: 12, want: 100}, // running > enabled: kernel rounding; not scaled
		{v: 100, enabled: 10, running: 5, want: 200},
		{v: 100, enabled: 10, running: 3, want: 333}, // truncated
		{v: 100, enabled: 10, running: 0, want: 0},
		{v: math.MaxUint64, enabled: 2, running: 1, want: math.MaxUint64},
		{v: 1 << 63, enabled: 2, running: 1, want: math.MaxUint64},
		{v: 1 << 63, enabled: 3, running: 2, want: 3 << 62},
		{v: 1 << 62, enabled: 3, running: 2, want: 3 << 61},
	}
	for _, tt := range tests {
		if got := scale(tt.v, tt.enabled, tt.running); got != tt.want {
			t.Errorf("scale(%d, %d, %d) = %d, want %d", tt.v, tt.enabled, tt.running, got, tt.want)
		}
	}
}

func counts(enabled, running time.Duration, evs []Event, raw ...uint64) Counts {
	c := Counts{N: len(evs), TimeEnabled: enabled, TimeRunning: running, Multiplexed: running < enabled}
	copy(c.Events[:], evs)
	copy(c.Raw[:], raw)
	for i := range raw {
		c.Values[i] = scale(raw[i], enabled, running)
	}
	return c
}

func TestDelta(t *testing.T) {
	sw := []Event{ContextSwitches, CPUMigrations, PageFaults}
	tests := []struct {
		name          string
		before, after Counts
		want          Counts
		err           string
	}{
		{name: "software", before: counts(100, 100, sw, 1, 0, 50), after: counts(300, 300, sw, 3, 0, 58),
			want: counts(200, 200, sw, 2, 0, 8)},
		{name: "unchanged", before: counts(100, 100, sw, 1, 0, 50), after: counts(100, 100, sw, 1, 0, 50),
			want: counts(0, 0, sw, 0, 0, 0)},
		// The interval ran half the time it was enabled: its own counts
		// double, whatever the totals' ratios were.
		{name: "multiplexed interval", before: counts(1000, 1000, []Event{Cycles}, 5000), after: counts(3000, 2000, []Event{Cycles}, 9000),
			want: counts(2000, 1000, []Event{Cycles}, 4000)},
		{name: "other events", before: counts(1, 1, sw, 1, 2, 3), after: counts(2, 2, []Event{ContextSwitches, PageFaults, CPUMigrations}, 1, 2, 3),
			err: "event 1 is cpu-migrations before and page-faults after"},
		{name: "other size", before: counts(1, 1, sw, 1, 2, 3), after: counts(2, 2, sw[:2], 1, 2), err: "3 and 2 events"},
		{name: "swapped", before: counts(300, 300, sw, 3, 0, 58), after: counts(100, 100, sw, 1, 0, 50), err: "times went backwards"},
		{name: "reset between", before: counts(100, 100, sw, 3, 0, 58), after: counts(200, 200, sw, 0, 0, 2), err: "context-switches went backwards (3 → 0)"},
		{name: "bad N", before: Counts{N: MaxEvents + 1}, after: Counts{N: MaxEvents + 1}, err: "17 and 17 events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Counts
			d.N = -1
			err := d.Delta(&tt.before, &tt.after)
			if tt.err != "" {
				if !errors.Is(err, ErrBadRead) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrBadRead mentioning %q", err, tt.err)
				}
				if d.N != -1 {
					t.Error("Delta changed its receiver on error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want {
				t.Errorf("Delta = %+v\nwant %+v", d, tt.want)
			}
			if d.Changed(&Counts{N: d.N, Events: d.Events}) != (d.Raw != [MaxEvents]uint64{}) {
				t.Error("Changed disagrees with the delta")
			}
			// In place: the receiver may be one of the operands.
			after := tt.after
			if err := after.Delta(&tt.before, &after); err != nil || after != tt.want {
				t.Errorf("in-place Delta = %+v, %v", after, err)
			}
		})
	}
}

func TestChanged(t *testing.T) {
	sw := []Event{ContextSwitches, CPUMigrations, PageFaults}
	base := counts(100, 100, sw, 1, 0, 50)
	tests := []struct {
		name  string
		after Counts
		want  bool
	}{
		{"same counts, later time", counts(900, 900, sw, 1, 0, 50), false},
		{"one more switch", counts(900, 900, sw, 2, 0, 50), true},
		{"one more fault", counts(900, 900, sw, 1, 0, 51), true},
		{"migration", counts(900, 900, sw, 1, 1, 50), true},
		{"other events", counts(900, 900, []Event{ContextSwitches, PageFaults, CPUMigrations}, 1, 0, 50), true},
		{"other size", counts(900, 900, sw[:2], 1, 0), true},
		{"bad N", Counts{N: MaxEvents + 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.after.Changed(&base); got != tt.want {
				t.Errorf("Changed = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCountsNoAlloc(t *testing.T) {
	sw := []Event{ContextSwitches, CPUMigrations, PageFaults}
	a, b := counts(100, 100, sw, 1, 0, 50), counts(200, 200, sw, 1, 0, 52)
	events := [MaxEvents]Event{ContextSwitches, CPUMigrations, PageFaults}
	ids := [MaxEvents]uint64{1, 2, 3}
	buf := groupBytes(3, 10, 5, []uint64{1, 2, 3}, ids[:3])
	var d Counts
	allocs := testing.AllocsPerRun(100, func() {
		_ = decodeGroup(buf, 3, &events, &ids, &d)
		_ = d.Delta(&a, &b)
		_ = b.Changed(&a)
		_, _ = b.Value(PageFaults)
	})
	if allocs != 0 {
		t.Errorf("decode, Delta, Changed and Value allocate %v times per run, want 0", allocs)
	}
}

func FuzzDecodeGroup(f *testing.F) {
	f.Add(groupBytes(3, 5000, 2500, []uint64{7, 1, 300}, []uint64{1, 2, 3}), 3)
	f.Add([]byte{1, 2, 3}, 1)
	f.Add(groupBytes(1, 0, 0, []uint64{0}, []uint64{1}), 1)
	f.Fuzz(func(t *testing.T, buf []byte, n int) {
		events := [MaxEvents]Event{ContextSwitches, CPUMigrations, PageFaults}
		ids := [MaxEvents]uint64{1, 2, 3}
		var c Counts
		if err := decodeGroup(buf, n, &events, &ids, &c); err != nil {
			if !errors.Is(err, ErrBadRead) {
				t.Fatalf("error %v does not wrap ErrBadRead", err)
			}
			return
		}
		if len(buf) != readHeader+n*readEntry {
			t.Fatalf("accepted %d bytes for %d events", len(buf), n)
		}
		for i := range n {
			if c.Raw[i] > c.Values[i] && c.TimeRunning > 0 {
				t.Fatalf("scaled value %d below raw %d", c.Values[i], c.Raw[i])
			}
		}
	})
}
