//go:build linux

package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"golang.org/x/sys/unix"
)

// The reliability tests that need a process of their own (a CPU burner, a
// thread spinning at SCHED_FIFO) re-execute this test binary running only
// TestReliabilityHelperProcess, which does what CYCLEBENCH_HELPER says.
const (
	helperEnv    = "CYCLEBENCH_HELPER"
	helperCPUEnv = "CYCLEBENCH_HELPER_CPU"
	// Exit statuses of the helper process besides 0 (done) and 1 (failed).
	helperNoRealtime = 4 // SCHED_FIFO refused: the caller skips
	helperNotWired   = 5 // Measure does not use the realtime guard yet
	// helperResultPrefix starts the one line of JSON a helper reports.
	helperResultPrefix = "HELPER-RESULT "
	// helperReadyLine is printed by a burner once it spins on its CPU.
	helperReadyLine = "HELPER-READY"
)

// helperReport is what a helper process prints as its result.
type helperReport struct {
	Err        string  `json:"err,omitempty"`
	IsLimit    bool    `json:"is_limit"`    // errors.Is(err, ErrRealtimeLimit)
	TripMs     float64 `json:"trip_ms"`     // from the spinning thread going realtime to the guard's error
	Policy     int     `json:"policy"`      // of the spinning thread afterwards
	RTPriority int     `json:"rt_priority"` // of the spinning thread afterwards
	Nice       int     `json:"nice"`        // of the spinning thread afterwards
	Mask       []int   `json:"mask"`        // of the spinning thread afterwards
	MaskBefore []int   `json:"mask_before"` // of the process's threads before pinning
	NiceBefore int     `json:"nice_before"`
	Alive      bool    `json:"alive"` // the abandoned thread still exists
}

// TestReliabilityHelperProcess is not a test: it is the body of the helper
// processes the other reliability tests start.
func TestReliabilityHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process for the reliability tests; runs only when they start it")
	}
	var code int
	switch mode {
	case "burn":
		code = helperBurn()
	case "guard-spin":
		code = helperGuardSpin()
	case "pin-spin":
		code = helperPinSpin()
	case "measure-spin":
		code = helperMeasureSpin()
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		code = 1
	}
	os.Exit(code)
}

// helperSink keeps the helpers' spin loops from being optimised away.
var helperSink uint64

// spinForever never returns.
func spinForever() {
	for {
		helperSink++
	}
}

// helperBurn pins its thread to the CPU in CYCLEBENCH_HELPER_CPU and spins
// at normal priority until killed.
func helperBurn() int {
	cpu, err := strconv.Atoi(os.Getenv(helperCPUEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "burn:", err)
		return 1
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		fmt.Fprintf(os.Stderr, "burn: sched_setaffinity cpu %d: %v\n", cpu, err)
		return 1
	}
	fmt.Println(helperReadyLine)
	spinForever()
	return 0
}

func helperPrint(r helperReport) {
	b, _ := json.Marshal(r)
	fmt.Println(helperResultPrefix + string(b))
}

// helperThreadState reads thread tid's policy, rt priority, nice value and mask.
func helperThreadState(tid int) (policy, rtprio, nice int, mask []int, err error) {
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("sched_getattr %d: %w", tid, err)
	}
	r, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("getpriority %d: %w", tid, err)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("sched_getaffinity %d: %w", tid, err)
	}
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			mask = append(mask, c)
		}
	}
	return int(a.Policy), int(a.Priority), 20 - r, mask, nil
}

const helperRTLimit = 200 * time.Millisecond

// helperGuardSpin proves the guard's mechanism without Measure: a body run
// by pinned.Run at SCHED_FIFO (RLIMIT_RTTIME 200 ms) spins forever; the
// guard must demote its thread and Run report ErrRealtimeLimit.
func helperGuardSpin() int {
	before, err := affinity.ThreadState()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	type ready struct {
		tid   int
		start time.Time
	}
	readyc := make(chan ready, 1)
	_, err = pinned.Run(pinned.Options{CPU: AnyCPU, Priority: affinity.PriorityRealtime, RTTimeLimit: helperRTLimit}, func(th *pinned.Thread) error {
		if th.Priority != affinity.PriorityRealtime {
			return errHelperNoRealtime
		}
		readyc <- ready{tid: affinity.ThreadID(), start: time.Now()}
		spinForever()
		return nil
	})
	if errors.Is(err, errHelperNoRealtime) {
		return helperNoRealtime
	}
	select {
	case r := <-readyc:
		return helperReportTrip(err, r.tid, r.start, before)
	default:
		fmt.Fprintln(os.Stderr, "the spinning body never ran:", err)
		return 1
	}
}

var errHelperNoRealtime = errors.New("SCHED_FIFO refused")

