package reports

// The reports of cyclebench clocks: every clock around the same runs of a
// kernel (lab.Clocks), and the utilisation demo (lab.Utilisation). Times
// are in nanoseconds; ticks are TSC ticks.

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/lab"
	"github.com/cyclebench/cyclebench/results"
)

// ClocksReport is the lab's result as cyclebench clocks writes it.
type ClocksReport struct {
	Command     string         `json:"command"`
	CPU         string         `json:"cpu"`
	PinnedCPU   int            `json:"pinned_cpu"`
	Priority    string         `json:"priority"`
	TSCHz       float64        `json:"tsc_hz"`
	TSCHzSource string         `json:"tsc_hz_source"`
	Reps        int            `json:"reps"`
	Tolerance   float64        `json:"tolerance"`
	Nesting     []string       `json:"nesting"`
	Clocks      []ClockReport  `json:"clocks"`
	Kernels     []ClocksKernel `json:"kernels"`
	GOOS        string         `json:"goos"`
	GOARCH      string         `json:"goarch"`
	GoVersion   string         `json:"go_version"`
	Warnings    []string       `json:"warnings"`
}

// ClockReport is one clock: its resolution and what it reads around
// nothing.
type ClockReport struct {
	Clock        string `json:"clock"`
	Source       string `json:"source"`
	ResolutionNs int64  `json:"resolution_ns"`
	EmptyNs      int64  `json:"empty_ns"`
}

// ClocksKernel is one kernel timed by every clock.
type ClocksKernel struct {
	Name      string        `json:"name"`
	Unit      string        `json:"unit"`
	Reference string        `json:"reference"`
	Redone    int           `json:"redone"`
	Check     string        `json:"check"`
	Methods   []ClockMethod `json:"methods"`
	// KBest is the harness's figure, as run writes it; null without one.
	KBest    *results.ResultJSON `json:"kbest"`
	Verdict  []string            `json:"verdict"`
	Warnings []string            `json:"warnings"`
	// KBestResult is the result behind KBest.
	KBestResult *harness.Result `json:"-"`
}

// ClockMethod is one clock's readings of a kernel's runs.
type ClockMethod struct {
	Clock             string   `json:"clock"`
	Source            string   `json:"source"`
	ResolutionNs      int64    `json:"resolution_ns"`
	EmptyNs           int64    `json:"empty_ns"`
	ReadingsNs        []int64  `json:"readings_ns"`
	Ticks             []uint64 `json:"ticks,omitempty"`
	MinNs             int64    `json:"min_ns"`
	MedianNs          int64    `json:"median_ns"`
	MaxNs             int64    `json:"max_ns"`
	Spread            *float64 `json:"spread"`
	Zeros             int      `json:"zeros"`
	Resolves          bool     `json:"resolves"`
	DiffFromReference *float64 `json:"diff_from_reference"`
	Agrees            bool     `json:"agrees"`
	DiffFromKBest     *float64 `json:"diff_from_kbest"`
}

// finite returns a pointer to v, or nil (JSON null) when v is NaN or ±Inf.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// NewClocksReport is res, measured on the CPU named brand, as a report;
// units gives each kernel's element unit by its name. The platform is
// runtime's.
func NewClocksReport(brand string, res lab.Result, units map[string]string) ClocksReport {
	r := ClocksReport{
		Command: "clocks", CPU: brand, PinnedCPU: res.CPU, Priority: res.Priority,
		TSCHz: res.TicksPerSecond, TSCHzSource: res.FrequencySource, Reps: res.Reps, Tolerance: res.Tolerance,
		Nesting: []string{}, Clocks: []ClockReport{}, Kernels: []ClocksKernel{},
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Warnings: results.ErrorStrings(res.Warnings),
	}
	for _, c := range res.Nesting {
		r.Nesting = append(r.Nesting, c.String())
	}
	for _, c := range res.Clocks {
		r.Clocks = append(r.Clocks, ClockReport{Clock: c.Clock.String(), Source: string(c.Source), ResolutionNs: c.Resolution.Nanoseconds(), EmptyNs: c.Empty.Nanoseconds()})
	}
	for _, k := range res.Kernels {
		kj := ClocksKernel{Name: k.Name, Unit: units[k.Name], Redone: k.Redone, Check: "ok", Methods: []ClockMethod{}, Verdict: k.Verdict(), Warnings: results.ErrorStrings(k.Warnings)}
		if k.HasReference {
			kj.Reference = k.Reference.String()
		}
		if k.CheckError != nil {
			kj.Check = k.CheckError.Error()
		}
		if k.KBest != nil {
			j := results.Measurement{Result: *k.KBest, Unit: units[k.Name]}.JSON()
			kj.KBest, kj.KBestResult = &j, k.KBest
		}
		for _, m := range k.Methods {
			mj := ClockMethod{
				Clock: m.Clock.String(), Source: string(m.Source), ResolutionNs: m.Resolution.Nanoseconds(), EmptyNs: m.Empty.Nanoseconds(),
				ReadingsNs: make([]int64, len(m.Readings)), Ticks: m.Ticks,
				MinNs: m.Min.Nanoseconds(), MedianNs: m.Median.Nanoseconds(), MaxNs: m.Max.Nanoseconds(),
				Spread: finite(m.Spread), Zeros: m.Zeros, Resolves: m.Resolves, DiffFromReference: finite(m.DiffFromReference), Agrees: m.Agrees,
				DiffFromKBest: finite(m.DiffFromKBest),
			}
			for i, d := range m.Readings {
				mj.ReadingsNs[i] = d.Nanoseconds()
			}
			kj.Methods = append(kj.Methods, mj)
		}
		r.Kernels = append(r.Kernels, kj)
	}
	return r
}

