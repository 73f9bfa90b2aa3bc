package lab

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/cputime"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/chain"
)

// utilisationAvailable reports whether this platform measures utilisation.
func utilisationAvailable() bool {
	s, err := cputime.StartUtilisation()
	if err != nil {
		return false
	}
	_, err = s.Stop()
	return err == nil
}

func TestUtilisation(t *testing.T) {
	if !utilisationAvailable() {
		_, err := Utilisation(context.Background(), DefaultConfig(), harness.Target{Name: "k", Run: func() {}})
		if err == nil {
			t.Fatalf("utilisation unsupported on %s/%s, but Utilisation succeeded", runtime.GOOS, runtime.GOARCH)
		}
		t.Skipf("utilisation unsupported here: %v", err)
	}
	spun := &counted{work: func() {
		for t0 := time.Now(); time.Since(t0) < 30*time.Millisecond; {
			testSink += chain.Add(1000)
		}
	}}
	res, err := Utilisation(context.Background(), DefaultConfig(), spun.kernel("spin 30ms"), harness.Target{Name: "sleep 30ms", Run: func() { time.Sleep(30 * time.Millisecond) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kernels) != 2 || spun.runs != 1 || spun.setups != 1 || spun.checks != 1 {
		t.Fatalf("%d kernels; spin ran %d times, set up %d, checked %d: want 2 kernels, each once", len(res.Kernels), spun.runs, spun.setups, spun.checks)
	}
	spin, sleep := res.Kernels[0], res.Kernels[1]
	for _, k := range res.Kernels {
		u := k.Utilisation
		if u.Wall < 30*time.Millisecond || u.NumCPU < 1 || u.OfOneCPU < 0 || u.OfAllCPUs < 0 {
			t.Errorf("%s: %+v", k.Name, u)
		}
		if k.ThreadCPU > u.Wall+time.Microsecond {
			t.Errorf("%s: thread cpu %v > wall %v", k.Name, k.ThreadCPU, u.Wall)
		}
	}
	if spin.ThreadCPU <= sleep.ThreadCPU || spin.Utilisation.OfOneCPU <= sleep.Utilisation.OfOneCPU {
		t.Errorf("spin: %v cpu, %.3g%% of one CPU; sleep: %v, %.3g%%: the spin should use more", spin.ThreadCPU, spin.Utilisation.OfOneCPU, sleep.ThreadCPU, sleep.Utilisation.OfOneCPU)
	}
	if sleep.Utilisation.OfOneCPU >= 50 {
		t.Errorf("a 30 ms sleep used %.3g%% of one CPU", sleep.Utilisation.OfOneCPU)
	}
}
