package harness

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/cputime"
)

// cleanMeasured is what the engine gives for a quiet measurement of a
// 1000-tick function: R 8 in four variants (8 to 11 calls), every stream
// converged, a ruler of 1.5 cycles per tick, 100 elements a call.
func cleanMeasured() measured {
	cfg, _ := DefaultConfig().WithDefaults()
	cfg.Calibration = &calibrate.Calibration{}
	per := make([]float64, 200)
	for i := range per {
		per[i] = 1000 + float64(i%7)
	}
	return measured{
		target: Target{Name: "sum", Run: func() {}, Elements: 100},
		cfg:    cfg, cpu: 1, priority: "high",
		step: 2, hz: 2e9, frequencySource: "bracket: monotonic clock",
		quantum: 2, need: 8000, repeat: 8, repeats: []int{8, 9, 10, 11},
		wall: 3 * time.Millisecond, taken: 200, kept: 200, converged: true,
		best:              []float64{1006, 1006.5, 1007},
		spread:            0.001,
		vmin:              []float64{8048, 9050, 10056, 11067}, // 1000 net per call at R 8 and 9, more at 10 and 11
		overheads:         []float64{48, 50, 53, 56},
		overheadConverged: true, calls: 1900, allCalls: 3800,
		threadCPU: 2 * time.Millisecond, threadSource: "thread",
		perCall:       per,
		verdict:       calibrate.CoreClock{CyclesPerTick: 1.5, Checked: true, Converged: true},
		cyclesPerTick: 1.5, cyclesFrom: cyclesRuler, checked: true, refOK: true,
	}
}

func TestBuildResultFigures(t *testing.T) {
	m := cleanMeasured()
	r, err := buildResult(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Fatalf("warnings %v for a clean measurement", r.Warnings)
	}
	// The figure is the best of the variants, each less its own empty loop.
	want := map[string][2]float64{
		"Ticks": {r.Ticks, 1000}, "Nanoseconds": {r.Nanoseconds, 500}, "Cycles": {r.Cycles, 1500},
		"TicksPerElement": {r.TicksPerElement, 10}, "NsPerElement": {r.NsPerElement, 5}, "CyclesPerElement": {r.CyclesPerElement, 15},
		"OverheadTicks": {r.OverheadTicks, 48}, "WallNsPerCall": {r.WallNsPerCall, 3e6 / 3800.0}, "ThreadCPUNsPerCall": {r.ThreadCPUNsPerCall, 2e6 / 3800.0},
	}
	for name, v := range want {
		if math.Abs(v[0]-v[1]) > 1e-9*math.Abs(v[1]) {
			t.Errorf("%s = %v, want %v", name, v[0], v[1])
		}
	}
	if r.Name != "sum" || r.CyclesSource != "ruler" || !r.CyclesChecked || r.Repeat != 8 || len(r.Repeats) != 4 || r.Summary.N != 200 || r.Config.Calibration != nil {
		t.Errorf("result %+v", r)
	}
	// The result owns its slices.
	m.repeats[0], m.best[0] = 99, 0
	if r.Repeats[0] != 8 || r.Best[0] != 1006 {
		t.Error("the result shares its slices with the engine's")
	}
}

// warningsOf is the text of rs's warnings wrapping target, and all of them.
func warningsOf(ws []error, target error) (matching []string) {
	for _, w := range ws {
		if errors.Is(w, target) {
			matching = append(matching, w.Error())
		}
	}
	return matching
}

func TestBuildResultWarnings(t *testing.T) {
	tests := []struct {
		name string
		edit func(*measured)
		is   error    // the sentinel the one warning wraps (nil: a warning of its own)
		want []string // what its text names
	}{
		{"not converged", func(m *measured) { m.converged, m.spread = false, 0.034 }, ErrNotConverged, []string{"spread of the 3 best is 3.4%", "after 200 samples", "ε 1%"}},
		{"fewer than K usable", func(m *measured) { m.converged, m.spread = false, math.NaN() }, ErrNotConverged, []string{"fewer than K = 3 usable samples"}},
		{"overhead not converged", func(m *measured) { m.overheadConverged = false }, ErrNotConverged, []string{"the overhead subtracted (the empty region between the counter reads) did not converge"}},
		{"many discards", func(m *measured) {
			m.discarded, m.dist = 40, Disturbances{ContextSwitches: 30, Migrations: 10}
		}, ErrDiscards, []string{"40 of 200 samples (20%)", "30 context switches, 10 migrations"}},
		{"forced R too short", func(m *measured) { m.forced, m.vmin[0] = true, 7000 }, ErrTooShort, []string{"a sample of 8 calls spans 7000 ticks", "3500 counter quanta of 2 ticks"}},
		{"automatic R far too short", func(m *measured) { m.vmin[0] = 3000 }, ErrTooShort, []string{"spans 3000 ticks"}},
		{"overlap beyond the longest sample", func(m *measured) {
			m.overlap = overlapDecision{R: 400, Edge: 1000, PerCall: 6000, Capped: true}
		}, ErrOverlap, []string{"add 1000 ticks", "at 400 calls per sample", "0.042% high"}},
		{"PMU and ruler disagree", func(m *measured) { m.counters = []Counter{{Event: "cycles", PerCall: 1600}} }, ErrCounters, []string{"the PMU counts 1600 cycles per call and the ruler 1500"}},
		{"faults kept", func(m *measured) { m.faultsKept, m.dist.FaultingSamples = true, 150 }, nil, []string{"150 of 200 samples took page faults", "were kept"}},
		{"two modes", func(m *measured) {
			for i := range m.perCall {
				m.perCall[i] = 1000 + float64(i%3)
				if i%2 == 1 {
					m.perCall[i] = 1100 + float64(i%3)
				}
			}
		}, ErrModes, []string{"two clusters, from 1500 cycles and from 1650 cycles per call", "the figure is the lower one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := cleanMeasured()
			tt.edit(&m)
			r, err := buildResult(m)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Warnings) != 1 {
				t.Fatalf("warnings %q, want one", r.Warnings)
			}
			w := r.Warnings[0]
			if tt.is != nil && !errors.Is(w, tt.is) {
				t.Errorf("warning %q does not wrap %v", w, tt.is)
			}
			for _, s := range append(tt.want, "sum") {
				if !strings.Contains(w.Error(), s) {
					t.Errorf("warning %q does not say %q", w, s)
				}
			}
		})
	}
}

