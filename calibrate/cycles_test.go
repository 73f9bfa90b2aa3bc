package calibrate

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestDecideCycles: the one decision on a measurement's cycle figure, from
// a table, without hardware. A sound Zen 4 ruler: 1/1.4229 ticks per ADD
// link, three times that per IMUL link.
func TestDecideCycles(t *testing.T) {
	const cpt = 1.4229
	sound := RulerFigures{AddTicksPerOp: 1 / cpt, ImulTicksPerOp: 3 / cpt, ImulLatency: 3, CounterHz: 2596.142e6, Exact: true}
	// lagging: the ADD chain 1% slower than the IMUL chain implies.
	lagging := sound
	lagging.AddTicksPerOp *= 1.01
	imulSlow := sound
	imulSlow.ImulTicksPerOp *= 1.01
	noSlope := sound
	noSlope.AddTicksPerOp = math.NaN()
	folded := sound
	folded.AddTicksPerOp = 0.2 / cpt
	unchecked := sound
	unchecked.ImulLatency = 0
	goChains := lagging
	goChains.Exact = false
	cal := CoreClock{CyclesPerTick: 1.42, Checked: true}
	refusedCal := CoreClock{Err: ErrRulersDisagree}
	th := DefaultRulerThresholds
	tests := []struct {
		name    string
		in      CycleInputs
		action  CycleAction
		cpt     float64
		checked bool
		reason  error // nil: none
		lagging bool
		givenUp bool
	}{
		{"sound, converged: accept", CycleInputs{Ruler: sound, Converged: true, Calibration: cal, MayWait: true}, CyclesAccept, cpt, true, nil, false, false},
		{"sound, not converged: accept", CycleInputs{Ruler: sound, Calibration: cal, MayWait: true}, CyclesAccept, cpt, true, nil, false, false},
		{"ADD lags: wait", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true}, CyclesWait, cpt / 1.01, true, nil, true, false},
		{"ADD lags, half the budget waited: wait", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, Waited: th.Wait / 2}, CyclesWait, cpt / 1.01, true, nil, true, false},
		{"ADD lags, budget spent: accept, lagging", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, Waited: th.Wait}, CyclesAccept, cpt / 1.01, true, nil, true, false},
		{"ADD lags, the loop ended: accept, lagging", CycleInputs{Ruler: lagging, Calibration: cal}, CyclesAccept, cpt / 1.01, true, nil, true, false},
		{"ADD lags, two waits in vain before: given up", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, WaitsInVain: th.GiveUp}, CyclesAccept, cpt / 1.01, true, nil, true, true},
		{"ADD lags, one wait in vain before: wait", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, WaitsInVain: th.GiveUp - 1}, CyclesWait, cpt / 1.01, true, nil, true, false},
		{"lag within the resolution: accept", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, Resolution: 0.01}, CyclesAccept, cpt / 1.01, true, nil, false, false},
		{"a NaN resolution counts as 0", CycleInputs{Ruler: lagging, Calibration: cal, MayWait: true, Resolution: math.NaN()}, CyclesWait, cpt / 1.01, true, nil, true, false},
		{"IMUL the slow one: never waited for", CycleInputs{Ruler: imulSlow, Calibration: cal, MayWait: true}, CyclesAccept, cpt, true, nil, false, false},
		{"no documented latency: unchecked, no lag judged", CycleInputs{Ruler: unchecked, Calibration: cal, MayWait: true}, CyclesAccept, cpt, false, ErrUnchecked, false, false},
		{"pure-Go chains: no lag judged", CycleInputs{Ruler: goChains, Calibration: cal, MayWait: true}, CyclesAccept, cpt / 1.01, false, ErrUnchecked, false, false},
		{"no ADD slope: the calibration's", CycleInputs{Ruler: noSlope, Calibration: cal, MayWait: true}, CyclesFallBack, 1.42, true, ErrUnstable, false, false},
		{"no ADD slope, the calibration refused: refuse", CycleInputs{Ruler: noSlope, Calibration: refusedCal, MayWait: true}, CyclesRefuse, 0, false, ErrUnstable, false, false},
		{"a folded ADD chain: refuse, never the calibration's", CycleInputs{Ruler: folded, Calibration: cal, MayWait: true}, CyclesRefuse, 0, false, ErrRulersDisagree, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := DecideCycles(tt.in, th)
			if v.Action != tt.action || math.Abs(v.CyclesPerTick-tt.cpt) > 1e-9*tt.cpt || v.Checked != tt.checked {
				t.Fatalf("DecideCycles = %v, %v cycles/tick, checked %v; want %v, %v, %v", v.Action, v.CyclesPerTick, v.Checked, tt.action, tt.cpt, tt.checked)
			}
			if (tt.reason == nil) != (v.Reason == nil) || tt.reason != nil && !errors.Is(v.Reason, tt.reason) {
				t.Errorf("Reason %v, want %v", v.Reason, tt.reason)
			}
			if v.Lagging != tt.lagging || v.GivenUp != tt.givenUp {
				t.Errorf("lagging %v (lag %v, tolerance %v), given up %v; want %v, %v", v.Lagging, v.Lag, v.LagTolerance, v.GivenUp, tt.lagging, tt.givenUp)
			}
			if v.Ruler.Converged != tt.in.Converged {
				t.Errorf("Ruler.Converged %v, want the input's %v", v.Ruler.Converged, tt.in.Converged)
			}
		})
	}
}

