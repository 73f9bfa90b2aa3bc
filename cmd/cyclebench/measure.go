package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"golang.org/x/term"
)

// measureFlags are the flags every measuring subcommand shares; they map
// one-to-one onto harness.Config.
type measureFlags struct {
	k        *int
	eps      *float64
	m        *int
	maxTime  *time.Duration
	cpu      *int
	priority *string
	noCycles *bool
}

func addMeasureFlags(fs *flagSet) *measureFlags {
	return &measureFlags{
		k:        fs.Int("k", harness.DefaultK, "K: the number of smallest samples that must agree (1 to 1000)"),
		eps:      fs.Float64("eps", harness.DefaultEpsilon, "ε: relative tolerance; converged when (1+ε)·v1 ≥ vK (0 ≤ ε < 1)"),
		m:        fs.Int("m", harness.DefaultMaxSamples, "M: give up after this many samples (≥ K)"),
		maxTime:  fs.Duration("max-time", harness.DefaultMaxTime, "give up on one measurement after this long"),
		cpu:      cpuFlag(fs),
		priority: choiceFlag(fs, "priority", "high", "priority of the measuring thread (realtime: SCHED_FIFO bounded by RLIMIT_RTTIME)", "normal", "high", "realtime"),
		noCycles: fs.Bool("no-cycles", false, "skip the core-clock reference chain (no cycle figures)"),
	}
}

// config validates the flags and returns the harness configuration.
func (m *measureFlags) config() (harness.Config, error) {
	switch {
	case *m.k < 1 || *m.k > 1000:
		return harness.Config{}, usageErrorf("-k %d: want 1 to 1000", *m.k)
	case math.IsNaN(*m.eps) || *m.eps < 0 || *m.eps >= 1:
		return harness.Config{}, usageErrorf("-eps %v: want 0 ≤ ε < 1", *m.eps)
	case *m.m < *m.k:
		return harness.Config{}, usageErrorf("-m %d: want at least -k (%d)", *m.m, *m.k)
	case *m.maxTime <= 0:
		return harness.Config{}, usageErrorf("-max-time %v: want a positive duration", *m.maxTime)
	case *m.cpu < -1:
		return harness.Config{}, usageErrorf("-cpu %d: want -1 (any) or a CPU number", *m.cpu)
	}
	cfg := harness.Config{
		K: *m.k, Epsilon: *m.eps, MaxSamples: *m.m, MaxTime: *m.maxTime, CPU: *m.cpu,
		KeepPriority: *m.priority == "normal", Realtime: *m.priority == "realtime", NoCycles: *m.noCycles,
	}
	if *m.eps == 0 {
		cfg.Epsilon = 1e-300 // the flag's 0 means exactly 0, not the library default
	}
	if *m.cpu >= 0 {
		allowed, err := sys.allowed()
		if err == nil && !containsInt(allowed, *m.cpu) {
			return cfg, usageErrorf("-cpu %d: not in the allowed set %s", *m.cpu, affinity.FormatCPUs(allowed))
		}
	}
	return cfg, nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// calibrateOn calibrates (once per process) on a thread pinned to cpu, so
// the figures are those of the CPU the measurements will use.
func calibrateOn(cpu int) (*calibrate.Calibration, []error, error) {
	p, err := pinThread(cpu, affinity.PriorityNormal)
	if err != nil {
		return nil, nil, err
	}
	defer p.Restore()
	cal, err := calibrate.Get()
	return cal, p.Warnings, err
}

// interrupt turns SIGINT and SIGTERM into the cancellation of a context, and
// remembers which signal came so the command can exit 130 or 143 after
// writing what it has.
type interrupt struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	mu     sync.Mutex
	sig    os.Signal
	done   chan struct{}
}

func catchInterrupts() *interrupt {
	in := &interrupt{ch: make(chan os.Signal, 2), done: make(chan struct{})}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-in.ch:
			in.mu.Lock()
			in.sig = s
			in.mu.Unlock()
			in.cancel()
		case <-in.done:
		}
	}()
	return in
}

// stop stops catching signals.
func (in *interrupt) stop() {
	signal.Stop(in.ch)
	close(in.done)
	in.cancel()
}

// exitCode is 128 + the signal number of the signal that came (130 for
// SIGINT, 143 for SIGTERM), or 0 when none did.
func (in *interrupt) exitCode() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 0
}

// progressLine writes a one-line status to stderr when it is a terminal, and
// nothing otherwise.
type progressLine struct {
	w      io.Writer
	active bool
	last   int
}

func newProgressLine(stderr io.Writer) *progressLine {
	f, ok := stderr.(*os.File)
	return &progressLine{w: stderr, active: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progressLine) show(format string, a ...any) {
	if !p.active {
		return
	}
	s := fmt.Sprintf(format, a...)
	pad := ""
	if n := len([]rune(s)); n < p.last {
		pad = strings.Repeat(" ", p.last-n)
	}
	p.last = len([]rune(s))
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
}

func (p *progressLine) clear() {
	if p.active && p.last > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.last))
		p.last = 0
	}
}

// hoistCommonWarnings moves the warnings every result carries (such as
// the calibration's) into the header, so they are printed once.
func hoistCommonWarnings(h *header, rs []measured) {
	if len(rs) == 0 {
		return
	}
	count := map[string]int{}
	for _, r := range rs {
		seen := map[string]bool{}
		for _, w := range r.Warnings {
			if s := w.Error(); !seen[s] {
				seen[s] = true
				count[s]++
			}
		}
	}
	inHeader := map[string]bool{}
	for _, s := range h.Warnings {
		inHeader[s] = true
	}
	for _, w := range rs[0].Warnings {
		if s := w.Error(); count[s] == len(rs) && !inHeader[s] {
			h.Warnings = append(h.Warnings, s)
			inHeader[s] = true
		}
	}
	for i := range rs {
		var keep []error
		for _, w := range rs[i].Warnings {
			if !inHeader[w.Error()] {
				keep = append(keep, w)
			}
		}
		rs[i].Warnings = keep
	}
}

// withCommonWarningsHoisted returns a copy of rs, and of h, with the
// warnings every result carries moved into the header; rs is not changed,
// so the same results can be written again.
func withCommonWarningsHoisted(h header, rs []measured) (header, []measured) {
	h.Warnings = append([]string(nil), h.Warnings...)
	rs = append([]measured(nil), rs...)
	hoistCommonWarnings(&h, rs)
	return h, rs
}

// writeOutput writes rs to path atomically (or to stdout when path is "").
// Warnings common to every result are printed once, in the header.
func writeOutput(stdout io.Writer, path, format string, h header, rs []measured) error {
	h, rs = withCommonWarningsHoisted(h, rs)
	if path == "" {
		return writeResults(stdout, format, h, rs)
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	if err := writeResults(f, format, h, rs); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
