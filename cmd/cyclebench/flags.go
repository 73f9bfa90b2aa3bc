package main

// This file holds the flag set with its -h help, and the flag types and
// flags several subcommands share.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/calibrate"
	"github.com/cyclebench/cyclebench/stats"
)

// flagSet is a subcommand's flag set with the help -h prints on stdout.
type flagSet struct {
	*flag.FlagSet
	synopsis, description string
	examples              [][2]string // command line, what it does
	exits                 string      // the exit statuses, for -h
	args                  []string    // positional arguments, wherever they stood
	stdout                io.Writer
	packages              bool           // the flag set of a subcommand's package mode (gotest.go)
	more                  func() string  // another section of -h, after the flags (nil: none)
	after                 []func() error // run by parse once the flags are in, in order
}

// newFlagSet returns a flag set for subcommand name whose -h prints to
// stdout a synopsis ("cyclebench name " + synopsis), the description,
// every flag with a placeholder for its value and its default, the
// examples and the exit statuses. Parse it with [flagSet.parse].
func newFlagSet(name, synopsis, description string, stdout io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, description: description, stdout: stdout, exits: exitsPlain}
	// The flag package prints the error and calls Usage on every parse
	// error; parse reports errors itself, in one line, and prints the usage
	// only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// example adds an example command line and what it does to the help.
func (fs *flagSet) example(cmdline, what string) {
	fs.examples = append(fs.examples, [2]string{cmdline, what})
}

// The exit statuses as -h states them.
const (
	exitsPlain = `0 success; 1 a measurement or an output check failed; 2 a usage error;
130 or 143 after SIGINT or SIGTERM (what was measured is written first).`
	exitsMeasure = `0 when every result has a figure and every output check passed, converged or not
(convergence changes from run to run on a busy machine: the converged column and a
warning say it, and the status stays steady); 1 when a result has no figure or a
kernel's output check failed, and with -strict when any result did not converge or
was measured on a shared core; 2 a usage error; 130 or 143 after SIGINT or SIGTERM
(what was measured so far is written first, marked not converged).`
)

func (fs *flagSet) usage() {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: cyclebench %s %s\n\n", fs.Name(), fs.synopsis)
	if fs.description != "" {
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(fs.description))
	}
	b.WriteString("flags:\n")
	fs.writeFlags(&b, nil, "default %s")
	if fs.more != nil {
		b.WriteString("\n" + fs.more())
	}
	if len(fs.examples) > 0 {
		b.WriteString("\nexamples:\n")
		for _, e := range fs.examples {
			fmt.Fprintf(&b, "  %s\n    \t%s\n", e[0], e[1])
		}
	}
	fmt.Fprintf(&b, "\nexit status: %s\n", fs.exits)
	io.WriteString(fs.stdout, b.String())
}

