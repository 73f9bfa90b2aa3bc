package cputime

import (
	"strings"
	"testing"
)

// Recorded on the development machine (2 CPUs, Linux 6.x) and trimmed.
const procStatSample = `cpu  518127 71 120189 7077551 8165 0 48610 0 0 0
cpu0 259000 30 60000 3538000 4000 0 24305 0 0 0
cpu1 259127 41 60189 3539551 4165 0 24305 0 0 0
intr 1234 0 0
ctxt 987654
btime 1700000000
processes 4242
procs_running 2
procs_blocked 0
softirq 1 2 3
`

const selfStatSample = `76723 (cat) R 52152 76723 52152 34816 76723 4194304 95 0 0 0 7 3 0 0 20 0 1 0 1515316 9162752 418 18446744073709551615 94507585687552 94507585710729 140728218500048 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94507585726960 94507585728704 94508453613568 140728218505341 140728218505361 140728218505361 140728218509291 0`

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    CPUTimes
		ncpu    int
		wantErr string
	}{
		{name: "recorded", text: procStatSample, ncpu: 2,
			want: CPUTimes{User: 518127, Nice: 71, System: 120189, Idle: 7077551, IOWait: 8165, SoftIRQ: 48610}},
		{name: "guest counted once", text: "cpu 100 10 50 1000 5 1 2 3 40 4\n", ncpu: 0,
			want: CPUTimes{User: 100, Nice: 10, System: 50, Idle: 1000, IOWait: 5, IRQ: 1, SoftIRQ: 2, Steal: 3, Guest: 40, GuestNice: 4}},
		{name: "old kernel four fields", text: "cpu 1 2 3 4\ncpu0 1 2 3 4\n", ncpu: 1,
			want: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}},
		{name: "future extra field ignored", text: "cpu 1 2 3 4 5 6 7 8 9 10 11\n",
			want: CPUTimes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{name: "no trailing newline, CRLF-free spaces", text: "  cpu\t1 2 3 4", want: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}},
		{name: "empty", text: "", wantErr: "no aggregate"},
		{name: "only per-cpu", text: "cpu0 1 2 3 4\n", wantErr: "no aggregate"},
		{name: "too few fields", text: "cpu 1 2 3\n", wantErr: "need at least 4"},
		{name: "not a number", text: "cpu 1 2 x 4\n", wantErr: `field 3 (system) = "x"`},
		{name: "negative", text: "cpu 1 -2 3 4\n", wantErr: "field 2 (nice)"},
		{name: "bad per-cpu line", text: "cpu 1 2 3 4\ncpu0 1 2\n", wantErr: `line 2 ("cpu0")`},
		{name: "two aggregates", text: "cpu 1 2 3 4\ncpu 1 2 3 4\n", wantErr: "second aggregate"},
		{name: "cpufreq-like label skipped", text: "cpufreq a b\ncpu 1 2 3 4\n", want: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProcStat(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.All != tt.want {
				t.Errorf("All = %+v, want %+v", got.All, tt.want)
			}
			if len(got.PerCPU) != tt.ncpu {
				t.Errorf("%d per-cpu lines, want %d", len(got.PerCPU), tt.ncpu)
			}
		})
	}
}

func TestCPUTimesTotalBusy(t *testing.T) {
	c := CPUTimes{User: 100, Nice: 10, System: 50, Idle: 1000, IOWait: 5, IRQ: 1, SoftIRQ: 2, Steal: 3, Guest: 40, GuestNice: 4}
	if got, want := c.Total(), uint64(100+10+50+1000+5+1+2+3); got != want {
		t.Errorf("Total = %d, want %d (guest excluded)", got, want)
	}
	if got, want := c.Busy(), uint64(100+10+50+1+2+3); got != want {
		t.Errorf("Busy = %d, want %d", got, want)
	}
	d := CPUTimes{Idle: 5}.sub(CPUTimes{Idle: 7, User: 1})
	if d != (CPUTimes{}) {
		t.Errorf("sub of a counter that went back = %+v, want zeros", d)
	}
}

func TestParseProcSelfStat(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
	tests := []struct {
		name    string
		text    string
		want    ProcessTimes
		wantErr string
	}{
		{name: "recorded", text: selfStatSample,
			want: ProcessTimes{PID: 76723, Comm: "cat", State: "R", UTime: 7, STime: 3, NumThreads: 1, StartTime: 1515316}},
		{name: "spaces and parens in comm", text: "1234 (a b) (c))" + tail,
			want: ProcessTimes{PID: 1234, Comm: "a b) (c)", State: "S", UTime: 11, STime: 12, CUTime: 13, CSTime: 14, NumThreads: 17, StartTime: 19}},
		{name: "empty comm", text: "7 ()" + tail,
			want: ProcessTimes{PID: 7, Comm: "", State: "S", UTime: 11, STime: 12, CUTime: 13, CSTime: 14, NumThreads: 17, StartTime: 19}},
		{name: "comm with digits and R", text: "8 (1 2 R 3)" + tail,
			want: ProcessTimes{PID: 8, Comm: "1 2 R 3", State: "S", UTime: 11, STime: 12, CUTime: 13, CSTime: 14, NumThreads: 17, StartTime: 19}},
		{name: "stops at stime", text: "9 (x) R 1 2 3 4 5 6 7 8 9 10 11 12",
			want: ProcessTimes{PID: 9, Comm: "x", State: "R", UTime: 11, STime: 12}},
		{name: "negative cutime allowed", text: "9 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 -1 -2",
			want: ProcessTimes{PID: 9, Comm: "x", State: "R", UTime: 11, STime: 12, CUTime: -1, CSTime: -2}},
		{name: "empty", text: "", wantErr: "no \"(comm)\""},
		{name: "no close paren", text: "1 (abc R 1 2", wantErr: "no \"(comm)\""},
		{name: "close before open", text: "1 )abc( R", wantErr: "no \"(comm)\""},
		{name: "bad pid", text: "x1 (a)" + tail, wantErr: "pid"},
		{name: "truncated before stime", text: "1 (a) R 1 2 3 4 5 6 7 8 9 10 11", wantErr: "need at least 13"},
		{name: "utime not a number", text: "1 (a) R 1 2 3 4 5 6 7 8 9 10 u 12", wantErr: "field 14 (utime)"},
		{name: "negative stime", text: "1 (a) R 1 2 3 4 5 6 7 8 9 10 11 -12", wantErr: "field 15 (stime)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProcSelfStat(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// The fuzz targets check that the parsers never panic and that what they
// accept is self-consistent. Their seed corpora live in testdata/fuzz, so
// `go test` runs them as ordinary tests.
func FuzzParseProcStat(f *testing.F) {
	f.Add(procStatSample)
	f.Fuzz(func(t *testing.T, text string) {
		st, err := ParseProcStat(text)
		if err != nil {
			return
		}
		if st.All.Busy() > st.All.Total() {
			t.Errorf("Busy %d > Total %d", st.All.Busy(), st.All.Total())
		}
	})
}

func FuzzParseProcSelfStat(f *testing.F) {
	f.Add(selfStatSample)
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseProcSelfStat(text)
		if err != nil {
			return
		}
		if p.PID < 0 || strings.Count(text, p.Comm) == 0 {
			t.Errorf("inconsistent parse %+v of %q", p, text)
		}
	})
}