// TestDecideCyclesLag: the lag is 1 − (IMUL/ADD)/latency and its tolerance
// RulerThresholds.Lag plus the resolution; nothing to judge gives NaN.
func TestDecideCyclesLag(t *testing.T) {
	th := DefaultRulerThresholds
	tests := []struct {
		name     string
		add, mul float64
		lat, res float64
		lag, tol float64 // NaN: not judged
	}{
		{"agree", 0.7, 2.1, 3, 0.001, 0, th.Lag + 0.001},
		{"ADD 1% slow", 0.707, 2.1, 3, 0.001, 1 - 2.1/0.707/3, th.Lag + 0.001},
		{"IMUL slow: negative", 0.7, 2.121, 3, 0, 1 - 2.121/0.7/3, th.Lag},
		{"bad resolution counts as none", 0.7, 2.1, 3, math.Inf(1), 0, th.Lag},
		{"no latency", 0.7, 2.1, 0, 0, math.NaN(), math.NaN()},
		{"no IMUL slope", 0.7, math.NaN(), 3, 0, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		v := DecideCycles(CycleInputs{Ruler: RulerFigures{AddTicksPerOp: tt.add, ImulTicksPerOp: tt.mul, ImulLatency: tt.lat, Exact: true}, Resolution: tt.res}, th)
		same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
		if !same(v.Lag, tt.lag) || !same(v.LagTolerance, tt.tol) || v.Judged() == math.IsNaN(tt.lag) {
			t.Errorf("%s: lag %v, tolerance %v; want %v, %v", tt.name, v.Lag, v.LagTolerance, tt.lag, tt.tol)
		}
	}
}

func TestSlope(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		short, long, links float64
		want               float64 // NaN: none
	}{
		{100, 800, 1000, 0.7},
		{100, 90, 1000, -0.01},
		{nan, 800, 1000, nan},
		{100, inf, 1000, nan},
		{100, 800, 0, nan},
	}
	for _, tt := range tests {
		got := Slope(tt.short, tt.long, tt.links)
		if math.IsNaN(tt.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Slope(%v, %v, %v) = %v, want %v", tt.short, tt.long, tt.links, got, tt.want)
		}
	}
}

