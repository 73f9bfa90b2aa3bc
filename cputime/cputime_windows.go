//go:build windows

package cputime

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// kernel32 calls that x/sys/windows does not export.
var (
	kernel32                      = windows.NewLazySystemDLL("kernel32.dll")
	procGetThreadTimes            = kernel32.NewProc("GetThreadTimes")
	procGetSystemTimes            = kernel32.NewProc("GetSystemTimes")
	procQueryPerformanceCounter   = kernel32.NewProc("QueryPerformanceCounter")
	procQueryPerformanceFrequency = kernel32.NewProc("QueryPerformanceFrequency")
	procGetTickCount64            = kernel32.NewProc("GetTickCount64")
)

// filetime converts a FILETIME holding a duration (100 ns units) to a
// time.Duration. windows.Filetime.Nanoseconds is for dates: it subtracts the
// 1601 epoch.
func filetime(f windows.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}

// callBool calls a kernel32 function that returns BOOL.
func callBool(p *windows.LazyProc, args ...uintptr) error {
	if err := p.Find(); err != nil {
		return err
	}
	r, _, err := p.Call(args...)
	if r == 0 {
		if err == nil || errors.Is(err, windows.ERROR_SUCCESS) {
			err = fmt.Errorf("%s failed", p.Name)
		}
		return err
	}
	return nil
}

var (
	getProcessTimes = func() (user, sys time.Duration, err error) {
		var c, e, k, u windows.Filetime
		if err := windows.GetProcessTimes(windows.CurrentProcess(), &c, &e, &k, &u); err != nil {
			return 0, 0, err
		}
		return filetime(u), filetime(k), nil
	}
	getThreadTimes = func() (user, sys time.Duration, err error) {
		var c, e, k, u windows.Filetime
		err = callBool(procGetThreadTimes, uintptr(windows.CurrentThread()),
			uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&e)),
			uintptr(unsafe.Pointer(&k)), uintptr(unsafe.Pointer(&u)))
		if err != nil {
			return 0, 0, err
		}
		return filetime(u), filetime(k), nil
	}
	// getSystemTimes returns idle, kernel (which includes idle) and user
	// time summed over all processors.
	getSystemTimes = func() (idle, kernel, user time.Duration, err error) {
		var i, k, u windows.Filetime
		err = callBool(procGetSystemTimes, uintptr(unsafe.Pointer(&i)),
			uintptr(unsafe.Pointer(&k)), uintptr(unsafe.Pointer(&u)))
		if err != nil {
			return 0, 0, 0, err
		}
		return filetime(i), filetime(k), filetime(u), nil
	}
)

// ClockTicks returns 0 and an error wrapping errors.ErrUnsupported: Windows
// has no clock-tick unit (its times are in 100 ns units).
func ClockTicks() (int64, error) {
	return 0, fmt.Errorf("cputime: clock ticks unknown on %s/%s: %w", goos, goarch, errors.ErrUnsupported)
}

// GetProcessTimes and GetThreadTimes count in 100 ns units but advance at
// the scheduler tick (about 15.6 ms, the seed's 1/64 s): the resolution is
// measured.
func processChain() []reader {
	return []reader{{src: SourceGetProcessTimes, split: getProcessTimes}}
}

func threadChain() []reader {
	return []reader{{src: SourceGetThreadTimes, split: getThreadTimes}}
}

func qpf() (int64, error) {
	var f int64
	if err := callBool(procQueryPerformanceFrequency, uintptr(unsafe.Pointer(&f))); err != nil {
		return 0, err
	}
	if f <= 0 {
		return 0, fmt.Errorf("QueryPerformanceFrequency returned %d", f)
	}
	return f, nil
}

func monotonicReader() reader {
	return reader{
		src: SourceQPC,
		total: func() (time.Duration, error) {
			f, err := qpf()
			if err != nil {
				return 0, err
			}
			var c int64
			if err := callBool(procQueryPerformanceCounter, uintptr(unsafe.Pointer(&c))); err != nil {
				return 0, err
			}
			// Split to avoid overflowing c·1e9.
			sec, rem := c/f, c%f
			return time.Duration(sec)*time.Second + time.Duration(rem*int64(time.Second)/f), nil
		},
		getres: func() (time.Duration, error) {
			f, err := qpf()
			if err != nil {
				return 0, err
			}
			if d := time.Duration(int64(time.Second) / f); d > 0 {
				return d, nil
			}
			return 1, nil
		},
	}
}

func wallUsReader() reader {
	return reader{
		src:   SourceTimeNowUs,
		total: func() (time.Duration, error) { return time.Duration(time.Now().UnixMicro()) * time.Microsecond, nil },
	}
}

// wallMsReader is GetTickCount64: milliseconds since boot, advancing at the
// scheduler tick (the seed's GetTickCount).
func wallMsReader() reader {
	return reader{
		src: SourceGetTickCount64,
		total: func() (time.Duration, error) {
			if err := procGetTickCount64.Find(); err != nil {
				return 0, err
			}
			r, _, _ := procGetTickCount64.Call()
			return time.Duration(r) * time.Millisecond, nil
		},
	}
}

func threadID() (uint64, bool) { return uint64(windows.GetCurrentThreadId()), true }
