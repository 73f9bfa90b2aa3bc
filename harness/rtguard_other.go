//go:build !linux

package harness

import (
	"errors"

	"github.com/cyclebench/cyclebench/affinity"
)

// ErrRealtimeLimit: a Realtime measurement used up its share of
// Config.RTTimeLimit. Only the Linux guard returns it: on other systems no
// guard bounds the realtime class (Windows REALTIME_PRIORITY_CLASS has no
// RLIMIT_RTTIME), which is one more reason to ask for it only on purpose.
var ErrRealtimeLimit = errors.New("harness: realtime time limit reached")

// rtGuard is the Linux realtime guard; on this OS newRTGuard returns nil
// and a nil guard does nothing.
type rtGuard struct{}

// newRTGuard returns nil: there is no realtime guard on this OS.
func newRTGuard(Config) *rtGuard { return nil }

// watch returns p.Restore: nothing is watched on this OS.
func (g *rtGuard) watch(p *affinity.Pinned) (restore func() error) { return p.Restore }

// tripped returns a nil channel, which is never ready.
func (g *rtGuard) tripped() <-chan error { return nil }
