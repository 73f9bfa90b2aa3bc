package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/bench/peers/kernels"
)

// driver runs every measurement as a child process, one at a time, and
// gathers the results for the tables.
type driver struct {
	opt    options
	ctx    context.Context
	stderr io.Writer

	root, mod, tmp string
	goBin, self    string
	// bin holds the built programs by name.
	bin map[string]string
	// skipped holds the tools that cannot run here, with the reason.
	skipped map[string]string
	// versions names the peers' versions for the report.
	versions []string
	info     machine
	gbBuild  string
	infoErr  error

	log     []loadEntry
	started time.Time

	acc    map[string]map[string]*series // tool → kernel key
	detect map[string]map[string]*tally  // tool → pair label
	start  []startupRow
}

// loadEntry is one child process with /proc/loadavg read before and after.
type loadEntry struct {
	Phase, Tool   string
	Rep           int
	Before, After string
	Seconds       float64
	Err           string
	// Note is what the process said beyond its figures, where the tool
	// says it: why a comparison found no difference (cyclebench's verdict
	// and its reason), or cyclebench's figures and its waits for a shared
	// core (Result.RulerWait).
	Note string
}

// loadavg returns the first four fields of /proc/loadavg (the 1, 5 and 15
// minute averages and running/total tasks), or why it could not be read.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unreadable"
	}
	f := strings.Fields(string(b))
	if len(f) > 4 {
		f = f[:4]
	}
	return strings.Join(f, " ")
}

