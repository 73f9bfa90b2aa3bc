//go:build windows

package cputime

import (
	"fmt"
	"time"

	"golang.org/x/sys/windows"
)

// windowsTick is the default scheduler tick (1/64 s), the granularity of
// GetSystemTimes and GetProcessTimes.
const windowsTick = 15625 * time.Microsecond

func takeSnapshot(end bool) (snapshot, error) {
	var s snapshot
	if end {
		s.wall = time.Now()
		s.proc, s.procErr = Process()
	}
	idle, kernel, user, err := getSystemTimes()
	if err != nil {
		return snapshot{}, fmt.Errorf("cputime: GetSystemTimes: %w", err)
	}
	pu, pk, err := getProcessTimes()
	if err != nil {
		return snapshot{}, fmt.Errorf("cputime: GetProcessTimes: %w", err)
	}
	if !end {
		s.proc, s.procErr = Process()
		s.wall = time.Now()
	}
	// Kernel time includes idle time.
	s.sysTotal = kernel + user
	s.sysBusy = s.sysTotal - idle
	s.procTick = pu + pk
	s.numCPU = int(windows.GetActiveProcessorCount(windows.ALL_PROCESSOR_GROUPS))
	s.tick = windowsTick
	s.source = "GetSystemTimes + GetProcessTimes"
	return s, nil
}
