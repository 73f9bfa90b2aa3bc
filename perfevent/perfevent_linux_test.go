//go:build linux

package perfevent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestPageOffsetsMatchUAPI(t *testing.T) {
	var p unix.PerfEventMmapPage
	tests := []struct {
		name      string
		ours, sys uintptr
	}{
		{"lock", pageLock, unsafe.Offsetof(p.Lock)},
		{"index", pageIndex, unsafe.Offsetof(p.Index)},
		{"offset", pageOffset, unsafe.Offsetof(p.Offset)},
		{"time_enabled", pageTimeEnabled, unsafe.Offsetof(p.Time_enabled)},
		{"time_running", pageTimeRunning, unsafe.Offsetof(p.Time_running)},
		{"capabilities", pageCapabilities, unsafe.Offsetof(p.Capabilities)},
		{"pmc_width", pagePMCWidth, unsafe.Offsetof(p.Pmc_width)},
	}
	for _, tt := range tests {
		if tt.ours != tt.sys {
			t.Errorf("%s at %d, x/sys/unix says %d", tt.name, tt.ours, tt.sys)
		}
	}
	if pageMin > unsafe.Sizeof(p) {
		t.Errorf("pageMin %d beyond the page struct (%d bytes)", pageMin, unsafe.Sizeof(p))
	}
}

func TestAttr(t *testing.T) {
	for _, e := range Known() {
		t.Run(e.String(), func(t *testing.T) {
			s := wantScope(e)
			a := attr(e, s, true)
			typ, cfg := typeConfig(e)
			if a.Type != typ || a.Config != cfg {
				t.Errorf("type/config %d/%d, want %d/%d", a.Type, a.Config, typ, cfg)
			}
			if e.Hardware() != (typ == unix.PERF_TYPE_HARDWARE) {
				t.Errorf("Hardware() = %v but type %d", e.Hardware(), typ)
			}
			if a.Bits&unix.PerfBitDisabled == 0 || attr(e, s, false).Bits&unix.PerfBitDisabled != 0 {
				t.Error("only the leader starts disabled")
			}
			if a.Bits&unix.PerfBitExcludeHv == 0 {
				t.Error("exclude_hv not set")
			}
			if kernelExcluded := a.Bits&unix.PerfBitExcludeKernel != 0; kernelExcluded != e.Hardware() {
				t.Errorf("exclude_kernel = %v; want it for hardware events only", kernelExcluded)
			}
			if attr(e, scopeUser, false).Bits&unix.PerfBitExcludeKernel == 0 {
				t.Error("user scope without exclude_kernel")
			}
			want := uint64(unix.PERF_FORMAT_GROUP | unix.PERF_FORMAT_ID | unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING)
			if a.Read_format != want || a.Size != uint32(unsafe.Sizeof(a)) {
				t.Errorf("read_format %#x size %d", a.Read_format, a.Size)
			}
		})
	}
}

func TestOpenError(t *testing.T) {
	paranoid2 := func() (int, error) { return 2, nil }
	tests := []struct {
		e       Event
		s       scope
		errno   error
		is      []error
		mention []string
	}{
		{Cycles, scopeUser, unix.ENOENT, []error{ErrNoPMU, unix.ENOENT}, []string{"no hardware PMU (virtualised?)", "cycles", "ENOENT", "user space only"}},
		{Instructions, scopeUser, unix.EOPNOTSUPP, []error{ErrNoPMU}, []string{"instructions", "EOPNOTSUPP", "cannot count"}},
		{BranchMisses, scopeUser, unix.ENODEV, []error{ErrNoPMU}, []string{"ENODEV"}},
		{MajorFaults, scopeAll, unix.ENOENT, []error{ErrEventUnsupported}, []string{"major-faults", "ENOENT"}},
		{ContextSwitches, scopeAll, unix.EACCES, []error{ErrPermission, unix.EACCES},
			[]string{"context-switches", "perf_event_paranoid is 2", "user space only", "always be 0", "CAP_PERFMON", "EACCES"}},
		{Cycles, scopeUser, unix.EPERM, []error{ErrPermission}, []string{"perf_event_paranoid is 2", "seccomp", "EPERM"}},
		{PageFaults, scopeAll, unix.EMFILE, []error{ErrTooManyFiles}, []string{"page-faults", "ulimit -n", "EMFILE"}},
		{PageFaults, scopeAll, unix.ENFILE, []error{ErrTooManyFiles}, []string{"ENFILE"}},
		{TaskClock, scopeAll, unix.ENOSYS, []error{errors.ErrUnsupported}, []string{"CONFIG_PERF_EVENTS"}},
		{Cycles, scopeUser, unix.EBUSY, nil, []string{"busy"}},
		{Cycles, scopeUser, unix.EINVAL, []error{ErrEventUnsupported}, []string{"rejected its attributes"}},
		{Cycles, scopeUser, unix.E2BIG, []error{unix.E2BIG}, []string{"cycles", "E2BIG"}},
		{Cycles, scopeUser, io.EOF, []error{io.EOF}, []string{"cycles"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.e, tt.errno), func(t *testing.T) {
			err := openError(tt.e, tt.s, tt.errno, paranoid2)
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("%v does not match ErrUnavailable", err)
			}
			for _, is := range tt.is {
				if !errors.Is(err, is) {
					t.Errorf("%v does not match %v", err, is)
				}
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%q does not mention %q", err, m)
				}
			}
			if !strings.HasPrefix(err.Error(), "perfevent: ") {
				t.Errorf("%q lacks the package prefix", err)
			}
		})
	}
}

