// Command peers measures the same kernels with cyclebench and with its
// peers — testing.Benchmark, go test -bench with benchstat, hrtime and Google
// Benchmark — one process at a time, interleaved, with the machine's load
// logged before and after every process, and prints four tables: accuracy
// (core cycles per call against the known truth), spread (CV of one result
// per process), detection (+1%, +0.1%, +0.03% and A/A) and start-up (exec to
// exit for a first result of a ~1 µs kernel). It writes them with the
// machine line of `cyclebench info` to
// docs/measurements/peers-<machine-kind>.md.
//
// From the repository root:
//
//	go -C bench/peers run .          # the full run, a few minutes on 2 vCPUs
//	go -C bench/peers run . -quick   # a smoke test, under a minute; writes no file unless -o
//
// See README.md beside this file for the method and the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

// errUsage marks a bad command line (exit status 2).
var errUsage = errors.New("usage")

// command is the one command that regenerates the report, as its first line
// says.
const command = "go -C bench/peers run ."

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	Quick          bool
	Reps           int
	DetectReps     int
	StartupReps    int
	PeerCount      int
	PeerBenchtime  time.Duration
	TableBenchtime time.Duration
	Out            string
	Skip           map[string]bool
	Pairs          []pair
}

// allTools are the tool ids -skip accepts.
var allTools = []string{"cyclebench", "cyclebench-latency", "cyclebench-long", "cyclebench-fine", "testingb", "gotest", "hrtime", "gbench"}

// errHelp is returned by parseFlags for -h; its message is the help text.
type errHelp struct{ text string }

func (e errHelp) Error() string { return e.text }

// parseFlags parses the command line; an error wraps errUsage, or is an
// errHelp for -h.
func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.BoolVar(&o.Quick, "quick", false, "smoke test: 3 processes per tool, 2 comparisons of +1% and A/A, peers at 100 ms, 3 start-ups; writes no file unless -o")
	fs.IntVar(&o.Reps, "reps", 0, "processes per tool for the accuracy and spread tables (default 10, quick 3)")
	fs.IntVar(&o.DetectReps, "detect-reps", 0, "comparisons per pair and tool (default 10, quick 2)")
	fs.IntVar(&o.StartupReps, "startup-reps", 0, "exec-to-exit runs per program (default 5, quick 3)")
	fs.IntVar(&o.PeerCount, "peer-count", 6, "runs per side of a peer's comparison (go test -count, Google Benchmark repetitions)")
	fs.DurationVar(&o.PeerBenchtime, "peer-benchtime", 100*time.Millisecond, "a peer's time per run in comparisons (-test.benchtime, --benchmark_min_time)")
	fs.DurationVar(&o.TableBenchtime, "table-benchtime", 0, "a peer's time per run in the accuracy table; 0 means each peer's default (quick: 100ms)")
	fs.StringVar(&o.Out, "o", "", "the report's path (default docs/measurements/peers-<machine-kind>.md in the repository; quick: none); - means stdout only")
	skip := fs.String("skip", "", "comma-separated tools to leave out: "+strings.Join(allTools, ","))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var b strings.Builder
			b.WriteString("usage: " + command + " [flags]   (from the repository root)\n\n" +
				"Measures the same kernels with cyclebench and its peers, one process at a time,\n" +
				"and writes docs/measurements/peers-<machine-kind>.md. Flags:\n\n")
			fs.SetOutput(&b)
			fs.PrintDefaults()
			return o, errHelp{b.String()}
		}
		return o, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q (flags only; see -h)", errUsage, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	def := func(name string, v *int, full, quick int) {
		if !set[name] {
			*v = full
			if o.Quick {
				*v = quick
			}
		}
	}
	def("reps", &o.Reps, 10, 3)
	def("detect-reps", &o.DetectReps, 10, 2)
	def("startup-reps", &o.StartupReps, 5, 3)
	if o.Quick && !set["table-benchtime"] {
		o.TableBenchtime = 100 * time.Millisecond
	}
	switch {
	case o.Reps < 2 || o.Reps > 1000:
		return o, fmt.Errorf("%w: -reps %d: want 2 to 1000 (a CV needs two results)", errUsage, o.Reps)
	case o.DetectReps < 1 || o.DetectReps > 1000:
		return o, fmt.Errorf("%w: -detect-reps %d: want 1 to 1000", errUsage, o.DetectReps)
	case o.StartupReps < 1 || o.StartupReps > 1000:
		return o, fmt.Errorf("%w: -startup-reps %d: want 1 to 1000", errUsage, o.StartupReps)
	case o.PeerCount < 2 || o.PeerCount > 100:
		return o, fmt.Errorf("%w: -peer-count %d: want 2 to 100 (a test needs two runs per side)", errUsage, o.PeerCount)
	case o.PeerBenchtime < time.Millisecond || o.PeerBenchtime > time.Minute:
		return o, fmt.Errorf("%w: -peer-benchtime %v: want 1ms to 1m", errUsage, o.PeerBenchtime)
	case o.TableBenchtime != 0 && (o.TableBenchtime < time.Millisecond || o.TableBenchtime > time.Minute):
		return o, fmt.Errorf("%w: -table-benchtime %v: want 0 (the peers' defaults) or 1ms to 1m", errUsage, o.TableBenchtime)
	}
	o.Skip = map[string]bool{}
	for _, s := range strings.Split(*skip, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		known := false
		for _, t := range allTools {
			known = known || t == s
		}
		if !known {
			return o, fmt.Errorf("%w: -skip: unknown tool %q (want some of %s)", errUsage, s, strings.Join(allTools, ","))
		}
		o.Skip[s] = true
	}
	o.Pairs = detectionPairs
	if o.Quick {
		o.Pairs = []pair{detectionPairs[0], detectionPairs[len(detectionPairs)-1]}
	}
	return o, nil
}

