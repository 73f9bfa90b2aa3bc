package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/tsc"
)

// pin pins the test's thread where the OS can, so that every bracket end
// reads the same CPU's counter.
func pin(t *testing.T) {
	t.Helper()
	p, err := affinity.Pin(affinity.Options{CPU: -1})
	if err == nil {
		t.Cleanup(func() { p.Restore() })
		return
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
}

// replay makes the kernel look like fsys with an untouched clock until the
// test ends.
func replay(t *testing.T, fsys fstest.MapFS) {
	t.Helper()
	oldRoot, oldDisc := sysRoot, readDiscipline
	t.Cleanup(func() { sysRoot, readDiscipline = oldRoot, oldDisc })
	sysRoot, readDiscipline = fsys, fixed(untouched, nil)
}

// covers fails the test unless a's stated uncertainty and b's together
// cover the difference between their figures.
func covers(t *testing.T, what string, a, b Frequency) {
	t.Helper()
	d := math.Abs(a.Hz-b.Hz) / b.Hz * 1e6
	if d > a.PPM+b.PPM {
		t.Errorf("%s: %s %.1f Hz ±%.3g ppm and %s %.1f Hz ±%.3g ppm differ by %.3g ppm, more than their bounds", what, a.Method, a.Hz, a.PPM, b.Method, b.Hz, b.PPM, d)
	}
}

func TestFastFrequencyCoversLongBracket(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a 300 ms bracket; skipped with -short")
	}
	if _, ok := Architected(); ok {
		t.Skip("the frequency is architected here")
	}
	pin(t)
	pending, err := Measure(FastOptions)
	if err != nil {
		t.Fatal(err)
	}
	if pending.Pending() != (pending.Frequency.Method == MethodKernel) {
		t.Fatalf("a %s figure, pending %v: FastOptions defers the confirmation of the kernel's figure, and only of it", pending.Frequency.Method, pending.Pending())
	}
	// What a first measurement would take, then the confirmation.
	time.Sleep(5 * time.Millisecond)
	c, err := Confirmed(pending)
	if err != nil {
		t.Fatal(err)
	}
	if c.Pending() || pending.Frequency.Hz != c.Frequency.Hz && len(c.Frequency.Warnings) == 0 {
		t.Fatalf("confirmed: pending %v, %v Hz from %v Hz with no warning", c.Pending(), c.Frequency.Hz, pending.Frequency.Hz)
	}
	f := c.Frequency
	switch f.Method {
	case MethodKernel:
		if !strings.HasPrefix(f.Source, "/proc/") && !strings.HasPrefix(f.Source, "/sys/") {
			t.Errorf("kernel figure's source %q names no file", f.Source)
		}
		if len(f.CrossChecks) == 0 || !strings.HasPrefix(f.CrossChecks[0].Source, "bracket") || f.CrossChecks[0].PPM > 100 {
			t.Errorf("kernel figure not confirmed by a bracket within 100 ppm: %+v", f.CrossChecks)
		}
	case MethodBracket:
		if !strings.HasPrefix(f.Source, "monotonic clock") || f.Ticks == 0 {
			t.Errorf("bracket figure %+v lacks its source or ticks", f)
		}
	default:
		t.Fatalf("method %q, want %q or %q", f.Method, MethodKernel, MethodBracket)
	}
	if !(f.PPM > 0) || f.Duration <= 0 {
		t.Fatalf("frequency %+v states no uncertainty or interval", f)
	}
	long, err := Bracket(300 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	covers(t, "fast", f, long)
	r, err := c.Refine()
	if err != nil {
		t.Fatal(err)
	}
	covers(t, "refined", r.Frequency, long)
	disagreed := false
	for _, w := range r.Warnings {
		disagreed = disagreed || errors.Is(w, ErrDisagree)
	}
	if r.Frequency.PPM > f.PPM && !disagreed {
		t.Errorf("refined after %v: %s ±%.3g ppm, less precise than the fast ±%.3g ppm", r.Frequency.Duration, r.Frequency.Method, r.Frequency.PPM, f.PPM)
	}
	if c.Frequency.Hz != f.Hz || c.Frequency.Method != f.Method {
		t.Error("Refine changed the calibration it was called on")
	}
}

// realHz measures the counter frequency with the real kernel files.
func realHz(t *testing.T) Frequency {
	t.Helper()
	if tsc.Counter() != tsc.CounterRDTSC {
		t.Skip("the kernel's figure is used only for the TSC")
	}
	if testing.Short() {
		t.Skip("takes 100 ms brackets; skipped with -short")
	}
	pin(t)
	b, err := Bracket(100 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kernelTree is a Linux whose kernel states hz and counts CLOCK_MONOTONIC
// from the TSC.
func kernelTree(hz float64) fstest.MapFS {
	return fstest.MapFS{
		cpuinfoFile:     {Data: fmt.Appendf(nil, "processor\t: 0\ncpu MHz\t\t: %.3f\nflags\t\t: fpu tsc rdtscp constant_tsc tsc_known_freq\n\n", hz/1e6)},
		clocksourceFile: {Data: []byte("tsc\n")},
	}
}

func TestAutoPaths(t *testing.T) {
	b := realHz(t)
	confirmAt := FastOptions
	confirmAt.DeferConfirm = false
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		method   string
		disagree bool
	}{
		{"kernel figure confirmed", kernelTree(b.Hz), MethodKernel, false},
		{"kernel figure 1000 ppm off: full bracket", kernelTree(b.Hz * 1.001), MethodBracket, true},
		{"no kernel figure", fstest.MapFS{}, MethodBracket, false},
		{"figure, but clocksource hpet", fstest.MapFS{cpuinfoFile: kernelTree(b.Hz)[cpuinfoFile], clocksourceFile: {Data: []byte("hpet\n")}}, MethodBracket, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, tt.fsys)
			c, err := Measure(confirmAt)
			if err != nil {
				t.Fatal(err)
			}
			f := c.Frequency
			var disagreed, imprecise bool
			for _, w := range c.Warnings {
				disagreed = disagreed || (errors.Is(w, ErrDisagree) && strings.Contains(w.Error(), "kernel"))
				imprecise = imprecise || errors.Is(w, ErrImprecise)
			}
			if f.Method != tt.method || disagreed != tt.disagree {
				t.Fatalf("%s ±%.3g ppm, disagreement warned %v; want %s, %v: %v", f.Method, f.PPM, disagreed, tt.method, tt.disagree, c.Warnings)
			}
			if imprecise != (f.PPM > MaxFrequencyPPM) {
				t.Errorf("±%.3g ppm, ErrImprecise warned %v", f.PPM, imprecise)
			}
			if tt.disagree && f.Duration < DefaultOptions.Duration {
				t.Errorf("after a disagreement the bracket ran %v, want the full %v", f.Duration, DefaultOptions.Duration)
			}
			if f.Method == MethodBracket && !tt.disagree {
				covers(t, "fast bracket", f, b)
			}
		})
	}
}