func TestParanoidNote(t *testing.T) {
	tests := []struct {
		lvl  int
		err  error
		want string
	}{
		{-1, nil, "is -1 (no restriction"},
		{1, nil, "is 1 (unprivileged processes may count kernel and user space"},
		{2, nil, "is 2 (unprivileged processes may count user space only"},
		{4, nil, "is 4 (unprivileged processes may not use perf_event_open at all"},
		{0, os.ErrNotExist, "perf_event_paranoid unknown (file does not exist)"},
	}
	for _, tt := range tests {
		got := paranoidNote(func() (int, error) { return tt.lvl, tt.err })
		if !strings.Contains(got, tt.want) {
			t.Errorf("paranoidNote(%d, %v) = %q, want it to contain %q", tt.lvl, tt.err, got, tt.want)
		}
	}
}

func TestParanoid(t *testing.T) {
	lvl, err := Paranoid()
	if _, statErr := os.Stat(paranoidPath); statErr != nil {
		t.Skipf("%s: %v", paranoidPath, statErr)
	}
	if err != nil || lvl < -1 {
		t.Errorf("Paranoid() = %d, %v", lvl, err)
	}
}

// lockThread locks the test's goroutine to its thread for the test: a
// group counts one thread.
func lockThread(t *testing.T) {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// openOrSkip opens a group or skips with the kernel's reason when
// perf_event_open is unavailable here (a seccomp filter, a kernel without
// perf events).
func openOrSkip(t *testing.T, evs ...Event) *Group {
	t.Helper()
	g, err := Open(evs)
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Open(%v): %v does not match ErrUnavailable", evs, err)
		}
		t.Skipf("Open(%v): %v", evs, err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	})
	return g
}