func TestBuildResultEdges(t *testing.T) {
	t.Run("automatic R a little short", func(t *testing.T) {
		// The probe aims at the need from its best samples: a v1 a little
		// short of it is no warning unless R was forced.
		m := cleanMeasured()
		m.vmin[0] = 7000
		r, _ := buildResult(m)
		if ws := warningsOf(r.Warnings, ErrTooShort); len(ws) != 0 {
			t.Errorf("warned %q", ws)
		}
	})
	t.Run("no usable sample", func(t *testing.T) {
		m := cleanMeasured()
		m.kept, m.taken, m.discarded, m.dist = 0, 12, 12, Disturbances{Migrations: 2, ContextSwitches: 10}
		r, err := buildResult(m)
		if err == nil || !strings.Contains(err.Error(), "sum: no usable sample in 12 taken (12 discarded: 2 migrations, 10 context switches, 0 page faults)") {
			t.Fatalf("err = %v", err)
		}
		if r.Ticks != 0 || r.Samples != 12 || r.Name != "sum" {
			t.Errorf("result %+v, want the counts and no figure", r)
		}
	})
	t.Run("no empty-loop sample", func(t *testing.T) {
		m := cleanMeasured()
		m.overheads[0] = math.NaN()
		if _, err := buildResult(m); err == nil {
			t.Fatal("a figure without an overhead to subtract")
		}
	})
	t.Run("NoCycles", func(t *testing.T) {
		m := cleanMeasured()
		m.cfg.NoCycles = true
		r, _ := buildResult(m)
		if r.Cycles != 0 || r.CyclesPerTick != 0 || r.CyclesSource != "" || r.CyclesPerElement != 0 || r.Ruler.CyclesPerTick != 0 {
			t.Errorf("cycles %v (%v per tick, %q) with NoCycles", r.Cycles, r.CyclesPerTick, r.CyclesSource)
		}
	})
	t.Run("ruler refused", func(t *testing.T) {
		m := cleanMeasured()
		m.cyclesPerTick, m.cyclesFrom, m.checked = 0, "", false
		r, _ := buildResult(m)
		if r.Cycles != 0 || r.CyclesSource != "" || r.CyclesChecked || r.Ticks != 1000 {
			t.Errorf("cycles %v (%q), ticks %v: want ticks and no cycle figure", r.Cycles, r.CyclesSource, r.Ticks)
		}
	})
	t.Run("PMU agrees", func(t *testing.T) {
		m := cleanMeasured()
		m.counters = []Counter{{Event: "cycles", PerCall: 1505}}
		r, _ := buildResult(m)
		if r.Cycles != 1505 || r.CyclesSource != "pmu" || !r.CyclesChecked || len(r.Warnings) != 0 {
			t.Errorf("cycles %v from %q, warnings %v: want the PMU's, quietly", r.Cycles, r.CyclesSource, r.Warnings)
		}
	})
	t.Run("unnamed", func(t *testing.T) {
		m := cleanMeasured()
		m.target.Name, m.converged = "", false
		r, _ := buildResult(m)
		if ws := warningsOf(r.Warnings, ErrNotConverged); len(ws) != 1 || !strings.Contains(ws[0], "the function") {
			t.Errorf("warnings %q, want one naming the function", ws)
		}
	})
}

