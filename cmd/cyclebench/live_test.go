package main

// Tests on the real machine: the figures cannot be golden, so these check
// that the output has the golden files' shape (keys, JSON types, masked
// lines) and that the figures obey invariants.

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/internal/reports"
)

// liveRun runs args on the real machine, requiring success and nothing on
// stderr but warnings.
func liveRun(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("measures on the real machine; skipped with -short")
	}
	out, errOut, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("run(%q) = %v (stderr %q)", args, err, errOut)
	}
	checkDiagnostics(t, errOut)
	return out
}

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// variableRows are keys whose number of lines depends on the machine.
var variableRows = []string{"cross_check", "priority_note", "warning"}

// shape returns the keys of a table in order, without the rows that repeat
// a variable number of times, and the masked value of each key that has a
// machine-independent format.
func shape(table string, masked []string) (keys []string, values map[string]string) {
	values = map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		key, value, _ := strings.Cut(line, " ")
		if key == "" || slices.Contains(variableRows, key) {
			continue
		}
		keys = append(keys, key)
		if slices.Contains(masked, key) {
			values[key] = mask(strings.TrimSpace(value))
		}
	}
	return keys, values
}

// sameShape checks that got has the keys of the golden file want, in the
// same order, and the same masked values for the keys in masked.
func sameShape(t *testing.T, got, want string, masked ...string) {
	t.Helper()
	gk, gv := shape(got, masked)
	wk, wv := shape(want, masked)
	// A key repeated on consecutive lines (info's "event" rows, one per
	// event this platform knows) is one key of the shape.
	gk, wk = slices.Compact(gk), slices.Compact(wk)
	if !slices.Equal(gk, wk) {
		t.Errorf("keys %q, want %q\n%s", gk, wk, got)
	}
	for _, k := range masked {
		if gv[k] != wv[k] {
			t.Errorf("%s masked to %q, want %q", k, gv[k], wv[k])
		}
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// measuredOptional are the JSON keys (omitempty) that a live run writes or
// not depending on what it measured, so a golden file from one run cannot
// hold them all: "growth" (the growth laws, given when a CPE sweep is not
// linear: often under qemu), "ruler_wait_seconds" (given when a
// measurement waited for a shared core), "shared" and "probe_excess" (when
// the core was shared to the end), "stopped_by" (when a measurement did
// not converge), "floor_share" (when the floor was judged), "quantile"
// (when the code had no floor: a branchy sort) and "room" (when the core
// had more room than usual to the end of the wait). A golden file that has
// one still checks its shape.
var measuredOptional = map[string]bool{"growth": true, "ruler_wait_seconds": true, "shared": true, "probe_excess": true, "stopped_by": true, "floor_share": true, "quantile": true, "room": true}

// sameJSONShape checks that got and the golden want have the same keys with
// the same JSON types, at the top level and in the first element of each
// array of objects. A null where the golden file has a number is a figure
// this machine cannot give (cycles where the core-clock ruler was refused)
// and is accepted, and so is a key of measuredOptional the golden file lacks.
func sameJSONShape(t *testing.T, path string, got, want any) {
	t.Helper()
	if gt, wt := jsonType(got), jsonType(want); gt != wt && (gt != "null" || wt != "number") {
		t.Errorf("%s is %s, want %s", path, gt, wt)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s missing", path, k)
				continue
			}
			sameJSONShape(t, path+"."+k, gv, wv)
		}
		for k := range g {
			if _, ok := w[k]; !ok && !measuredOptional[k] {
				t.Errorf("%s.%s is not in the golden file", path, k)
			}
		}
	case []any:
		g := got.([]any)
		if len(w) > 0 && len(g) > 0 && jsonType(w[0]) == "object" {
			sameJSONShape(t, path+"[0]", g[0], w[0])
		}
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, s)
	}
	return m
}

// checkCrossChecks checks that each cross-check's diff_ppm is its Hz's
// difference from hz.
func checkCrossChecks(t *testing.T, hz float64, cc []reports.CrossCheck) {
	t.Helper()
	for _, c := range cc {
		if c.Hz <= 0 || c.Source == "" || math.Abs(c.DiffPPM-ppmDiff(c.Hz, hz)) > 1e-6 {
			t.Errorf("cross-check %+v inconsistent with %v Hz", c, hz)
		}
	}
}

