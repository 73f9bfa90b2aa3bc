//go:build linux

package perfevent

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkRead is the cost of one group read: what the measuring engine
// pays before and after each sample.
func BenchmarkRead(b *testing.B) {
	for _, evs := range [][]Event{
		{ContextSwitches},
		{ContextSwitches, CPUMigrations, PageFaults},
	} {
		b.Run(eventsName(evs), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			g, err := Open(evs)
			if err != nil {
				b.Skip(err)
			}
			defer g.Close()
			if err := g.Enable(); err != nil {
				b.Fatal(err)
			}
			var c Counts
			b.ReportAllocs()
			for b.Loop() {
				if err := g.Read(&c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadSyscall is Read's system call through the scheduler-aware
// unix.Read, for comparison with the RawSyscall that Read uses.
func BenchmarkReadSyscall(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g, err := Open([]Event{ContextSwitches, CPUMigrations, PageFaults})
	if err != nil {
		b.Skip(err)
	}
	defer g.Close()
	if err := g.Enable(); err != nil {
		b.Fatal(err)
	}
	var c Counts
	b.ReportAllocs()
	for b.Loop() {
		n, err := unix.Read(g.fds[0], g.buf[:])
		if err != nil {
			b.Fatal(err)
		}
		if err := decodeGroup(g.buf[:n], g.n, &g.events, &g.ids, &c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenClose is the cost of a group's set-up and tear-down.
func BenchmarkOpenClose(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	evs := []Event{ContextSwitches, CPUMigrations, PageFaults}
	if g, err := Open(evs); err != nil {
		b.Skip(err)
	} else {
		g.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		g, err := Open(evs)
		if err != nil {
			b.Fatal(err)
		}
		if err := g.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadRDPMC is a user-space read of the first event, where the
// kernel allows it.
func BenchmarkReadRDPMC(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g, err := Open([]Event{Cycles})
	if err != nil {
		b.Skip(err)
	}
	defer g.Close()
	if err := g.Enable(); err != nil {
		b.Fatal(err)
	}
	if _, err := g.ReadRDPMC(); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.ReadRDPMC(); err != nil {
			b.Fatal(err)
		}
	}
}

func eventsName(evs []Event) string {
	s := ""
	for i, e := range evs {
		if i > 0 {
			s += "+"
		}
		s += e.String()
	}
	return s
}
