package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cyclebench/cyclebench/affinity"
	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/pinned"
	"golang.org/x/term"
)

// measureFlags are the flags every measuring subcommand shares. They bind
// straight into a harness.DefaultConfig(), whose WithDefaults is the one
// place their ranges are checked.
type measureFlags struct {
	cfg      harness.Config
	priority *string
	mode     *string
}

// modeBoth is run's -mode value that measures each kernel in both modes.
const modeBoth = "both"

// addMeasureFlags defines the shared flags on fs; withBoth adds "both" to
// the values of -mode.
func addMeasureFlags(fs *flagSet, withBoth bool) *measureFlags {
	m := &measureFlags{cfg: harness.DefaultConfig()}
	c := &m.cfg
	fs.IntVar(&c.K, "k", c.K, "K: the number of smallest samples that must agree (1 to 1000)")
	fs.Float64Var(&c.Epsilon, "eps", c.Epsilon, "ε: relative tolerance; converged when (1+ε)·v1 ≥ vK (0 ≤ ε < 1; 0 is exact)")
	fs.IntVar(&c.MaxSamples, "m", c.MaxSamples, "M: give up after this many samples (≥ K)")
	fs.DurationVar(&c.MaxTime, "max-time", c.MaxTime, "give up on one measurement after this long")
	fs.IntVar(&c.CPU, "cpu", c.CPU, "CPU to pin the measuring thread to; -1 picks the highest-numbered allowed CPU")
	m.priority = choiceFlag(fs, "priority", "high", "priority of the measuring thread (realtime: SCHED_FIFO bounded by RLIMIT_RTTIME)", "normal", "high", "realtime")
	fs.BoolVar(&c.NoCycles, "no-cycles", false, "skip the core-clock reference chain (no cycle figures)")
	modes := []string{harness.Throughput.String(), harness.Latency.String()}
	usage := "what a call's cost means: throughput (calls back to back) or latency (calls fenced apart)"
	if withBoth {
		modes = append(modes, modeBoth)
		usage += ", or both side by side"
	}
	m.mode = choiceFlag(fs, "mode", harness.Throughput.String(), usage, modes...)
	return m
}

// flagOf names the flag that sets each harness.Config field.
var flagOf = map[string]string{
	"K": "-k", "Epsilon": "-eps", "MaxSamples": "-m", "MaxTime": "-max-time", "CPU": "-cpu",
}

// config returns the harness configuration the flags set, checked by
// harness (a bad value is a *usageError naming the flag); with -mode both
// it is the throughput one (see modes).
func (m *measureFlags) config() (harness.Config, error) {
	cfg := m.cfg
	cfg.KeepPriority, cfg.Realtime = *m.priority == "normal", *m.priority == "realtime"
	if *m.mode == harness.Latency.String() {
		cfg.Mode = harness.Latency
	}
	if _, err := cfg.WithDefaults(); err != nil {
		var ce *harness.ConfigError
		if errors.As(err, &ce) && flagOf[ce.Field] != "" {
			return cfg, usageErrorf("%s %v: not allowed (allowed: %s)", flagOf[ce.Field], ce.Value, ce.Allowed)
		}
		return cfg, usageErrorf("%w", err)
	}
	if cfg.CPU >= 0 {
		allowed, err := sys.allowed()
		if err == nil && !slices.Contains(allowed, cfg.CPU) {
			return cfg, usageErrorf("-cpu %d: not in the allowed set %s", cfg.CPU, affinity.FormatCPUs(allowed))
		}
	}
	return cfg, nil
}

// modes returns the modes -mode asks for, in the order they are measured.
func (m *measureFlags) modes() []harness.Mode {
	switch *m.mode {
	case harness.Latency.String():
		return []harness.Mode{harness.Latency}
	case modeBoth:
		return []harness.Mode{harness.Throughput, harness.Latency}
	}
	return []harness.Mode{harness.Throughput}
}

// calibrateOn calibrates (once per process) on a thread pinned to cpu, so
// the figures are those of the CPU the measurements will use.
func calibrateOn(cpu int) (*calibrate.Calibration, []error, error) {
	var cal *calibrate.Calibration
	var warns []error
	err := onThread(cpu, func(th *pinned.Thread) error {
		warns = th.Warnings
		var err error
		cal, err = calibrate.Get()
		return err
	})
	return cal, warns, err
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
