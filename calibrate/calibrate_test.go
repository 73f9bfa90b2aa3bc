package calibrate

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/tsc"
)

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name string
		call func() error
		want error
		text string
	}{
		{"bracket zero", func() error { _, err := Bracket(0); return err }, ErrBadDuration, "0s"},
		{"bracket negative", func() error { _, err := Bracket(-time.Second); return err }, ErrBadDuration, "-1s"},
		{"sleep too long", func() error { _, err := Sleep(2 * time.Hour); return err }, ErrBadDuration, "2h0m0s"},
		{"overhead pairs", func() error { _, err := MeasureOverhead(3); return err }, ErrBadCount, "pairs 3"},
		{"core short", func() error { _, err := MeasureCoreClock(CoreOptions{Short: -1}); return err }, ErrBadCount, "-1"},
		{"core long", func() error { _, err := MeasureCoreClock(CoreOptions{Short: 100, Long: 200}); return err }, ErrBadCount, "200"},
		{"core reps", func() error { _, err := MeasureCoreClock(CoreOptions{Reps: -3}); return err }, ErrBadCount, "-3"},
		{"core tolerance", func() error { _, err := MeasureCoreClock(CoreOptions{RatioTolerance: math.NaN()}); return err }, ErrBadCount, "NaN"},
		{"core tries", func() error { _, err := MeasureCoreClock(CoreOptions{Tries: 101}); return err }, ErrBadCount, "tries 101"},
		{"core counter", func() error { _, err := MeasureCoreClock(CoreOptions{CounterHz: -5}); return err }, ErrBadCount, "-5"},
		{"method", func() error { _, err := Measure(Options{Method: "guess"}); return err }, ErrBadMethod, `"guess"`},
		{"measure duration", func() error { _, err := Measure(Options{Duration: time.Nanosecond}); return err }, ErrBadDuration, "1ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "calibrate: ") {
				t.Fatalf("error %q does not name %q with the package prefix", err, tt.text)
			}
		})
	}
}

func TestOverheadInvariants(t *testing.T) {
	o, err := MeasureOverhead(5000)
	if err != nil {
		t.Fatal(err)
	}
	if !(o.Min >= 0 && o.Min <= o.Median && o.Median < 1000) {
		t.Fatalf("overhead %+v: want 0 ≤ min ≤ median < 1000 ticks", o)
	}
	// A pair costs at least one tick unless the counter is so coarse
	// (an emulated one advancing by whole microseconds) that most pairs
	// fall within one step.
	if o.Min == 0 && o.Median >= tsc.Step() {
		t.Fatalf("overhead %+v: min 0 but median %v ≥ the counter step %v", o, o.Median, tsc.Step())
	}
	if o.AsmMin > o.AsmMedian {
		t.Fatalf("asm pair min %v > median %v", o.AsmMin, o.AsmMedian)
	}
}

