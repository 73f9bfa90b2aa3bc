package harness

// Recorded rounds of calls that overlap the next and of calls that do not,
// beside the core-state probe, and what they say about the room the
// out-of-order core has.
//
// On the Intel Cascade Lake guest, one measurement in ten or so of a
// restarted chain reads 0.3 to 0.4% low while continued chains, the ruler
// and the taken-branch probe do not move: the core had more room for a
// call to overlap the next for a while (the reorder buffer no longer split
// with a busy sibling, most likely). The taken-branch probe cannot see it;
// a short restarted chain can, and the engine samples one (room.go:
// chain.Room, 8 restarted chains of 200 links, beside every target
// sample). Later recordings (intel-clx-calls: 0 and 1 low rounds of
// 1,041 where intel-clx had 263 of 3,021) were made with that probe
// setting its moments aside, so their restarted chains read low too
// rarely to judge; they also hold short continued calls, the candidate
// probe of the opposite state (TestReplayCalls). Every machine kind
// leaves a recording, and the replays check the findings on all of them.
// Record with nothing else running:
//
//	go -C bench/peers build -o /tmp/stretches ./stretches
//	CYCLEBENCH_PROBE_CACHE=off /tmp/stretches -rooms -d 3m | gzip -9 > harness/testdata/rooms/<vendor>-<core>.txt.gz

import (
	"path/filepath"
	"slices"
	"testing"
)

// roomLow is how far below its median a figure must read to count as low:
// twice the spread of the continued chains (their 5th percentile sits
// 0.01 to 0.02% below the median), half of what the state does to the
// restarted chains.
const roomLow = 0.002

// TestReplayRooms: in every recording, over the rounds in which every
// probe read the core alone (within 10% of the recording's best), the
// restarted chains read low in some rounds; the continued chains are not
// low with them (at most 1 in 20 of those rounds: the state is the calls'
// overlap, not the clock or the ruler); the taken-branch probe is not low
// with them either (at most 1 in 20: it cannot see the state); and a short
// restarted chain measured in the same round is low with them at least
// three times as often as chance would make it (it can). Each kernel is
// its own measurement in a round, a few milliseconds apart, so a state
// that changes between them cannot coincide: the check is against chance,
// not against one.
func TestReplayRooms(t *testing.T) {
	paths, err := filepath.Glob("testdata/rooms/*.txt.gz")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings in testdata/rooms (%v)", err)
	}
	for _, path := range paths {
		kernels, rounds := readStretches(t, path)
		idx := func(name string) int {
			i := slices.Index(kernels, name)
			if i < 0 {
				t.Fatalf("%s: no kernel %q in %v", path, name, kernels)
			}
			return i
		}
		worst := func(r stretchRound) float64 { return slices.Max(r.probe) }
		best := worst(rounds[0])
		for _, r := range rounds {
			best = min(best, worst(r))
		}
		var quiet []stretchRound
		for _, r := range rounds {
			if worst(r) <= 1.1*best && !slices.Contains(r.fig, 0) {
				quiet = append(quiet, r)
			}
		}
		if len(quiet) < 500 {
			t.Fatalf("%s: %d rounds with the core alone, want 500 or more", path, len(quiet))
		}
		low := make([][]bool, len(kernels))
		for k := range kernels {
			v := make([]float64, len(quiet))
			for i, r := range quiet {
				v[i] = r.fig[k]
			}
			m := median(v)
			low[k] = make([]bool, len(quiet))
			for i := range quiet {
				low[k][i] = v[i] < m*(1-roomLow)
			}
		}
		count := func(a, b []bool) (na, nb, both int) {
			for i := range a {
				if a[i] {
					na++
				}
				if b[i] {
					nb++
				}
				if a[i] && b[i] {
					both++
				}
			}
			return na, nb, both
		}
		n := float64(len(quiet))
		for _, target := range []string{"imul-restarted", "add-restarted"} {
			tl := low[idx(target)]
			nt, _, _ := count(tl, tl)
			if 100*nt < len(quiet) {
				t.Logf("%s %s: low in %d of %d rounds: too few to judge", filepath.Base(path), target, nt, len(quiet))
				continue
			}
			for _, other := range []string{"add-continued", "imul-continued", "branch", "imul-restarted-200", "add-restarted-300"} {
				_, no, both := count(tl, low[idx(other)])
				chance := float64(nt) * float64(no) / n
				t.Logf("%s %s low in %d of %d rounds; %s low in %d, with it in %d (chance %.1f)",
					filepath.Base(path), target, nt, len(quiet), other, no, both, chance)
				switch other {
				case "add-continued", "imul-continued", "branch":
					if 20*both > nt {
						t.Errorf("%s: %s was low with %s in %d of its %d low rounds: the state is not the overlap's alone", path, other, target, both, nt)
					}
				case "imul-restarted-200":
					if float64(both) < 3*chance || both == 0 {
						t.Errorf("%s: %s was low with %s in %d rounds, chance %.1f: it does not see the state", path, other, target, both, chance)
					}
				}
			}
		}
	}
}

