package calibrate

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/tsc"
)

// sysRoot is the file system the kernel's figures are read from: the real
// root, or a tree in testdata that mimics it (proc/cpuinfo,
// sys/devices/system/...). readDiscipline reads how the kernel steers its
// monotonic clock. Both are variables so that tests can replay recorded
// machines.
var (
	sysRoot        fs.FS = os.DirFS("/")
	readDiscipline       = adjtimex
)

// Paths inside sysRoot.
const (
	tscFreqKHzFile  = "sys/devices/system/cpu/cpu0/tsc_freq_khz"
	cpuinfoFile     = "proc/cpuinfo"
	clocksourceFile = "sys/devices/system/clocksource/clocksource0/current_clocksource"
)

// kernelFigureKHz bounds, in kHz, how far the rate at which the kernel's
// monotonic clock counts TSC ticks can lie from the TSC figure the kernel
// states: 1 kHz because the kernel keeps a whole number of kHz, rounded
// or truncated depending on where it came from (pvclock_tsc_khz truncates);
// 0.5 kHz because timekeeping counts a whole number of ticks per timer
// interval (at most 1 ms at HZ ≤ 1000, so half a tick in 10⁶ or more); and
// 0.5 kHz for the rounding of the clocksource's fixed-point multiplier from
// which that count is derived (below 2⁻²² relative, 0.25 ppm).
const kernelFigureKHz = 2

// KernelHz returns the operating system's own figure for the TSC frequency
// and where it came from: /sys/devices/system/cpu/cpu0/tsc_freq_khz when
// the kernel exposes it, else the "cpu MHz" line of /proc/cpuinfo on a
// machine whose flags include tsc_known_freq (the kernel then took the TSC
// rate from the hypervisor or the hardware rather than calibrating it, and
// "cpu MHz" is that rate). It returns an error wrapping [ErrNoKernelFigure]
// when neither is available (other operating systems, or a machine where
// "cpu MHz" is a current core frequency). It reads two small files, about
// 0.1 ms (the kernel generates /proc/cpuinfo on each read).
func KernelHz() (hz float64, source string, err error) {
	return kernelHz(sysRoot)
}

func kernelHz(fsys fs.FS) (hz float64, source string, err error) {
	if b, err := fs.ReadFile(fsys, tscFreqKHzFile); err == nil {
		khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err == nil && khz > 0 && khz <= maxCPUInfoMHz*1e3 {
			return khz * 1e3, "/" + tscFreqKHzFile, nil
		}
	}
	b, err := fs.ReadFile(fsys, cpuinfoFile)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrNoKernelFigure, err)
	}
	hz, err = parseCPUInfoHz(bufio.NewScanner(bytes.NewReader(b)))
	if err != nil {
		return 0, "", err
	}
	return hz, "/" + cpuinfoFile + " (cpu MHz, tsc_known_freq)", nil
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

// clockDiscipline is how the kernel steers CLOCK_MONOTONIC away from the
// rate of its clocksource (NTP), as adjtimex(2) reports it.
type clockDiscipline struct {
	FreqPPM  float64 // frequency offset (timex.freq / 2¹⁶), ppm; positive: the clock runs fast
	TickUS   int64   // microseconds per USER_HZ tick (timex.tick); nominally 10,000
	OffsetNS float64 // phase offset the PLL is still slewing away (timex.offset), ns
	Constant int64   // PLL time constant (timex.constant)
	PPSTime  bool    // STA_PPSTIME and STA_PPSSIGNAL: the offset is applied within one second
	// AdjtimeUS is what adjtime(3) still has to slew (ADJ_OFFSET_SS_READ), µs.
	AdjtimeUS int64
}

// nominalTickUS is the USER_HZ tick in µs of an unadjusted Linux clock
// (USER_HZ is 100 on every architecture Go supports).
const nominalTickUS = 10_000

// rate returns the ratio of CLOCK_MONOTONIC's rate to its clocksource's
// nominal rate, and a bound in ppm on the slews in progress, which change
// that ratio while they last. The kernel lengthens each second by
// tick·USER_HZ µs plus freq; the PLL slews 2^-(2+constant) of the remaining
// offset per second (all of it under PPS discipline); adjtime(3) slews at
// 500 µs/s (MAX_TICKADJ).
func (d clockDiscipline) rate() (ratio, slewPPM float64) {
	ratio = float64(d.TickUS)/nominalTickUS + d.FreqPPM*1e-6
	if d.OffsetNS != 0 {
		perSecond := math.Abs(d.OffsetNS)
		if !d.PPSTime {
			perSecond = math.Ldexp(perSecond, -int(2+max(0, min(d.Constant, 60))))
		}
		slewPPM += perSecond * 1e-3 // 1 ns/s is 10⁻³ ppm
	}
	if d.AdjtimeUS != 0 {
		slewPPM += 500
	}
	return ratio, slewPPM
}

