package plain

import (
	"strconv"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// links is the length of the register ADD chain: one cycle a link on
// every x86-64 core, long enough (about 10k cycles) that the timing's
// own cost is small beside it under b.Loop as under Report.
const links = 10000

var sink uint64

// BenchmarkAddLoop is the ADD chain timed by the testing package, b.Loop
// style, with a unit of its own.
func BenchmarkAddLoop(b *testing.B) {
	for b.Loop() {
		sink = chain.Add(links)
	}
	b.ReportMetric(links, "links/op")
}

// BenchmarkAddN is the ADD chain timed by the testing package, b.N style.
func BenchmarkAddN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = chain.Add(links)
	}
}

// BenchmarkAddReport is the ADD chain measured by harness.Report.
func BenchmarkAddReport(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: func() { sink = chain.Add(links) }})
}

var text string

// format allocates: a string of a number, as a logger's formatting does.
func format(i int) string { return "item " + strconv.Itoa(i) + " of " + strconv.Itoa(i*7) }

// BenchmarkFormatLoop is an allocating function timed by the testing
// package.
func BenchmarkFormatLoop(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		text = format(i)
	}
}

// BenchmarkFormatReport is the same function measured by harness.Report
// (with the GC on: it allocates).
func BenchmarkFormatReport(b *testing.B) {
	b.ReportAllocs()
	i := 0
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: func() { i++; text = format(i) }})
}

var buf []byte

// fill allocates a page's worth and writes it, as a decoder that makes a
// buffer per message does.
func fill(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// BenchmarkFillLoop is an allocating function timed by the testing
// package.
func BenchmarkFillLoop(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf = fill(4096)
	}
}

// BenchmarkFillReport is the same function measured by harness.Report,
// with the GC on because it allocates (CYCLEBENCH_GC=off turns it off, to
// see the difference).
func BenchmarkFillReport(b *testing.B) {
	b.ReportAllocs()
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: func() { buf = fill(4096) }})
}
