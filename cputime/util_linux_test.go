//go:build linux

package cputime

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUtilisationDemos is seed 002's pair of demos, shortened: a busy loop
// uses most of one CPU, a sleep almost none. Bounds are generous because
// other work shares the machine.
func TestUtilisationDemos(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no procfs: %v", err)
	}
	tests := []struct {
		name     string
		f        func()
		min, max float64 // OfOneCPU bounds, percent
	}{
		{"busy 300ms", func() { sink += spin(300 * time.Millisecond) }, 80, 200},
		{"sleep 300ms", func() { time.Sleep(300 * time.Millisecond) }, 0, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A busy loop on a shared machine may be starved for a while:
			// up to three attempts may reach the lower bound.
			var u Utilisation
			for try := 0; try < 3; try++ {
				var err error
				if u, err = Measure(tt.f); err != nil {
					t.Fatal(err)
				}
				if u.OfOneCPU >= tt.min {
					break
				}
			}
			t.Logf("wall %v, process cpu %v, %.1f%% of one cpu, %.1f%% of %d cpus (tick share %.1f%%), system busy %.1f%%; %s",
				u.Wall, u.ProcessCPU, u.OfOneCPU, u.OfAllCPUs, u.NumCPU, u.TickShare, u.SystemBusy, u.Source)
			if u.OfOneCPU < tt.min && u.SystemBusy >= 95 {
				t.Skipf("the machine was saturated by other work (%.1f%% busy): a busy loop got %.1f%% of one cpu, which says nothing about the measurement", u.SystemBusy, u.OfOneCPU)
			}
			if u.OfOneCPU < tt.min || u.OfOneCPU > tt.max {
				t.Errorf("%.1f%% of one cpu, want in [%v, %v]", u.OfOneCPU, tt.min, tt.max)
			}
			if u.Wall <= 0 || u.NumCPU < 1 || u.SystemBusy < 0 || u.SystemBusy > 100.001 {
				t.Errorf("implausible %+v", u)
			}
			// OfAllCPUs and OfOneCPU describe the same CPU time against
			// NumCPU×Wall and the kernel's account of it; allow a few ticks.
			if want := u.OfOneCPU / float64(u.NumCPU); u.OfAllCPUs < want*0.8-1 || u.OfAllCPUs > want*1.25+1 {
				t.Errorf("OfAllCPUs %.1f%% far from OfOneCPU/NumCPU %.1f%%", u.OfAllCPUs, want)
			}
		})
	}
}

func TestUtilisationProcfsErrors(t *testing.T) {
	old := procRoot
	t.Cleanup(func() { procRoot = old })
	dir := t.TempDir()
	procRoot = filepath.Join(dir, "proc")
	if _, err := StartUtilisation(); !errors.Is(err, ErrNoProcfs) {
		t.Fatalf("missing /proc: %v, want ErrNoProcfs", err)
	}
	if err := os.MkdirAll(filepath.Join(procRoot, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(procRoot, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", procStatSample)
	if _, err := StartUtilisation(); !errors.Is(err, ErrNoProcfs) {
		t.Fatalf("missing self/stat: %v, want ErrNoProcfs", err)
	}
	write("self/stat", "garbage")
	if _, err := StartUtilisation(); err == nil || errors.Is(err, ErrNoProcfs) {
		t.Fatalf("garbage self/stat: %v, want a parse error", err)
	}
	write("self/stat", selfStatSample)
	s, err := StartUtilisation()
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if u.NumCPU != 2 || len(u.Warnings) == 0 {
		t.Errorf("frozen procfs: %+v, want 2 cpus and a warning that no tick passed", u)
	}
}
