//go:build linux

package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"golang.org/x/sys/unix"
)

// threadExists reports whether thread tid of this process still exists.
func threadExists(tid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
	return err == nil
}

// checkMeasuringThread checks the thread a Measure ran on after it
// returned. When the measuring goroutine released its lock (Restore does,
// also during a panic), the thread went back to the runtime's pool and can
// be read: it must be as the caller's thread was, unpinned and at normal
// priority. When it is gone, the runtime tore it down because its
// goroutine exited locked, and there is nothing left to check.
func checkMeasuringThread(t *testing.T, tid int, caller affinity.State, haveCaller bool) {
	t.Helper()
	if tid <= 0 || !haveCaller {
		return
	}
	if !threadExists(tid) {
		t.Logf("measuring thread %d is gone (its goroutine exited locked)", tid)
		return
	}
	policy, rtprio, nice, mask, err := helperThreadState(tid)
	if err != nil {
		if !threadExists(tid) {
			return
		}
		t.Fatal(err)
	}
	if policy != caller.Policy || rtprio != caller.RTPriority || nice != caller.Nice || !equalInts(mask, caller.Mask) {
		t.Errorf("measuring thread %d left at policy %d rt %d nice %d mask %v; the caller's thread is at policy %d rt %d nice %d mask %v",
			tid, policy, rtprio, nice, mask, caller.Policy, caller.RTPriority, caller.Nice, caller.Mask)
	} else {
		t.Logf("measuring thread %d is back in the runtime's pool, restored: policy %d nice %d mask %v", tid, policy, nice, mask)
	}
}

// taskState is one thread's scheduling state from /proc/self/task/TID/stat.
type taskState struct {
	tid, nice, rtprio, policy int
	comm                      string
}

// parseTaskStat reads the nice value (field 19), rt_priority (40) and
// policy (41) from a /proc/PID/task/TID/stat line (proc(5)). The comm field
// may hold spaces and parentheses, so fields are counted after the last ')'.
func parseTaskStat(tid int, s string) (taskState, error) {
	i := strings.LastIndexByte(s, ')')
	j := strings.IndexByte(s, '(')
	if i < 0 || j < 0 || j > i {
		return taskState{}, fmt.Errorf("stat of thread %d: no (comm): %q", tid, s)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 41-2 {
		return taskState{}, fmt.Errorf("stat of thread %d: %d fields, want at least 41", tid, len(f)+2)
	}
	field := func(n int) (int, error) { return strconv.Atoi(f[n-3]) }
	ts := taskState{tid: tid, comm: s[j+1 : i]}
	var err error
	if ts.nice, err = field(19); err == nil {
		if ts.rtprio, err = field(40); err == nil {
			ts.policy, err = field(41)
		}
	}
	if err != nil {
		return taskState{}, fmt.Errorf("stat of thread %d: %w", tid, err)
	}
	return ts, nil
}

// allTasks reads the scheduling state of every thread of this process.
func allTasks(t *testing.T) []taskState {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*")
	if err != nil || len(dirs) == 0 {
		t.Skipf("cannot list /proc/self/task: %v", err)
	}
	var out []taskState
	for _, d := range dirs {
		tid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue // the thread exited meanwhile
		}
		ts, err := parseTaskStat(tid, string(b))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ts)
	}
	return out
}

func TestParseTaskStat(t *testing.T) {
	// Fields 3..41 of a real line, with a comm holding ") (" to trip a
	// naive parser.
	const tail = " R 1 2 3 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 7 0 123 456 78 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0"
	tests := []struct {
		line                 string
		nice, rtprio, policy int
		ok                   bool
	}{
		{"42 (cyclebench.te)" + tail, 0, 0, 0, true},
		{"42 (a) (b) c)" + strings.Replace(tail, " 20 0 7", " 0 -20 7", 1), -20, 0, 0, true},
		{"42 (rt)" + strings.TrimSuffix(tail, " 17 1 0 0") + " 17 1 50 1", 0, 50, 1, true},
		{"42 (short) R 1 2 3", 0, 0, 0, false},
		{"42 no parens" + tail, 0, 0, 0, false},
		{"42 (x)" + strings.Replace(tail, " 20 0 7", " 20 zero 7", 1), 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.line[:min(len(tt.line), 20)], func(t *testing.T) {
			ts, err := parseTaskStat(42, tt.line)
			if (err == nil) != tt.ok {
				t.Fatalf("parseTaskStat(%q) = %+v, %v; want ok %v", tt.line, ts, err, tt.ok)
			}
			if tt.ok && (ts.nice != tt.nice || ts.rtprio != tt.rtprio || ts.policy != tt.policy) {
				t.Errorf("got nice %d rt %d policy %d, want %d %d %d", ts.nice, ts.rtprio, ts.policy, tt.nice, tt.rtprio, tt.policy)
			}
		})
	}
}

