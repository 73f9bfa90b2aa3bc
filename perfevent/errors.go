package perfevent

import "errors"

var (
	// ErrUnavailable is matched (errors.Is) by every error saying why a
	// counter cannot be opened or read here: the more specific errors below
	// that say so, and the error on a platform without perf_event_open.
	ErrUnavailable = errors.New("perfevent: counter unavailable")
	// ErrNoPMU: the kernel has no hardware performance monitoring unit for
	// this event (ENOENT, EOPNOTSUPP or ENODEV on a hardware event), as in a
	// virtual machine whose hypervisor does not expose one.
	ErrNoPMU = errors.New("perfevent: no hardware PMU")
	// ErrPermission: the kernel refused the event (EACCES, EPERM); the error
	// gives /proc/sys/kernel/perf_event_paranoid's value and meaning.
	ErrPermission = errors.New("perfevent: permission denied")
	// ErrEventUnsupported: the kernel does not know a software event (ENOENT
	// or EINVAL), or the hardware refused the attributes.
	ErrEventUnsupported = errors.New("perfevent: event not supported by this kernel")
	// ErrTooManyFiles: no file descriptor left (EMFILE, ENFILE); a group
	// needs one per event.
	ErrTooManyFiles = errors.New("perfevent: too many open files")
	// ErrNoRDPMC: the first event's count cannot be read from user space
	// with RDPMC; the error says why.
	ErrNoRDPMC = errors.New("perfevent: no user-space counter read")

	// ErrUnknownEvent: a name or value that is not one of [Known].
	ErrUnknownEvent = errors.New("perfevent: unknown event")
	// ErrBadEvents: an event list that cannot form a group (empty, repeated
	// events, more than [MaxEvents]).
	ErrBadEvents = errors.New("perfevent: bad event list")
	// ErrBadRead: the bytes read from a group, or a [Counts] pair given to
	// [Counts.Delta], do not have the expected layout.
	ErrBadRead = errors.New("perfevent: bad read")
	// ErrClosed: the group was closed.
	ErrClosed = errors.New("perfevent: group closed")
	// ErrUserOnly is a warning (in [Group.Warnings]): a software event is
	// counted for user space only, because the kernel refused to count it in
	// kernel mode too; faults taken inside system calls are then missed.
	ErrUserOnly = errors.New("perfevent: counting user space only")
)

// unavailable marks an error as one of the reasons a counter is unavailable:
// errors.Is(err, ErrUnavailable) holds, and the wrapped chain (sentinel,
// errno) is kept.
type unavailable struct{ error }

func (u unavailable) Is(target error) bool { return target == ErrUnavailable }
func (u unavailable) Unwrap() error        { return u.error }
