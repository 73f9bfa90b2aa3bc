//go:build linux

package calibrate

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Flags and modes of adjtimex(2) (include/uapi/linux/timex.h).
const (
	staPPSSignal    = 0x0100
	staPPSTime      = 0x0004
	staNano         = 0x2000
	adjOffsetSSRead = 0xa001 // ADJ_OFFSET_SS_READ: read what adjtime(3) has left, change nothing
)

// adjtimex reads how the kernel steers CLOCK_MONOTONIC (two read-only
// adjtimex(2) calls, allowed without privilege).
func adjtimex() (clockDiscipline, error) {
	var tx unix.Timex
	if _, err := unix.Adjtimex(&tx); err != nil {
		return clockDiscipline{}, fmt.Errorf("adjtimex: %w", err)
	}
	d := clockDiscipline{
		FreqPPM:  float64(tx.Freq) / 65536,
		TickUS:   int64(tx.Tick),
		OffsetNS: float64(tx.Offset),
		Constant: int64(tx.Constant),
		PPSTime:  tx.Status&(staPPSTime|staPPSSignal) == staPPSTime|staPPSSignal,
	}
	if tx.Status&staNano == 0 {
		d.OffsetNS *= 1e3 // microseconds
	}
	ss := unix.Timex{Modes: adjOffsetSSRead}
	if _, err := unix.Adjtimex(&ss); err != nil {
		return clockDiscipline{}, fmt.Errorf("adjtimex(ADJ_OFFSET_SS_READ): %w", err)
	}
	d.AdjtimeUS = int64(ss.Offset)
	return d, nil
}
