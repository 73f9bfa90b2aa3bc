package calibrate

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/internal/chain"
)

// intelChains reads the chain slopes recorded on the Emerald Rapids guest
// (../shared/counters/kvm-intel-emr-2100mhz-chains.csv): per run, ticks per
// link of each chain, timed one after the other.
func intelChains(t *testing.T) map[string]map[string]float64 {
	t.Helper()
	f, err := os.Open("testdata/kvm-intel-emr-2100mhz-chains.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]map[string]float64{}
	for _, rec := range recs {
		v, err := strconv.ParseFloat(rec[5], 64)
		if err != nil {
			t.Fatal(err)
		}
		if runs[rec[0]] == nil {
			runs[rec[0]] = map[string]float64{}
		}
		runs[rec[0]][rec[1]] = v
	}
	if len(runs) != 8 {
		t.Fatalf("%d runs in the recorded chains, want 8", len(runs))
	}
	return runs
}

// TestDecideRulerIntelRecorded replays every run recorded on the Intel
// guest: a ruler made of any one-cycle chain (register ADD, SUB, or ADD of
// a large immediate) with the IMUL chain beside it is accepted and checked;
// a ruler made of a folded chain (ADD $1, INC, LEA 1(reg)) is refused, by
// the IMUL chain alone (no counter frequency) and by the core clock it
// implies alone (no IMUL latency) — never a number.
func TestDecideRulerIntelRecorded(t *testing.T) {
	const hz = 2100e6
	for run, c := range intelChains(t) {
		imul := c["IMULQ BX AX"]
		for _, ruler := range []string{"ADDQ BX AX", "SUBQ BX AX", "ADDQ $0x12345 AX"} {
			cc := DecideRuler(RulerFigures{AddTicksPerOp: c[ruler], ImulTicksPerOp: imul, ImulLatency: 3, CounterHz: hz, Exact: true}, DefaultRulerThresholds)
			if !cc.Checked || cc.Err != nil || math.Abs(cc.CyclesPerTick-1/c[ruler]) > 1e-12 {
				t.Errorf("run %s, ruler %s: %+v; want accepted and checked", run, ruler, cc)
			}
			if cc.CoreHz < 2.4e9 || cc.CoreHz > 2.9e9 {
				t.Errorf("run %s, ruler %s: core clock %.4g Hz, want the guest's 2.4-2.9 GHz", run, ruler, cc.CoreHz)
			}
		}
		for _, ruler := range []string{"ADDQ $1 AX", "INCQ AX", "LEAQ 1(AX) AX"} {
			for _, f := range []RulerFigures{
				{AddTicksPerOp: c[ruler], ImulTicksPerOp: imul, ImulLatency: 3, Exact: true},
				{AddTicksPerOp: c[ruler], ImulTicksPerOp: imul, ImulLatency: 3, CounterHz: hz, Exact: true},
			} {
				cc := DecideRuler(f, DefaultRulerThresholds)
				if cc.CyclesPerTick != 0 || cc.Checked || !errors.Is(cc.Err, ErrRulersDisagree) {
					t.Errorf("run %s, folded ruler %s (counter %v Hz): %+v; want refused by the IMUL chain", run, ruler, f.CounterHz, cc)
				}
			}
			// Where nothing documents the multiply, the implied clock
			// (over 13 GHz) still refuses it.
			cc := DecideRuler(RulerFigures{AddTicksPerOp: c[ruler], ImulTicksPerOp: imul, CounterHz: hz, Exact: true}, DefaultRulerThresholds)
			if cc.CyclesPerTick != 0 || !errors.Is(cc.Err, ErrImplausibleClock) {
				t.Errorf("run %s, folded ruler %s, latency unknown: %+v; want refused as implausible", run, ruler, cc)
			}
			// The folding itself, measured against the register ADD.
			cc = DecideRuler(RulerFigures{AddTicksPerOp: c["ADDQ BX AX"], ImulTicksPerOp: imul, ImmTicksPerOp: c[ruler], ImulLatency: 3, CounterHz: hz, Exact: true}, DefaultRulerThresholds)
			if !cc.Imm.Folded || cc.Imm.CyclesPerOp < 0.15 || cc.Imm.CyclesPerOp > 0.25 || !strings.Contains(cc.Imm.String(), "folded at rename") {
				t.Errorf("run %s, %s beside the register ADD: %+v (%s); want folded at about 0.2 cycles per link", run, ruler, cc.Imm, cc.Imm)
			}
		}
	}
}

func TestDecideRuler(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name    string
		f       RulerFigures
		cpt     float64 // 0: refused
		checked bool
		err     error // nil: accepted and checked
		text    []string
		folded  bool
	}{
		// Zen 4 guest, cyclebench info: 1.4229 cycles/tick, IMUL/ADD 3.000.
		{"zen 4", RulerFigures{AddTicksPerOp: 1 / 1.4229, ImulTicksPerOp: 3 / 1.4229, ImmTicksPerOp: 1 / 1.4229, ImulLatency: 3, CounterHz: 2596.142e6, Exact: true},
			1.4229, true, nil, nil, false},
		// Zen 5 guest (../shared/results/kvm-amd-zen5-run.json): the ADD $1
		// and IMUL chains of 10000 links at 6864 and 20800 ticks.
		{"zen 5", RulerFigures{AddTicksPerOp: 0.6864, ImulTicksPerOp: 2.0800, ImmTicksPerOp: 0.6864, ImulLatency: 3, CounterHz: 2596.12e6, Exact: true},
			1 / 0.6864, true, nil, nil, false},
		// Zen 3 guest: 1.2531 cycles/tick at 2445.406 MHz.
		{"zen 3", RulerFigures{AddTicksPerOp: 1 / 1.2531, ImulTicksPerOp: 3.0009 / 1.2531, ImulLatency: 3, CounterHz: 2445.406e6, Exact: true},
			1.2531, true, nil, nil, false},
		{"ratio at the edge of the tolerance", RulerFigures{AddTicksPerOp: 1, ImulTicksPerOp: 3.29, ImulLatency: 3, CounterHz: 3e9, Exact: true},
			1, true, nil, nil, false},
		{"ratio just past it", RulerFigures{AddTicksPerOp: 1, ImulTicksPerOp: 3.31, ImulLatency: 3, CounterHz: 3e9, Exact: true},
			0, false, ErrRulersDisagree, []string{"1 ticks per link", "3.31", "3.310", "documented latency makes it 3", "±10%", "no cycle figure"}, false},
		{"13% off on a busy moment whose best samples spread by 5%", RulerFigures{AddTicksPerOp: 1, ImulTicksPerOp: 3.4, ImulLatency: 3, CounterHz: 3e9, Exact: true, Spread: 0.05},
			1, true, nil, nil, false},
		{"a folded ruler however much the samples spread", RulerFigures{AddTicksPerOp: 0.15, ImulTicksPerOp: 2.3, ImulLatency: 3, Exact: true, Spread: 3},
			0, false, ErrRulersDisagree, []string{"±50%"}, false},
		{"a multiply slower than the table says (4 cycles)", RulerFigures{AddTicksPerOp: 0.75, ImulTicksPerOp: 3, ImulLatency: 3, CounterHz: 2.1e9, Exact: true},
			0, false, ErrRulersDisagree, []string{"4.000"}, false},
		{"arm64 core not in the table: unchecked", RulerFigures{AddTicksPerOp: 0.04, ImulTicksPerOp: 0.12, ImulLatency: 0, CounterHz: 100e6, Exact: true},
			25, false, ErrUnchecked, []string{"no multiply latency is documented", "25 cycles per tick", "IMUL/ADD measured 3.000"}, false},
		{"neoverse n1: 4-cycle MUL agrees", RulerFigures{AddTicksPerOp: 0.04, ImulTicksPerOp: 0.16, ImulLatency: 4, CounterHz: 100e6, Exact: true},
			25, true, nil, nil, false},
		{"pure-Go chains: approximate, unchecked", RulerFigures{AddTicksPerOp: 0.27, ImulTicksPerOp: 0.81, ImulLatency: 3, CounterHz: 1e9, Exact: false},
			1 / 0.27, false, ErrUnchecked, []string{"pure-Go", "approximate"}, false},
		{"IMUL not measured", RulerFigures{AddTicksPerOp: 0.7, ImulTicksPerOp: nan, ImulLatency: 3, CounterHz: 2.6e9, Exact: true},
			1 / 0.7, false, ErrUnchecked, []string{"IMUL chain gave no usable slope"}, false},
		{"a core clock of 15 GHz", RulerFigures{AddTicksPerOp: 0.173, ImulTicksPerOp: 0.519, ImulLatency: 3, CounterHz: 2.6e9, Exact: true},
			0, false, ErrImplausibleClock, []string{"15.03 GHz", "0.2 to 7 GHz"}, false},
		{"a core clock of 0.1 GHz", RulerFigures{AddTicksPerOp: 21, ImulTicksPerOp: 63, ImulLatency: 3, CounterHz: 2.1e9, Exact: true},
			0, false, ErrImplausibleClock, []string{"0.1 GHz"}, false},
		{"no counter frequency: no plausibility check", RulerFigures{AddTicksPerOp: 0.01, ImulTicksPerOp: 0.03, ImulLatency: 3, Exact: true},
			100, true, nil, nil, false},
		{"no ADD slope", RulerFigures{AddTicksPerOp: nan, ImulTicksPerOp: 2.1, ImulLatency: 3, CounterHz: 2.6e9, Exact: true},
			0, false, ErrUnstable, []string{"no usable slope"}, false},
		{"a negative ADD slope", RulerFigures{AddTicksPerOp: -0.2, ImulTicksPerOp: 2.1, ImulLatency: 3, CounterHz: 2.6e9, Exact: true},
			0, false, ErrUnstable, []string{"-0.2"}, false},
		{"an infinite ADD slope", RulerFigures{AddTicksPerOp: math.Inf(1), ImulLatency: 3, Exact: true},
			0, false, ErrUnstable, nil, false},
		{"folding measured beside a sound ruler", RulerFigures{AddTicksPerOp: 0.75, ImulTicksPerOp: 2.25, ImmTicksPerOp: 0.15, ImulLatency: 3, CounterHz: 2.1e9, Exact: true},
			1 / 0.75, true, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := DecideRuler(tt.f, DefaultRulerThresholds)
			if math.Abs(cc.CyclesPerTick-tt.cpt) > 1e-9*tt.cpt || cc.Checked != tt.checked || cc.Refused() != (tt.cpt == 0) {
				t.Fatalf("DecideRuler = %+v; want %v cycles/tick, checked %v", cc, tt.cpt, tt.checked)
			}
			if tt.err == nil {
				if cc.Err != nil {
					t.Fatalf("Err = %v, want nil", cc.Err)
				}
			} else if !errors.Is(cc.Err, tt.err) || !strings.HasPrefix(cc.Err.Error(), "calibrate: ") {
				t.Fatalf("Err = %v, want %v", cc.Err, tt.err)
			}
			for _, s := range tt.text {
				if !strings.Contains(cc.Err.Error(), s) {
					t.Errorf("Err %q does not say %q", cc.Err, s)
				}
			}
			if cc.Imm.Folded != tt.folded {
				t.Errorf("Imm = %+v, want folded %v", cc.Imm, tt.folded)
			}
		})
	}
}

