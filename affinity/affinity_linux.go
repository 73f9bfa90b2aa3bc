//go:build linux

package affinity

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pinState is what Pin changed on Linux and the values to put back. Each
// flag is cleared once its value has been restored, so Restore can be
// retried after a partial failure without undoing anything twice.
type pinState struct {
	mask     unix.CPUSetDynamic
	maskSet  bool
	nice     int
	niceSet  bool
	attr     unix.SchedAttr
	schedSet bool
	rlim     unix.Rlimit
	rlimSet  bool
}

// threadMask returns the affinity mask of thread tid (0: the calling thread),
// growing the set until the kernel accepts its size.
func threadMask(tid int) (unix.CPUSetDynamic, error) {
	n := max(1024, runtime.NumCPU())
	for {
		s := unix.NewCPUSet(n)
		err := unix.SchedGetaffinityDynamic(tid, s)
		if err == nil {
			return s, nil
		}
		if err != unix.EINVAL || n >= 1<<22 {
			return nil, fmt.Errorf("affinity: sched_getaffinity of thread %d: %w", tid, err)
		}
		n *= 2
	}
}

func maskCPUs(s unix.CPUSetDynamic) []int {
	cpus := make([]int, 0, s.Count())
	for c := 0; c < len(s)*int(unsafe.Sizeof(s[0]))*8; c++ {
		if s.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// setThreadCPU sets the affinity of thread tid to the single CPU cpu.
func setThreadCPU(tid, cpu, size int) error {
	s := unix.NewCPUSet(max(size, cpu+1))
	s.Set(cpu)
	if err := unix.SchedSetaffinityDynamic(tid, s); err != nil {
		return fmt.Errorf("affinity: sched_setaffinity of thread %d to cpu %d: %w", tid, cpu, err)
	}
	return nil
}

// Allowed returns the CPUs the calling thread may run on, ascending. It is
// the thread's sched_getaffinity mask, which already reflects cgroup cpuset
// limits and taskset. Call it from a goroutine locked with
// runtime.LockOSThread (or after [Pin]) for an answer about a thread that
// stays the same.
func Allowed() ([]int, error) {
	s, err := threadMask(0)
	if err != nil {
		return nil, err
	}
	return maskCPUs(s), nil
}

// CurrentCPU returns the CPU the calling thread is running on now (getcpu(2)).
// Unless the thread is pinned, the answer may be stale as soon as it returns.
func CurrentCPU() (int, error) {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return -1, fmt.Errorf("affinity: getcpu: %w", e)
	}
	return int(cpu), nil
}

// ThreadID returns the OS id of the calling thread (gettid(2)).
func ThreadID() int { return unix.Gettid() }

// SetThreadCPU pins the OS thread tid (any thread of any process the caller
// may change; see [ThreadID]) to cpu with sched_setaffinity. It does not
// check cpu against an allowed set: the kernel refuses a CPU the thread may
// not use. It is meant for tests that force a migration.
func SetThreadCPU(tid int, cpu int) error {
	if tid <= 0 {
		return fmt.Errorf("%w: thread id %d: want > 0", ErrInvalidOption, tid)
	}
	if cpu < 0 {
		return fmt.Errorf("%w: cpu %d: want >= 0", ErrInvalidCPU, cpu)
	}
	return setThreadCPU(tid, cpu, 0)
}

// getNice returns the nice value of thread tid. The raw getpriority system
// call returns 20-nice so that it is never negative.
func getNice(tid int) (int, error) {
	r, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, fmt.Errorf("affinity: getpriority of thread %d: %w", tid, err)
	}
	return 20 - r, nil
}

// ThreadState reads back the calling thread's mask, nice value, scheduling
// policy and priority, and the process's soft RLIMIT_RTTIME.
func ThreadState() (State, error) {
	tid := unix.Gettid()
	m, err := threadMask(tid)
	if err != nil {
		return State{}, err
	}
	nice, err := getNice(tid)
	if err != nil {
		return State{}, err
	}
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return State{}, fmt.Errorf("affinity: sched_getattr of thread %d: %w", tid, err)
	}
	var rl unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &rl); err != nil {
		return State{}, fmt.Errorf("affinity: getrlimit RLIMIT_RTTIME: %w", err)
	}
	return State{
		Mask:        maskCPUs(m),
		Nice:        nice,
		Policy:      int(a.Policy),
		RTPriority:  int(a.Priority),
		RTTimeLimit: rl.Cur,
	}, nil
}

