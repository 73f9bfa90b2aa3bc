package cputime

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestUtilisationArithmetic checks the figures between two synthetic
// snapshots: 2 CPUs, a 1 s block in which the process used 0.5 s.
func TestUtilisationArithmetic(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tick := 10 * time.Millisecond
	a := snapshot{wall: t0, proc: Times{Total: time.Second, Source: SourceClockProcess},
		procTick: 100 * tick, sysTotal: 1000 * tick, sysBusy: 300 * tick, numCPU: 2, tick: tick, source: "fake"}
	b := a
	b.wall = t0.Add(time.Second)
	b.proc.Total += 500 * time.Millisecond
	b.procTick += 49 * tick
	b.sysTotal += 200 * tick
	b.sysBusy += 120 * tick
	tests := []struct {
		name string
		edit func(a, b *snapshot)
		want Utilisation
		warn int
	}{
		{name: "normal", edit: func(a, b *snapshot) {},
			want: Utilisation{Wall: time.Second, ProcessCPU: 500 * time.Millisecond, OfOneCPU: 50, OfAllCPUs: 25,
				NumCPU: 2, SystemBusy: 60, SystemCPU: 2 * time.Second, TickShare: 24.5}},
		{name: "process clock failed: ticks used", edit: func(a, b *snapshot) { b.procErr = errFakeUtil },
			want: Utilisation{Wall: time.Second, ProcessCPU: 490 * time.Millisecond, OfOneCPU: 49, OfAllCPUs: 24.5,
				NumCPU: 2, SystemBusy: 60, SystemCPU: 2 * time.Second, TickShare: 24.5}, warn: 1},
		{name: "no system tick passed", edit: func(a, b *snapshot) { b.sysTotal, b.sysBusy, b.procTick = a.sysTotal, a.sysBusy, a.procTick },
			want: Utilisation{Wall: time.Second, ProcessCPU: 500 * time.Millisecond, OfOneCPU: 50, OfAllCPUs: 25, NumCPU: 2}, warn: 1},
		{name: "short block is coarse", edit: func(a, b *snapshot) { b.sysTotal, b.sysBusy = a.sysTotal+50*tick, a.sysBusy+25*tick },
			want: Utilisation{Wall: time.Second, ProcessCPU: 500 * time.Millisecond, OfOneCPU: 50, OfAllCPUs: 100,
				NumCPU: 2, SystemBusy: 50, SystemCPU: 500 * time.Millisecond, TickShare: 98}, warn: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := a, b
			tt.edit(&a, &b)
			u := utilisation(a, b)
			if len(u.Warnings) != tt.warn {
				t.Errorf("warnings %v, want %d", u.Warnings, tt.warn)
			}
			near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
			w := tt.want
			if u.Wall != w.Wall || u.ProcessCPU != w.ProcessCPU || u.NumCPU != w.NumCPU || u.SystemCPU != w.SystemCPU ||
				!near(u.OfOneCPU, w.OfOneCPU) || !near(u.OfAllCPUs, w.OfAllCPUs) || !near(u.SystemBusy, w.SystemBusy) || !near(u.TickShare, w.TickShare) {
				t.Errorf("got  %+v\nwant %+v", u, w)
			}
		})
	}
}

var errFakeUtil = errors.New("fake")

func TestMeasureNil(t *testing.T) {
	if _, err := Measure(nil); err == nil {
		t.Error("Measure(nil) gave no error")
	}
	var s *Sampler
	if _, err := s.Stop(); err == nil {
		t.Error("Stop on a nil Sampler gave no error")
	}
}
