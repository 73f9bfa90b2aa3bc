package perfevent

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Offsets in struct perf_event_mmap_page (linux/perf_event.h), the first
// page of an event's mmap, which the kernel keeps up to date for
// self-monitoring. The test checks them against x/sys/unix's
// PerfEventMmapPage.
const (
	pageLock         = 8  // u32 lock: seqlock, changes while the kernel updates the page
	pageIndex        = 12 // u32 index: hardware counter number + 1, 0 when not on a counter
	pageOffset       = 16 // s64 offset: add to the counter's value
	pageTimeEnabled  = 24 // u64 time_enabled
	pageTimeRunning  = 32 // u64 time_running
	pageCapabilities = 40 // u64 capabilities bit field
	pagePMCWidth     = 48 // u16 pmc_width: bits the counter holds
	pageMin          = 56 // bytes needed for the fields above
)

// capUserRDPMC is bit 2 of capabilities (cap_user_rdpmc): the RDPMC
// instruction may be used to read the counter. Bit 0 is deprecated and bit 1
// (cap_bit0_is_deprecated) says so.
const capUserRDPMC = 1 << 2

// pageFields are the fields of a perf_event_mmap_page that a user-space read
// needs.
type pageFields struct {
	Lock         uint32
	Index        uint32
	Offset       int64
	TimeEnabled  uint64
	TimeRunning  uint64
	Capabilities uint64
	PMCWidth     uint16
}

// parsePage decodes b, the start of a perf_event_mmap_page in the host's byte
// order. It is an error wrapping [ErrBadRead], never a panic, when b is
// shorter than the fields it reads.
func parsePage(b []byte) (pageFields, error) {
	if len(b) < pageMin {
		return pageFields{}, fmt.Errorf("%w: mmap page of %d bytes, want at least %d", ErrBadRead, len(b), pageMin)
	}
	ne := binary.NativeEndian
	return pageFields{
		Lock:         ne.Uint32(b[pageLock:]),
		Index:        ne.Uint32(b[pageIndex:]),
		Offset:       int64(ne.Uint64(b[pageOffset:])),
		TimeEnabled:  ne.Uint64(b[pageTimeEnabled:]),
		TimeRunning:  ne.Uint64(b[pageTimeRunning:]),
		Capabilities: ne.Uint64(b[pageCapabilities:]),
		PMCWidth:     ne.Uint16(b[pagePMCWidth:]),
	}, nil
}

// rdpmcAllowed returns nil when the page says RDPMC may read the counter
// (cap_user_rdpmc), else an error wrapping [ErrNoRDPMC] that says why.
func (f pageFields) rdpmcAllowed() error {
	if f.Capabilities&capUserRDPMC == 0 {
		return fmt.Errorf("%w: the kernel does not allow RDPMC for this event (cap_user_rdpmc is 0 in the mmap page; on x86 see /sys/bus/event_source/devices/cpu/rdpmc)", ErrNoRDPMC)
	}
	return nil
}

// count combines the page with pmc, the value RDPMC returned for counter
// Index−1: pmc is sign-extended from PMCWidth bits and added to Offset, as
// linux/perf_event.h prescribes. It needs cap_user_rdpmc, a non-zero index
// and a width of 1 to 64 bits; otherwise it returns an error wrapping
// [ErrNoRDPMC].
func (f pageFields) count(pmc uint64) (uint64, error) {
	if err := f.rdpmcAllowed(); err != nil {
		return 0, err
	}
	if f.Index == 0 {
		return 0, fmt.Errorf("%w: the event is not on a hardware counter now (index 0 in the mmap page: group disabled, multiplexed out, or read from a thread other than the one counted)", ErrNoRDPMC)
	}
	if f.PMCWidth == 0 || f.PMCWidth > 64 {
		return 0, fmt.Errorf("%w: counter width %d bits in the mmap page, want 1 to 64", ErrNoRDPMC, f.PMCWidth)
	}
	shift := 64 - uint(f.PMCWidth)
	v := int64(pmc<<shift) >> shift // sign-extend from PMCWidth bits
	return uint64(f.Offset + v), nil
}

// seqTries bounds the seqlock loop: the kernel updates the page only when it
// schedules the event in or out, so two tries nearly always suffice; a page
// still changing after this many is reported rather than spun on.
const seqTries = 100

// seqRead reads the counter described by page, a perf_event_mmap_page, with
// the page's seqlock: load lock, decode the page, read the counter with pmc
// (RDPMC of counter index−1) when the page allows it, and start again if
// lock changed meanwhile or was odd (an update in progress). page must hold
// at least pageMin bytes with lock 4-byte aligned, as an mmap'ed page is.
// The atomic loads of lock order the plain loads between them for the
// compiler, which is the barrier() of the C protocol; x86 does not reorder
// loads with loads.
func seqRead(page []byte, pmc func(counter uint32) uint64) (uint64, error) {
	if len(page) < pageMin {
		return 0, fmt.Errorf("%w: mmap page of %d bytes, want at least %d", ErrBadRead, len(page), pageMin)
	}
	lock := (*uint32)(unsafe.Pointer(&page[pageLock]))
	for range seqTries {
		seq := atomic.LoadUint32(lock)
		f, _ := parsePage(page) // cannot fail: length checked above
		var raw uint64
		allowed := f.Capabilities&capUserRDPMC != 0 && f.Index != 0
		if allowed {
			raw = pmc(f.Index - 1)
		}
		if seq&1 == 0 && atomic.LoadUint32(lock) == seq {
			return f.count(raw)
		}
	}
	return 0, fmt.Errorf("%w: the mmap page kept changing during %d tries", ErrNoRDPMC, seqTries)
}
