package calibrate

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/tsc"
)

// fixed returns a discipline reader that replays d (or fails with err).
func fixed(d clockDiscipline, err error) func() (clockDiscipline, error) {
	return func() (clockDiscipline, error) { return d, err }
}

var (
	untouched = clockDiscipline{TickUS: nominalTickUS}
	ntpFast   = clockDiscipline{TickUS: nominalTickUS, FreqPPM: 12.5}
)

func TestKernelFrequency(t *testing.T) {
	tests := []struct {
		name    string
		dir     string // under testdata/kernel
		disc    clockDiscipline
		discErr error
		counter string
		hz      float64 // ticks per monotonic second; 0: no usable figure
		ppm     float64 // 0: not checked
		source  []string
		reason  string // in the error when hz is 0
	}{
		{"zen4 kvm, clocksource tsc", "zen4-kvm-tsc", untouched, nil, tsc.CounterRDTSC, 2596.142e6, 2e3 / 2596.142e6 * 1e6,
			[]string{"/proc/cpuinfo", "tsc_known_freq", "clocksource tsc", "±2 kHz", "no NTP adjustment"}, ""},
		{"zen5 sysfs figure", "zen5-sysfs-tsc", untouched, nil, tsc.CounterRDTSC, 2596.12e6, 0,
			[]string{"/sys/devices/system/cpu/cpu0/tsc_freq_khz"}, ""},
		{"ntp runs the clock 12.5 ppm fast", "zen4-kvm-tsc", ntpFast, nil, tsc.CounterRDTSC, 2596.142e6 / (1 + 12.5e-6), 0,
			[]string{"NTP adjustment +12.5 ppm"}, ""},
		{"tick lengthened by 1 µs", "zen4-kvm-tsc", clockDiscipline{TickUS: nominalTickUS + 1}, nil, tsc.CounterRDTSC, 2596.142e6 / 1.0001, 0,
			[]string{"NTP adjustment +100 ppm"}, ""},
		// 1 ms left to slew with time constant 2: 1e6 ns / 2^4 per second, 62.5 ppm.
		{"pll slewing 1 ms", "zen4-kvm-tsc", clockDiscipline{TickUS: nominalTickUS, OffsetNS: 1e6, Constant: 2}, nil, tsc.CounterRDTSC, 2596.142e6, 2e3/2596.142e6*1e6 + 62.5,
			[]string{"slewing up to 62.5 ppm"}, ""},
		{"adjtime pending", "zen4-kvm-tsc", clockDiscipline{TickUS: nominalTickUS, AdjtimeUS: -300}, nil, tsc.CounterRDTSC, 2596.142e6, 2e3/2596.142e6*1e6 + 500,
			[]string{"slewing up to 500 ppm"}, ""},
		{"kvm-clock", "zen3-kvm-clock", untouched, nil, tsc.CounterRDTSC, 0, 0, nil, "clocksource is kvm-clock"},
		{"hpet", "sysfs-khz-hpet", untouched, nil, tsc.CounterRDTSC, 0, 0, nil, "clocksource is hpet"},
		{"calibrated, cpu MHz is a core clock", "xeon-calibrated", untouched, nil, tsc.CounterRDTSC, 0, 0, nil, "tsc_known_freq"},
		{"arm64", "arm64-n1", untouched, nil, tsc.CounterCNTVCT, 0, 0, nil, "no cpu MHz"},
		{"no kernel files (other systems)", "missing", untouched, nil, tsc.CounterRDTSC, 0, 0, nil, ""},
		{"discipline unreadable", "zen4-kvm-tsc", clockDiscipline{}, errors.ErrUnsupported, tsc.CounterRDTSC, 0, 0, nil, "NTP"},
		{"counter is not the tsc", "zen4-kvm-tsc", untouched, nil, tsc.CounterMonotonic, 0, 0, nil, "counter is monotonic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := readKernel(os.DirFS(filepath.Join("testdata", "kernel", tt.dir)), fixed(tt.disc, tt.discErr))
			f, err := k.frequency(tt.counter)
			if tt.hz == 0 {
				if !errors.Is(err, ErrNoKernelFigure) || !strings.Contains(err.Error(), tt.reason) || !strings.HasPrefix(err.Error(), "calibrate: ") {
					t.Fatalf("frequency() = %+v, %v; want ErrNoKernelFigure naming %q", f, err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Method != MethodKernel || math.Abs(f.Hz-tt.hz) > 1e-3 || f.PPM <= 0 || (tt.ppm != 0 && math.Abs(f.PPM-tt.ppm) > 1e-9) {
				t.Fatalf("frequency() = %.3f Hz ±%v ppm by %q; want %.3f Hz ±%v by %q", f.Hz, f.PPM, f.Method, tt.hz, tt.ppm, MethodKernel)
			}
			for _, s := range tt.source {
				if !strings.Contains(f.Source, s) {
					t.Errorf("source %q does not say %q", f.Source, s)
				}
			}
		})
	}
}

func TestClockFollowsCounter(t *testing.T) {
	tests := []struct {
		dir, counter string
		want         bool
	}{
		{"zen4-kvm-tsc", tsc.CounterRDTSC, true},
		{"zen3-kvm-clock", tsc.CounterRDTSC, true}, // kvm-clock scales a TSC read
		{"sysfs-khz-hpet", tsc.CounterRDTSC, false},
		{"arm64-n1", tsc.CounterCNTVCT, false},
		{"zen4-kvm-tsc", tsc.CounterMonotonic, false},
		{"missing", tsc.CounterRDTSC, false},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"/"+tt.counter, func(t *testing.T) {
			k := readKernel(os.DirFS(filepath.Join("testdata", "kernel", tt.dir)), fixed(untouched, nil))
			if got := k.clockFollowsCounter(tt.counter); got != tt.want {
				t.Fatalf("clockFollowsCounter = %v (clocksource %q), want %v", got, k.clocksource, tt.want)
			}
		})
	}
}

func TestDisciplineRate(t *testing.T) {
	tests := []struct {
		name         string
		d            clockDiscipline
		ratio, slew  float64
		descContains string
	}{
		{"untouched", untouched, 1, 0, "no NTP adjustment"},
		{"freq", clockDiscipline{TickUS: nominalTickUS, FreqPPM: -40}, 1 - 40e-6, 0, "-40 ppm"},
		{"tick and freq add", clockDiscipline{TickUS: nominalTickUS - 1, FreqPPM: 10}, 1 - 100e-6 + 10e-6, 0, "-90 ppm"},
		{"pll offset, constant 0", clockDiscipline{TickUS: nominalTickUS, OffsetNS: -4000}, 1, 1, "slewing up to 1 ppm"},
		{"pll offset under pps", clockDiscipline{TickUS: nominalTickUS, OffsetNS: 4000, Constant: 6, PPSTime: true}, 1, 4, "slewing up to 4 ppm"},
		{"adjtime and pll", clockDiscipline{TickUS: nominalTickUS, OffsetNS: 4000, AdjtimeUS: 1}, 1, 501, "slewing up to 501 ppm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ratio, slew := tt.d.rate()
			if math.Abs(ratio-tt.ratio) > 1e-12 || math.Abs(slew-tt.slew) > 1e-9 || !strings.Contains(tt.d.String(), tt.descContains) {
				t.Fatalf("rate() = %v, %v (%q); want %v, %v (%q)", ratio, slew, tt.d, tt.ratio, tt.slew, tt.descContains)
			}
		})
	}
}