func TestRulerBadOptions(t *testing.T) {
	ok := RulerOptions{AddShort: 10, AddLong: 100, MaxSamples: 10}
	tests := []struct {
		name string
		edit func(*RulerOptions)
		text string
	}{
		{"add lengths", func(o *RulerOptions) { o.AddLong = 10 }, "[10 10]"},
		{"add short", func(o *RulerOptions) { o.AddShort = 0 }, "[0 100]"},
		{"imul one length", func(o *RulerOptions) { o.ImulLong = 50 }, "[0 50]"},
		{"imm too long", func(o *RulerOptions) { o.ImmShort, o.ImmLong = 1, 2e9 }, "2000000000"},
		{"latency", func(o *RulerOptions) { o.ImulLatency = math.NaN() }, "NaN"},
		{"counter", func(o *RulerOptions) { o.CounterHz = -1 }, "-1"},
		{"agreement", func(o *RulerOptions) {
			o.Thresholds = RulerThresholds{Agree: 2, MaxAgree: 0.5, MinCoreHz: 1, MaxCoreHz: 2}
		}, "tolerance 2"},
		{"agreement cap", func(o *RulerOptions) {
			o.Thresholds = RulerThresholds{Agree: 0.1, MaxAgree: 0.05, MinCoreHz: 1, MaxCoreHz: 2}
		}, "cap 0.05"},
		{"clock band", func(o *RulerOptions) {
			o.Thresholds = RulerThresholds{Agree: 0.1, MaxAgree: 0.5, MinCoreHz: 2, MaxCoreHz: 1}
		}, "2 to 1 Hz"},
		{"k-best", func(o *RulerOptions) { o.Epsilon = -1 }, "eps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.edit(&o)
			_, err := NewRuler(o)
			if !errors.Is(err, ErrBadCount) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "calibrate: ") {
				t.Fatalf("NewRuler(%+v) = %v; want ErrBadCount naming %q", o, err, tt.text)
			}
		})
	}
	if _, err := NewRuler(ok); err != nil {
		t.Fatal(err)
	}
}

