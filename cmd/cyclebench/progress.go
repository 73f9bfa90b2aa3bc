package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

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

// signal names the signal that came: "SIGINT", "SIGTERM".
func (in *interrupt) signal() string {
	switch in.exitCode() {
	case 128 + 2:
		return "SIGINT"
	case 128 + 15:
		return "SIGTERM"
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return fmt.Sprint(in.sig)
}

// errInterrupted is what untilSignal returns when a signal came first.
var errInterrupted = errors.New("interrupted")

// untilSignal runs work on a goroutine of its own, with a progress line
// saying what and counting down the expected duration d, and waits for it;
// when SIGINT or SIGTERM comes first it returns errInterrupted at once
// (work keeps running until the process exits), so that the command can
// write what it has.
func untilSignal(in *interrupt, o *out, what string, d time.Duration, work func() error) error {
	prog := newProgress(o)
	defer prog.done()
	prog.set(step{what: what, end: time.Now().Add(d)})
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-in.ctx.Done():
		return errInterrupted
	}
}

// progress is the one-line status on stderr while a command measures:
// what is measured, how far it is, the time elapsed, the time left where
// it can be estimated, and the -max-time cap as it nears. It draws only
// when stderr is a terminal and -q was not given, so tests and pipes see
// nothing; the line is redrawn every quarter second, so the clock moves
// during a long step.
type progress struct {
	w      io.Writer
	active bool
	// lines: stderr is a file or a pipe, not a terminal (and not -q): no
	// line redrawn in place, but a line for each unit finished (done).
	lines bool
	start time.Time

	mu   sync.Mutex
	st   step
	last int // runes of the line drawn last
	quit chan struct{}
	wg   sync.WaitGroup
}

// step is what the progress line shows.
type step struct {
	what        string        // "cpe Psum1", "run AddChain/n=1000 (latency)"
	done, total int           // units done and in all; total 0: unknown
	unit        string        // "sizes", "pairs", "measurements"
	detail      string        // "5 samples, spread 0.4%"
	elapsed     time.Duration // of the current measurement, for the cap
	cap         time.Duration // -max-time of one measurement; 0 none
	end         time.Time     // when the work is expected to end; zero: unknown
	perUnit     bool          // elapsed and cap are the current unit's (run), not the whole loop's (a sweep)
}

// left estimates the time left after el: from the end expected, or from
// the pace of the units done so far, never beyond what the -max-time cap
// allows.
func (s step) left(el time.Duration) (time.Duration, bool) {
	if !s.end.IsZero() {
		return max(0, time.Until(s.end)), true
	}
	if s.total <= 0 || s.done <= 0 || s.done >= s.total {
		return 0, false
	}
	rest := time.Duration(s.total - s.done)
	if !s.perUnit {
		left := time.Duration(float64(el) / float64(s.done) * float64(rest))
		if s.cap > 0 {
			left = min(left, max(0, s.cap-s.elapsed))
		}
		return left, true
	}
	left := time.Duration(float64(el-s.elapsed)/float64(s.done)*float64(rest)) - s.elapsed
	if s.cap > 0 {
		left = min(left, rest*s.cap-s.elapsed)
	}
	return max(0, left), true
}

// newProgress returns a progress line on o's stderr (inactive unless it is
// a terminal and -q was not given).
func newProgress(o *out) *progress {
	p := &progress{w: o.stderr, start: time.Now(), quit: make(chan struct{})}
	if f, ok := o.stderr.(*os.File); ok && !o.quiet {
		p.active = term.IsTerminal(int(f.Fd()))
		p.lines = !p.active
	}
	if p.active {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-p.quit:
					return
				case <-t.C:
					p.mu.Lock()
					if p.active {
						p.draw()
					}
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

// set replaces what the line shows and draws it.
func (p *progress) set(s step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.st = s
	p.draw()
}

// line formats the status; p.mu is held.
func (p *progress) line() string {
	s, el := p.st, time.Since(p.start)
	parts := []string{s.what}
	if s.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d %s", s.done, s.total, s.unit))
	}
	if s.detail != "" {
		parts = append(parts, s.detail)
	}
	parts = append(parts, roundDuration(el)+" elapsed")
	if left, ok := s.left(el); ok {
		parts = append(parts, "about "+roundDuration(left)+" left")
	}
	if s.cap > 0 && s.elapsed >= s.cap*8/10 {
		parts = append(parts, fmt.Sprintf("stops at -max-time %v", s.cap))
	}
	return strings.Join(parts, " · ")
}

// draw redraws the line; p.mu is held.
func (p *progress) draw() {
	if p.st.what == "" {
		return
	}
	s := p.line()
	n := len([]rune(s))
	pad := ""
	if n < p.last {
		pad = strings.Repeat(" ", p.last-n)
	}
	p.last = n
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
}

// finished reports a unit of work done (a kernel measured) with one line,
// when stderr is not a terminal: a log or a CI job then shows how far the
// command got, where a redrawn line would be noise.
func (p *progress) finished(line string) {
	if p.lines {
		fmt.Fprintf(p.w, "%s (%s elapsed)\n", line, roundDuration(time.Since(p.start)))
	}
}

// done stops the clock and removes the line.
func (p *progress) done() {
	p.mu.Lock()
	was := p.active
	p.active = false
	p.mu.Unlock()
	if !was {
		return
	}
	close(p.quit)
	p.wg.Wait()
	if p.last > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.last))
		p.last = 0
	}
}

// roundDuration rounds d for the progress line: 850ms, 3.2s, 1m5s.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
