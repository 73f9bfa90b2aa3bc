//go:build !linux

package perfevent

import (
	"errors"
	"testing"
)

// TestNotLinux: every entry point says why it cannot work here, with errors
// matching ErrUnavailable and errors.ErrUnsupported.
func TestNotLinux(t *testing.T) {
	g, err := Open([]Event{ContextSwitches})
	if g != nil || !errors.Is(err, ErrUnavailable) || !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Open = %v, %v", g, err)
	}
	if _, err := Paranoid(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Paranoid: %v", err)
	}
	var z Group
	var c Counts
	for name, err := range map[string]error{"Enable": z.Enable(), "Disable": z.Disable(), "Reset": z.Reset(), "Read": z.Read(&c)} {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := z.RDPMCErr(); !errors.Is(err, ErrNoRDPMC) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("RDPMCErr: %v", err)
	}
	for _, s := range Probe() {
		if s.Available || !errors.Is(s.Err, errors.ErrUnsupported) {
			t.Errorf("%s: %+v", s.Event, s)
		}
	}
}