// Pin locks the calling goroutine to its OS thread (runtime.LockOSThread),
// pins that thread to one CPU and raises its priority as o asks. Everything
// it changes affects only the calling thread, except RLIMIT_RTTIME, which is
// a process-wide limit (so do not hold realtime pins on several goroutines at
// once).
//
// Order: lock the thread; save its mask, then set the mask to o.CPU (or the
// highest allowed CPU for -1). For PriorityHigh, save the nice value and set
// it to -20 (setpriority on the thread id). For PriorityRealtime, save
// RLIMIT_RTTIME and lower it to o.RTTimeLimit (soft and hard), then save the
// scheduling attributes and switch to SCHED_FIFO at [RealtimePriority]; if
// that is refused, Pin falls back to PriorityHigh.
//
// A priority that cannot be raised is not an error: Pinned.Priority says what
// was obtained and Pinned.Warnings why. Bad options or a CPU outside the
// allowed set are errors; on any error Pin undoes what it did, including the
// thread lock. On success the caller must call [Pinned.Restore] on the same
// goroutine, usually with defer.
func Pin(o Options) (*Pinned, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	p := &Pinned{CPU: -1, tid: unix.Gettid()}
	if err := p.pin(o); err != nil {
		if uerr := p.undo(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("affinity: undoing a failed pin: %w", uerr))
		}
		p.unlocked = true
		runtime.UnlockOSThread()
		return nil, err
	}
	return p, nil
}

func (p *Pinned) pin(o Options) error {
	m, err := threadMask(p.tid)
	if err != nil {
		return err
	}
	cpu, err := chooseCPU(o.CPU, maskCPUs(m))
	if err != nil {
		return err
	}
	p.st.mask = m
	if err := setThreadCPU(p.tid, cpu, len(m)*int(unsafe.Sizeof(m[0]))*8); err != nil {
		return err
	}
	p.st.maskSet = true
	p.CPU = cpu
	if now, err := CurrentCPU(); err != nil {
		p.Warnings = append(p.Warnings, err)
	} else if now != cpu {
		p.Warnings = append(p.Warnings, fmt.Errorf("affinity: thread pinned to cpu %d but running on cpu %d", cpu, now))
	}

	p.Priority = PriorityNormal
	if o.Priority == PriorityRealtime {
		if err := p.raiseRealtime(o); err != nil {
			p.Warnings = append(p.Warnings, priorityWarning(PriorityRealtime, err))
		} else {
			p.Priority = PriorityRealtime
			return nil
		}
	}
	if o.Priority >= PriorityHigh {
		if err := p.raiseHigh(); err != nil {
			p.Warnings = append(p.Warnings, priorityWarning(PriorityHigh, err))
		} else {
			p.Priority = PriorityHigh
		}
	}
	return nil
}

// raiseHigh sets the thread's nice value to -20.
func (p *Pinned) raiseHigh() error {
	nice, err := getNice(p.tid)
	if err != nil {
		return err
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, p.tid, -20); err != nil {
		return err
	}
	p.st.nice, p.st.niceSet = nice, true
	return nil
}