// run is the command: the worker when args start with "worker", else the
// driver.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "worker" {
		return runWorker(args[1:], stdout)
	}
	o, err := parseFlags(args)
	if h, ok := err.(errHelp); ok {
		fmt.Fprint(stdout, h.text)
		return nil
	}
	if err != nil {
		return err
	}
	if !kernels.Native() {
		return fmt.Errorf("the kernels' truths (1 and 3 cycles per link) hold on amd64 only; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	d := &driver{opt: o, ctx: ctx, stderr: stderr, started: time.Now()}
	if err := d.setup(); err != nil {
		return err
	}
	defer os.RemoveAll(d.tmp)

	tableTools, detectTools := d.tools()
	fmt.Fprintf(stderr, "phase 1: accuracy and spread, %d processes per tool\n", o.Reps)
	d.accuracy(tableTools)
	fmt.Fprintf(stderr, "phase 2: detection, %d comparisons per pair and tool\n", o.DetectReps)
	d.detection(detectTools, o.Pairs)
	fmt.Fprintf(stderr, "phase 3: start-up, %d runs per program\n", o.StartupReps)
	n, why := d.oneMicrosecond()
	if n > 0 {
		d.startup(n)
	} else {
		d.start = []startupRow{{Label: "every program", Why: "no ~1 µs chain length: the ruler gave no figure: " + why}}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}

	var rep strings.Builder
	d.report(&rep, tableTools, detectTools, n)
	fmt.Fprint(stdout, rep.String())
	out := o.Out
	if out == "" && !o.Quick {
		if d.infoErr != nil {
			return fmt.Errorf("no report written: the machine is unknown (%v); give -o", d.infoErr)
		}
		out = filepath.Join(d.root, "docs", "measurements", "peers-"+d.info.kind()+".md")
	}
	if out == "" || out == "-" {
		return nil
	}
	if err := writeAtomic(out, []byte(rep.String())); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	return nil
}

// tools returns the rows of the accuracy/spread and detection tables,
// without the skipped ones; their labels say the settings this run used.
func (d *driver) tools() (table, detect []tool) {
	o := d.opt
	peerBT := "default benchtime 1 s"
	gbBT := "default min time"
	if o.TableBenchtime > 0 {
		peerBT = "benchtime " + o.TableBenchtime.String()
		gbBT = "min time " + o.TableBenchtime.String()
	}
	inProc := "its ns × the ruler read in the same process just before and after"
	outProc := "its ns × the ruler of cyclebench processes run just before and after"
	all := []tool{
		{"cyclebench", "cyclebench library, throughput (harness.Measure, DefaultConfig)", "its own ruler, in the same rounds"},
		{"cyclebench-latency", "cyclebench library, latency mode (calls fenced)", "its own ruler, in the same rounds"},
		{"cyclebench-long", fmt.Sprintf("cyclebench library, throughput, Config.MinTime %v (samples span the host's short moments)", longMinTime), "its own ruler, in the same rounds"},
		{"testingb", "testing.Benchmark in-process (b.Loop, " + peerBT + ")", inProc},
		{"gotest", "go test -bench (-count 1, " + peerBT + ")", outProc},
		{"hrtime", "hrtime NewBenchmark(4096): median lap − Overhead()", inProc},
		{"gbench", "Google Benchmark (" + gbBT + ")", outProc},
	}
	for _, t := range all {
		if !d.skip(t.ID) {
			table = append(table, t)
		}
	}
	mw := fmt.Sprintf("Mann–Whitney U (benchmath, as benchstat) on %d runs per side, p < 0.05", o.PeerCount)
	alld := []tool{
		{"cyclebench", "cyclebench harness.Compare (DefaultConfig, default pairs)", "its verdict (Stats.Significant: the t test of its 5 blocks, more while they cannot resolve half a counter quantum (up to 15), each weighted by its own interval, p < 0.05, and the interval outside the noise band)"},
		{"cyclebench-fine", fmt.Sprintf("cyclebench harness.Compare, %d pairs, no noise band (what resolving less than the counter's quantum takes)", finePairs), "its verdict (Stats.Significant: the t test of its 5 blocks, more while they cannot resolve half a counter quantum (up to 15), each weighted by its own interval, p < 0.05, and the interval excluding 1)"},
		{"testingb", fmt.Sprintf("testing.Benchmark in-process, A B A B …, benchtime %v", o.PeerBenchtime), mw},
		{"gotest", fmt.Sprintf("go test -bench -count %d -benchtime %v, A then B, + benchstat", o.PeerCount, o.PeerBenchtime), "benchstat's verdict (a change printed, not ~; p < 0.05)"},
		{"hrtime", "hrtime NewBenchmark(4096) median lap, A B A B …", mw},
		{"gbench", fmt.Sprintf("Google Benchmark, %d repetitions, min time %v, A then B", o.PeerCount, o.PeerBenchtime), mw},
	}
	for _, t := range alld {
		if !d.skip(t.ID) {
			detect = append(detect, t)
		}
	}
	return table, detect
}

// writeAtomic writes b to path through a temporary file in its directory.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".peers-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// moduleVersion is the version of module path in this binary's build.
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			return m.Version
		}
	}
	return "unknown"
}
