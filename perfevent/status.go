package perfevent

// Status is what [Probe] found for one event.
type Status struct {
	// Event is the event tried.
	Event Event
	// Available reports whether the kernel opened it for the calling thread.
	Available bool
	// Err says why not (wrapping [ErrUnavailable] and the reason); nil when
	// Available.
	Err error
	// Warnings are soft problems when Available, such as counting user space
	// only ([ErrUserOnly]).
	Warnings []error
	// RDPMC is nil when the event's count could be read from user space with
	// RDPMC ([Group.ReadRDPMC]), and otherwise says why not (wrapping
	// [ErrNoRDPMC]).
	RDPMC error
}