func TestRulerThresholdsCheckWait(t *testing.T) {
	for _, edit := range []func(*RulerThresholds){
		func(th *RulerThresholds) { th.Lag = -0.1 },
		func(th *RulerThresholds) { th.Lag = math.NaN() },
		func(th *RulerThresholds) { th.Wait = -time.Second },
		func(th *RulerThresholds) { th.GiveUp = -1 },
	} {
		th := DefaultRulerThresholds
		edit(&th)
		if err := th.check(); !errors.Is(err, ErrBadCount) {
			t.Errorf("%+v: check() = %v, want ErrBadCount", th, err)
		}
	}
	if err := DefaultRulerThresholds.check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

// TestDecideCyclesProbe: the probe's best, in cycles per iteration, against
// the best on the machine: more than th.Shared slower is a shared core,
// which waits as a lagging ruler does and is labelled, while the cycles
// per tick stand.
func TestDecideCyclesProbe(t *testing.T) {
	const cpt = 1.2359
	sound := RulerFigures{AddTicksPerOp: 1 / cpt, ImulTicksPerOp: 3 / cpt, ImulLatency: 3, CounterHz: 2.5e9, Exact: true}
	at := func(cyclesPerIter float64) RulerFigures {
		f := sound
		f.ProbeTicks = cyclesPerIter / cpt
		return f
	}
	lagging := at(2.04)
	lagging.AddTicksPerOp *= 1.01
	cal := CoreClock{CyclesPerTick: cpt, Checked: true}
	th := DefaultRulerThresholds
	tests := []struct {
		name            string
		in              CycleInputs
		action          CycleAction
		shared, judged  bool
		probe, excess   float64
		givenUp, anyway bool // anyway: SharedCore()
	}{
		{"alone: accept", CycleInputs{Ruler: at(1.02), ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesAccept, false, true, 1.02, 0, false, false},
		{"within the tolerance: accept", CycleInputs{Ruler: at(1.05), ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesAccept, false, true, 1.05, 1.05/1.02 - 1, false, false},
		{"faster than the best: accept", CycleInputs{Ruler: at(1.00), ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesAccept, false, true, 1.00, 1/1.02 - 1, false, false},
		{"twice as slow: wait", CycleInputs{Ruler: at(2.04), ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesWait, true, true, 2.04, 1, false, true},
		{"twice as slow, the loop ended: accept, shared", CycleInputs{Ruler: at(2.04), ProbeAlone: 1.02, Calibration: cal}, CyclesAccept, true, true, 2.04, 1, false, true},
		{"twice as slow, budget spent: accept, shared", CycleInputs{Ruler: at(2.04), ProbeAlone: 1.02, Calibration: cal, MayWait: true, Waited: th.Wait}, CyclesAccept, true, true, 2.04, 1, false, true},
		{"twice as slow, two waits in vain: given up", CycleInputs{Ruler: at(2.04), ProbeAlone: 1.02, Calibration: cal, MayWait: true, WaitsInVain: th.GiveUp}, CyclesAccept, true, true, 2.04, 1, true, true},
		{"no best on the machine: not judged", CycleInputs{Ruler: at(2.04), Calibration: cal, MayWait: true}, CyclesAccept, false, false, math.NaN(), math.NaN(), false, false},
		{"no probe sample: not judged", CycleInputs{Ruler: sound, ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesAccept, false, false, math.NaN(), math.NaN(), false, false},
		{"probe and lag both: wait, both said", CycleInputs{Ruler: lagging, ProbeAlone: 1.02, Calibration: cal, MayWait: true}, CyclesWait, true, true, 2.04 * 1.01 / 1.01, 2.04/1.01/1.02 - 1, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := DecideCycles(tt.in, th)
			if v.Action != tt.action || v.Shared != tt.shared || v.ProbeJudged() != tt.judged || v.GivenUp != tt.givenUp || v.SharedCore() != tt.anyway {
				t.Fatalf("DecideCycles = %v, shared %v, judged %v, given up %v, shared core %v; want %v, %v, %v, %v, %v",
					v.Action, v.Shared, v.ProbeJudged(), v.GivenUp, v.SharedCore(), tt.action, tt.shared, tt.judged, tt.givenUp, tt.anyway)
			}
			if tt.judged && (math.Abs(v.ProbeExcess-tt.excess) > 1e-9 || v.CyclesPerTick <= 0) {
				t.Errorf("probe %v, excess %v; want excess %v and a cycle figure", v.Probe, v.ProbeExcess, tt.excess)
			}
		})
	}
	noJudge := th
	noJudge.Shared = 0
	if v := DecideCycles(CycleInputs{Ruler: at(2.04), ProbeAlone: 1.02, Calibration: cal, MayWait: true}, noJudge); v.Shared || v.ProbeJudged() {
		t.Errorf("Shared 0 judged the probe: %+v", v)
	}
}
