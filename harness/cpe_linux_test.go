//go:build linux

package harness

import (
	"context"
	"testing"

	"github.com/cyclebench/cyclebench/internal/pinned"
)

// The realtime guard exists on Linux only (see rtguard_linux.go).

func TestCPERealtimeIsGuarded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Realtime = true
	cfg.MaxSamples = 30
	before := pinned.GuardsArmed()
	c, err := CPE(context.Background(), cfg, Sweep{Sizes: []int{100, 200, 300}, Build: buildChain})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) == 0 || c.Points[0].Priority != "realtime" {
		t.Skipf("realtime priority not obtained here (%v); nothing to guard", c.Warnings)
	}
	if pinned.GuardsArmed() == before {
		t.Fatal("a realtime sweep ran without the realtime guard")
	}
}
