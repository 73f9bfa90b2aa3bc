// Package perfevent counts events of the calling thread with Linux's
// perf_event_open: the kernel's software events (context switches, CPU
// migrations, page faults, task clock) everywhere perf_event_open works, and
// the processor's own counters (cycles, instructions, branches, cache
// misses) where the kernel has a performance monitoring unit (PMU) for it.
//
// The measuring engine reads a group of software events around each sample,
// outside the timed region, and discards samples whose counts moved
// ([Counts.Changed]); where a PMU exists, cycles give core cycles directly.
// Google Benchmark (libpfm, --benchmark_perf_counters), nanobench (Linux
// perf: cycles, instructions, branch misses, context switches) and
// libcpucycles (perf_event_open + RDPMC on amd64) read the same counters
// the same way; this package is written on golang.org/x/sys/unix.
//
// # Events
//
// [Parse] reads perf's names: cycles, instructions, branch-misses, branches,
// cache-misses, cache-references (hardware: need a PMU), context-switches,
// cpu-migrations, page-faults, minor-faults, major-faults, task-clock
// (software), and the aliases cs, migrations, faults, cpu-cycles and
// branch-instructions. [Known] lists them; [Probe] tries each alone and says
// which the kernel will count here, and why not.
//
// # Threads
//
// [Open] opens one group for the calling OS thread (pid 0, cpu −1, not
// inherited): it counts that thread on whatever CPU it runs, and nothing
// else. Go moves goroutines between threads, so the caller must lock its
// goroutine to its thread (runtime.LockOSThread) before Open and keep it
// locked while measuring. The counts include whatever else runs on the
// thread meanwhile: the Go runtime's own work there (scheduler, GC assists),
// and none of the work of other goroutines on other threads. For a
// per-thread group the kernel's time enabled and running only advance while
// the thread is on a CPU.
//
// # Privilege levels
//
// perf_event_attr's exclude_kernel asks the kernel not to count what happens
// in kernel mode. Hardware events are opened with exclude_kernel and
// exclude_hv: they count the measured code in user space, not the kernel's
// work on its behalf (system calls, interrupts, page-fault handling).
//
// Software events are counted by the kernel itself, and for them
// exclude_kernel filters on the mode of the registers the kernel passes when
// it records the event. Page faults taken by user code carry user-mode
// registers and are counted either way; faults taken inside system calls (a
// read into a fresh buffer) count only without exclude_kernel. Context
// switches and CPU migrations are recorded from the scheduler, in kernel
// mode: with exclude_kernel they always read 0 on current kernels (on this
// project's Linux 6.18 test machine five 1 ms sleeps counted 6 switches
// without it and 0 with it; descriptions saying software events count
// regardless of exclude_kernel are out of date). Software events are therefore opened counting
// kernel and user space. When the kernel refuses that (EACCES: an
// unprivileged process under perf_event_paranoid 2, the default), page
// faults and the task clock are opened again for user space only with a
// warning ([ErrUserOnly] in [Group.Warnings]), and context switches and
// migrations fail with [ErrPermission], since a count that is always 0
// would hide every disturbance. The task clock is the thread's on-CPU time
// in either mode.
//
// # Reading
//
// A group is opened disabled; [Group.Enable], [Group.Disable] and
// [Group.Reset] act on all its events at once. [Group.Read] reads every count
// with one read(2) of the group leader (read_format PERF_FORMAT_GROUP | ID |
// TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING) into a fixed-size [Counts]: no
// allocation, about a microsecond on this project's KVM test machine, which
// is the price of a system call there (see BenchmarkRead). When the kernel
// had to share the PMU between more hardware events than it has counters
// (multiplexing), time running is less than time enabled: [Counts.Values]
// are the raw counts scaled by their ratio and [Counts.Multiplexed] says so.
// A group with more hardware events than the PMU has counters never runs
// at all: time running stays 0. Software events never multiplex.
// [Counts.Delta] subtracts two readings and scales the difference by the
// difference of the times, which is the right estimate for an interval;
// [Counts.Changed] says whether any count moved. Opening and closing a group
// costs tens to hundreds of microseconds of kernel work: open once, read
// often.
//
// # User-space reads (RDPMC)
//
// When the first event of a group is a hardware event, Open maps its
// perf_event_mmap_page. If the kernel sets cap_user_rdpmc there (on x86 see
// /sys/bus/event_source/devices/cpu/rdpmc), [Group.ReadRDPMC] reads the
// count without a system call: inside the page's seqlock (lock read before
// and after, retried when it changed), it takes the hardware counter number
// from index (0: not on a counter now), executes RDPMC between LFENCEs like
// the TSC reads of package tsc, sign-extends the value from pmc_width bits
// and adds offset. This is amd64 only; [Group.RDPMCErr] says why it is not
// available otherwise.
//
// # Errors
//
// Every reason a counter cannot be used is an error matching
// [ErrUnavailable] and naming the event: [ErrNoPMU] (ENOENT, EOPNOTSUPP or
// ENODEV on a hardware event: no PMU, as in a VM whose hypervisor hides it),
// [ErrPermission] (EACCES, EPERM, with perf_event_paranoid's value and
// meaning, see [Paranoid]), [ErrEventUnsupported] (the kernel does not know
// a software event), [ErrTooManyFiles] (EMFILE, ENFILE), and, off Linux, an
// error wrapping errors.ErrUnsupported. Bad input is [ErrUnknownEvent] or
// [ErrBadEvents]; malformed reads are [ErrBadRead].
//
// # Platforms
//
// Linux on every GOARCH (RDPMC on amd64 only; -tags noasm removes it).
// Elsewhere [Open] and the methods return errors wrapping errors.ErrUnsupported
// that say so, and [Probe] reports every event unavailable.
package perfevent
