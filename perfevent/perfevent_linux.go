//go:build linux

package perfevent

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readMax is the size of the read buffer for the largest group.
const readMax = readHeader + MaxEvents*readEntry

// Group is a perf_event group counting the thread that opened it. Its
// events are read together, in one system call, so their counts cover the
// same interval. A Group is not safe for concurrent use.
type Group struct {
	n      int
	events [MaxEvents]Event
	fds    [MaxEvents]int
	ids    [MaxEvents]uint64
	buf    [readMax]byte
	tid    int

	page     []byte // the first event's perf_event_mmap_page, when mapped
	rdpmcErr error  // why ReadRDPMC cannot work; nil when it can
	cleanup  runtime.Cleanup
	closed   bool

	// Warnings are soft problems found at Open: a software event counted for
	// user space only ([ErrUserOnly]).
	Warnings []error
}

// scope says which privilege levels an event counts.
type scope uint8

const (
	scopeUser scope = iota // exclude_kernel, exclude_hv
	scopeAll               // kernel and user (exclude_hv for hardware events)
)

func (s scope) String() string {
	if s == scopeUser {
		return "user space only"
	}
	return "kernel and user space"
}

// wantScope is the scope an event is opened with first. Hardware events
// count user space only: the measured code, not the kernel's work on its
// behalf. Software events count in every mode, because the kernel records
// context switches and migrations from kernel context: with exclude_kernel
// they always read 0 (measured on Linux 6.18).
func wantScope(e Event) scope {
	if e.Hardware() {
		return scopeUser
	}
	return scopeAll
}

// userOnlyMeaningful reports whether a software event still counts
// something when restricted to user space: faults taken in user mode, and
// the thread's clock. Context switches and migrations would read 0.
func userOnlyMeaningful(e Event) bool {
	switch e {
	case PageFaults, MinorFaults, MajorFaults, TaskClock:
		return true
	}
	return false
}

// attr builds the perf_event_attr for e in a group; leader events start
// disabled (the group is off until Enable), members follow their leader.
func attr(e Event, s scope, leader bool) unix.PerfEventAttr {
	a := unix.PerfEventAttr{
		Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Read_format: unix.PERF_FORMAT_GROUP | unix.PERF_FORMAT_ID | unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
		Bits:        unix.PerfBitExcludeHv,
	}
	if s == scopeUser {
		a.Bits |= unix.PerfBitExcludeKernel
	}
	if leader {
		a.Bits |= unix.PerfBitDisabled
	}
	a.Type, a.Config = typeConfig(e)
	return a
}

// typeConfig maps an event to perf_event_attr's type and config.
func typeConfig(e Event) (uint32, uint64) {
	switch e {
	case Cycles:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES
	case Instructions:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS
	case BranchMisses:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_MISSES
	case Branches:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS
	case CacheMisses:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CACHE_MISSES
	case CacheReferences:
		return unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CACHE_REFERENCES
	case ContextSwitches:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES
	case CPUMigrations:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_MIGRATIONS
	case PageFaults:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS
	case MinorFaults:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS_MIN
	case MajorFaults:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ
	case TaskClock:
		return unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK
	}
	return 0, 0 // not reached: Open checks events first
}

// perfEventOpen is the system call, a variable so that tests can replay the
// kernel's refusals.
var perfEventOpen = unix.PerfEventOpen

// Open opens a group of events counting the calling OS thread (pid 0, any
// CPU), disabled: call [Group.Enable] to start counting. The caller must
// have locked its goroutine to the thread (runtime.LockOSThread) and keep it
// there while it measures: the group counts that thread only, whichever
// goroutine runs on it, and no other thread of the process. Hardware events
// count user space only (exclude_kernel, exclude_hv); software events count
// kernel and user space (see the package documentation). The first event
// leads the group; when it is a hardware event its mmap page is mapped for
// [Group.ReadRDPMC].
//
// A bad list is an error wrapping [ErrBadEvents] or [ErrUnknownEvent]; an
// event the kernel refuses is an error wrapping [ErrUnavailable] and the
// reason ([ErrNoPMU], [ErrPermission], [ErrEventUnsupported],
// [ErrTooManyFiles]) that names the event. Close the group when done.
func Open(events []Event) (*Group, error) { return OpenThread(0, events) }

