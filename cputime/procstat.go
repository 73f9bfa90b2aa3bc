package cputime

import (
	"fmt"
	"strconv"
	"strings"
)

// CPUTimes is one "cpu" line of /proc/stat: time spent in each state since
// boot, in clock ticks (USER_HZ, see [ClockTicks]). Fields a kernel does not
// report (older kernels print fewer columns) are zero.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
	// Guest and GuestNice are time spent running virtual CPUs of guests.
	// The kernel already counts them in User and Nice.
	Guest, GuestNice uint64
}

// Total returns all time accounted, excluding Guest and GuestNice, which
// the kernel has already counted in User and Nice (adding them again, as
// some tools do, counts guest time twice).
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Busy returns Total minus Idle and IOWait (a CPU waiting for I/O is idle).
func (c CPUTimes) Busy() uint64 {
	t, i := c.Total(), c.Idle+c.IOWait
	if i > t {
		return 0
	}
	return t - i
}

// sub returns c − o field by field, 0 where a counter went backwards (the
// kernel's per-CPU idle counts can, briefly, around CPU hotplug).
func (c CPUTimes) sub(o CPUTimes) CPUTimes {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return CPUTimes{
		User: d(c.User, o.User), Nice: d(c.Nice, o.Nice), System: d(c.System, o.System),
		Idle: d(c.Idle, o.Idle), IOWait: d(c.IOWait, o.IOWait), IRQ: d(c.IRQ, o.IRQ),
		SoftIRQ: d(c.SoftIRQ, o.SoftIRQ), Steal: d(c.Steal, o.Steal),
		Guest: d(c.Guest, o.Guest), GuestNice: d(c.GuestNice, o.GuestNice),
	}
}

// SystemTimes is what [ParseProcStat] extracts from /proc/stat.
type SystemTimes struct {
	// All is the aggregate "cpu" line: the sum over every CPU.
	All CPUTimes
	// PerCPU holds the "cpuN" lines in file order (online CPUs only).
	PerCPU []CPUTimes
}

// ParseProcStat parses the text of /proc/stat. It needs the aggregate "cpu"
// line with at least the four fields every kernel prints (user nice system
// idle); later fields are read when present, extra ones are ignored. It
// never panics; malformed text gives an error naming the line and field.
func ParseProcStat(text string) (SystemTimes, error) {
	var st SystemTimes
	found := false
	for n, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		label := f[0]
		perCPU := false
		if label != "cpu" {
			if _, err := strconv.ParseUint(label[3:], 10, 32); err != nil {
				continue // not a cpu line ("cpufreq ..." or similar)
			}
			perCPU = true
		}
		ct, err := parseCPULine(f[1:])
		if err != nil {
			return SystemTimes{}, fmt.Errorf("cputime: /proc/stat line %d (%q): %w", n+1, label, err)
		}
		if perCPU {
			st.PerCPU = append(st.PerCPU, ct)
			continue
		}
		if found {
			return SystemTimes{}, fmt.Errorf("cputime: /proc/stat line %d: second aggregate \"cpu\" line", n+1)
		}
		st.All, found = ct, true
	}
	if !found {
		return SystemTimes{}, fmt.Errorf("cputime: /proc/stat has no aggregate \"cpu\" line")
	}
	return st, nil
}

var cpuFieldNames = [...]string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"}

func parseCPULine(f []string) (CPUTimes, error) {
	if len(f) < 4 {
		return CPUTimes{}, fmt.Errorf("%d fields, need at least 4 (user nice system idle)", len(f))
	}
	var v [len(cpuFieldNames)]uint64
	for i := 0; i < len(f) && i < len(v); i++ {
		x, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("field %d (%s) = %q is not a tick count", i+1, cpuFieldNames[i], f[i])
		}
		v[i] = x
	}
	return CPUTimes{User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4],
		IRQ: v[5], SoftIRQ: v[6], Steal: v[7], Guest: v[8], GuestNice: v[9]}, nil
}

// ProcessTimes is what [ParseProcSelfStat] extracts from /proc/<pid>/stat.
// Times are in clock ticks (USER_HZ, see [ClockTicks]).
type ProcessTimes struct {
	PID   int
	Comm  string // the command name, which may contain spaces and parentheses
	State string // R, S, D, Z, ...
	// UTime and STime are user and kernel time of the process (field 14, 15).
	UTime, STime uint64
	// CUTime and CSTime are the times of waited-for children (fields 16,
	// 17); 0 when the line stops before them.
	CUTime, CSTime int64
	// NumThreads (field 20) and StartTime (field 22, ticks after boot); 0
	// when absent.
	NumThreads int64
	StartTime  uint64
}

// Total returns UTime + STime: the process's own CPU time in ticks, the
// figure the seed's profiler uses.
func (p ProcessTimes) Total() uint64 { return p.UTime + p.STime }

// ParseProcSelfStat parses the text of /proc/self/stat (or any
// /proc/<pid>/stat). The command name is everything between the first '('
// and the last ')', so names with spaces or parentheses ("a b) (c") parse
// correctly, which the seed's ignore(256, ')') did not. Fields up to stime
// (15) are required; later ones are read when present. It never panics.
func ParseProcSelfStat(text string) (ProcessTimes, error) {
	open := strings.IndexByte(text, '(')
	closing := strings.LastIndexByte(text, ')')
	if open < 0 || closing < open {
		return ProcessTimes{}, fmt.Errorf("cputime: /proc/self/stat: no \"(comm)\" in %q", clip(text))
	}
	var p ProcessTimes
	pid, err := strconv.Atoi(strings.TrimSpace(text[:open]))
	if err != nil || pid < 0 {
		return ProcessTimes{}, fmt.Errorf("cputime: /proc/self/stat: pid %q is not a process id", clip(text[:open]))
	}
	p.PID, p.Comm = pid, text[open+1:closing]
	// f[0] is field 3 (state).
	f := strings.Fields(text[closing+1:])
	field := func(n int) (string, bool) {
		if n-3 < len(f) {
			return f[n-3], true
		}
		return "", false
	}
	if len(f) < 15-2 {
		return ProcessTimes{}, fmt.Errorf("cputime: /proc/self/stat: %d fields after comm, need at least 13 (through stime, field 15)", len(f))
	}
	p.State = f[0]
	u64 := func(n int, name string, dst *uint64) error {
		s, ok := field(n)
		if !ok {
			return nil
		}
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("cputime: /proc/self/stat: field %d (%s) = %q is not a non-negative integer", n, name, clip(s))
		}
		*dst = x
		return nil
	}
	i64 := func(n int, name string, dst *int64) error {
		s, ok := field(n)
		if !ok {
			return nil
		}
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("cputime: /proc/self/stat: field %d (%s) = %q is not an integer", n, name, clip(s))
		}
		*dst = x
		return nil
	}
	for _, e := range []error{
		u64(14, "utime", &p.UTime), u64(15, "stime", &p.STime),
		i64(16, "cutime", &p.CUTime), i64(17, "cstime", &p.CSTime),
		i64(20, "num_threads", &p.NumThreads), u64(22, "starttime", &p.StartTime),
	} {
		if e != nil {
			return ProcessTimes{}, e
		}
	}
	return p, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
