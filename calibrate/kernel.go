package calibrate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Paths read by [KernelHz]; variables so tests can point them elsewhere.
var (
	tscFreqKHzPath = "/sys/devices/system/cpu/cpu0/tsc_freq_khz"
	cpuinfoPath    = "/proc/cpuinfo"
)

// KernelHz returns the operating system's own figure for the TSC frequency
// and where it came from: /sys/devices/system/cpu/cpu0/tsc_freq_khz when
// the kernel exposes it, else the "cpu MHz" line of /proc/cpuinfo on a
// machine whose flags include tsc_known_freq (the kernel then took the TSC
// rate from the hypervisor or the hardware rather than calibrating it, and
// "cpu MHz" is that rate). It returns an error wrapping [ErrNoKernelFigure]
// when neither is available (other operating systems, or a machine where
// "cpu MHz" is a current core frequency).
func KernelHz() (hz float64, source string, err error) {
	if b, err := os.ReadFile(tscFreqKHzPath); err == nil {
		khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err == nil && khz > 0 && khz <= maxCPUInfoMHz*1e3 {
			return khz * 1e3, tscFreqKHzPath, nil
		}
	}
	f, err := os.Open(cpuinfoPath)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrNoKernelFigure, err)
	}
	defer f.Close()
	hz, err = parseCPUInfoHz(bufio.NewScanner(f))
	if err != nil {
		return 0, "", err
	}
	return hz, cpuinfoPath + " (cpu MHz, tsc_known_freq)", nil
}

// maxCPUInfoMHz bounds a kernel TSC figure: 1 THz, far above any counter,
// and finite (ParseFloat accepts "inf" and returns +Inf on overflow).
const maxCPUInfoMHz = 1e6

// parseCPUInfoHz reads the first processor block of /proc/cpuinfo and
// returns its "cpu MHz" in Hz when its flags include tsc_known_freq.
func parseCPUInfoHz(sc *bufio.Scanner) (float64, error) {
	var mhz float64
	var haveMHz, known bool
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if haveMHz {
				break // end of the first processor block
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "cpu MHz":
			// Reject "inf", and overflow to +Inf: a frequency must be finite.
			v, err := strconv.ParseFloat(val, 64)
			if err == nil && v > 0 && v <= maxCPUInfoMHz {
				mhz, haveMHz = v, true
			}
		case "flags":
			for _, fl := range strings.Fields(val) {
				if fl == "tsc_known_freq" {
					known = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%w: reading cpuinfo: %v", ErrNoKernelFigure, err)
	}
	switch {
	case !haveMHz:
		return 0, fmt.Errorf("%w: no cpu MHz line", ErrNoKernelFigure)
	case !known:
		return 0, fmt.Errorf("%w: cpu MHz is a core frequency here (no tsc_known_freq flag)", ErrNoKernelFigure)
	}
	return mhz * 1e6, nil
}
