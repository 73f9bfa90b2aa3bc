//go:build !linux && !windows

package cputime

import (
	"errors"
	"fmt"
)

// takeSnapshot: no system-wide CPU accounting is read on this OS.
func takeSnapshot(bool) (snapshot, error) {
	return snapshot{}, fmt.Errorf("cputime: cpu utilisation needs /proc/stat or GetSystemTimes, not available on %s/%s: %w", goos, goarch, errors.ErrUnsupported)
}