// TestNoThreadLeftRaised runs Measures at raised priority (high and, where
// permitted, realtime), including ones whose kernel panics or calls
// runtime.Goexit mid-run, then reads every thread of the process from
// /proc/self/task: none may be left at SCHED_FIFO/SCHED_RR or at a nice
// value lower than before, and the soft RLIMIT_RTTIME must be back.
func TestNoThreadLeftRaised(t *testing.T) {
	caps := affinity.Probe()
	if !caps.High {
		t.Skipf("priority cannot be raised here: %s", caps)
	}
	minNice := 19
	for _, ts := range allTasks(t) {
		if ts.policy != unix.SCHED_NORMAL {
			t.Skipf("thread %d (%s) is at policy %d before the test; nothing to compare with", ts.tid, ts.comm, ts.policy)
		}
		minNice = min(minNice, ts.nice)
	}
	var rlBefore unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rlBefore); err != nil {
		t.Fatal(err)
	}
	type run struct {
		name     string
		realtime bool
		bad      func()
	}
	runs := []run{{"high", false, nil}, {"high, panic", false, func() { panic("boom") }}}
	if caps.Realtime {
		runs = append(runs,
			run{"realtime", true, nil},
			run{"realtime, panic", true, func() { panic("boom") }},
			run{"realtime, goexit", true, runtime.Goexit},
			run{"realtime again", true, nil})
	} else {
		t.Logf("SCHED_FIFO refused here, only nice -20 is checked: %s", caps)
	}
	raised := 0
	for _, r := range runs {
		cfg := DefaultConfig()
		cfg.Realtime = r.realtime
		// An hour: without CAP_SYS_RESOURCE the hard RLIMIT_RTTIME Pin sets
		// stays for the life of the test process.
		cfg.RTTimeLimit = time.Hour
		var res Result
		var err error
		if r.bad != nil {
			var calls, tid atomic.Int64
			mid := midRunConfig()
			mid.Realtime, mid.RTTimeLimit = r.realtime, cfg.RTTimeLimit
			_, err = Measure(context.Background(), mid, Target{Run: misbehaveAt(50, r.bad, &calls, &tid)})
			if err == nil {
				t.Fatalf("%s: Measure returned no error", r.name)
			}
			continue
		}
		cfg.MaxSamples = 200
		res, err = Measure(context.Background(), cfg, Target{Run: addKernel(1000)})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		want := "high"
		if r.realtime {
			want = "realtime"
		}
		if res.Priority == want {
			raised++
		}
		t.Logf("%s: measured at priority %s on cpu %d", r.name, res.Priority, res.CPU)
	}
	if raised == 0 {
		t.Fatalf("no Measure obtained the priority asked for, though Probe says %s", caps)
	}
	for _, ts := range allTasks(t) {
		if ts.policy != unix.SCHED_NORMAL || ts.rtprio != 0 {
			t.Errorf("thread %d (%s) left at policy %d rt priority %d", ts.tid, ts.comm, ts.policy, ts.rtprio)
		}
		if ts.nice < minNice {
			t.Errorf("thread %d (%s) left at nice %d (lowest before: %d)", ts.tid, ts.comm, ts.nice, minNice)
		}
		if a, err := unix.SchedGetAttr(ts.tid, 0); err == nil && a.Policy != unix.SCHED_NORMAL {
			t.Errorf("sched_getattr: thread %d at policy %d", ts.tid, a.Policy)
		}
	}
	var rl unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rl); err != nil {
		t.Fatal(err)
	}
	if want := min(rlBefore.Cur, rl.Max); rl.Cur != want {
		t.Errorf("soft RLIMIT_RTTIME %d after the Measures, want %d (before %d, hard now %d)", rl.Cur, want, rlBefore.Cur, rl.Max)
	}
}