// run starts one child process and waits for it, logging the load before
// and after; the duration is exec to exit.
func (d *driver) run(phase, tool string, rep int, dir string, name string, args ...string) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	e := loadEntry{Phase: phase, Tool: tool, Rep: rep, Before: loadavg()}
	t0 := time.Now()
	err := cmd.Run()
	dur := time.Since(t0)
	e.After, e.Seconds = loadavg(), dur.Seconds()
	if err != nil {
		msg := strings.TrimSpace(se.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if d.ctx.Err() != nil {
			err = d.ctx.Err()
		}
		err = fmt.Errorf("%s: %w%s", filepath.Base(name), err, prefixed(": ", msg))
		e.Err = err.Error()
	}
	d.log = append(d.log, e)
	fmt.Fprintf(d.stderr, "%-13s %-19s %3d %8.3f s  load %s -> %s%s\n", phase, tool, rep+1, e.Seconds, e.Before, e.After, prefixed("  ERROR ", e.Err))
	return so.Bytes(), dur, err
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// worker runs this program as a worker and decodes its output.
func (d *driver) worker(phase, tool string, rep int, args ...string) (workerOut, time.Duration, error) {
	var out workerOut
	b, dur, err := d.run(phase, tool, rep, d.mod, d.self, append([]string{"worker"}, args...)...)
	if err != nil {
		return out, dur, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, dur, fmt.Errorf("worker output: %w", err)
	}
	return out, dur, nil
}

// rotate returns xs starting at element i mod len(xs): each repetition
// starts with another tool, so no tool always follows the same one.
func rotate[T any](xs []T, i int) []T {
	if len(xs) == 0 {
		return nil
	}
	i %= len(xs)
	return append(append([]T(nil), xs[i:]...), xs[:i]...)
}

func (d *driver) skip(id string) bool { _, ok := d.skipped[id]; return ok || d.opt.Skip[id] }

// setup finds the repository, builds every program and reads the machine.
func (d *driver) setup() error {
	var err error
	if d.root, err = findRoot(); err != nil {
		return err
	}
	d.mod = filepath.Join(d.root, "bench", "peers")
	if d.self, err = os.Executable(); err != nil {
		return fmt.Errorf("cannot find this program's executable: %w", err)
	}
	if d.goBin, err = exec.LookPath("go"); err != nil {
		d.goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(d.goBin); err != nil {
			return errors.New("go is not in PATH")
		}
	}
	if d.tmp, err = os.MkdirTemp("", "peers-"); err != nil {
		return err
	}
	d.bin = map[string]string{}
	d.skipped = map[string]string{}
	build := func(what, dir string, args ...string) error {
		fmt.Fprintf(d.stderr, "build: %s\n", what)
		cmd := exec.CommandContext(d.ctx, args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("building %s: %w: %s", what, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	d.bin["cyclebench"] = filepath.Join(d.tmp, "cyclebench-cli")
	if err := build("cyclebench CLI", d.root, d.goBin, "build", "-o", d.bin["cyclebench"], "./cmd/cyclebench"); err != nil {
		return err
	}
	if err := build("start-up programs", d.mod, d.goBin, "build", "-o", d.tmp+string(filepath.Separator), "./startup/..."); err != nil {
		return err
	}
	for _, p := range []string{"cyclebench", "hrtime", "testingb", "empty"} {
		d.bin["startup-"+p] = filepath.Join(d.tmp, p)
	}
	d.bin["gotest"] = filepath.Join(d.tmp, "gotest.test")
	if err := build("go test -c ./gotest", d.mod, d.goBin, "test", "-c", "-o", d.bin["gotest"], "./gotest"); err != nil {
		return err
	}
	d.bin["benchstat"] = filepath.Join(d.tmp, "benchstat")
	if err := build("benchstat", d.mod, d.goBin, "build", "-o", d.bin["benchstat"], "golang.org/x/perf/cmd/benchstat"); err != nil {
		return err
	}
	if !d.opt.Skip["gbench"] {
		if why := d.buildGBench(); why != "" {
			d.skipped["gbench"] = why
			fmt.Fprintf(d.stderr, "Google Benchmark: skipped: %s\n", why)
		}
	}
	out, _, err := d.run("setup", "cyclebench info", 0, d.root, d.bin["cyclebench"], "info", "-format", "json")
	if err == nil {
		d.info, err = parseMachine(out)
	}
	d.infoErr = err
	d.versions = peerVersions(d)
	return nil
}

// buildGBench installs libbenchmark-dev when its header is missing (as
// root, with apt-get) and builds the C++ program; it returns why not.
func (d *driver) buildGBench() string {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		return "g++ is not installed"
	}
	const header = "/usr/include/benchmark/benchmark.h"
	if _, err := os.Stat(header); err != nil {
		if os.Geteuid() != 0 {
			return "libbenchmark-dev is not installed and installing it needs root"
		}
		if _, err := exec.LookPath("apt-get"); err != nil {
			return "libbenchmark-dev is not installed and there is no apt-get"
		}
		fmt.Fprintln(d.stderr, "install: apt-get update && apt-get install -y libbenchmark-dev")
		cmd := exec.CommandContext(d.ctx, "sh", "-c", "apt-get update -qq && apt-get install -y -qq libbenchmark-dev")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Sprintf("apt-get install libbenchmark-dev failed: %v: %s", err, lastLine(out))
		}
	}
	d.bin["gbench"] = filepath.Join(d.tmp, "peers_gb")
	cmd := exec.CommandContext(d.ctx, gxx, "-O2", "-fno-tree-vectorize", "-o", d.bin["gbench"], "peers.cc", "-lbenchmark", "-lpthread")
	cmd.Dir = filepath.Join(d.mod, "cpp")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("g++ failed: %v: %s", err, lastLine(out))
	}
	return ""
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// findRoot walks up from the working directory to the cyclebench module.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/cyclebench/cyclebench\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the cyclebench repository (no go.mod of module github.com/cyclebench/cyclebench above the working directory)")
		}
		dir = parent
	}
}

// peerVersions names the tools' versions as this run used them.
func peerVersions(d *driver) []string {
	v := []string{"Go " + goVersion(d)}
	for _, m := range []string{"github.com/loov/hrtime", "golang.org/x/perf"} {
		v = append(v, m+" "+moduleVersion(m))
	}
	if _, ok := d.bin["gbench"]; ok && !d.skip("gbench") {
		if out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "libbenchmark-dev").Output(); err == nil {
			v = append(v, "Google Benchmark (Debian libbenchmark-dev) "+strings.TrimSpace(string(out)))
		}
		if out, err := exec.Command("g++", "-dumpfullversion").Output(); err == nil {
			v = append(v, "g++ "+strings.TrimSpace(string(out)))
		}
	}
	return v
}