func (d clockDiscipline) String() string {
	ratio, slew := d.rate()
	if ratio == 1 && slew == 0 {
		return "no NTP adjustment"
	}
	s := fmt.Sprintf("NTP adjustment %+.4g ppm", (ratio-1)*1e6)
	if slew > 0 {
		s += fmt.Sprintf(", slewing up to %.3g ppm", slew)
	}
	return s
}

// kernelReading is everything the kernel says about the TSC rate and how
// its monotonic clock relates to it.
type kernelReading struct {
	hz          float64 // the kernel's TSC figure, Hz; 0 when it states none
	source      string  // where hz was read
	err         error   // why hz is 0
	clocksource string  // the current clocksource, "" when unknown
	disc        clockDiscipline
	discErr     error // why disc is unknown
}

// readKernel reads the TSC figure, the clocksource and the clock's
// discipline from fsys and discipline: about 0.1 ms.
func readKernel(fsys fs.FS, discipline func() (clockDiscipline, error)) kernelReading {
	var k kernelReading
	k.hz, k.source, k.err = kernelHz(fsys)
	k.clocksource = readClocksource(fsys)
	k.disc, k.discErr = discipline()
	return k
}

// readClocksource returns the kernel's current clocksource, "" when it
// cannot be read.
func readClocksource(fsys fs.FS) string {
	b, err := fs.ReadFile(fsys, clocksourceFile)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// tscClocksources are the Linux clocksources computed from a TSC read
// (directly, or scaled by the hypervisor's parameters): a monotonic-clock
// read made between two counter reads on one CPU then corresponds to a
// counter value between them.
var tscClocksources = map[string]bool{"tsc": true, "kvm-clock": true, "xen": true, "hyperv_clocksource_tsc_page": true}

// clockFollowsCounter reports that the monotonic clock is computed from the
// counter bracketing it: a Linux clocksource read from the TSC, with the
// TSC as the counter.
func (k kernelReading) clockFollowsCounter(counter string) bool {
	return counter == tsc.CounterRDTSC && tscClocksources[k.clocksource]
}

// frequency returns the kernel's figure as the counter frequency in ticks
// per CLOCK_MONOTONIC second, when the kernel's monotonic clock is computed
// from the TSC with that very figure: the clocksource is "tsc" and
// adjtimex(2) says how NTP steers the clock. PPM is then ±kernelFigureKHz
// plus any slew in progress. The error wraps [ErrNoKernelFigure] and says
// which condition failed.
func (k kernelReading) frequency(counter string) (Frequency, error) {
	switch {
	case k.err != nil:
		return Frequency{}, k.err
	case counter != tsc.CounterRDTSC:
		return Frequency{}, fmt.Errorf("%w: the counter is %s, not the TSC the kernel's figure describes", ErrNoKernelFigure, counter)
	case k.clocksource != "tsc":
		cs := k.clocksource
		if cs == "" {
			cs = "unknown"
		}
		return Frequency{}, fmt.Errorf("%w: the kernel's clocksource is %s, not tsc, so its monotonic clock does not count ticks at the stated %.0f Hz", ErrNoKernelFigure, cs, k.hz)
	case k.discErr != nil:
		return Frequency{}, fmt.Errorf("%w: how NTP steers the monotonic clock cannot be read: %v", ErrNoKernelFigure, k.discErr)
	}
	ratio, slew := k.disc.rate()
	return Frequency{
		Hz:     k.hz / ratio,
		PPM:    kernelFigureKHz*1e3/k.hz*1e6 + slew,
		Method: MethodKernel,
		Source: fmt.Sprintf("%s, the rate of clocksource tsc (±%d kHz), %s", k.source, kernelFigureKHz, k.disc),
	}, nil
}

// KernelFrequency returns the kernel's TSC figure as the counter frequency
// in ticks per second of the monotonic clock, where the kernel's own
// monotonic clock is computed from the TSC with that figure (Linux,
// clocksource tsc) and adjtimex(2) reports how NTP adjusts that clock's
// rate. Its PPM (about 0.8 ppm at 2.6 GHz) covers the kernel's rounding to
// whole kHz and its timekeeping arithmetic, plus any NTP slew in progress.
// The error wraps [ErrNoKernelFigure] and says which condition failed. It
// measures nothing; [Measure] with [MethodAuto] confirms the figure with a
// bracket before using it.
func KernelFrequency() (Frequency, error) {
	return readKernel(sysRoot, readDiscipline).frequency(tsc.Counter())
}
