package perfevent

import "testing"

// BenchmarkDecode is the pure-Go share of a group read: decoding three
// events from the kernel's bytes.
func BenchmarkDecode(b *testing.B) {
	events := [MaxEvents]Event{ContextSwitches, CPUMigrations, PageFaults}
	ids := [MaxEvents]uint64{1, 2, 3}
	buf := groupBytes(3, 1000, 1000, []uint64{1, 2, 3}, ids[:3])
	var c Counts
	b.ReportAllocs()
	for b.Loop() {
		if err := decodeGroup(buf, 3, &events, &ids, &c); err != nil {
			b.Fatal(err)
		}
	}
}