// DisplayUnit picks the unit of k's table from its reference (or longest)
// median: ms below 100 s, else s, with its size in nanoseconds.
func (k ClocksKernel) DisplayUnit() (name string, ns float64) {
	var med int64
	for _, m := range k.Methods {
		if m.Clock == k.Reference {
			med = m.MedianNs
			break
		}
		med = max(med, m.MedianNs)
	}
	if med >= 100e9 {
		return "s", 1e9
	}
	return "ms", 1e6
}

// Verdict thresholds of the utilisation demo, in percent of one CPU.
const (
	BusyShare = 95.0 // compute-bound at or above
	IdleShare = 2.0  // sleeping or blocked at or below
)

// UtilisationReport is the utilisation demo's result as cyclebench clocks
// -demo utilisation writes it.
type UtilisationReport struct {
	Command   string              `json:"command"`
	Demo      string              `json:"demo"`
	CPU       string              `json:"cpu"`
	PinnedCPU int                 `json:"pinned_cpu"`
	Priority  string              `json:"priority"`
	Kernels   []UtilisationKernel `json:"kernels"`
	Verdict   []string            `json:"verdict"`
	GOOS      string              `json:"goos"`
	GOARCH    string              `json:"goarch"`
	GoVersion string              `json:"go_version"`
	Warnings  []string            `json:"warnings"`
}

// UtilisationKernel is one kernel's wall and CPU time and its shares.
type UtilisationKernel struct {
	Name         string   `json:"name"`
	WallNs       int64    `json:"wall_ns"`
	ProcessCPUNs int64    `json:"process_cpu_ns"`
	ThreadCPUNs  int64    `json:"thread_cpu_ns"`
	OfOneCPU     float64  `json:"of_one_cpu_pct"`
	OfAllCPUs    float64  `json:"of_all_cpus_pct"`
	NumCPU       int      `json:"num_cpu"`
	SystemBusy   float64  `json:"system_busy_pct"`
	TickShare    float64  `json:"tick_share_pct"`
	Source       string   `json:"source"`
	Check        string   `json:"check"`
	Warnings     []string `json:"warnings"`
}

// NewUtilisationReport is res, measured on the CPU named brand, as a
// report, with each kernel's [UtilisationKernel.Verdict]. The platform is
// runtime's.
func NewUtilisationReport(brand string, res lab.UtilisationResult) UtilisationReport {
	r := UtilisationReport{
		Command: "clocks", Demo: "utilisation", CPU: brand, PinnedCPU: res.CPU, Priority: res.Priority,
		Kernels: []UtilisationKernel{}, Verdict: []string{},
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, GoVersion: runtime.Version(), Warnings: results.ErrorStrings(res.Warnings),
	}
	for _, k := range res.Kernels {
		u := k.Utilisation
		j := UtilisationKernel{
			Name: k.Name, WallNs: u.Wall.Nanoseconds(), ProcessCPUNs: u.ProcessCPU.Nanoseconds(), ThreadCPUNs: k.ThreadCPU.Nanoseconds(),
			OfOneCPU: u.OfOneCPU, OfAllCPUs: u.OfAllCPUs, NumCPU: u.NumCPU, SystemBusy: u.SystemBusy, TickShare: u.TickShare,
			Source: u.Source, Check: "ok", Warnings: append(results.ErrorStrings(u.Warnings), results.ErrorStrings(k.Warnings)...),
		}
		if k.CheckError != nil {
			j.Check = k.CheckError.Error()
		}
		r.Kernels = append(r.Kernels, j)
		r.Verdict = append(r.Verdict, j.Verdict())
	}
	return r
}