func TestChoose(t *testing.T) {
	k := Frequency{Hz: 2596142000, PPM: 0.77, Method: MethodKernel, Source: "kernel"}
	at := func(ppm, bound float64) Frequency {
		return Frequency{Hz: k.Hz * (1 + ppm*1e-6), PPM: bound, Method: MethodBracket}
	}
	tests := []struct {
		name   string
		b      Frequency
		method string
		agree  bool
	}{
		{"short bracket confirms the kernel", at(-3, 9.8), MethodKernel, true},
		{"at the edge of both bounds", at(10.4, 9.7), MethodKernel, true},
		{"long bracket is more precise", at(-0.07, 0.05), MethodBracket, true},
		{"disagreement", at(40, 9.8), MethodBracket, false},
		{"long bracket refutes the kernel", at(-1, 0.05), MethodBracket, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, agree := choose(k, tt.b)
			if f.Method != tt.method || agree != tt.agree {
				t.Fatalf("choose = %s (agree %v), want %s (agree %v)", f.Method, agree, tt.method, tt.agree)
			}
			// The stated uncertainty covers the other figure whenever they
			// agree, and the bracket, which is measured, wins otherwise.
			if agree {
				other := tt.b
				if f.Method == MethodBracket {
					other = k
				}
				if d := math.Abs(other.Hz-f.Hz) / f.Hz * 1e6; d > f.PPM+other.PPM+1e-9 {
					t.Fatalf("chosen ±%v ppm and the other ±%v ppm do not cover their %.3g ppm difference", f.PPM, other.PPM, d)
				}
			}
			if f.Method == MethodKernel && (len(f.CrossChecks) != 1 || f.CrossChecks[0].Hz != tt.b.Hz || f.CrossChecks[0].PPM != tt.b.PPM) {
				t.Fatalf("the kernel's figure lacks its confirming bracket: %+v", f.CrossChecks)
			}
		})
	}
}
