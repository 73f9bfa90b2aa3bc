//go:build !linux && !windows

package affinity

import (
	"errors"
	"fmt"
	"runtime"
)

func unsupported(what string) error {
	return fmt.Errorf("affinity: %s on %s/%s: %w", what, runtime.GOOS, runtime.GOARCH, errors.ErrUnsupported)
}

// pinState is empty where nothing but the thread lock is changed.
type pinState struct{}

// undo has nothing to put back here but the (empty) saved state.
func (p *Pinned) undo() error {
	p.st = pinState{}
	return nil
}

// Allowed returns 0 .. runtime.NumCPU()-1 on this OS, without error: the OS
// offers no thread affinity mask this package can read, so every CPU the Go
// runtime counts is taken as allowed.
func Allowed() ([]int, error) {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus, nil
}

// CurrentCPU returns an error wrapping errors.ErrUnsupported on this OS.
func CurrentCPU() (int, error) { return -1, unsupported("current cpu") }

// ThreadID returns 0 on this OS: there is no thread id this package can use.
func ThreadID() int { return 0 }

// SetThreadCPU returns an error wrapping errors.ErrUnsupported on this OS.
func SetThreadCPU(tid int, cpu int) error {
	return unsupported(fmt.Sprintf("pinning thread %d to cpu %d", tid, cpu))
}

// ThreadState returns an error wrapping errors.ErrUnsupported on this OS.
func ThreadState() (State, error) { return State{}, unsupported("reading thread state") }

// Pin locks the calling goroutine to its OS thread (runtime.LockOSThread).
// This OS cannot pin threads or raise their priority through this package:
// with o.CPU == -1 Pin succeeds and returns CPU -1, PriorityNormal and a
// warning wrapping errors.ErrUnsupported (plus one for a raised priority if
// asked); with an explicit CPU it returns an error wrapping
// errors.ErrUnsupported, since the caller asked for something that cannot be
// done. Call [Pinned.Restore] on the same goroutine to release the lock.
func Pin(o Options) (*Pinned, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	if o.CPU >= 0 {
		return nil, unsupported(fmt.Sprintf("pinning to cpu %d", o.CPU))
	}
	runtime.LockOSThread()
	p := &Pinned{CPU: -1, Priority: PriorityNormal}
	p.Warnings = append(p.Warnings, unsupported("pinning a thread to a cpu"))
	if o.Priority != PriorityNormal {
		p.Warnings = append(p.Warnings, priorityWarning(o.Priority, unsupported("raising thread priority")))
	}
	return p, nil
}

// Probe reports that this OS supports neither pinning nor raising priority.
func Probe() Capabilities {
	return Capabilities{Notes: []string{
		unsupported("pinning").Error(),
		unsupported("raising priority").Error(),
	}}
}
