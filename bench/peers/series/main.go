// Command series runs one cyclebench process every few seconds for a while
// and says, per kernel, how the figures of the processes compare with the
// kernel's quiet figure: how many read more than 1% above it without the
// shared-core label, and how many carry the label. It is how the target of
// the shared-core probe is checked on a machine ("no figure more than 1%
// above that kernel's quiet figure without its label"):
//
//	go build -o /tmp/cyclebench ./cmd/cyclebench
//	go -C bench/peers run ./series -cyclebench /tmp/cyclebench -d 10m > docs/measurements/series-<machine>.md
//
// A kernel's quiet figure is the median of its unlabelled figures. Each
// process writes its JSON report to a temporary directory, read back here;
// /proc/loadavg is read before each.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type result struct {
	Name      string   `json:"name"`
	Cycles    float64  `json:"cycles"`
	Shared    bool     `json:"shared"`
	Converged bool     `json:"converged"`
	Quantile  float64  `json:"quantile"`
	Warnings  []string `json:"warnings"`
}

type report struct {
	Results []result `json:"results"`
}

type figure struct {
	at        time.Duration
	cycles    float64
	labeled   bool
	converged bool
	quantile  bool // the figure is a quantile of the samples (harness.Result.Quantile)
	load      string
}

func main() {
	bin := flag.String("cyclebench", "", "the cyclebench binary to run (required)")
	dur := flag.Duration("d", 10*time.Minute, "how long to go on")
	every := flag.Duration("every", 3*time.Second, "start a process this often")
	bench := flag.String("bench", "^(SumLoop|Combine4|BubbleSort|AddChain)$", "the kernels, a regexp")
	keep := flag.String("keep", "", "keep every process's JSON report in this directory (named by seconds since the start), to read the warnings of a figure the table counts")
	flag.Parse()
	if *bin == "" || *dur <= 0 || *every <= 0 {
		fmt.Fprintln(os.Stderr, "series: want -cyclebench PATH, -d > 0 and -every > 0")
		os.Exit(2)
	}
	if err := run(*bin, *bench, *keep, *dur, *every); err != nil {
		fmt.Fprintln(os.Stderr, "series:", err)
		os.Exit(1)
	}
}

func run(bin, bench, keep string, dur, every time.Duration) error {
	dir := keep
	if keep == "" {
		d, err := os.MkdirTemp("", "series")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(keep, 0o755); err != nil {
		return err
	}
	figs := map[string][]figure{}
	var names []string
	start := time.Now()
	n := 0
	for time.Since(start) < dur {
		next := time.Now().Add(every)
		load := loadavg()
		at := time.Since(start)
		out := filepath.Join(dir, fmt.Sprintf("%04.0fs.json", at.Seconds()))
		cmd := exec.Command(bin, "run", "-bench", bench, "-format", "json", "-o", out, "-q")
		if msg, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		for _, x := range r.Results {
			if _, ok := figs[x.Name]; !ok {
				names = append(names, x.Name)
			}
			labeled := x.Shared || slices.ContainsFunc(x.Warnings, func(w string) bool { return strings.Contains(w, "the core was shared") })
			figs[x.Name] = append(figs[x.Name], figure{at, x.Cycles, labeled, x.Converged, x.Quantile > 0, load})
		}
		n++
		time.Sleep(time.Until(next))
	}
	fmt.Printf("# One cyclebench process every %v for %v\n\n", every, dur)
	fmt.Printf("`cyclebench run -bench '%s'`, %d processes. A figure is slow when it reads more than 1%% above the kernel's quiet figure (the median of its unlabelled figures); labelled when the process said the core was shared; a slow unlabelled figure that said it did not converge is marked so; low when it reads more than 1%% below the quiet figure (a cycle figure below the code's cost is wrong whatever its label).\n\n", bench, n)
	fmt.Println("| kernel | quiet figure (cycles) | figures | labelled | slow, labelled | slow, unlabelled | slow unlabelled, how slow | low |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, name := range names {
		fs := figs[name]
		var calm []float64
		for _, f := range fs {
			if !f.labeled && f.cycles > 0 {
				calm = append(calm, f.cycles)
			}
		}
		quiet := math.NaN()
		if len(calm) > 0 {
			slices.Sort(calm)
			quiet = calm[len(calm)/2]
		}
		var labelled, slowL, slowU, slowUU int
		var how, low []string
		for _, f := range fs {
			slow := f.cycles > 1.01*quiet
			if f.cycles > 0 && f.cycles < 0.99*quiet {
				low = append(low, fmt.Sprintf("%.1f%% at %.0fs", 100*(f.cycles/quiet-1), f.at.Seconds()))
			}
			switch {
			case f.labeled && slow:
				labelled++
				slowL++
			case f.labeled:
				labelled++
			case slow:
				slowU++
				unconverged := ""
				if !f.converged {
					unconverged = " (did not converge)"
					slowUU++
				}
				how = append(how, fmt.Sprintf("+%.1f%% at %.0fs%s", 100*(f.cycles/quiet-1), f.at.Seconds(), unconverged))
			}
		}
		if len(how) > 8 {
			how = append(how[:8], "…")
		}
		if len(low) > 8 {
			low = append(low[:8], "…")
		}
		fmt.Printf("| %s | %.6g | %d | %d | %d | %d (%d did not converge) | %s | %d %s |\n", name, quiet, len(fs), labelled, slowL, slowU, slowUU, strings.Join(how, ", "), len(low), strings.Join(low, ", "))
	}
	fmt.Println()
	fmt.Println("Every figure, in order (seconds since the start, load, cycles, * when a quantile of the samples, L when labelled):")
	fmt.Println()
	for _, name := range names {
		var b strings.Builder
		for _, f := range figs[name] {
			l := ""
			if f.quantile {
				l = "*"
			}
			if f.labeled {
				l += " L"
			}
			fmt.Fprintf(&b, " %.0f:%s:%.6g%s", f.at.Seconds(), f.load, f.cycles, l)
		}
		fmt.Printf("- %s:%s\n", name, b.String())
	}
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "-"
}