func goVersion(d *driver) string {
	out, err := exec.Command(d.goBin, "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "go")
}

// accuracy runs the accuracy and spread phase: every tool measures every
// kernel once per process, opt.Reps processes each, interleaved.
func (d *driver) accuracy(tools []tool) {
	d.acc = map[string]map[string]*series{}
	rec := func(id, key string, cycles, ns float64, why string, labelled bool) {
		if d.acc[id] == nil {
			d.acc[id] = map[string]*series{}
		}
		if d.acc[id][key] == nil {
			d.acc[id][key] = &series{}
		}
		d.acc[id][key].add(cycles, ns, why)
		if labelled && cycles > 0 {
			d.acc[id][key].Labelled++
		}
	}
	failAll := func(id string, err error) {
		for _, k := range kernels.Table() {
			rec(id, k.Key, 0, 0, shortErr(err), false)
		}
	}
	bt := d.opt.TableBenchtime
	for rep := range d.opt.Reps {
		for _, tl := range rotate(tools, rep) {
			if d.ctx.Err() != nil {
				return
			}
			switch tl.ID {
			case "cyclebench", "cyclebench-latency", "cyclebench-long", "testingb", "hrtime":
				args := []string{"measure", "-tool", tl.ID}
				if tl.ID == "testingb" && bt > 0 {
					args = append(args, "-benchtime", bt.String())
				}
				out, _, err := d.worker("accuracy", tl.ID, rep, args...)
				if err != nil {
					failAll(tl.ID, err)
					continue
				}
				for _, k := range out.Kernels {
					rec(tl.ID, k.Key, k.Cycles, k.Ns, k.Why, k.Lagged || k.Shared || k.Room)
				}
				if n := kernelsNote(out.Kernels); n != "" && len(d.log) > 0 {
					d.log[len(d.log)-1].Note = n
				}
			case "gotest", "gbench":
				before := d.ruler("accuracy", rep)
				var res map[string][]float64
				var err error
				if tl.ID == "gotest" {
					args := []string{"-test.run", "^$", "-test.bench", "^BenchmarkKernel$"}
					if bt > 0 {
						args = append(args, "-test.benchtime", bt.String())
					}
					var out []byte
					out, _, err = d.run("accuracy", tl.ID, rep, d.mod, d.bin["gotest"], args...)
					res = parseGoBench(out)
					for k, v := range res {
						res[strings.TrimPrefix(k, "Kernel/")] = v
					}
				} else {
					args := []string{"--benchmark_format=json"}
					if bt > 0 {
						args = append(args, "--benchmark_min_time="+strconv.FormatFloat(bt.Seconds(), 'g', -1, 64))
					}
					var out []byte
					out, _, err = d.run("accuracy", tl.ID, rep, d.mod, d.bin["gbench"], append(args, "table")...)
					if err == nil {
						res, err = parseGBench(out)
						if bt := gbBuildType(out); bt != "" && d.gbBuild == "" {
							d.gbBuild = bt
							d.versions = append(d.versions, "Google Benchmark's library_build_type: "+bt)
						}
					}
				}
				after := d.ruler("accuracy", rep)
				if err != nil {
					failAll(tl.ID, err)
					continue
				}
				for _, k := range kernels.Table() {
					ns := firstOf(res[k.Key])
					if ns == 0 {
						rec(tl.ID, k.Key, 0, 0, "no result for "+k.Key, false)
						continue
					}
					c, why := toCycles(ns, before, after)
					rec(tl.ID, k.Key, c, ns, why, false)
				}
			}
		}
	}
}

func firstOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

// shortErr is an error for a table cell: its first line, at most 100 bytes.
func shortErr(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// ruler runs a ruler process (cyclebench measuring a 1000-ADD kernel) and
// returns its ruler; a failure is a ruler with its reason.
func (d *driver) ruler(phase string, rep int) Ruler {
	out, _, err := d.worker(phase, "ruler", rep, "ruler")
	if err != nil {
		return Ruler{Why: shortErr(err)}
	}
	if out.Ruler == nil {
		return Ruler{Why: "no ruler in the worker's output"}
	}
	return *out.Ruler
}

// detection runs the detection phase: for each repetition, each pair, each
// tool one comparison in a fresh process (or, for go test + benchstat, the
// processes of one comparison), interleaved.
func (d *driver) detection(tools []tool, pairs []pair) {
	d.detect = map[string]map[string]*tally{}
	get := func(id, label string) *tally {
		if d.detect[id] == nil {
			d.detect[id] = map[string]*tally{}
		}
		if d.detect[id][label] == nil {
			d.detect[id][label] = &tally{}
		}
		return d.detect[id][label]
	}
	count := strconv.Itoa(d.opt.PeerCount)
	bt := d.opt.PeerBenchtime
	for rep := range d.opt.DetectReps {
		for _, p := range pairs {
			for _, tl := range rotate(tools, rep) {
				if d.ctx.Err() != nil {
					return
				}
				a, b := strconv.Itoa(p.A), strconv.Itoa(p.B)
				t := get(tl.ID, p.Label)
				phase := "detect " + p.Label
				switch tl.ID {
				case "cyclebench", "cyclebench-fine", "testingb", "hrtime":
					out, _, err := d.worker(phase, tl.ID, rep, "compare", "-tool", tl.ID, "-a", a, "-b", b,
						"-count", count, "-benchtime", bt.String())
					if err != nil || out.Compare == nil {
						t.Errs = append(t.Errs, errOr(err, "no comparison in the worker's output"))
						continue
					}
					t.add(out.Compare.Detected, out.Compare.Seconds)
					if out.Compare.MoreBlocks > 0 {
						t.More++
					}
					if !out.Compare.Detected && p.A != p.B && out.Compare.Note != "" && len(d.log) > 0 {
						d.log[len(d.log)-1].Note = "not detected: " + out.Compare.Note
						fmt.Fprintf(d.stderr, "%-13s %-19s %3d  not detected: %s\n", phase, tl.ID, rep+1, out.Compare.Note)
					}
				case "gotest":
					v, secs, err := d.benchstat(phase, rep, a, b, count, bt)
					if err != nil {
						t.Errs = append(t.Errs, shortErr(err))
						continue
					}
					t.add(v.Detected, secs)
				case "gbench":
					out, dur, err := d.run(phase, tl.ID, rep, d.mod, d.bin["gbench"], "--benchmark_format=json",
						"--benchmark_repetitions="+count,
						"--benchmark_min_time="+strconv.FormatFloat(bt.Seconds(), 'g', -1, 64), "detect", a, b)
					var res map[string][]float64
					if err == nil {
						res, err = parseGBench(out)
					}
					if err == nil && (len(res["A"]) < 2 || len(res["B"]) < 2) {
						err = errors.New("fewer than 2 repetitions per side")
					}
					if err != nil {
						t.Errs = append(t.Errs, shortErr(err))
						continue
					}
					t.add(mannWhitney(res["A"], res["B"]).Detected, dur.Seconds())
				}
			}
		}
	}
}

func errOr(err error, s string) string {
	if err != nil {
		return shortErr(err)
	}
	return s
}

// benchstat runs one go test + benchstat comparison: the test binary with
// -n A, then with -n B, -count runs each, and benchstat on the two files.
func (d *driver) benchstat(phase string, rep int, a, b, count string, bt time.Duration) (verdict, float64, error) {
	var secs float64
	files := make([]string, 2)
	for i, n := range []string{a, b} {
		out, dur, err := d.run(phase, "gotest", rep, d.mod, d.bin["gotest"], "-test.run", "^$", "-test.bench", "^BenchmarkChain$",
			"-test.count", count, "-test.benchtime", bt.String(), "-n", n)
		secs += dur.Seconds()
		if err != nil {
			return verdict{}, secs, err
		}
		files[i] = filepath.Join(d.tmp, fmt.Sprintf("%c.txt", 'A'+i))
		if err := os.WriteFile(files[i], out, 0o644); err != nil {
			return verdict{}, secs, err
		}
	}
	out, dur, err := d.run(phase, "benchstat", rep, d.tmp, d.bin["benchstat"], "A.txt", "B.txt")
	secs += dur.Seconds()
	if err != nil {
		return verdict{}, secs, err
	}
	v, err := parseBenchstat(out)
	return v, secs, err
}

// startup times each program from exec to exit, opt.StartupReps times,
// interleaved; n is the chain length of a ~1 µs kernel.
func (d *driver) startup(n int) {
	ns := strconv.Itoa(n)
	type prog struct {
		id, label, what string
		name            string
		args            []string
		// figure reads the printed result.
		figure func([]byte) string
	}
	kv := func(b []byte) string {
		m := parseKV(b)
		s := ""
		if v, err := strconv.ParseFloat(m["ns"], 64); err == nil {
			s = sig(v) + " ns"
		}
		if v, err := strconv.ParseFloat(m["cycles"], 64); err == nil && v > 0 {
			s += ", " + sig(v) + " cycles"
		}
		if m["converged"] == "false" {
			s += " (not converged)"
		}
		return s
	}
	progs := []prog{
		{"true", "/bin/true", "the floor: exec of a C program that exits", "/bin/true", nil, nil},
		{"empty", "empty Go program", "exec and the Go runtime's start, nothing else", d.bin["startup-empty"], nil, nil},
		{"cyclebench", "cyclebench library", "harness.Measure, DefaultConfig, calibration included; waits up to 250 ms while the core is shared", d.bin["startup-cyclebench"], []string{ns}, kv},
		{"cyclebench-nowait", "cyclebench library, no wait", "the same with Config.NoSettle: a shared core is a warning, not a wait", d.bin["startup-cyclebench"], []string{"-no-wait", ns}, kv},
		{"hrtime", "hrtime", "NewBenchmark(4096), median lap; no calibration", d.bin["startup-hrtime"], []string{ns}, kv},
		{"testingb", "testing.Benchmark", "one testing.Benchmark, default benchtime 1 s", d.bin["startup-testingb"], []string{ns}, kv},
		{"gotest", "go test -bench (compiled test binary)", "-test.bench BenchmarkChain, default benchtime 1 s", d.bin["gotest"],
			[]string{"-test.run", "^$", "-test.bench", "^BenchmarkChain$", "-n", ns}, func(b []byte) string {
				if v := firstOf(parseGoBench(b)["Chain"]); v > 0 {
					return sig(v) + " ns"
				}
				return ""
			}},
		{"gbench", "Google Benchmark", "one benchmark, default settings", d.bin["gbench"],
			[]string{"--benchmark_format=json", "startup", ns}, func(b []byte) string {
				res, err := parseGBench(b)
				if err != nil {
					return ""
				}
				return sig(firstOf(res["startup"])) + " ns"
			}},
	}
	rows := make([]startupRow, len(progs))
	var active []int
	for i, p := range progs {
		rows[i] = startupRow{Label: p.label, What: p.what}
		switch {
		case d.opt.Skip[p.id]:
			rows[i].Why = "skipped (-skip)"
		case d.skipped[p.id] != "":
			rows[i].Why = d.skipped[p.id]
		case p.name == "":
			rows[i].Why = "not built"
		default:
			if _, err := os.Stat(p.name); err != nil {
				rows[i].Why = "not found: " + p.name
				continue
			}
			active = append(active, i)
		}
	}
	for rep := range d.opt.StartupReps {
		for _, i := range rotate(active, rep) {
			if d.ctx.Err() != nil {
				return
			}
			p := progs[i]
			out, dur, err := d.run("startup", p.id, rep, d.mod, p.name, p.args...)
			if err != nil {
				rows[i].Why = shortErr(err)
				continue
			}
			rows[i].Ms = append(rows[i].Ms, float64(dur.Microseconds())/1000)
			m := parseKV(out)
			if v, err := strconv.ParseFloat(m["waited"], 64); err == nil && v > 0 {
				rows[i].Waits = append(rows[i].Waits, 1000*v)
			}
			if m["ruler_lag"] == "true" {
				rows[i].Lagged++
			}
			if rows[i].Figure == "" && p.figure != nil {
				rows[i].Figure = p.figure(out)
			}
		}
	}
	d.start = rows
}

// oneMicrosecond returns the length of a continued ADD chain that takes
// about 1 µs, from a ruler process; 0 and why when the ruler has no figure.
func (d *driver) oneMicrosecond() (int, string) {
	r := d.ruler("startup", 0)
	if r.CyclesPerNs() == 0 {
		return 0, r.Why
	}
	return int(math.Round(1000 * r.CyclesPerNs())), ""
}

// kernelsNote is the log's note for a cyclebench measurement process: each
// kernel's cycles, and how long it waited for a shared core to be free
// (and whether its ruler's ADD chain still lagged at the end); "" for the
// peers, which give neither.
func kernelsNote(ks []KernelOut) string {
	var parts []string
	for _, k := range ks {
		if k.Before != nil || k.Cycles <= 0 {
			continue
		}
		p := fmt.Sprintf("%s %.1f", k.Key, k.Cycles)
		if k.RulerWaitMs > 0 {
			p += fmt.Sprintf(" (waited %.0f ms for a shared core)", k.RulerWaitMs)
		}
		if k.Lagged {
			p += " (its ruler's ADD chain still lagged)"
		}
		if k.Shared {
			p += " (labelled: the core was shared)"
		}
		if k.Room {
			p += " (labelled: the core had more room than usual)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
