//go:build !linux

package pinned

import (
	"errors"

	"github.com/cyclebench/cyclebench/affinity"
)

// ErrRealtimeLimit: a realtime body used up its share of
// Options.RTTimeLimit. Only the Linux guard returns it: on other systems no
// guard bounds the realtime class (Windows REALTIME_PRIORITY_CLASS has no
// RLIMIT_RTTIME), which is one more reason to ask for it only on purpose.
var ErrRealtimeLimit = errors.New("harness: realtime time limit reached")

// guard is the Linux realtime guard; on this OS newGuard returns nil
// and a nil guard does nothing.
type guard struct{}

// newGuard returns nil: there is no realtime guard on this OS.
func newGuard(Options) *guard { return nil }

// GuardsArmed returns 0: there is no realtime guard on this OS.
func GuardsArmed() int64 { return 0 }

// watch returns p.Restore: nothing is watched on this OS.
func (g *guard) watch(p *affinity.Pinned) (restore func() error) { return p.Restore }

// tripped returns a nil channel, which is never ready.
func (g *guard) tripped() <-chan error { return nil }
