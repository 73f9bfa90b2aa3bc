package harness

import "golang.org/x/sys/unix"

// threadUsage reads the calling thread's context switches and page faults
// (getrusage RUSAGE_THREAD, Linux 2.6.26 and later).
func threadUsage(u *usage) error {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return err
	}
	u.switches = int64(ru.Nvcsw) + int64(ru.Nivcsw)
	u.faults = int64(ru.Minflt) + int64(ru.Majflt)
	return nil
}