// OpenThread is [Open] for thread tid of this process (0: the calling
// thread), so that a group can be opened from another goroutine while the
// thread it counts goes on working: the first perf_event_open of a process
// can take milliseconds (the kernel patches its scheduler hooks in). The
// group counts tid wherever it is read from.
func OpenThread(tid int, events []Event) (*Group, error) {
	if err := checkEvents(events); err != nil {
		return nil, err
	}
	if tid == 0 {
		tid = unix.Gettid()
	}
	g := &Group{n: len(events), tid: tid}
	for i := range g.fds {
		g.fds[i] = -1
	}
	copy(g.events[:], events)
	for i, e := range events {
		groupFd := -1
		if i > 0 {
			groupFd = g.fds[0]
		}
		fd, warn, err := openEvent(tid, e, i == 0, groupFd)
		if err != nil {
			g.closeFds()
			return nil, err
		}
		g.fds[i] = fd
		if warn != nil {
			g.Warnings = append(g.Warnings, warn)
		}
		var id uint64
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(unix.PERF_EVENT_IOC_ID), uintptr(unsafe.Pointer(&id))); errno != 0 {
			g.closeFds()
			return nil, unavailable{fmt.Errorf("perfevent: %s: PERF_EVENT_IOC_ID: %w", e, errno)}
		}
		g.ids[i] = id
	}
	g.mapLeader()
	g.cleanup = runtime.AddCleanup(g, closeLeaked, leaked{fds: g.fds, page: g.page})
	return g, nil
}

// openEvent opens one event in the scope it wants, and, when the kernel
// refuses kernel-mode counting of a software event that still means
// something in user space, again for user space only with a warning.
func openEvent(tid int, e Event, leader bool, groupFd int) (fd int, warn, err error) {
	s := wantScope(e)
	a := attr(e, s, leader)
	fd, err = perfEventOpen(&a, tid, -1, groupFd, unix.PERF_FLAG_FD_CLOEXEC)
	if err == nil {
		return fd, nil, nil
	}
	denied := errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)
	if s == scopeAll && denied && userOnlyMeaningful(e) {
		a = attr(e, scopeUser, leader)
		if fd, err2 := perfEventOpen(&a, tid, -1, groupFd, unix.PERF_FLAG_FD_CLOEXEC); err2 == nil {
			if e == TaskClock {
				return fd, nil, nil // the thread's clock is the same in either mode
			}
			return fd, fmt.Errorf("%w: %s: kernel-mode counting refused (%s)", ErrUserOnly, e, paranoidNote(readParanoid)), nil
		}
	}
	return -1, nil, openError(e, s, err, readParanoid)
}

// openError turns perf_event_open's errno into an error naming the event and
// the reason; paranoid reads the perf_event_paranoid setting for permission
// errors. Every result matches ErrUnavailable.
func openError(e Event, s scope, err error, paranoid func() (int, error)) error {
	var errno unix.Errno
	if !errors.As(err, &errno) {
		return unavailable{fmt.Errorf("perfevent: %s: perf_event_open: %w", e, err)}
	}
	var r error
	switch errno {
	case unix.ENOENT, unix.EOPNOTSUPP, unix.ENODEV:
		if e.Hardware() {
			what := "the kernel has no PMU event for it"
			if errno == unix.EOPNOTSUPP {
				what = "the PMU cannot count it"
			}
			r = fmt.Errorf("%w (virtualised?): %s: %s, counting %s: %w (%s)", ErrNoPMU, e, what, s, errno, errnoName(errno))
		} else {
			r = fmt.Errorf("%w: %s: %w (%s)", ErrEventUnsupported, e, errno, errnoName(errno))
		}
	case unix.EACCES, unix.EPERM:
		why := ""
		if s == scopeAll && !e.Hardware() && !userOnlyMeaningful(e) {
			why = "; the kernel records it in kernel mode, so a user-space-only count would always be 0"
		}
		r = fmt.Errorf("%w: %s, counting %s%s: %s: %w (%s)", ErrPermission, e, s, why, paranoidNote(paranoid), errno, errnoName(errno))
	case unix.EMFILE, unix.ENFILE:
		r = fmt.Errorf("%w: %s: a group needs one file descriptor per event (ulimit -n): %w (%s)", ErrTooManyFiles, e, errno, errnoName(errno))
	case unix.ENOSYS:
		r = fmt.Errorf("perfevent: %s: kernel built without perf events (CONFIG_PERF_EVENTS) or a filter hides the system call: %w: %w (%s)", e, errors.ErrUnsupported, errno, errnoName(errno))
	case unix.EBUSY:
		r = fmt.Errorf("perfevent: %s: counter busy (another user holds the PMU exclusively): %w (%s)", e, errno, errnoName(errno))
	case unix.EINVAL:
		r = fmt.Errorf("%w: %s: the kernel rejected its attributes, counting %s: %w (%s)", ErrEventUnsupported, e, s, errno, errnoName(errno))
	default:
		r = fmt.Errorf("perfevent: %s: perf_event_open: %w (%s)", e, errno, errnoName(errno))
	}
	return unavailable{r}
}

