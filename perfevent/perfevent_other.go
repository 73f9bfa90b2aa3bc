//go:build !linux

package perfevent

import (
	"errors"
	"fmt"
	"runtime"
)

// Group is a perf_event group counting the thread that opened it. On this
// platform there is no perf_event_open: [Open] always fails and a Group is
// never returned.
type Group struct {
	// Warnings are soft problems found at Open.
	Warnings []error
}

// errNotLinux is why nothing works here.
func errNotLinux(what string) error {
	return unavailable{fmt.Errorf("perfevent: %s: perf_event_open is Linux-only, this is %s/%s: %w", what, runtime.GOOS, runtime.GOARCH, errors.ErrUnsupported)}
}

// Open fails on this platform with an error wrapping [ErrUnavailable] and
// errors.ErrUnsupported; on Linux it opens a group counting the calling
// thread. A bad list is still reported as such.
func Open(events []Event) (*Group, error) { return OpenThread(0, events) }

// OpenThread fails on this platform like [Open].
func OpenThread(tid int, events []Event) (*Group, error) {
	if err := checkEvents(events); err != nil {
		return nil, err
	}
	return nil, errNotLinux("open")
}

// Paranoid fails on this platform: perf_event_paranoid is a Linux setting.
func Paranoid() (int, error) { return 0, errNotLinux("perf_event_paranoid") }

// Events returns nil: no group exists on this platform.
func (g *Group) Events() []Event { return nil }

// Thread returns −1: no group exists on this platform.
func (g *Group) Thread() int { return -1 }

// Enable fails: no perf_event_open on this platform.
func (g *Group) Enable() error { return errNotLinux("enable") }

// Disable fails: no perf_event_open on this platform.
func (g *Group) Disable() error { return errNotLinux("disable") }

// Reset fails: no perf_event_open on this platform.
func (g *Group) Reset() error { return errNotLinux("reset") }

// Read fails and leaves c unchanged: no perf_event_open on this platform.
func (g *Group) Read(c *Counts) error { return errNotLinux("read") }

// RDPMCErr says why [Group.ReadRDPMC] cannot work: not Linux.
func (g *Group) RDPMCErr() error { return fmt.Errorf("%w: %w", ErrNoRDPMC, errNotLinux("rdpmc")) }

// ReadRDPMC fails: no perf_event_open on this platform.
func (g *Group) ReadRDPMC() (uint64, error) { return 0, g.RDPMCErr() }

// Close does nothing and returns nil.
func (g *Group) Close() error { return nil }

// Probe reports every known event as unavailable, with the reason.
func Probe() []Status {
	var st []Status
	for _, e := range Known() {
		err := errNotLinux(e.String())
		st = append(st, Status{Event: e, Err: err, RDPMC: fmt.Errorf("%w: %w", ErrNoRDPMC, err)})
	}
	return st
}