// TestReplayCalls: the other state, in which the continued chains read
// 0.3% high with no label (the "moments the ruler does not see"). In the
// recordings that have short continued calls (add-continued-8: 8 links a
// call, through memory), the rounds in which the 1000-link continued ADD
// chain reads high (more than roomLow above its median) have the short
// calls more than callsRise above their median at least three times as
// often as chance, and in at least a quarter of them: what the engine's
// calls probe (room.go) rests on. On the Intel guest: 50 of 122 such
// rounds, chance 6.9; in a scratch loop that timed them sample by sample
// beside each other, 503 of 503 windows of 64 rounds.
//
// It also chooses callsRise: of the thresholds below, none may mark the
// high rounds better (those it catches less those it marks in vain) by
// more than two. On the Intel guest: 5% and 10% score 28, 20% 29, 30%
// 30, 40% 24, 50% 26; the engine needs at least 27% (its probe's first
// rounds read up to 26% high while it warms).
func TestReplayCalls(t *testing.T) {
	paths, err := filepath.Glob("testdata/rooms/*.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, path := range paths {
		kernels, rounds := readStretches(t, path)
		ac, a8 := slices.Index(kernels, "add-continued"), slices.Index(kernels, "add-continued-8")
		if ac < 0 || a8 < 0 {
			continue // recorded before the short calls were
		}
		judged++
		var vc, v8 []float64
		for _, r := range rounds {
			if r.fig[ac] > 0 && r.fig[a8] > 0 {
				vc, v8 = append(vc, r.fig[ac]), append(v8, r.fig[a8])
			}
		}
		mc, m8 := median(vc), median(v8)
		nc := 0
		for _, v := range vc {
			if v > mc*(1+roomLow) {
				nc++
			}
		}
		// score counts, at a threshold, the rounds marked with the chain
		// high, the rounds marked, and the first less the rest.
		score := func(rise float64) (both, n8, s int) {
			for i := range vc {
				if v8[i] > m8*(1+rise) {
					n8++
					if vc[i] > mc*(1+roomLow) {
						both++
					}
				}
			}
			return both, n8, both - (n8 - both)
		}
		both, n8, s := score(callsRise)
		chance := float64(nc) * float64(n8) / float64(len(vc))
		t.Logf("%s: add-continued high in %d of %d rounds; add-continued-8 high in %d, with it in %d (chance %.1f)", filepath.Base(path), nc, len(vc), n8, both, chance)
		if nc < 20 {
			t.Logf("%s: too few high rounds to judge", filepath.Base(path))
			continue
		}
		if float64(both) < 3*chance || 4*both < nc {
			t.Errorf("%s: the short calls were high in %d of the %d rounds the continued chain was (chance %.1f): they do not see the state", path, both, nc, chance)
		}
		for _, rise := range []float64{0.05, 0.10, 0.20, 0.30, 0.40, 0.50} {
			if b, n, o := score(rise); o > s+2 {
				t.Errorf("%s: a threshold of %.0f%% marks the high rounds better than callsRise (%.0f%%): %d of %d marked with the chain high (score %d), against %d of %d (%d)", path, 100*rise, 100*callsRise, b, n, o, both, n8, s)
			}
		}
	}
	if judged == 0 {
		t.Fatalf("no recording in testdata/rooms has the short continued calls")
	}
}