func TestSleepAndBracketAgree(t *testing.T) {
	if _, ok := Architected(); ok && tsc.Counter() == tsc.CounterMonotonic {
		t.Skip("the monotonic fallback counter is the reference clock itself")
	}
	// Sleep refuses a thread that moved between CPUs while it slept, as an
	// unpinned one often does: pin where the OS can, and allow a few tries
	// where it cannot.
	if p, err := affinity.Pin(affinity.Options{CPU: -1}); err == nil {
		defer p.Restore()
	} else if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	b, err := Bracket(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var s Frequency
	for try := 0; try < 3; try++ {
		if s, err = Sleep(200 * time.Millisecond); !errors.Is(err, ErrUnstable) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	// The sleep method divides by the duration asked for, so its figure is
	// high by the sleep's overshoot, which a loaded machine stretches to
	// percents. Corrected by the overshoot it measured (s.Duration is the
	// sleep's real length), it must agree with the bracket.
	if s.Hz < b.Hz*(1-0.005) {
		t.Fatalf("sleep %.0f Hz below bracket %.0f Hz: a sleep cannot be shorter than asked", s.Hz, b.Hz)
	}
	corrected := s.Hz * (200 * time.Millisecond).Seconds() / s.Duration.Seconds()
	if rel := math.Abs(corrected-b.Hz) / b.Hz; rel > 0.005 {
		t.Fatalf("sleep %.0f Hz corrected for its %v overshoot is %.0f Hz, %.3f%% from bracket %.0f Hz (> 0.5%%)", s.Hz, s.Duration-200*time.Millisecond, corrected, rel*100, b.Hz)
	}
	// A bracket may be 0 ticks wide only when the counter steps more
	// coarsely than a clock read takes (an emulated counter).
	if b.PPM <= 0 || (tsc.Step() <= 2 && (b.Brackets[0] == 0 || b.Brackets[1] == 0)) {
		t.Fatalf("bracket result lacks its uncertainty: %+v", b)
	}
	if len(s.Warnings) == 0 || !errors.Is(s.Warnings[0], ErrSleepBias) {
		t.Fatalf("sleep method must warn of its bias, got %v", s.Warnings)
	}
}

func TestMeasureAndCache(t *testing.T) {
	c, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Get()
	if err != nil || again != c {
		t.Fatalf("Get did not return the cached calibration")
	}
	if c.Frequency.Hz <= 0 || c.Core.CyclesPerTick <= 0 || c.Step.Step < 1 {
		t.Fatalf("calibration has empty figures: %+v", c)
	}
	if got := c.Nanoseconds(c.Frequency.Hz); math.Abs(got-1e9) > 1e-3 {
		t.Fatalf("Nanoseconds(Hz ticks) = %v, want 1e9", got)
	}
	r, err := Refresh(Options{Duration: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := Get(); now != r {
		t.Fatal("Refresh did not replace the cached calibration")
	}
}

func TestDetectCPU(t *testing.T) {
	c := DetectCPU()
	if c.Counter != tsc.Counter() || c.GOARCH != runtime.GOARCH || c.LogicalCPUs < 1 {
		t.Fatalf("DetectCPU = %+v", c)
	}
	if c.Counter != tsc.CounterRDTSC && c.InvariantTSC {
		t.Fatal("InvariantTSC set for a counter that is not the TSC")
	}
	if !c.CounterConstant() && c.Counter != tsc.CounterRDTSC {
		t.Fatal("only a TSC can be non-constant")
	}
}

func TestParseCPUInfo(t *testing.T) {
	tests := []struct {
		name string
		text string
		hz   float64
		ok   bool
	}{
		{"known", "processor\t: 0\ncpu MHz\t\t: 2445.432\nflags\t\t: fpu tsc constant_tsc tsc_known_freq\n\nprocessor\t: 1\ncpu MHz\t\t: 1.0\n", 2445.432e6, true},
		{"flags first", "flags : tsc_known_freq\ncpu MHz : 2100.000\n", 2100e6, true},
		{"not known", "cpu MHz : 3500.000\nflags : fpu tsc constant_tsc\n", 0, false},
		{"no mhz", "flags : tsc_known_freq\n", 0, false},
		{"garbage", "cpu MHz : fast\nflags : tsc_known_freq\n", 0, false},
		{"infinite", "cpu MHz : inf\nflags : tsc_known_freq\n", 0, false},
		{"overflow", "cpu MHz : 1e400\nflags : tsc_known_freq\n", 0, false},
		{"absurd", "cpu MHz : 1e308\nflags : tsc_known_freq\n", 0, false},
		{"empty", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hz, err := parseCPUInfoHz(bufio.NewScanner(strings.NewReader(tt.text)))
			if tt.ok != (err == nil) || math.Abs(hz-tt.hz) > 1e-3 {
				t.Fatalf("parseCPUInfoHz = %v, %v; want %v ok=%v", hz, err, tt.hz, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrNoKernelFigure) {
				t.Fatalf("error %v does not wrap ErrNoKernelFigure", err)
			}
		})
	}
}

func TestKernelHzSources(t *testing.T) {
	tests := []struct {
		dir    string // under testdata/kernel
		hz     float64
		source string // "" when the kernel states no figure
	}{
		{"zen4-kvm-tsc", 2596.142e6, "/proc/cpuinfo (cpu MHz, tsc_known_freq)"},
		{"zen5-sysfs-tsc", 2596.12e6, "/sys/devices/system/cpu/cpu0/tsc_freq_khz"},
		{"sysfs-khz-hpet", 2.1e9, "/sys/devices/system/cpu/cpu0/tsc_freq_khz"},
		{"zen3-kvm-clock", 2445.432e6, "/proc/cpuinfo (cpu MHz, tsc_known_freq)"},
		{"xeon-calibrated", 0, ""}, // cpu MHz is a core frequency without tsc_known_freq
		{"arm64-n1", 0, ""},
		{"missing", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			hz, src, err := kernelHz(os.DirFS(filepath.Join("testdata", "kernel", tt.dir)))
			if tt.source == "" {
				if !errors.Is(err, ErrNoKernelFigure) || hz != 0 {
					t.Fatalf("kernelHz = %v, %q, %v; want ErrNoKernelFigure", hz, src, err)
				}
				return
			}
			if err != nil || math.Abs(hz-tt.hz) > 1e-3 || src != tt.source {
				t.Fatalf("kernelHz = %v, %q, %v; want %v from %q", hz, src, err, tt.hz, tt.source)
			}
		})
	}
}

func TestCrossChecksWarnOnDisagreement(t *testing.T) {
	f := Frequency{Hz: 2e9, PPM: 1, Method: MethodBracket}
	AddCrossChecks(&f, CPU{Counter: tsc.CounterRDTSC, CPUID15Hz: 2.1e9, HypervisorTSCHz: 2e9})
	var found15, foundHV bool
	for _, cc := range f.CrossChecks {
		found15 = found15 || strings.Contains(cc.Source, "0x15")
		foundHV = foundHV || strings.Contains(cc.Source, "0x40000010")
	}
	if !found15 || !foundHV {
		t.Fatalf("cross-checks missing: %+v", f.CrossChecks)
	}
	var warned bool
	for _, w := range f.Warnings {
		if errors.Is(w, ErrDisagree) && strings.Contains(w.Error(), "0x15") {
			warned = true
		}
		if errors.Is(w, ErrDisagree) && strings.Contains(w.Error(), "0x40000010") {
			t.Fatalf("agreeing source warned: %v", w)
		}
	}
	if !warned {
		t.Fatalf("a 5%% disagreement drew no warning: %v", f.Warnings)
	}
}

func TestImpreciseFrequencyWarns(t *testing.T) {
	// Pinned: an unpinned sleep may end on another CPU, which Sleep refuses.
	if p, err := affinity.Pin(affinity.Options{CPU: -1}); err == nil {
		defer p.Restore()
	} else if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	c, err := Measure(Options{Method: MethodSleep, Duration: 20 * time.Millisecond, Pairs: MinPairs, Core: CoreOptions{Reps: 1}})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range c.Warnings {
		warned = warned || errors.Is(w, ErrImprecise)
	}
	if imprecise := c.Frequency.PPM > MaxFrequencyPPM; warned != imprecise {
		t.Fatalf("frequency ±%v ppm (limit %v): warned %v", c.Frequency.PPM, MaxFrequencyPPM, warned)
	}
}