// writeFlags lists the flags of fs for -h, each with a placeholder for
// its value, its usage and its default in parentheses, formatted by
// defaults ("default %s"); skip, when not nil, leaves some out.
func (fs *flagSet) writeFlags(b *strings.Builder, skip func(name string) bool, defaults string) {
	fs.VisitAll(func(f *flag.Flag) {
		if skip != nil && skip(f.Name) {
			return
		}
		placeholder, usage := flagPlaceholder(f)
		fmt.Fprintf(b, "  -%s", f.Name)
		if placeholder != "" {
			fmt.Fprintf(b, " %s", placeholder)
		}
		if def := flagDefault(f, usage); def != "" {
			usage += " (" + fmt.Sprintf(defaults, def) + ")"
		}
		fmt.Fprintf(b, "\n    \t%s\n", strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// flagPlaceholder returns what -h shows after a flag's name: the
// back-quoted word of its usage, the allowed values of a choice, or a word
// for its type; "" for a boolean.
func flagPlaceholder(f *flag.Flag) (string, string) {
	name, usage := flag.UnquoteUsage(f)
	if strings.Contains(f.Usage, "`") {
		return name, usage
	}
	switch v := f.Value.(type) {
	case *choiceValue:
		return strings.Join(v.allowed, "|"), usage
	case *durationValue:
		return "DURATION", usage
	}
	switch name {
	case "":
		return "", usage
	case "int":
		return "N", usage
	case "float":
		return "NUMBER", usage
	case "duration":
		return "DURATION", usage
	}
	return "VALUE", usage
}

// flagDefault returns the default -h shows, or "" when there is none worth
// showing (an empty string, false, or a usage that says it itself).
func flagDefault(f *flag.Flag, usage string) string {
	if strings.Contains(usage, "(default") || f.DefValue == "" || f.DefValue == "false" {
		return ""
	}
	return f.DefValue
}

// parse parses args, flags and positional arguments in any order ("--"
// ends the flags), then runs the after hooks (values that depend on other
// flags, such as -format on -o's extension). -h prints the usage and
// returns errHelp (which run turns into success); any other parse error
// becomes a one-line *usageError.
func (fs *flagSet) parse(args []string) error {
	if err := fs.parseArgs(args); err != nil {
		return err
	}
	for _, f := range fs.after {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// parseArgs is parse without the hooks.
func (fs *flagSet) parseArgs(args []string) error {
	fs.args = nil
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fs.usage()
			return errHelp
		case err != nil:
			// The flag package says "parse error" for a number it cannot read.
			msg := strings.Replace(err.Error(), ": parse error", ": not a number", 1)
			return usageErrorf("%s (see cyclebench %s -h)", msg, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			fs.args = append(fs.args, rest...)
			return nil
		}
		fs.args = append(fs.args, rest[0])
		args = rest[1:]
	}
}

// given names the first of the flags set on fs, "" when none is.
func given(fs *flagSet, names ...string) string {
	set := ""
	fs.Visit(func(f *flag.Flag) {
		if set == "" && slices.Contains(names, f.Name) {
			set = "-" + f.Name
		}
	})
	return set
}

// noArgs returns a *usageError if fs was given positional arguments.
func (fs *flagSet) noArgs() error {
	if len(fs.args) > 0 {
		return usageErrorf("unexpected argument %q (this subcommand takes only flags; see cyclebench %s -h)", fs.args[0], fs.Name())
	}
	return nil
}

// choiceValue is a string flag restricted to a fixed set of words; a value
// outside the set fails at parse time with a message naming the allowed
// ones.
type choiceValue struct {
	value   *string
	allowed []string
}

// choiceFlag defines a flag on fs whose value must be one of allowed.
func choiceFlag(fs *flagSet, name, def, usage string, allowed ...string) *string {
	v := &choiceValue{value: new(string), allowed: allowed}
	*v.value = def
	fs.Var(v, name, usage)
	return v.value
}

func (c *choiceValue) String() string {
	if c == nil || c.value == nil {
		return ""
	}
	return *c.value
}

func (c *choiceValue) Set(s string) error {
	for _, a := range c.allowed {
		if s == a {
			*c.value = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(c.allowed, ", "))
}

// durationValue is a duration flag whose parse error says what a duration
// looks like ("100" lacks a unit).
type durationValue struct{ d *time.Duration }

// durationFlag binds a duration flag to d.
func durationFlag(fs *flagSet, d *time.Duration, name, usage string) {
	fs.Var(&durationValue{d}, name, usage)
}

func (v *durationValue) String() string {
	if v == nil || v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err == nil {
		*v.d = d
		return nil
	}
	if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		return fmt.Errorf("a duration needs a unit (ns, us, ms, s, m, h): %sms or %ss, for example", s, s)
	}
	return errors.New("want a number with a unit: 100ms, 2s, 1m30s")
}

// calibrationDuration is a -duration flag of a calibration, from
// calibrate's default, within calibrate's limits.
type calibrationDuration struct{ d time.Duration }

// calibrationFlag defines -duration on fs.
func calibrationFlag(fs *flagSet, usage string) *calibrationDuration {
	c := &calibrationDuration{calibrate.DefaultOptions.Duration}
	durationFlag(fs, &c.d, "duration", usage)
	return c
}

// check returns a *usageError when the duration is out of calibrate's
// range.
func (c *calibrationDuration) check() error {
	if c.d < calibrate.MinDuration || c.d > calibrate.MaxDuration {
		return usageErrorf("-duration %v: out of range (allowed: %v to %v)", c.d, calibrate.MinDuration, calibrate.MaxDuration)
	}
	return nil
}

// cpuFlag defines -cpu: the CPU to pin the measuring thread to.
func cpuFlag(fs *flagSet) *int {
	return fs.Int("cpu", -1, "pin the measuring thread to CPU `N`; -1 picks the highest-numbered allowed CPU")
}

// noiseBandValue is -noise, a flag.Value that sets a stats.CompareOptions.NoiseBand
// ([stats.ParseNoiseBand]: auto, none or 0, or a fraction such as 0.002).
type noiseBandValue struct{ Band *float64 }

func (v noiseBandValue) String() string {
	if v.Band == nil {
		return stats.FormatNoiseBand(stats.DerivedNoiseBand)
	}
	return stats.FormatNoiseBand(*v.Band)
}

// Set reads s into the band; an error says what is allowed (the flag
// package names the value).
func (v noiseBandValue) Set(s string) error {
	b, err := stats.ParseNoiseBand(s)
	if err != nil {
		return fmt.Errorf("want %s", stats.NoiseBandForms)
	}
	*v.Band = b
	return nil
}