// TestDeferredConfirmation: with DeferConfirm the kernel's figure is used at
// once, and the bracket closed later confirms it, or replaces it with a
// warning when it is off.
func TestDeferredConfirmation(t *testing.T) {
	b := realHz(t)
	for _, tt := range []struct {
		name     string
		off      float64
		method   string
		disagree bool
	}{
		{"kernel figure right", 1, MethodKernel, false},
		{"kernel figure 1000 ppm off", 1.001, MethodBracket, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, kernelTree(b.Hz*tt.off))
			c, err := Measure(FastOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Pending() || c.Frequency.Method != MethodKernel || c.Frequency.Duration != 0 || math.Abs(c.Frequency.Hz/(b.Hz*tt.off)-1) > 1e-5 {
				t.Fatalf("measured: %+v; want the kernel's figure at once, pending", c.Frequency)
			}
			time.Sleep(20 * time.Millisecond)
			r, err := Confirmed(c)
			if err != nil {
				t.Fatal(err)
			}
			disagreed := false
			for _, w := range r.Warnings {
				disagreed = disagreed || errors.Is(w, ErrDisagree)
			}
			if r.Pending() || r.Frequency.Method != tt.method || disagreed != tt.disagree || r.Frequency.Duration < 20*time.Millisecond {
				t.Fatalf("confirmed: %s over %v, pending %v, disagreement warned %v; want %s, %v", r.Frequency.Method, r.Frequency.Duration, r.Pending(), disagreed, tt.method, tt.disagree)
			}
			covers(t, "confirmed", r.Frequency, b)
			if again, _ := Confirmed(r); again != r {
				t.Fatal("Confirmed of a confirmed calibration must return it")
			}
		})
	}
}

func TestRefineKeepsWhatItCannotImprove(t *testing.T) {
	zero := &Calibration{Frequency: Frequency{Hz: 1e9, PPM: 3}}
	if r, err := zero.Refine(); r != zero || err != nil {
		t.Fatalf("Refine of a calibration without a bracket = %p, %v; want itself", r, err)
	}
	if testing.Short() {
		t.Skip("measures; skipped with -short")
	}
	pin(t)
	// Retry rule: the core-clock chains of a single repetition can come out
	// unusable (ErrUnstable) on a loaded or emulated processor (seen under
	// qemu-user); three tries, then a skip with the reason.
	var c *Calibration
	var err error
	for try := 0; try < 3; try++ {
		if c, err = Measure(Options{Method: MethodSleep, Duration: 5 * time.Millisecond, Pairs: MinPairs, Core: CoreOptions{Reps: 1}}); !errors.Is(err, ErrUnstable) {
			break
		}
	}
	if errors.Is(err, ErrUnstable) {
		t.Skipf("the calibration's chains were unstable three times: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Architected(); !ok {
		if r, err := c.Refine(); r != c || err != nil {
			t.Fatalf("Refine of a sleep calibration = %p, %v; want itself", r, err)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want error
		text string
	}{
		{"negative target", Options{TargetPPM: -1}, ErrBadTarget, "-1"},
		{"NaN target", Options{TargetPPM: math.NaN()}, ErrBadTarget, "NaN"},
		{"pairs", Options{Pairs: 3}, ErrBadCount, "pairs 3"},
		{"core reps", Options{Core: CoreOptions{Reps: -1}}, ErrBadCount, "-1"},
		{"method lists auto", Options{Method: "fast"}, ErrBadMethod, `"auto"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Measure(tt.o)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "calibrate: ") {
				t.Fatalf("Measure(%+v) = %v, want %v naming %q", tt.o, err, tt.want, tt.text)
			}
		})
	}
}
