package harness

// Recorded stretches and the shared-core rule replayed over them.
//
// The core-state probe (calibrate: a loop of one taken branch per
// iteration, sampled beside every measurement) labels a figure measured
// while another hardware thread had part of the core. Which excess over
// the probe's best labels best differs between machines, so every machine
// kind the project meets leaves a recording in testdata/stretches, and
// TestReplayStretches judges every candidate threshold over all of them.
// Record on a new machine, quiet and while the other CPU is busy, with
//
//	go -C bench/peers build -o /tmp/stretches ./stretches
//	CYCLEBENCH_PROBE_CACHE=off /tmp/stretches -d 3m | gzip -9 > harness/testdata/stretches/<vendor>-<core>-<quiet|busy>.txt.gz
//
// (busy: with `taskset -c 0 sh -c 'while :; do :; done'` or a build on the
// other CPU), then run the replay and read its table.

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/calibrate"
)

// stretchRound is one round of a recording: each kernel's cycles per
// element and the probe's cycles per iteration in the same measurement.
type stretchRound struct {
	fig, probe []float64
}

func readStretches(t *testing.T, path string) (kernels []string, rounds []stretchRound) {
	t.Helper()
	sc := gzipLines(t, path)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0 || fs[0] == "#":
		case fs[0] == "t":
			for i := 2; i+1 < len(fs); i += 2 {
				kernels = append(kernels, fs[i])
			}
		default:
			if len(fs) != 2+2*len(kernels) {
				t.Fatalf("%s:%d: %d fields, want %d", path, line, len(fs), 2+2*len(kernels))
			}
			var r stretchRound
			for i := range kernels {
				f, err1 := strconv.ParseFloat(fs[2+2*i], 64)
				p, err2 := strconv.ParseFloat(fs[3+2*i], 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s:%d: %v %v", path, line, err1, err2)
				}
				r.fig, r.probe = append(r.fig, f), append(r.probe, p)
			}
			rounds = append(rounds, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return kernels, rounds
}

// stretchScore is what a threshold does over a recording: slow figures (more
// than 1% above the kernel's quiet figure) left unlabelled, and quiet ones
// labelled, of all figures judged.
type stretchScore struct {
	slow, missed, quiet, falseLabels int
}

func (s *stretchScore) add(o stretchScore) {
	s.slow += o.slow
	s.missed += o.missed
	s.quiet += o.quiet
	s.falseLabels += o.falseLabels
}

// wrong is the figures the threshold reports wrongly; judged all of them.
func (s stretchScore) wrong() int  { return s.missed + s.falseLabels }
func (s stretchScore) judged() int { return s.slow + s.quiet }

func (s stretchScore) falseShare() float64 {
	return float64(s.falseLabels) / math.Max(1, float64(s.quiet))
}

// scoreStretches judges threshold th over one recording: the probe's best is
// the lowest it read there (what calibrate.ProbeAlone keeps), a kernel's
// quiet figure the median of its figures in rounds where no probe read
// more than 2% above that best.
func scoreStretches(kernels []string, rounds []stretchRound, th float64) map[string]stretchScore {
	best := math.Inf(1)
	for _, r := range rounds {
		for _, p := range r.probe {
			if p > 0 {
				best = math.Min(best, p)
			}
		}
	}
	out := map[string]stretchScore{}
	for k, name := range kernels {
		var calm []float64
		for _, r := range rounds {
			if slices.IndexFunc(r.probe, func(p float64) bool { return p > 1.02*best }) < 0 && r.fig[k] > 0 {
				calm = append(calm, r.fig[k])
			}
		}
		if len(calm) == 0 {
			continue
		}
		slices.Sort(calm)
		quietFig := calm[len(calm)/2]
		var s stretchScore
		for _, r := range rounds {
			f, p := r.fig[k], r.probe[k]
			if !(f > 0) || !(p > 0) {
				continue
			}
			labelled := p > best*(1+th)
			if f > 1.01*quietFig {
				s.slow++
				if !labelled {
					s.missed++
				}
			} else {
				s.quiet++
				if labelled {
					s.falseLabels++
				}
			}
		}
		out[name] = s
	}
	return out
}

// TestReplayStretches replays every recorded stretch file under candidate
// thresholds of the probe's excess and fails when another candidate than
// calibrate.DefaultRulerThresholds.Shared gets fewer figures wrong (slow
// ones unlabelled, quiet ones labelled) by more than 1% of the figures
// judged, while labelling at most 1 figure in 20 of the recordings made
// at a quiet moment (a label in a busy recording is no error: the core was
// shared, whether or not the kernel felt it). The data are fixed, so the
// counts are too: this is not a timing test. Slow figures no threshold
// labels come from other causes than a shared core (a kernel's two modes,
// its data's alignment): the per-kernel table shows which.
func TestReplayStretches(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "stretches", "*.txt.gz"))
	if len(files) == 0 {
		t.Fatal("no recorded stretches in testdata/stretches")
	}
	def := calibrate.DefaultRulerThresholds.Shared
	candidates := []float64{0.01, 0.02, 0.03, 0.05, def, 0.1, 0.2, 0.3, 0.5}
	slices.Sort(candidates)
	candidates = slices.Compact(candidates)
	total := make([]stretchScore, len(candidates))
	quietFiles := 0
	var table strings.Builder
	fmt.Fprintf(&table, "%-32s %-12s", "recording", "kernel")
	for _, c := range candidates {
		fmt.Fprintf(&table, " %14s", fmt.Sprintf("≥%g%%", 100*c))
	}
	fmt.Fprintf(&table, "   (slow figures unlabelled / of slow; in a quiet recording, figures labelled)\n")
	for _, path := range files {
		kernels, rounds := readStretches(t, path)
		if len(rounds) < 10 {
			t.Errorf("%s: %d rounds, want at least 10", path, len(rounds))
			continue
		}
		quiet := strings.Contains(filepath.Base(path), "-quiet")
		if quiet {
			quietFiles++
		}
		scores := make([]map[string]stretchScore, len(candidates))
		for i, c := range candidates {
			scores[i] = scoreStretches(kernels, rounds, c)
			if !quiet {
				for k, s := range scores[i] {
					s.quiet, s.falseLabels = 0, 0
					scores[i][k] = s
				}
			}
		}
		for _, k := range kernels {
			fmt.Fprintf(&table, "%-32s %-12s", filepath.Base(path), k)
			for i := range candidates {
				s := scores[i][k]
				total[i].add(s)
				fmt.Fprintf(&table, " %14s", fmt.Sprintf("%d/%d; %d", s.missed, s.slow, s.falseLabels))
			}
			fmt.Fprintln(&table)
		}
	}
	fmt.Fprintf(&table, "%-45s", "all")
	// A threshold is judged by its wrong figures, each counted once: slow
	// figures it leaves unlabelled and quiet ones it labels; and it may
	// label at most 1 quiet figure in 20.
	best := -1
	for i, s := range total {
		fmt.Fprintf(&table, " %14s", fmt.Sprintf("%d/%d; %.1f%%", s.missed, s.slow, 100*s.falseShare()))
		if s.falseShare() <= 0.05 && (best < 0 || s.wrong() < total[best].wrong()) {
			best = i
		}
	}
	t.Logf("\n%s", table.String())
	d := slices.Index(candidates, def)
	if quietFiles == 0 {
		// Without a quiet recording a label cannot be told wrong, and the
		// lowest threshold always wins: nothing to choose from.
		t.Skip("no recording made at a quiet moment (name it *-quiet.txt.gz): the threshold is not judged")
	}
	switch {
	case total[d].falseShare() > 0.05:
		t.Errorf("the default %g labels %.1f%% of the quiet figures, want at most 5%%", def, 100*total[d].falseShare())
	case best >= 0 && float64(total[d].wrong()-total[best].wrong()) > 0.01*float64(total[d].judged()):
		// More than 1% of the figures judged: a smaller margin is a few
		// figures of one machine's few minutes, not a preference.
		t.Errorf("a threshold of %g gets %d figures wrong, the default %g %d of %d: choose it", candidates[best], total[best].wrong(), def, total[d].wrong(), total[d].judged())
	}
}
