//go:build linux

package cputime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// procRoot is where procfs is mounted (tests point it elsewhere).
var procRoot = "/proc"

// readProc reads a procfs file, wrapping ErrNoProcfs when it is missing.
func readProc(name string) (string, error) {
	p := filepath.Join(procRoot, name)
	b, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("cputime: %s missing (is procfs mounted?): %w: %w", p, ErrNoProcfs, err)
		}
		return "", fmt.Errorf("cputime: reading %s: %w", p, err)
	}
	return string(b), nil
}

func takeSnapshot(end bool) (snapshot, error) {
	var s snapshot
	if end {
		s.wall = time.Now()
		s.proc, s.procErr = Process()
	}
	stat, err := readProc("stat")
	if err != nil {
		return snapshot{}, err
	}
	self, err := readProc("self/stat")
	if err != nil {
		return snapshot{}, err
	}
	if !end {
		s.proc, s.procErr = Process()
		s.wall = time.Now()
	}
	st, err := ParseProcStat(stat)
	if err != nil {
		return snapshot{}, err
	}
	pt, err := ParseProcSelfStat(self)
	if err != nil {
		return snapshot{}, err
	}
	hz, err := ClockTicks()
	if err != nil {
		s.warnings = append(s.warnings, err)
	}
	s.tick = time.Second / time.Duration(hz)
	s.sysTotal = time.Duration(st.All.Total()) * s.tick
	s.sysBusy = time.Duration(st.All.Busy()) * s.tick
	s.procTick = time.Duration(pt.Total()) * s.tick
	s.numCPU = len(st.PerCPU)
	s.source = fmt.Sprintf("%s/stat + %s/self/stat (USER_HZ %d)", procRoot, procRoot, hz)
	return s, nil
}