// TestCycleFigures: the figure and the warnings' prose of each answer of
// calibrate.DecideCycles (which decides the answer: its table test is in
// calibrate/cycles_test.go).
func TestCycleFigures(t *testing.T) {
	refused := errors.New("calibrate: the IMUL chain says 2.1 cycles per link, not 3")
	good := calibrate.CoreClock{CyclesPerTick: 1.4, Checked: true}
	accept := func(v calibrate.CoreClock) calibrate.CycleVerdict {
		return calibrate.CycleVerdict{Action: calibrate.CyclesAccept, CyclesPerTick: v.CyclesPerTick, Checked: v.Checked, Reason: v.Err, Ruler: v}
	}
	tests := []struct {
		name     string
		v        calibrate.CycleVerdict
		cal      calibrate.CoreClock
		cpt      float64
		from     string
		checked  bool
		refOK    bool
		warnings []string // what each warning says, in order
	}{
		{"checked and converged", accept(calibrate.CoreClock{CyclesPerTick: 1.5, Checked: true, Converged: true}), good, 1.5, cyclesRuler, true, true, nil},
		{"not converged", accept(calibrate.CoreClock{CyclesPerTick: 1.5, Checked: true}), good, 1.5, cyclesRuler, true, false,
			[]string{"the reference chain did not converge"}},
		{"unchecked here, checked by the calibration", accept(calibrate.CoreClock{CyclesPerTick: 1.5, Converged: true, Err: calibrate.ErrUnchecked}), good, 1.5, cyclesRuler, false, true,
			[]string{"core-clock ruler unchecked"}},
		{"unchecked everywhere", accept(calibrate.CoreClock{CyclesPerTick: 1.5, Converged: true, Err: calibrate.ErrUnchecked}), calibrate.CoreClock{CyclesPerTick: 1.4}, 1.5, cyclesRuler, false, true, nil},
		{"no slope: the calibration's", calibrate.CycleVerdict{Action: calibrate.CyclesFallBack, CyclesPerTick: 1.4, Checked: true, Reason: calibrate.ErrUnstable, Ruler: calibrate.CoreClock{Err: calibrate.ErrUnstable}}, good, 1.4, cyclesCalibration, true, false,
			[]string{"gave no usable slope; the calibration's 1.4000 cycles/tick is used"}},
		{"refused, the calibration agreed", calibrate.CycleVerdict{Action: calibrate.CyclesRefuse, Reason: refused, Ruler: calibrate.CoreClock{Err: refused}}, good, 0, "", false, false,
			[]string{"2.1 cycles per link|measure again"}},
		{"refused twice", calibrate.CycleVerdict{Action: calibrate.CyclesRefuse, Reason: refused, Ruler: calibrate.CoreClock{Err: refused}}, calibrate.CoreClock{Err: errors.New("calibrate: the chains disagree")}, 0, "", false, false,
			[]string{"2.1 cycles per link|refused too: the chains disagree"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := cycleFigures(tt.v, tt.cal)
			if f.cyclesPerTick != tt.cpt || f.from != tt.from || f.checked != tt.checked || f.refOK != tt.refOK {
				t.Errorf("%+v, want %v cycles/tick from %q, checked %v, converged %v", f, tt.cpt, tt.from, tt.checked, tt.refOK)
			}
			if len(f.warnings) != len(tt.warnings) {
				t.Fatalf("warnings %q, want %d", f.warnings, len(tt.warnings))
			}
			for i, w := range f.warnings {
				if !errors.Is(w, ErrNoCycles) {
					t.Errorf("warning %q does not wrap ErrNoCycles", w)
				}
				for _, s := range strings.Split(tt.warnings[i], "|") {
					if !strings.Contains(w.Error(), s) {
						t.Errorf("warning %q does not say %q", w, s)
					}
				}
			}
		})
	}
}

func TestThreadCPUShare(t *testing.T) {
	at := func(d time.Duration) cputime.Times { return cputime.Times{Total: d, Source: "thread"} }
	tests := []struct {
		name          string
		before, after cputime.Times
		err           error
		wall          time.Duration
		cpu           time.Duration
		is            error  // the warning's sentinel, or nil
		want          string // what the warning says; "" for none
	}{
		{"computes", at(time.Second), at(time.Second + 9*time.Millisecond), nil, 10 * time.Millisecond, 9 * time.Millisecond, nil, ""},
		{"blocks", at(0), at(2 * time.Millisecond), nil, 10 * time.Millisecond, 2 * time.Millisecond, ErrBlocks, "ran 2ms of cpu time in 10ms of wall time (20%, under 50%)"},
		{"unreadable", cputime.Times{}, cputime.Times{}, errors.ErrUnsupported, time.Second, 0, errors.ErrUnsupported, "no thread cpu time"},
		{"source changed", at(0), cputime.Times{Total: time.Millisecond, Source: "process"}, nil, time.Second, 0, nil, "the source changed from thread to process"},
		{"backwards", at(time.Second), at(0), nil, time.Second, 0, nil, "went backwards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cpu, src, ws := threadCPUShare(tt.before, tt.after, tt.err, tt.wall)
			if cpu != tt.cpu || (cpu > 0) != (src == "thread") {
				t.Errorf("cpu %v from %q, want %v", cpu, src, tt.cpu)
			}
			if tt.want == "" {
				if len(ws) != 0 {
					t.Errorf("warnings %q, want none", ws)
				}
				return
			}
			if len(ws) != 1 || !strings.Contains(ws[0].Error(), tt.want) || (tt.is != nil && !errors.Is(ws[0], tt.is)) {
				t.Errorf("warnings %q, want one saying %q (wrapping %v)", ws, tt.want, tt.is)
			}
		})
	}
}