// raiseRealtime bounds RLIMIT_RTTIME, then switches the thread to SCHED_FIFO.
// On failure it puts the limit back itself.
func (p *Pinned) raiseRealtime(o Options) error {
	var old unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &old); err != nil {
		return fmt.Errorf("getrlimit RLIMIT_RTTIME: %w", err)
	}
	us := rtTimeMicros(o.RTTimeLimit)
	lim := unix.Rlimit{Cur: min(us, old.Max), Max: min(us, old.Max)}
	if err := unix.Prlimit(0, unix.RLIMIT_RTTIME, &lim, nil); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_RTTIME to %dus: %w", lim.Cur, err)
	}
	p.st.rlim, p.st.rlimSet = old, true
	if us > old.Max {
		p.Warnings = append(p.Warnings, fmt.Errorf("affinity: RLIMIT_RTTIME of %dus asked for, but the hard limit is %dus: using that", us, old.Max))
	}
	if lim.Max < old.Max && !hasCap(capSysResource) {
		p.Warnings = append(p.Warnings, fmt.Errorf("affinity: RLIMIT_RTTIME hard limit lowered from %s to %dus; without CAP_SYS_RESOURCE it cannot be raised again, only the soft limit will be restored", rlimString(old.Max), lim.Max))
	}

	a, err := unix.SchedGetAttr(p.tid, 0)
	if err != nil {
		p.undoRlimit()
		return fmt.Errorf("sched_getattr: %w", err)
	}
	rt := &unix.SchedAttr{
		Policy:   unix.SCHED_FIFO,
		Priority: RealtimePriority,
		Flags:    a.Flags & unix.SCHED_FLAG_RESET_ON_FORK,
	}
	err = unix.SchedSetAttr(p.tid, rt, 0)
	if err == unix.EPERM {
		// Unprivileged with RLIMIT_RTPRIO below RealtimePriority: take what
		// the limit allows.
		var rp unix.Rlimit
		if unix.Prlimit(0, unix.RLIMIT_RTPRIO, nil, &rp) == nil && rp.Cur > 0 && rp.Cur < RealtimePriority {
			rt.Priority = uint32(rp.Cur)
			err = unix.SchedSetAttr(p.tid, rt, 0)
		}
	}
	if err != nil {
		p.undoRlimit()
		return fmt.Errorf("sched_setattr SCHED_FIFO: %w", err)
	}
	p.st.attr, p.st.schedSet = *a, true
	return nil
}

func rlimString(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return fmt.Sprintf("%dus", v)
}