func read(t *testing.T, g *Group) Counts {
	t.Helper()
	var c Counts
	if err := g.Read(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

func value(t *testing.T, c *Counts, e Event) uint64 {
	t.Helper()
	v, ok := c.Value(e)
	if !ok {
		t.Fatalf("%s missing from %v", e, c.Events[:c.N])
	}
	return v
}

// TestContextSwitches: sleeping gives the CPU away, so a group of
// software events counts at least one context switch. A 1 ms sleep on a
// locked thread parks the thread in the kernel; on the rare run where every
// sleep is served by spinning, the attempt is repeated, up to 3 times.
func TestContextSwitches(t *testing.T) {
	lockThread(t)
	g := openOrSkip(t, ContextSwitches, CPUMigrations, PageFaults)
	if g.Thread() != unix.Gettid() {
		t.Errorf("Thread() = %d, want the caller's %d", g.Thread(), unix.Gettid())
	}
	var switches uint64
	for attempt := 1; attempt <= 3 && switches == 0; attempt++ {
		before := read(t, g)
		if err := g.Enable(); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if err := g.Disable(); err != nil {
			t.Fatal(err)
		}
		after := read(t, g)
		var d Counts
		if err := d.Delta(&before, &after); err != nil {
			t.Fatal(err)
		}
		if d.Multiplexed || d.TimeRunning != d.TimeEnabled || d.TimeEnabled <= 0 {
			t.Errorf("software group multiplexed or not running: enabled %v, running %v", d.TimeEnabled, d.TimeRunning)
		}
		switches = value(t, &d, ContextSwitches)
		t.Logf("attempt %d: %d context switches, %d migrations, %d page faults in %v on the thread",
			attempt, switches, value(t, &d, CPUMigrations), value(t, &d, PageFaults), d.TimeEnabled)
		if switches > 0 && !after.Changed(&before) {
			t.Error("Changed is false although the switches moved")
		}
	}
	if switches == 0 {
		t.Error("no context switch counted in 3 attempts of 5 sleeps of 1 ms")
	}
}

// TestPageFaults touches n fresh anonymous pages, one write per page: each
// first write faults. The count is not exactly n: the runtime's own work on
// this thread can add a few faults, and the kernel can map several pages in
// one fault (transparent huge pages, if MADV_NOHUGEPAGE is refused; fault-
// around on some configurations). So the test asks for at least n/2 and at
// most 2n.
func TestPageFaults(t *testing.T) {
	lockThread(t)
	g := openOrSkip(t, ContextSwitches, CPUMigrations, PageFaults, MinorFaults)
	const n = 256
	ps := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, n*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	_ = unix.Madvise(mem, unix.MADV_NOHUGEPAGE) // one fault per page, not per 2 MiB
	if err := g.Enable(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(mem); i += ps {
		mem[i] = 1
	}
	if err := g.Disable(); err != nil {
		t.Fatal(err)
	}
	c := read(t, g)
	faults, minor := value(t, &c, PageFaults), value(t, &c, MinorFaults)
	t.Logf("%d pages of %d bytes touched: %d page faults, %d minor", n, ps, faults, minor)
	if faults < n/2 || faults > 2*n {
		t.Errorf("%d page faults for %d fresh pages, want %d to %d", faults, n, n/2, 2*n)
	}
	if minor > faults {
		t.Errorf("%d minor faults > %d faults", minor, faults)
	}
}

// TestDisabledAndReset: a group opened disabled counts nothing; a disabled
// group keeps its counts; Reset zeroes them.
func TestDisabledAndReset(t *testing.T) {
	lockThread(t)
	g := openOrSkip(t, PageFaults, TaskClock)
	touch := func() {
		mem, err := unix.Mmap(-1, 0, 16*os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(mem); i += os.Getpagesize() {
			mem[i] = 1
		}
		_ = unix.Munmap(mem)
	}
	touch()
	if c := read(t, g); c.Raw != [MaxEvents]uint64{} || c.TimeEnabled != 0 {
		t.Errorf("never-enabled group counted: %+v", c)
	}
	if err := g.Enable(); err != nil {
		t.Fatal(err)
	}
	touch()
	if err := g.Disable(); err != nil {
		t.Fatal(err)
	}
	stopped := read(t, g)
	if value(t, &stopped, PageFaults) == 0 || value(t, &stopped, TaskClock) == 0 {
		t.Errorf("enabled group counted nothing: %+v", stopped)
	}
	touch()
	if again := read(t, g); again.Changed(&stopped) {
		t.Errorf("disabled group kept counting: %v → %v", stopped.Raw[:2], again.Raw[:2])
	}
	if err := g.Reset(); err != nil {
		t.Fatal(err)
	}
	if c := read(t, g); c.Raw != [MaxEvents]uint64{} {
		t.Errorf("counts after Reset: %v", c.Raw[:2])
	}
}

func TestClosed(t *testing.T) {
	lockThread(t)
	g, err := Open([]Event{PageFaults})
	if err != nil {
		t.Skip(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	var c Counts
	for name, err := range map[string]error{"Read": g.Read(&c), "Enable": g.Enable(), "Disable": g.Disable(), "Reset": g.Reset(), "RDPMCErr": g.RDPMCErr()} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if _, err := g.ReadRDPMC(); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadRDPMC after Close: %v", err)
	}
}

func TestReadNoAlloc(t *testing.T) {
	lockThread(t)
	g := openOrSkip(t, ContextSwitches, CPUMigrations, PageFaults)
	if err := g.Enable(); err != nil {
		t.Fatal(err)
	}
	var before, after Counts
	allocs := testing.AllocsPerRun(1000, func() {
		_ = g.Read(&before)
		_ = g.Read(&after)
		_ = after.Changed(&before)
	})
	if allocs != 0 {
		t.Errorf("two Reads and Changed allocate %v times, want 0", allocs)
	}
}

// TestSoftwareOnlyRDPMC: a group led by a software event has no counter to
// read from user space, and says so.
func TestSoftwareOnlyRDPMC(t *testing.T) {
	lockThread(t)
	g := openOrSkip(t, ContextSwitches)
	for _, err := range []error{g.RDPMCErr(), func() error { _, err := g.ReadRDPMC(); return err }()} {
		if !errors.Is(err, ErrNoRDPMC) || !strings.Contains(err.Error(), "context-switches") {
			t.Errorf("error = %v, want ErrNoRDPMC naming the event", err)
		}
	}
}

// TestHardware counts cycles and instructions where a PMU exists, and
// otherwise checks that the error is the right one and skips with it.
func TestHardware(t *testing.T) {
	lockThread(t)
	g, err := Open([]Event{Cycles, Instructions, ContextSwitches})
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("%v does not match ErrUnavailable", err)
		}
		// On x86 the core PMU appears as "cpu" in sysfs; without it the
		// kernel must have said no PMU rather than something else.
		if _, statErr := os.Stat("/sys/bus/event_source/devices/cpu"); os.IsNotExist(statErr) && (runtime.GOARCH == "amd64" || runtime.GOARCH == "386") {
			if !errors.Is(err, ErrNoPMU) {
				t.Errorf("no cpu PMU in sysfs, but the error is %v, not ErrNoPMU", err)
			}
		}
		t.Skipf("hardware counters unavailable: %v", err)
	}
	defer g.Close()
	if err := g.Enable(); err != nil {
		t.Fatal(err)
	}
	x := 1
	for i := range 1_000_000 {
		x = x*3 + i
	}
	first, rdpmcErr := g.ReadRDPMC()
	if err := g.Disable(); err != nil {
		t.Fatal(err)
	}
	c := read(t, g)
	cyc, ins := value(t, &c, Cycles), value(t, &c, Instructions)
	t.Logf("cycles %d, instructions %d (x=%d), multiplexed %v; RDPMC: %d, %v", cyc, ins, x, c.Multiplexed, first, rdpmcErr)
	if cyc == 0 || ins < 1_000_000 {
		t.Errorf("cycles %d, instructions %d for a million-iteration loop", cyc, ins)
	}
	if rdpmcErr == nil && first > c.Raw[0] {
		t.Errorf("RDPMC read %d cycles before Read saw %d", first, c.Raw[0])
	}
	if rdpmcErr != nil && !errors.Is(rdpmcErr, ErrNoRDPMC) {
		t.Errorf("RDPMC error %v does not match ErrNoRDPMC", rdpmcErr)
	}
}

func TestProbe(t *testing.T) {
	st := Probe()
	if len(st) != numEvents {
		t.Fatalf("Probe returned %d statuses, want %d", len(st), numEvents)
	}
	for i, s := range st {
		if s.Event != Known()[i] {
			t.Errorf("status %d is %s, want %s", i, s.Event, Known()[i])
		}
		if s.Available == (s.Err != nil) {
			t.Errorf("%s: Available %v with Err %v", s.Event, s.Available, s.Err)
		}
		if s.Err != nil && (!errors.Is(s.Err, ErrUnavailable) || !strings.Contains(s.Err.Error(), s.Event.String())) {
			t.Errorf("%s: error %v does not match ErrUnavailable or name the event", s.Event, s.Err)
		}
		if s.RDPMC != nil && !errors.Is(s.RDPMC, ErrNoRDPMC) {
			t.Errorf("%s: RDPMC error %v does not match ErrNoRDPMC", s.Event, s.RDPMC)
		}
		if !s.Event.Hardware() && s.RDPMC == nil {
			t.Errorf("software event %s readable with RDPMC", s.Event)
		}
		t.Logf("%-16s available %-5v err %v; rdpmc %v", s.Event, s.Available, s.Err, s.RDPMC)
	}
}

// TestUserOnlyFallback replays a kernel that refuses kernel-mode counting
// (EACCES unless exclude_kernel), as under perf_event_paranoid 2 without
// CAP_PERFMON: faults fall back to user space with a warning, the task
// clock silently, and context switches fail with the reason.
func TestUserOnlyFallback(t *testing.T) {
	lockThread(t)
	// The real kernel must count page faults at all (qemu-user has no
	// perf_event_open: ENOSYS); the fake below only refuses kernel mode.
	if g, err := Open([]Event{PageFaults}); err != nil {
		t.Skipf("perf_event_open unavailable: %v", err)
	} else {
		g.Close()
	}
	real := perfEventOpen
	t.Cleanup(func() { perfEventOpen = real })
	var attempts int
	perfEventOpen = func(a *unix.PerfEventAttr, pid, cpu, groupFd, flags int) (int, error) {
		attempts++
		if a.Bits&unix.PerfBitExcludeKernel == 0 {
			return -1, unix.EACCES
		}
		return real(a, pid, cpu, groupFd, flags)
	}
	if _, err := Open([]Event{PageFaults}); err != nil && !errors.Is(err, ErrPermission) {
		perfEventOpen = real
		t.Skipf("perf_event_open unavailable: %v", err)
	}

	attempts = 0
	g, err := Open([]Event{PageFaults, TaskClock, MinorFaults})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if attempts != 6 {
		t.Errorf("%d perf_event_open calls, want 6 (each event twice)", attempts)
	}
	if len(g.Warnings) != 2 {
		t.Fatalf("warnings %v, want 2 (page-faults, minor-faults; not task-clock)", g.Warnings)
	}
	for i, e := range []Event{PageFaults, MinorFaults} {
		w := g.Warnings[i]
		if !errors.Is(w, ErrUserOnly) || !strings.Contains(w.Error(), e.String()) || !strings.Contains(w.Error(), "perf_event_paranoid") {
			t.Errorf("warning %v: want ErrUserOnly naming %s and perf_event_paranoid", w, e)
		}
	}

	for _, e := range []Event{ContextSwitches, CPUMigrations} {
		g, err := Open([]Event{PageFaults, e})
		if err == nil {
			g.Close()
			t.Fatalf("%s opened although kernel-mode counting is refused", e)
		}
		if !errors.Is(err, ErrPermission) || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), e.String()) || !strings.Contains(err.Error(), "always be 0") {
			t.Errorf("error %v: want ErrPermission naming %s and why user-only is useless", err, e)
		}
	}
}

// TestUnprivileged runs this test binary as nobody, where the real kernel
// applies perf_event_paranoid: at level 2 or more, kernel-mode counting is
// refused and the fallback of TestUserOnlyFallback happens for real.
func TestUnprivileged(t *testing.T) {
	if os.Getenv("PERFEVENT_UNPRIVILEGED_CHILD") == "1" {
		unprivilegedChild(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a child as nobody")
	}
	if lvl, err := Paranoid(); err != nil || lvl < 2 {
		t.Skipf("perf_event_paranoid %d (%v): unprivileged kernel-mode counting is allowed, nothing to check", lvl, err)
	}
	if _, err := Open([]Event{PageFaults}); err != nil {
		t.Skipf("perf_event_open unavailable even as root: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("", "perfevent-child")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	child := filepath.Join(dir, "perfevent.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(child, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(child, "-test.run=^TestUnprivileged$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PERFEVENT_UNPRIVILEGED_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("child as nobody:\n%s", out)
	if err != nil {
		t.Errorf("child: %v", err)
	}
}

func unprivilegedChild(t *testing.T) {
	lockThread(t)
	if os.Geteuid() == 0 {
		t.Fatal("child runs as root")
	}
	g, err := Open([]Event{PageFaults, TaskClock})
	if err != nil {
		t.Fatalf("page-faults, task-clock as nobody: %v", err)
	}
	defer g.Close()
	if len(g.Warnings) != 1 || !errors.Is(g.Warnings[0], ErrUserOnly) {
		t.Errorf("warnings %v, want one ErrUserOnly for page-faults", g.Warnings)
	}
	if err := g.Enable(); err != nil {
		t.Fatal(err)
	}
	mem := make([]byte, 64*os.Getpagesize())
	for i := 0; i < len(mem); i += os.Getpagesize() {
		mem[i] = 1
	}
	c := read(t, g)
	t.Logf("user-only: %d page faults, task clock %d ns; warning: %v", c.Raw[0], c.Raw[1], g.Warnings)
	if c.Raw[1] == 0 {
		t.Error("task clock did not advance")
	}
	_, err = Open([]Event{ContextSwitches})
	t.Logf("context-switches: %v", err)
	lvl, _ := Paranoid()
	if !errors.Is(err, ErrPermission) || !strings.Contains(err.Error(), fmt.Sprintf("perf_event_paranoid is %d", lvl)) {
		t.Errorf("context-switches as nobody: %v, want ErrPermission with perf_event_paranoid %d", err, lvl)
	}
}

// TestLeakedGroupIsClosed: a group dropped without Close releases its file
// descriptors once the garbage collector finds it (runtime.AddCleanup).
// Cleanups run asynchronously after a collection, so the test collects and
// polls for up to 5 s.
func TestLeakedGroupIsClosed(t *testing.T) {
	lockThread(t)
	fd := func() int {
		g, err := Open([]Event{ContextSwitches, PageFaults})
		if err != nil {
			t.Skip(err)
		}
		return g.fds[1]
	}()
	isOpen := func() bool {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		return err == nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for isOpen() && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if isOpen() {
		t.Errorf("fd %d of a leaked group still open after 5 s of collections", fd)
	}
}
