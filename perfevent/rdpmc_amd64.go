//go:build linux && amd64 && !noasm

package perfevent

// haveRDPMC reports whether this build can execute RDPMC.
const haveRDPMC = true

// noRDPMCReason is empty: this build has RDPMC.
const noRDPMCReason = ""

// rdpmc reads performance counter number counter with RDPMC, between
// LFENCEs (earlier instructions have completed before the read, later ones
// start after it), like the TSC reads of package tsc. The value has the
// counter's width (pmc_width bits), not yet sign-extended; the unit is the
// event's (core cycles for cycles, not TSC ticks). It must only be called
// when the event's mmap page allows it (cap_user_rdpmc and a non-zero
// index, read on the counted thread): otherwise the processor raises a
// general-protection fault. The caller must be pinned for the value to be
// meaningful.
func rdpmc(counter uint32) uint64
