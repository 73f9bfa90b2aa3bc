//go:build linux && (!amd64 || noasm)

package perfevent

import "runtime"

// haveRDPMC reports whether this build can execute RDPMC: not here.
const haveRDPMC = false

// noRDPMCReason says why this build cannot read counters from user space.
const noRDPMCReason = "user-space counter reads (RDPMC) need amd64 and a build without -tags noasm (this build: " + runtime.GOARCH + ")"

// rdpmc is never called on this build (haveRDPMC is false); it returns 0.
func rdpmc(counter uint32) uint64 { return 0 }
