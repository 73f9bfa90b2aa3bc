//go:build windows

package affinity

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Calls golang.org/x/sys/windows does not wrap.
var (
	kernel32                      = windows.NewLazySystemDLL("kernel32.dll")
	procSetThreadAffinityMask     = kernel32.NewProc("SetThreadAffinityMask")
	procGetProcessAffinityMask    = kernel32.NewProc("GetProcessAffinityMask")
	procSetThreadPriority         = kernel32.NewProc("SetThreadPriority")
	procGetThreadPriority         = kernel32.NewProc("GetThreadPriority")
	procGetCurrentProcessorNumber = kernel32.NewProc("GetCurrentProcessorNumber")
)

const (
	threadPriorityHighest      = 2
	threadPriorityTimeCritical = 15
	threadPriorityErrorReturn  = 0x7fffffff
	threadAccess               = windows.THREAD_SET_INFORMATION | windows.THREAD_QUERY_INFORMATION
	maskBits                   = bits.UintSize
)

// callErr turns the error of a failed LazyProc.Call into a usable one.
func callErr(name string, err error) error {
	if errno, ok := err.(windows.Errno); !ok || errno == 0 {
		err = windows.ERROR_INVALID_FUNCTION
	}
	return fmt.Errorf("affinity: %s: %w", name, err)
}

func setThreadAffinityMask(h windows.Handle, mask uintptr) (uintptr, error) {
	if err := procSetThreadAffinityMask.Find(); err != nil {
		return 0, fmt.Errorf("affinity: SetThreadAffinityMask: %w", err)
	}
	old, _, err := procSetThreadAffinityMask.Call(uintptr(h), mask)
	if old == 0 {
		return 0, callErr("SetThreadAffinityMask", err)
	}
	return old, nil
}

func processMask() (uintptr, error) {
	if err := procGetProcessAffinityMask.Find(); err != nil {
		return 0, fmt.Errorf("affinity: GetProcessAffinityMask: %w", err)
	}
	var pm, sm uintptr
	r, _, err := procGetProcessAffinityMask.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&pm)), uintptr(unsafe.Pointer(&sm)))
	if r == 0 {
		return 0, callErr("GetProcessAffinityMask", err)
	}
	return pm, nil
}

func setThreadPriority(h windows.Handle, prio int) error {
	if err := procSetThreadPriority.Find(); err != nil {
		return fmt.Errorf("affinity: SetThreadPriority: %w", err)
	}
	r, _, err := procSetThreadPriority.Call(uintptr(h), uintptr(prio))
	if r == 0 {
		return callErr("SetThreadPriority", err)
	}
	return nil
}

func getThreadPriority(h windows.Handle) (int, error) {
	if err := procGetThreadPriority.Find(); err != nil {
		return 0, fmt.Errorf("affinity: GetThreadPriority: %w", err)
	}
	r, _, err := procGetThreadPriority.Call(uintptr(h))
	if int32(r) == threadPriorityErrorReturn {
		return 0, callErr("GetThreadPriority", err)
	}
	return int(int32(r)), nil
}

