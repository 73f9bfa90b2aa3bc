package pinned

import (
	"errors"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/cyclebench/cyclebench/affinity"
)

// TestRunRestores runs bodies that return, fail, panic and exit, and checks
// that each outcome is reported as documented and that the GC percentage
// is back afterwards (the thread itself dies or is restored by affinity,
// whose own tests check masks and priorities).
func TestRunRestores(t *testing.T) {
	errBody := errors.New("body failed")
	for _, tt := range []struct {
		name string
		body func(*Thread) error
		want error
	}{
		{"returns", func(*Thread) error { return nil }, nil},
		{"fails", func(*Thread) error { return errBody }, errBody},
		{"panics", func(*Thread) error { panic("boom") }, ErrPanic},
		{"goexit", func(*Thread) error { runtime.Goexit(); return nil }, ErrGoexit},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gc := debug.SetGCPercent(100)
			t.Cleanup(func() { debug.SetGCPercent(gc) })
			var gcInside int
			body := func(th *Thread) error {
				gcInside = debug.SetGCPercent(-1) // reads the value while running
				return tt.body(th)
			}
			abandoned, err := Run(Options{CPU: -1, Priority: affinity.PriorityNormal}, body)
			if abandoned {
				t.Fatal("abandoned without a realtime guard")
			}
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if gcInside != -1 {
				t.Errorf("GC percent inside the body %d, want -1 (off)", gcInside)
			}
			if now := debug.SetGCPercent(100); now != 100 {
				t.Errorf("GC percent after Run %d, want 100 restored", now)
			}
		})
	}
}

// TestRunThread checks what the body is told about its thread: a CPU from
// the allowed set (or -1 with an ErrUnpinned warning where the OS cannot
// pin), and the priority obtained, never above the one asked.
func TestRunThread(t *testing.T) {
	var th Thread
	_, err := Run(Options{CPU: -1, Priority: affinity.PriorityHigh, KeepGC: true}, func(t *Thread) error {
		th = *t
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if th.Priority > affinity.PriorityHigh {
		t.Errorf("priority %v obtained, above the %v asked", th.Priority, affinity.PriorityHigh)
	}
	allowed, err := affinity.Allowed()
	if errors.Is(err, errors.ErrUnsupported) {
		if th.CPU != -1 || len(th.Warnings) == 0 || !errors.Is(th.Warnings[0], ErrUnpinned) {
			t.Errorf("unsupported pinning: CPU %d warnings %v, want -1 and ErrUnpinned", th.CPU, th.Warnings)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range allowed {
		found = found || c == th.CPU
	}
	if !found {
		t.Errorf("pinned to CPU %d, not in the allowed set %v", th.CPU, allowed)
	}
}

// TestRunInvalidCPU: a CPU outside the allowed set is an error wrapping
// affinity.ErrInvalidCPU, and the body never runs.
func TestRunInvalidCPU(t *testing.T) {
	if _, err := affinity.Allowed(); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("this OS cannot pin threads")
	}
	ran := false
	_, err := Run(Options{CPU: 1 << 20}, func(*Thread) error { ran = true; return nil })
	if !errors.Is(err, affinity.ErrInvalidCPU) || ran {
		t.Fatalf("err %v, ran %v: want ErrInvalidCPU and no run", err, ran)
	}
}