// TestRulerStreamsAndResize checks the bookkeeping without timing anything
// that matters: the streams measured, Add, Resize and the slopes.
func TestRulerStreamsAndResize(t *testing.T) {
	r, err := NewRuler(RulerOptions{AddShort: 100, AddLong: 1100, ImulShort: 30, ImulLong: 330, K: 2, Epsilon: 0.01, MaxSamples: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Streams(); len(got) != 4 || got[0] != AddShort || got[3] != ImulLong {
		t.Fatalf("Streams() = %v, want the ADD and IMUL pairs", got)
	}
	for _, v := range []uint64{100, 101} {
		r.Add(AddShort, v, true)
		r.Add(AddLong, v+700, true)
	}
	r.Add(AddLong, 0, false)
	r.Add(ImmShort, 5, true) // not measured: ignored
	if !r.Converged() || !r.Done() || r.Taken(AddLong) != 3 || r.Taken(ImmShort) != 0 {
		t.Fatalf("converged %v, done %v, taken %d and %d", r.Converged(), r.Done(), r.Taken(AddLong), r.Taken(ImmShort))
	}
	if f := r.Figures(); math.Abs(f.AddTicksPerOp-0.7) > 1e-12 || !math.IsNaN(f.ImulTicksPerOp) || !math.IsNaN(f.ImmTicksPerOp) {
		t.Fatalf("Figures() = %+v, want an ADD slope of 0.7 and no other", f)
	}
	if r.Resize(50, 330) || r.Ops(AddLong) != 1100 {
		t.Fatalf("Resize to lengths not above the short ones must change nothing")
	}
	if !r.Resize(2100, 330) || r.Ops(AddLong) != 2100 || r.Taken(AddLong) != 0 || r.Taken(AddShort) != 2 || r.Converged() {
		t.Fatalf("Resize(2100) left ops %d, taken %d/%d, converged %v", r.Ops(AddLong), r.Taken(AddShort), r.Taken(AddLong), r.Converged())
	}
	for s := range numRulerStreams {
		if s.String() == "" || strings.HasPrefix(s.String(), "RulerStream(") {
			t.Errorf("stream %d has no name", int(s))
		}
	}
}

// TestRulerRefusesAFoldedChain builds a ruler whose ADD chain lies the way
// a folding renamer makes it lie (each link costs a fifth of a cycle: a
// fifth of the links are executed) and times it on this machine: the
// verdict must be no figure, naming both chains.
func TestRulerRefusesAFoldedChain(t *testing.T) {
	if !chain.Exact() {
		t.Skip("the pure-Go chains are not checked (their figures are approximate)")
	}
	pin(t)
	folded := func(x uint64, n int) uint64 { return chain.AddFrom(x, n/5) }
	for _, hz := range []float64{0, 2.1e9} {
		r, err := NewRuler(RulerOptions{AddShort: 2000, AddLong: 100_000, ImulShort: 700, ImulLong: 33_000, ImulLatency: 3, CounterHz: hz, MaxSamples: 30, Add: folded})
		if err != nil {
			t.Fatal(err)
		}
		for range 30 {
			for _, s := range r.Streams() {
				r.Sample(s, 0, false)
			}
		}
		cc := r.Verdict()
		if !cc.Refused() || cc.Checked {
			t.Fatalf("a ruler of a folded chain gave %v cycles per tick (%+v); want no figure", cc.CyclesPerTick, cc)
		}
		if !errors.Is(cc.Err, ErrRulersDisagree) && !errors.Is(cc.Err, ErrImplausibleClock) {
			t.Fatalf("Err = %v; want the rulers disagreeing or an implausible clock", cc.Err)
		}
		if errors.Is(cc.Err, ErrRulersDisagree) && (!strings.Contains(cc.Err.Error(), "register ADD chain") || !strings.Contains(cc.Err.Error(), "IMUL chain")) {
			t.Fatalf("Err = %v; want both chains named", cc.Err)
		}
	}
}

// TestCoreClockRulersAgree measures the real chains: where this core's
// multiply latency is documented, the ruler must come out checked, the
// IMUL/ADD ratio within the tolerance of it. A shared machine can disturb
// one measurement (MeasureCoreClock already retries a disagreement three
// times), so the rule is: up to 10 measurements 50 ms apart, passing at the
// first checked one; when none is, ratios that scatter (max/min > 1.1) say
// the machine was busy and the test skips, while ratios that agree with
// each other away from the latency are a real error (a chain that is not
// what it says).
func TestCoreClockRulersAgree(t *testing.T) {
	lat, known := DetectCPU().ImulLatency()
	if !known {
		t.Skip("the multiply latency of this processor is not documented (or the chains are pure Go / emulated): nothing checks the ruler here")
	}
	pin(t)
	lo, hi := math.Inf(1), math.Inf(-1)
	var last CoreClock
	for i := range 10 {
		o := CoreOptions{}
		if i%2 == 1 {
			o = FastOptions.Core
		}
		cc, err := MeasureCoreClock(o)
		if err != nil {
			t.Fatal(err)
		}
		last = cc
		if cc.Checked {
			if math.Abs(cc.ImulAddRatio/lat-1) > DefaultRulerThresholds.Agree || cc.CyclesPerTick <= 0 || cc.Err != nil {
				t.Fatalf("checked ruler with %+v", cc)
			}
			if !cc.Imm.Measured() {
				t.Fatalf("the immediate-ADD chain was not measured: %+v", cc.Imm)
			}
			return
		}
		lo, hi = math.Min(lo, cc.ImulAddRatio), math.Max(hi, cc.ImulAddRatio)
		time.Sleep(50 * time.Millisecond)
	}
	if hi/lo > 1.1 {
		t.Skipf("machine busy: 10 measurements gave IMUL/ADD from %.3f to %.3f, none checked (last: %v)", lo, hi, last.Err)
	}
	t.Fatalf("the rulers disagree consistently on this %s: IMUL/ADD %.3f to %.3f, documented %g: %v", runtime.GOARCH, lo, hi, lat, last.Err)
}