// errnoName is the errno's symbolic name. EOPNOTSUPP and ENOTSUP are one
// value on Linux; the kernel's perf code returns it as EOPNOTSUPP.
func errnoName(errno unix.Errno) string {
	if errno == unix.EOPNOTSUPP {
		return "EOPNOTSUPP"
	}
	return unix.ErrnoName(errno)
}

// paranoidPath is where the kernel exposes its perf_event_paranoid setting.
const paranoidPath = "/proc/sys/kernel/perf_event_paranoid"

// Paranoid returns the kernel's perf_event_paranoid level from
// /proc/sys/kernel/perf_event_paranoid: −1 allows everything, 0 and 1 allow
// unprivileged processes to count kernel and user space, 2 (the default
// since Linux 4.6) user space only, and 3 or more (a distribution patch)
// nothing at all; CAP_PERFMON or CAP_SYS_ADMIN bypasses the check.
func Paranoid() (int, error) { return readParanoid() }

func readParanoid() (int, error) {
	b, err := os.ReadFile(paranoidPath)
	if err != nil {
		return 0, fmt.Errorf("perfevent: %w", err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("perfevent: %s: %w", paranoidPath, err)
	}
	return v, nil
}

// paranoidNote spells the paranoid level and what it allows, for permission
// errors.
func paranoidNote(paranoid func() (int, error)) string {
	lvl, err := paranoid()
	if err != nil {
		return fmt.Sprintf("perf_event_paranoid unknown (%v); CAP_PERFMON lifts the limit, a seccomp filter (containers) can also refuse", err)
	}
	var means string
	switch {
	case lvl >= 3:
		means = "unprivileged processes may not use perf_event_open at all"
	case lvl == 2:
		means = "unprivileged processes may count user space only"
	case lvl >= 0:
		means = "unprivileged processes may count kernel and user space of their own threads"
	default:
		means = "no restriction"
	}
	return fmt.Sprintf("perf_event_paranoid is %d (%s; CAP_PERFMON lifts the limit, a seccomp filter (containers) or security module can also refuse)", lvl, means)
}

// mapLeader maps the first event's perf_event_mmap_page when it is a
// hardware event and records why ReadRDPMC cannot work otherwise.
func (g *Group) mapLeader() {
	switch {
	case !g.events[0].Hardware():
		g.rdpmcErr = fmt.Errorf("%w: the first event, %s, is a software event (put a hardware event first)", ErrNoRDPMC, g.events[0])
		return
	case !haveRDPMC:
		g.rdpmcErr = fmt.Errorf("%w: %s", ErrNoRDPMC, noRDPMCReason)
		return
	}
	page, err := unix.Mmap(g.fds[0], 0, os.Getpagesize(), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		g.rdpmcErr = fmt.Errorf("%w: mmap of %s's page: %w", ErrNoRDPMC, g.events[0], err)
		return
	}
	g.page = page
	f, err := parsePage(page)
	if err == nil {
		err = f.rdpmcAllowed()
	}
	g.rdpmcErr = err
}

// leaked is what the cleanup of a group that was never closed releases.
type leaked struct {
	fds  [MaxEvents]int
	page []byte
}

func closeLeaked(l leaked) {
	if l.page != nil {
		_ = unix.Munmap(l.page)
	}
	for _, fd := range l.fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

func (g *Group) closeFds() {
	for i := len(g.fds) - 1; i >= 0; i-- {
		if g.fds[i] >= 0 {
			_ = unix.Close(g.fds[i])
			g.fds[i] = -1
		}
	}
}

// Events returns the group's events in order, in a new slice.
func (g *Group) Events() []Event { return append([]Event(nil), g.events[:g.n]...) }

// Thread returns the Linux thread id the group counts: the thread that
// called [Open].
func (g *Group) Thread() int { return g.tid }

func (g *Group) ioctl(req uint, what string) error {
	if g.closed {
		return ErrClosed
	}
	if err := unix.IoctlSetInt(g.fds[0], req, unix.PERF_IOC_FLAG_GROUP); err != nil {
		return fmt.Errorf("perfevent: %s: %w", what, err)
	}
	return nil
}

// Enable starts counting every event of the group (PERF_EVENT_IOC_ENABLE).
func (g *Group) Enable() error { return g.ioctl(unix.PERF_EVENT_IOC_ENABLE, "enable") }

// Disable stops counting; the counts are kept and can still be read.
func (g *Group) Disable() error { return g.ioctl(unix.PERF_EVENT_IOC_DISABLE, "disable") }

// Reset sets every count of the group to zero (PERF_EVENT_IOC_RESET). The
// kernel does not reset the times enabled and running, so a reading after
// Reset cannot be subtracted from one before it.
func (g *Group) Reset() error { return g.ioctl(unix.PERF_EVENT_IOC_RESET, "reset") }

// Read reads every count of the group, with one read(2) system call on the
// leader, into c: raw counts, the times enabled and running, and scaled
// values when the group was multiplexed. It does not allocate; it can be
// called from any thread, and always reads the counts of the thread that
// opened the group. An error wraps [ErrClosed], [ErrBadRead] or the system
// call's error, and leaves c unchanged.
func (g *Group) Read(c *Counts) error {
	if g.closed {
		return ErrClosed
	}
	// RawSyscall: a read of a perf_event group never blocks, so the
	// scheduler need not be told (saves the entersyscall/exitsyscall pair).
	n, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(g.fds[0]), uintptr(unsafe.Pointer(&g.buf[0])), uintptr(len(g.buf)))
	if errno != 0 {
		return fmt.Errorf("perfevent: read: %w", errno)
	}
	return decodeGroup(g.buf[:n], g.n, &g.events, &g.ids, c)
}

// RDPMCErr returns nil when [Group.ReadRDPMC] can read the first event from
// user space, and otherwise an error wrapping [ErrNoRDPMC] that says why:
// not amd64, a software first event, or the kernel not allowing it
// (cap_user_rdpmc). A nil result at Open does not guarantee every read: see
// ReadRDPMC.
func (g *Group) RDPMCErr() error {
	if g.closed {
		return ErrClosed
	}
	return g.rdpmcErr
}

// ReadRDPMC reads the count of the group's first event from user space,
// without a system call: RDPMC between LFENCEs, inside the seqlock protocol
// of the event's perf_event_mmap_page, the counter's value sign-extended from
// its width and added to the page's offset. The value is the raw count since
// open or reset (not scaled). It must be called on the thread the group
// counts, while the group is enabled and on the counters; otherwise (index 0
// in the page) it returns an error wrapping [ErrNoRDPMC], as it does whenever
// [Group.RDPMCErr] is not nil.
func (g *Group) ReadRDPMC() (uint64, error) {
	if g.closed {
		return 0, ErrClosed
	}
	if g.rdpmcErr != nil {
		return 0, g.rdpmcErr
	}
	return seqRead(g.page, rdpmc)
}

// Close releases the group's file descriptors and mapping. It is safe to
// call more than once.
func (g *Group) Close() error {
	if g.closed {
		return nil
	}
	g.closed = true
	g.cleanup.Stop()
	var err error
	if g.page != nil {
		err = unix.Munmap(g.page)
		g.page = nil
	}
	for i := g.n - 1; i >= 0; i-- {
		if e := unix.Close(g.fds[i]); e != nil && err == nil {
			err = e
		}
		g.fds[i] = -1
	}
	if err != nil {
		return fmt.Errorf("perfevent: close: %w", err)
	}
	return nil
}

// Probe tries each of [Known]'s events alone, on the calling thread (locked
// for the duration), and reports which the kernel will count and why not.
// For an available hardware event it also enables the event and tries one
// [Group.ReadRDPMC].
func Probe() []Status {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var st []Status
	for _, e := range Known() {
		s := Status{Event: e}
		g, err := Open([]Event{e})
		if err != nil {
			s.Err = err
			s.RDPMC = fmt.Errorf("%w: %s is unavailable", ErrNoRDPMC, e)
			st = append(st, s)
			continue
		}
		s.Available = true
		s.Warnings = g.Warnings
		s.RDPMC = g.RDPMCErr()
		if s.RDPMC == nil {
			if err := g.Enable(); err != nil {
				s.RDPMC = fmt.Errorf("%w: %w", ErrNoRDPMC, err)
			} else {
				_, s.RDPMC = g.ReadRDPMC()
			}
		}
		_ = g.Close()
		st = append(st, s)
	}
	return st
}
