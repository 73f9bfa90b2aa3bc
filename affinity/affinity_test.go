package affinity

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPriorityString(t *testing.T) {
	tests := []struct {
		p    Priority
		want string
	}{
		{PriorityNormal, "normal"},
		{PriorityHigh, "high"},
		{PriorityRealtime, "realtime"},
		{Priority(7), "Priority(7)"},
		{Priority(-1), "Priority(-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("Priority(%d).String() = %q, want %q", int(tt.p), got, tt.want)
			}
		})
	}
}

func TestParsePriority(t *testing.T) {
	tests := []struct {
		in      string
		want    Priority
		wantErr bool
	}{
		{"normal", PriorityNormal, false},
		{"high", PriorityHigh, false},
		{"realtime", PriorityRealtime, false},
		{"  HIGH ", PriorityHigh, false},
		{"RealTime", PriorityRealtime, false},
		{"", 0, true},
		{"rt", 0, true},
		{"max", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePriority(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidOption) {
					t.Fatalf("ParsePriority(%q) error = %v, want ErrInvalidOption", tt.in, err)
				}
				for _, s := range []string{`"` + tt.in + `"`, "normal, high, realtime"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %s", err, s)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParsePriority(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			// Round trip through String.
			if back, err := ParsePriority(got.String()); err != nil || back != got {
				t.Errorf("ParsePriority(%q) = %v, %v", got.String(), back, err)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name    string
		in      Options
		wantRT  time.Duration
		wantErr error
		mention []string
	}{
		{"zero", Options{}, DefaultRTTimeLimit, nil, nil},
		{"any cpu", Options{CPU: -1, RTTimeLimit: time.Second}, time.Second, nil, nil},
		{"max rt", Options{RTTimeLimit: MaxRTTimeLimit}, MaxRTTimeLimit, nil, nil},
		{"cpu -2", Options{CPU: -2}, 0, ErrInvalidCPU, []string{"cpu -2", "-1"}},
		{"priority 3", Options{Priority: 3}, 0, ErrInvalidOption, []string{"priority 3", "realtime"}},
		{"priority -1", Options{Priority: -1}, 0, ErrInvalidOption, []string{"priority -1"}},
		{"rt negative", Options{RTTimeLimit: -time.Millisecond}, 0, ErrInvalidOption, []string{"-1ms", "1h0m0s"}},
		{"rt too long", Options{RTTimeLimit: 2 * time.Hour}, 0, ErrInvalidOption, []string{"2h0m0s", "1h0m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.normalize()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("normalize(%+v) error = %v, want %v", tt.in, err, tt.wantErr)
				}
				for _, s := range tt.mention {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("normalize(%+v): %v", tt.in, err)
			}
			if got.RTTimeLimit != tt.wantRT || got.CPU != tt.in.CPU || got.Priority != tt.in.Priority {
				t.Errorf("normalize(%+v) = %+v, want RTTimeLimit %v and the rest unchanged", tt.in, got, tt.wantRT)
			}
		})
	}
}

func TestRTTimeMicros(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want uint64
	}{
		{time.Nanosecond, 1},
		{time.Microsecond, 1},
		{time.Microsecond + 1, 2},
		{2 * time.Second, 2_000_000},
		{time.Hour, 3_600_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			if got := rtTimeMicros(tt.d); got != tt.want {
				t.Errorf("rtTimeMicros(%v) = %d, want %d", tt.d, got, tt.want)
			}
		})
	}
}