func helperReportTrip(err error, tid int, start time.Time, before affinity.State) int {
	rep := helperReport{TripMs: float64(time.Since(start)) / 1e6, MaskBefore: before.Mask, NiceBefore: before.Nice}
	if err != nil {
		rep.Err, rep.IsLimit = err.Error(), errors.Is(err, ErrRealtimeLimit)
	}
	var serr error
	rep.Policy, rep.RTPriority, rep.Nice, rep.Mask, serr = helperThreadState(tid)
	if serr != nil {
		fmt.Fprintln(os.Stderr, serr)
		return 1
	}
	_, statErr := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
	rep.Alive = statErr == nil
	helperPrint(rep)
	return 0
}

// helperPinSpin spins at SCHED_FIFO with RLIMIT_RTTIME 200 ms and no guard:
// what the kernel alone does about it.
func helperPinSpin() int {
	runtime.LockOSThread()
	p, err := affinity.Pin(affinity.Options{CPU: AnyCPU, Priority: affinity.PriorityRealtime, RTTimeLimit: helperRTLimit})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if p.Priority != affinity.PriorityRealtime {
		return helperNoRealtime
	}
	fmt.Println(helperReadyLine)
	spinForever()
	return 0
}

// helperMeasureSpin measures a function that never returns with Realtime
// and RTTimeLimit 200 ms: Measure must return ErrRealtimeLimit. It first
// checks, with a function that does return, that Measure arms the guard.
func helperMeasureSpin() int {
	before, err := affinity.ThreadState()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg := DefaultConfig()
	cfg.Realtime, cfg.RTTimeLimit = true, helperRTLimit
	cfg.MaxSamples, cfg.NoCycles = 20, true
	r, err := Measure(context.Background(), cfg, Target{Run: addKernel(100)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "realtime Measure of a function that returns:", err)
		return 1
	}
	if r.Priority != affinity.PriorityRealtime.String() {
		return helperNoRealtime
	}
	if pinned.GuardsArmed() == 0 {
		return helperNotWired
	}
	tidc := make(chan int, 1)
	start := time.Now()
	_, err = Measure(context.Background(), cfg, Target{Run: func() {
		select {
		case tidc <- affinity.ThreadID():
		default:
		}
		spinForever()
	}})
	tid := 0
	select {
	case tid = <-tidc:
	default:
		fmt.Fprintln(os.Stderr, "the spinning function never ran; Measure returned", err)
		return 1
	}
	return helperReportTrip(err, tid, start, before)
}

// helperResult is how a helper process ended.
type helperResult struct {
	report   *helperReport
	stdout   string
	stderr   string
	state    *os.ProcessState
	elapsed  time.Duration
	timedOut bool
}

// runHelper runs this test binary as helper mode with extra environment
// variables, kills it after timeout, and returns how it ended.
func runHelper(t *testing.T, mode string, env []string, timeout time.Duration) helperResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to re-execute: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestReliabilityHelperProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	res := helperResult{stdout: out.String(), stderr: errb.String(), state: cmd.ProcessState, elapsed: time.Since(start), timedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		skipIfCannotExec(t, err)
		t.Fatalf("helper %s: %v", mode, err)
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		if s, ok := strings.CutPrefix(line, helperResultPrefix); ok {
			res.report = new(helperReport)
			if err := json.Unmarshal([]byte(s), res.report); err != nil {
				t.Fatalf("helper %s printed %q: %v", mode, s, err)
			}
		}
	}
	return res
}

// skipIfCannotExec skips the test when err says this binary cannot be
// executed directly: under user-mode emulation (go test -exec
// qemu-aarch64-static) without binfmt_misc, the kernel refuses the guest's
// binary with ENOEXEC.
func skipIfCannotExec(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("cannot re-execute the test binary (%v): emulated without binfmt_misc?", err)
	}
}

// helperSignal returns the signal that ended the process, if one did.
func helperSignal(st *os.ProcessState) (syscall.Signal, bool) {
	if st == nil {
		return 0, false
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// startBurner starts a helper process spinning on cpu at normal priority,
// waits until it spins, and returns a function that kills it (by PID); it
// is killed when the test ends in any case.
func startBurner(t *testing.T, cpu int) (stop func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary to re-execute: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^TestReliabilityHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=burn", helperCPUEnv+"="+strconv.Itoa(cpu))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		skipIfCannotExec(t, err)
		t.Fatalf("starting the burner: %v", err)
	}
	pid := cmd.Process.Pid
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == helperReadyLine {
				ready <- nil
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- fmt.Errorf("burner exited before spinning (%v)", sc.Err())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("burner did not start spinning in 10s")
	}
	return stop
}