func TestInfoLive(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		out := liveRun(t, "info", "-duration", "10ms")
		sameShape(t, out, readGolden(t, "info.golden"),
			"tsc_hz", "tsc_hz_ppm", "overhead_ticks", "took", "family/model/stepping")
	})
	t.Run("json", func(t *testing.T) {
		out := liveRun(t, "info", "-json", "-duration", "10ms")
		sameJSONShape(t, "info", decode(t, out), decode(t, readGolden(t, "info.json.golden")))
		var r reports.InfoReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.TSCHz <= 0 || r.TSCHzPPM < 0 || r.TSCHzMethod == "" || r.TSCHzSource == "" {
			t.Errorf("frequency %v ±%v ppm by %q from %q: want a positive figure, a method and a source", r.TSCHz, r.TSCHzPPM, r.TSCHzMethod, r.TSCHzSource)
		}
		checkCrossChecks(t, r.TSCHz, r.CrossChecks)
		if r.TSCStep <= 0 {
			t.Errorf("tsc_step %v, want > 0", r.TSCStep)
		}
		if r.OverheadTicks > r.OverheadTicksMedian || r.OverheadAsmTicks > r.OverheadAsmTicksMedian {
			t.Errorf("overhead min > median: %v/%v, asm %v/%v", r.OverheadTicks, r.OverheadTicksMedian, r.OverheadAsmTicks, r.OverheadAsmTicksMedian)
		}
		// A core-clock figure is plausible and says whether it was
		// checked; no figure says why.
		if cpt := r.CoreCyclesPerTick; cpt != nil {
			if math.Abs(r.CoreHz-r.TSCHz**cpt) > 1 || r.CoreHz < 0.2e9 || r.CoreHz > 7e9 {
				t.Errorf("core_hz %v: want tsc_hz × core_cycles_per_tick = %v within 0.2-7 GHz", r.CoreHz, r.TSCHz**cpt)
			}
			if r.CoreChecked == (r.CoreUnchecked != "") || r.CoreRefused != "" {
				t.Errorf("a figure, checked %v, unchecked because %q, refused because %q: want checked or a reason", r.CoreChecked, r.CoreUnchecked, r.CoreRefused)
			}
		} else if r.CoreRefused == "" || r.CoreChecked {
			t.Errorf("no core-clock figure and no reason")
		}
		if len(r.AllowedCPUs) == 0 {
			t.Errorf("allowed_cpus empty")
		}
		if r.PinnedCPU != -1 && !slices.Contains(r.AllowedCPUs, r.PinnedCPU) {
			t.Errorf("pinned_cpu %d not in allowed_cpus %v", r.PinnedCPU, r.AllowedCPUs)
		}
		if want := slices.Max(r.AllowedCPUs); pinningSupported() && r.PinnedCPU != want {
			t.Errorf("-cpu -1 pinned to %d, want the highest allowed CPU %d", r.PinnedCPU, want)
		}
		if r.GOOS != runtime.GOOS || r.GOARCH != runtime.GOARCH || r.GoVersion != runtime.Version() {
			t.Errorf("go %s %s/%s, want %s %s/%s", r.GoVersion, r.GOOS, r.GOARCH, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		}
	})
}

func TestCalibrateLive(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		out := liveRun(t, "calibrate", "-method", "both", "-duration", "10ms")
		sameShape(t, out, readGolden(t, "calibrate_both.golden"), "tsc_hz", "tsc_hz_ppm", "interval", "ticks", "bracket_ticks", "sleep_vs_bracket")
	})
	t.Run("json", func(t *testing.T) {
		out := liveRun(t, "calibrate", "-method", "both", "-json", "-duration", "10ms")
		sameJSONShape(t, "calibrate", decode(t, out), decode(t, readGolden(t, "calibrate_both.json.golden")))
		var r reports.CalibrateReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Methods) != 2 || r.Methods[0].Method != "bracket" || r.Methods[1].Method != "sleep" {
			t.Fatalf("methods %+v, want bracket then sleep", r.Methods)
		}
		for _, m := range r.Methods {
			if m.Hz <= 0 || m.PPM < 0 || m.Ticks == 0 || m.Seconds < 0.01 {
				t.Errorf("%s: %v Hz ±%v ppm, %d ticks in %vs: want positive figures over at least the 10ms asked", m.Method, m.Hz, m.PPM, m.Ticks, m.Seconds)
			}
			checkCrossChecks(t, m.Hz, m.CrossChecks)
		}
		b, s := r.Methods[0], r.Methods[1]
		if r.SleepVsBracketPPM == nil || math.Abs(*r.SleepVsBracketPPM-ppmDiff(s.Hz, b.Hz)) > 1e-6 {
			t.Errorf("sleep_vs_bracket_ppm %v, want %v", r.SleepVsBracketPPM, ppmDiff(s.Hz, b.Hz))
		}
	})
}

// TestRestoresThread checks that a subcommand leaves the calling thread's
// affinity and priority as it found them.
func TestRestoresThread(t *testing.T) {
	if testing.Short() {
		t.Skip("measures on the real machine; skipped with -short")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := affinity.ThreadState()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("cannot read thread state here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"info", "-cpu", "0", "-duration", "10ms"},
		{"calibrate", "-duration", "10ms"},
		{"info", "-cpu", "9999"}, // fails after nothing was changed
	} {
		run(args, new(strings.Builder), new(strings.Builder))
		after, err := affinity.ThreadState()
		if err != nil {
			t.Fatal(err)
		}
		if !after.Equal(before) {
			t.Errorf("after %q the thread state is %+v, want %+v", args, after, before)
		}
	}
}