func maskList(m uintptr) []int {
	var cpus []int
	for c := 0; c < maskBits; c++ {
		if m&(1<<c) != 0 {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// pinState is what Pin changed on Windows and the values to put back.
type pinState struct {
	h          windows.Handle // real handle of the pinned thread (OpenThread)
	mask       uintptr
	maskSet    bool
	class      uint32
	classSet   bool
	threadPrio int
	prioSet    bool
}

// Allowed returns the CPUs of the process affinity mask
// (GetProcessAffinityMask), ascending: any of them may be given to a
// thread. Only the process's processor group is seen (at most 64 CPUs).
func Allowed() ([]int, error) {
	m, err := processMask()
	if err != nil {
		return nil, err
	}
	return maskList(m), nil
}

// CurrentCPU returns the number, within its processor group, of the CPU the
// calling thread is running on now (GetCurrentProcessorNumber).
func CurrentCPU() (int, error) {
	if err := procGetCurrentProcessorNumber.Find(); err != nil {
		return -1, fmt.Errorf("affinity: GetCurrentProcessorNumber: %w", err)
	}
	r, _, _ := procGetCurrentProcessorNumber.Call()
	return int(uint32(r)), nil
}

// ThreadID returns the OS id of the calling thread (GetCurrentThreadId).
func ThreadID() int { return int(windows.GetCurrentThreadId()) }

// SetThreadCPU pins the thread with id tid to cpu (OpenThread and
// SetThreadAffinityMask). It is meant for tests that force a migration.
func SetThreadCPU(tid int, cpu int) error {
	if tid <= 0 {
		return fmt.Errorf("%w: thread id %d: want > 0", ErrInvalidOption, tid)
	}
	if cpu < 0 || cpu >= maskBits {
		return fmt.Errorf("%w: cpu %d: want 0..%d", ErrInvalidCPU, cpu, maskBits-1)
	}
	h, err := windows.OpenThread(threadAccess, false, uint32(tid))
	if err != nil {
		return fmt.Errorf("affinity: OpenThread %d: %w", tid, err)
	}
	defer windows.CloseHandle(h)
	_, err = setThreadAffinityMask(h, 1<<cpu)
	return err
}

// ThreadState reads back the calling thread's affinity mask, thread priority
// (in Nice) and the process priority class (in Policy). Windows cannot read a
// thread's mask directly: ThreadState sets it to the process mask and back,
// which may move the thread for a moment.
func ThreadState() (State, error) {
	h := windows.CurrentThread()
	pm, err := processMask()
	if err != nil {
		return State{}, err
	}
	old, err := setThreadAffinityMask(h, pm)
	if err != nil {
		return State{}, err
	}
	if _, err := setThreadAffinityMask(h, old); err != nil {
		return State{}, err
	}
	prio, err := getThreadPriority(h)
	if err != nil {
		return State{}, err
	}
	class, err := windows.GetPriorityClass(windows.CurrentProcess())
	if err != nil {
		return State{}, fmt.Errorf("affinity: GetPriorityClass: %w", err)
	}
	return State{Mask: maskList(old), Nice: prio, Policy: int(class)}, nil
}

// Pin locks the calling goroutine to its OS thread (runtime.LockOSThread),
// pins that thread to one CPU (SetThreadAffinityMask, which also returns the
// old mask to restore) and raises priority as o asks: PriorityHigh sets the
// process to HIGH_PRIORITY_CLASS and the thread to THREAD_PRIORITY_HIGHEST;
// PriorityRealtime sets REALTIME_PRIORITY_CLASS and
// THREAD_PRIORITY_TIME_CRITICAL. The priority class belongs to the whole
// process, so do not hold raised pins on several goroutines at once.
// Windows quietly grants HIGH instead of REALTIME without the
// SeIncreaseBasePriorityPrivilege; Pin reads the class back and reports what
// it got in Pinned.Priority and Pinned.Warnings. RTTimeLimit has no Windows
// equivalent and is ignored (but still validated).
//
// On any error Pin undoes what it did, including the thread lock. On success
// the caller must call [Pinned.Restore] on the same goroutine.
func Pin(o Options) (*Pinned, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	p := &Pinned{CPU: -1, tid: ThreadID()}
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
	pm, err := processMask()
	if err != nil {
		return err
	}
	cpu, err := chooseCPU(o.CPU, maskList(pm))
	if err != nil {
		return err
	}
	h, err := windows.OpenThread(threadAccess, false, uint32(p.tid))
	if err != nil {
		return fmt.Errorf("affinity: OpenThread %d: %w", p.tid, err)
	}
	p.st.h = h
	old, err := setThreadAffinityMask(h, 1<<cpu)
	if err != nil {
		return err
	}
	p.st.mask, p.st.maskSet = old, true
	p.CPU = cpu

	p.Priority = PriorityNormal
	if o.Priority == PriorityNormal {
		return nil
	}
	class, threadPrio := uint32(windows.HIGH_PRIORITY_CLASS), threadPriorityHighest
	if o.Priority == PriorityRealtime {
		class, threadPrio = windows.REALTIME_PRIORITY_CLASS, threadPriorityTimeCritical
	}
	proc := windows.CurrentProcess()
	oldClass, err := windows.GetPriorityClass(proc)
	if err != nil {
		p.Warnings = append(p.Warnings, priorityWarning(o.Priority, err))
		return nil
	}
	if err := windows.SetPriorityClass(proc, class); err != nil {
		p.Warnings = append(p.Warnings, priorityWarning(o.Priority, err))
		return nil
	}
	p.st.class, p.st.classSet = oldClass, true
	p.Priority = o.Priority
	if got, err := windows.GetPriorityClass(proc); err == nil && got != class && o.Priority == PriorityRealtime {
		p.Priority = PriorityHigh
		p.Warnings = append(p.Warnings, priorityWarning(PriorityRealtime,
			fmt.Errorf("got priority class %#x instead of REALTIME_PRIORITY_CLASS (needs SeIncreaseBasePriorityPrivilege)", got)))
		threadPrio = threadPriorityHighest
	}
	oldPrio, err := getThreadPriority(h)
	if err == nil {
		err = setThreadPriority(h, threadPrio)
	}
	if err != nil {
		p.Warnings = append(p.Warnings, fmt.Errorf("affinity: thread priority not raised: %w", err))
		return nil
	}
	p.st.threadPrio, p.st.prioSet = oldPrio, true
	return nil
}

// undo restores thread priority, priority class and mask, then closes the
// thread handle once nothing is left to restore.
func (p *Pinned) undo() error {
	var errs []error
	if p.st.prioSet {
		if err := setThreadPriority(p.st.h, p.st.threadPrio); err != nil {
			errs = append(errs, err)
		} else {
			p.st.prioSet = false
		}
	}
	if p.st.classSet {
		if err := windows.SetPriorityClass(windows.CurrentProcess(), p.st.class); err != nil {
			errs = append(errs, fmt.Errorf("affinity: restoring priority class %#x: %w", p.st.class, err))
		} else {
			p.st.classSet = false
		}
	}
	if p.st.maskSet {
		if _, err := setThreadAffinityMask(p.st.h, p.st.mask); err != nil {
			errs = append(errs, err)
		} else {
			p.st.maskSet = false
		}
	}
	if len(errs) == 0 && p.st.h != 0 {
		windows.CloseHandle(p.st.h)
		p.st.h = 0
	}
	return errors.Join(errs...)
}

// Probe reports what this process could do: Pin when the process affinity
// mask can be read; High and Realtime by setting the priority class and
// reading it back, then restoring it (the class is process-wide, so this
// briefly raises the whole process).
func Probe() Capabilities {
	var c Capabilities
	if cpus, err := Allowed(); err != nil {
		c.Notes = append(c.Notes, "pin: "+err.Error())
	} else {
		c.Pin = len(cpus) > 0
		c.Notes = append(c.Notes, "pin: allowed cpus "+FormatCPUs(cpus))
	}
	proc := windows.CurrentProcess()
	old, err := windows.GetPriorityClass(proc)
	if err != nil {
		c.Notes = append(c.Notes, "priority: GetPriorityClass: "+err.Error())
		return c
	}
	try := func(class uint32) (bool, string) {
		if err := windows.SetPriorityClass(proc, class); err != nil {
			return false, err.Error()
		}
		got, err := windows.GetPriorityClass(proc)
		_ = windows.SetPriorityClass(proc, old)
		if err != nil {
			return false, err.Error()
		}
		if got != class {
			return false, fmt.Sprintf("got priority class %#x", got)
		}
		return true, "permitted"
	}
	var note string
	c.High, note = try(windows.HIGH_PRIORITY_CLASS)
	c.Notes = append(c.Notes, "high: HIGH_PRIORITY_CLASS "+note)
	c.Realtime, note = try(windows.REALTIME_PRIORITY_CLASS)
	c.Notes = append(c.Notes, "realtime: REALTIME_PRIORITY_CLASS "+note)
	return c
}