// Verdict says in one line what the kernel's share of one CPU shows:
// compute-bound (at least BusyShare), sleeping or blocking (at most
// IdleShare), or between.
func (j UtilisationKernel) Verdict() string {
	share := sigfig.Sig(j.OfOneCPU, 3) + "%"
	wall := time.Duration(j.WallNs).Round(time.Microsecond)
	switch {
	case j.OfOneCPU >= BusyShare:
		return fmt.Sprintf("%s kept one CPU busy (%s of one CPU, ≥ %g%%) for %v: compute-bound", j.Name, share, BusyShare, wall)
	case j.OfOneCPU <= IdleShare:
		return fmt.Sprintf("%s used %s of one CPU (≤ %g%%) over %v of wall time: it sleeps or blocks", j.Name, share, IdleShare, wall)
	}
	return fmt.Sprintf("%s used %s of one CPU over %v: partly busy, or preempted", j.Name, share, wall)
}

// Notes lists r's warnings for stderr, each kernel's first (a failed
// output check, then its warnings, each after its name), then the
// report's own; failed names the kernels whose output check failed.
func (r ClocksReport) Notes() (warnings, failed []string) {
	for _, k := range r.Kernels {
		warnings, failed = kernelNotes(warnings, failed, k.Name, k.Check, k.Warnings)
	}
	return append(warnings, r.Warnings...), failed
}

// RulerUnconverged reports whether a kernel's K-best cycles were converted
// with a core-clock ruler that did not converge.
func (r ClocksReport) RulerUnconverged() bool {
	for _, k := range r.Kernels {
		if kb := k.KBestResult; kb != nil && kb.CyclesPerTick > 0 && !kb.ReferenceConverged {
			return true
		}
	}
	return false
}

// Notes lists r's warnings for stderr as [ClocksReport.Notes] does.
func (r UtilisationReport) Notes() (warnings, failed []string) {
	for _, k := range r.Kernels {
		warnings, failed = kernelNotes(warnings, failed, k.Name, k.Check, k.Warnings)
	}
	return append(warnings, r.Warnings...), failed
}

// kernelNotes adds to warnings and failed what one kernel of a report
// says: check is "ok" or why its output check failed.
func kernelNotes(warnings, failed []string, name, check string, own []string) ([]string, []string) {
	if check != "ok" {
		failed = append(failed, name)
		warnings = append(warnings, fmt.Sprintf("%s: output check failed: %s", name, check))
	}
	for _, w := range own {
		warnings = append(warnings, name+": "+w)
	}
	return warnings, failed
}

// Head is the lines above r's tables: what was timed, the machine and
// the pinning, the counter's frequency (when known) and the clocks'
// nesting.
func (r ClocksReport) Head() []string {
	what := fmt.Sprintf("clocks: %d repetitions of each kernel, every clock around the same runs", r.Reps)
	if slices.ContainsFunc(r.Kernels, func(k ClocksKernel) bool { return k.KBest != nil }) {
		what += "; cyclebench's K-best figure beside them"
	}
	head := []string{what, machineLine(r.CPU, r.PinnedCPU, r.Priority)}
	if r.TSCHz > 0 {
		head = append(head, fmt.Sprintf("tsc: %s (%s)", sigfig.Hz(r.TSCHz), r.TSCHzSource))
	}
	return append(head, "nesting, outer to inner: "+strings.Join(r.Nesting, ", "))
}

// Head is the lines above r's table: what was measured, the machine and
// the pinning.
func (r UtilisationReport) Head() []string {
	return []string{"utilisation demo: each kernel once, between two snapshots of the system's and the process's cpu time",
		machineLine(r.CPU, r.PinnedCPU, r.Priority)}
}

// machineLine names the CPU, the one the thread was pinned to (-1: none)
// and its priority, "-" for what is unknown.
func machineLine(cpu string, pinned int, priority string) string {
	p := "no"
	if pinned >= 0 {
		p = "cpu " + strconv.Itoa(pinned)
	}
	return fmt.Sprintf("cpu: %s  pinned: %s  priority: %s", cmp.Or(cpu, "-"), p, cmp.Or(priority, "-"))
}