func TestChooseCPU(t *testing.T) {
	tests := []struct {
		name    string
		want    int
		allowed []int
		got     int
		errText string
	}{
		{"any picks highest", -1, []int{0, 1, 5}, 5, ""},
		{"explicit", 1, []int{0, 1, 5}, 1, ""},
		{"cpu 0", 0, []int{0, 1}, 0, ""},
		{"not allowed", 3, []int{0, 1, 5}, -1, "cpu 3 not in allowed set [0 1 5]"},
		{"unknown", 9999, []int{0, 1}, -1, "cpu 9999 not in allowed set [0 1]"},
		{"negative", -2, []int{0, 1}, -1, "cpu -2"},
		{"empty set", -1, nil, -1, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chooseCPU(tt.want, tt.allowed)
			if tt.errText != "" {
				if !errors.Is(err, ErrInvalidCPU) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("chooseCPU(%d, %v) error = %v, want ErrInvalidCPU mentioning %q", tt.want, tt.allowed, err, tt.errText)
				}
				return
			}
			if err != nil || got != tt.got {
				t.Errorf("chooseCPU(%d, %v) = %d, %v; want %d", tt.want, tt.allowed, got, err, tt.got)
			}
		})
	}
}

func TestFormatCPUs(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{nil, "[]"},
		{[]int{3}, "[3]"},
		{[]int{0, 1}, "[0 1]"},
		{[]int{0, 1, 2}, "[0-2]"},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 12, 14, 15}, "[0-7 12 14 15]"},
		{[]int{1, 3, 4, 5, 9}, "[1 3-5 9]"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatCPUs(tt.in); got != tt.want {
				t.Errorf("FormatCPUs(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStateEqual(t *testing.T) {
	a := State{Mask: []int{0, 1}, Nice: -20, Policy: 1, RTPriority: 50, RTTimeLimit: 7}
	tests := []struct {
		name string
		b    State
		want bool
	}{
		{"same", State{Mask: []int{0, 1}, Nice: -20, Policy: 1, RTPriority: 50, RTTimeLimit: 7}, true},
		{"mask", State{Mask: []int{1}, Nice: -20, Policy: 1, RTPriority: 50, RTTimeLimit: 7}, false},
		{"mask value", State{Mask: []int{0, 2}, Nice: -20, Policy: 1, RTPriority: 50, RTTimeLimit: 7}, false},
		{"nice", State{Mask: []int{0, 1}, Nice: 0, Policy: 1, RTPriority: 50, RTTimeLimit: 7}, false},
		{"policy", State{Mask: []int{0, 1}, Nice: -20, Policy: 0, RTPriority: 50, RTTimeLimit: 7}, false},
		{"rtprio", State{Mask: []int{0, 1}, Nice: -20, Policy: 1, RTPriority: 1, RTTimeLimit: 7}, false},
		{"rttime", State{Mask: []int{0, 1}, Nice: -20, Policy: 1, RTPriority: 50, RTTimeLimit: 8}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.Equal(tt.b); got != tt.want {
				t.Errorf("%+v.Equal(%+v) = %t, want %t", a, tt.b, got, tt.want)
			}
		})
	}
}

func TestRestoreNil(t *testing.T) {
	var p *Pinned
	if err := p.Restore(); err != nil {
		t.Errorf("(*Pinned)(nil).Restore() = %v, want nil", err)
	}
}

func TestPinRejectsBadOptions(t *testing.T) {
	// These fail before anything is changed, on every OS.
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"cpu -2", Options{CPU: -2}, "cpu -2"},
		{"cpu -100", Options{CPU: -100}, "cpu -100"},
		{"rt -1s", Options{CPU: -1, Priority: PriorityRealtime, RTTimeLimit: -time.Second}, "-1s"},
		{"rt 61m", Options{CPU: -1, Priority: PriorityRealtime, RTTimeLimit: 61 * time.Minute}, "1h1m0s"},
		{"priority 9", Options{CPU: -1, Priority: 9}, "priority 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Pin(tt.o)
			if err == nil {
				p.Restore()
				t.Fatalf("Pin(%+v) succeeded, want an error", tt.o)
			}
			if p != nil {
				t.Errorf("Pin(%+v) returned a non-nil *Pinned with error %v", tt.o, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "affinity: ") {
				t.Errorf("Pin(%+v) error %q does not start with \"affinity: \" and mention %q", tt.o, err, tt.want)
			}
		})
	}
}