// undoRlimit restores RLIMIT_RTTIME. Without CAP_SYS_RESOURCE a lowered hard
// limit cannot be raised; then the soft limit is restored as far as the new
// hard limit allows, as Pin warned.
func (p *Pinned) undoRlimit() error {
	if !p.st.rlimSet {
		return nil
	}
	err := unix.Prlimit(0, unix.RLIMIT_RTTIME, &p.st.rlim, nil)
	if err == unix.EPERM {
		var cur unix.Rlimit
		if err = unix.Prlimit(0, unix.RLIMIT_RTTIME, nil, &cur); err == nil {
			cur.Cur = min(p.st.rlim.Cur, cur.Max)
			err = unix.Prlimit(0, unix.RLIMIT_RTTIME, &cur, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("affinity: restoring RLIMIT_RTTIME to %s: %w", rlimString(p.st.rlim.Cur), err)
	}
	p.st.rlimSet = false
	return nil
}

// undo restores what Pin changed, by thread id: scheduling policy first (so
// the thread is no longer real-time), then RLIMIT_RTTIME (kept as a safety
// bound if the policy could not be restored), nice, and the mask.
func (p *Pinned) undo() error {
	var errs []error
	if p.st.schedSet {
		a := p.st.attr
		a.Flags &^= unix.SCHED_FLAG_UTIL_CLAMP | unix.SCHED_FLAG_KEEP_ALL
		if err := unix.SchedSetAttr(p.tid, &a, 0); err != nil {
			errs = append(errs, fmt.Errorf("affinity: restoring scheduling policy %d priority %d of thread %d: %w", a.Policy, a.Priority, p.tid, err))
		} else {
			p.st.schedSet = false
		}
	}
	if !p.st.schedSet {
		if err := p.undoRlimit(); err != nil {
			errs = append(errs, err)
		}
	}
	if p.st.niceSet {
		if err := unix.Setpriority(unix.PRIO_PROCESS, p.tid, p.st.nice); err != nil {
			errs = append(errs, fmt.Errorf("affinity: restoring nice %d of thread %d: %w", p.st.nice, p.tid, err))
		} else {
			p.st.niceSet = false
		}
	}
	if p.st.maskSet {
		if err := unix.SchedSetaffinityDynamic(p.tid, p.st.mask); err != nil {
			errs = append(errs, fmt.Errorf("affinity: restoring cpu mask %s of thread %d: %w", FormatCPUs(maskCPUs(p.st.mask)), p.tid, err))
		} else {
			p.st.maskSet = false
		}
	}
	return errors.Join(errs...)
}

const (
	capSysNice     = 23
	capSysResource = 24
)

// hasCap reports whether the calling thread has capability c in its
// effective set.
func hasCap(c uint) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}

// Probe reports what this process could do. Pin: the thread's allowed set
// can be read and is not empty. High and Realtime are found by trying: a
// throwaway goroutine locks a new OS thread, sets nice -20 and then
// SCHED_FIFO, and puts both back; the goroutine exits still locked, so the
// runtime discards that thread whatever happened. Trying catches what
// checking euid, CAP_SYS_NICE, RLIMIT_NICE and RLIMIT_RTPRIO alone would
// miss (seccomp filters, cgroup v1 cpu.rt_runtime_us = 0); those values are
// still given in Notes. The probe sets no RLIMIT_RTTIME: the thread does
// nothing while it is real-time.
func Probe() Capabilities {
	var c Capabilities
	if cpus, err := Allowed(); err != nil {
		c.Notes = append(c.Notes, "pin: "+err.Error())
	} else {
		c.Pin = len(cpus) > 0
		c.Notes = append(c.Notes, "pin: allowed cpus "+FormatCPUs(cpus))
	}
	var nice, rtprio unix.Rlimit
	_ = unix.Prlimit(0, unix.RLIMIT_NICE, nil, &nice)
	_ = unix.Prlimit(0, unix.RLIMIT_RTPRIO, nil, &rtprio)
	c.Notes = append(c.Notes, fmt.Sprintf("euid %d, CAP_SYS_NICE %t, CAP_SYS_RESOURCE %t, RLIMIT_NICE %s, RLIMIT_RTPRIO %s",
		unix.Geteuid(), hasCap(capSysNice), hasCap(capSysResource), rlimPlain(nice.Cur), rlimPlain(rtprio.Cur)))

	type result struct {
		high, rt       bool
		highErr, rtErr error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		var r result
		tid := unix.Gettid()
		if old, err := getNice(tid); err != nil {
			r.highErr = err
		} else if err := unix.Setpriority(unix.PRIO_PROCESS, tid, -20); err != nil {
			r.highErr = err
		} else {
			r.high = true
			_ = unix.Setpriority(unix.PRIO_PROCESS, tid, old)
		}
		if a, err := unix.SchedGetAttr(tid, 0); err != nil {
			r.rtErr = err
		} else if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1}, 0); err != nil {
			r.rtErr = err
		} else {
			r.rt = true
			a.Flags &^= unix.SCHED_FLAG_UTIL_CLAMP | unix.SCHED_FLAG_KEEP_ALL
			_ = unix.SchedSetAttr(tid, a, 0)
		}
		ch <- r
	}()
	r := <-ch
	c.High, c.Realtime = r.high, r.rt
	if r.high {
		c.Notes = append(c.Notes, "high: nice -20 permitted")
	} else {
		c.Notes = append(c.Notes, fmt.Sprintf("high: nice -20 refused: %v", r.highErr))
	}
	if r.rt && !hasCap(capSysResource) {
		c.Notes = append(c.Notes, "realtime: SCHED_FIFO permitted; without CAP_SYS_RESOURCE the hard RLIMIT_RTTIME Pin sets stays lowered for the life of the process")
	} else if r.rt {
		c.Notes = append(c.Notes, "realtime: SCHED_FIFO permitted (Pin bounds it with RLIMIT_RTTIME)")
	} else {
		c.Notes = append(c.Notes, fmt.Sprintf("realtime: SCHED_FIFO refused: %v", r.rtErr))
	}
	return c
}

func rlimPlain(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return fmt.Sprint(v)
}
