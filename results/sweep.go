package results

// CPE sweeps as reports give them: a sweep measured by the harness, or a
// family of a file fitted the same way (every run a point, the disturbed
// runs left out), with the texts and the JSON a report writes of it.

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/internal/sigfig"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// Sweep is one kernel's CPE sweep as a report gives it: the harness's
// result with what the report says of it besides.
type Sweep struct {
	harness.CPEResult
	// Kernel is the kernel's name (CPEResult.Name labels the sweep, which
	// may differ: "Sum1'" for the B side of an A/A comparison).
	Kernel string
	// Unit is what n counts ("elements", "ops").
	Unit string
	// NotCPE: the kernel's cost is not linear in n by design (a sort).
	NotCPE bool
	// Check is "ok", or the first failed output check ("n=800: ...").
	Check string
	// LeftOut marks the points the fit left out as disturbed runs, and
	// LeftOutRule says by which rule; both empty for a measured sweep,
	// whose points are one per size.
	LeftOut     []bool
	LeftOutRule string
}

// Rules of package harness that files are held to as well: a CPE fit
// needs 3 sizes (harness.ParseSizes), a comparison 6 pairs
// (harness.CompareOptions), and every cycle figure carries its ruler's
// tolerance of 0.05% (the harness doc's "The estimator").
const (
	minSizes       = 3
	minPairs       = 6
	rulerTolerance = 0.0005
)

// Fitted reports whether the sweep has a fit (at least minSizes
// sizes).
func (s *Sweep) Fitted() bool {
	return s.Cycles.N > 0 || s.Ticks.N > 0 || s.Nanoseconds.N > 0
}

// SizeCount is the number of distinct sizes of the sweep.
func (s *Sweep) SizeCount() int {
	n := 0
	for i, size := range s.Sizes {
		if i == 0 || size != s.Sizes[i-1] {
			n++
		}
	}
	return n
}

// IsLeftOut reports whether point i was left out of the fit.
func (s *Sweep) IsLeftOut(i int) bool { return i < len(s.LeftOut) && s.LeftOut[i] }

// UnitFit is a fit with its unit: "cycles", "ticks" or "ns".
type UnitFit struct {
	Unit string
	Fit  stats.Fit
}

// Fits lists the fits of the sweep: cycles (when measured), ticks (when
// there are), ns.
func (s *Sweep) Fits() []UnitFit {
	var fs []UnitFit
	if s.HasCycles {
		fs = append(fs, UnitFit{"cycles", s.Cycles})
	}
	if !s.NoTicks {
		fs = append(fs, UnitFit{"ticks", s.Ticks})
	}
	return append(fs, UnitFit{"ns", s.Nanoseconds})
}

// fitIn returns the fit in unit ("cycles", "ticks" or "ns").
func (s *Sweep) fitIn(unit string) stats.Fit {
	switch unit {
	case "cycles":
		return s.Cycles
	case "ns":
		return s.Nanoseconds
	}
	return s.Ticks
}

// LinearityText is the verdict line of the fit: "not linear in n:
// curvature (...); the CPE is an average over the sizes, not a cost per
// element", or "linear in n: no curvature (p = 0.4), ...".
func (s *Sweep) LinearityText() string {
	l := s.Linearity
	text := l.Reason
	if rest, ok := strings.CutPrefix(text, stats.LinearityLinear+": "); ok {
		text = "linear in n: " + rest
	}
	switch {
	case text == "":
		text = "not tested: fewer than 3 sizes"
	case l.Verdict == stats.LinearityNotLinear:
		text += "; the CPE is an average over the sizes, not a cost per element"
	}
	if s.NotCPE {
		text += " (this kernel's cost is not linear in n by design)"
	}
	return text
}

// GrowthText offers, for a cost that is not linear in n, the fits of
// other growth laws, best first: "n² fits best: 1.2e+03 + 0.5·n² cycles
// (residuals 0.4% rms, R² 0.99998); n log n: 12% rms; n: 30% rms"; ""
// when there are none.
func (s *Sweep) GrowthText() string {
	fits := s.Linearity.Complexity
	if len(fits) == 0 {
		return ""
	}
	_, unit := s.Primary()
	b := fits[0]
	t := fmt.Sprintf("%s fits best: %s %s %s·%s %s (residuals %s rms, R² %s)", b.Growth, sigfig.Sig(b.Intercept, 4), map[bool]string{true: "−", false: "+"}[b.Coef < 0],
		sigfig.Sig(math.Abs(b.Coef), 4), b.Growth, unit, sigfig.Percent(b.RMSRel, 2), sigfig.Sig(b.R2, 6))
	for _, f := range fits[1:] {
		t += fmt.Sprintf("; %s: %s rms", f.Growth, sigfig.Percent(f.RMSRel, 2))
	}
	return t + " (n in " + ElementWord(s.Unit) + "s)"
}

// NotLinearShort names the criteria the fit failed, for a plot's title:
// "curvature, R² 0.942".
func (s *Sweep) NotLinearShort() string {
	l := s.Linearity
	var why []string
	if l.Curvature.Fails {
		why = append(why, "curvature")
	}
	if l.Break.Fails {
		why = append(why, "a break at n="+sigfig.Sig(l.Break.At, 6))
	}
	if l.Runs.Fails {
		why = append(why, "residual signs in runs")
	}
	if l.R2 < l.MinR2 {
		why = append(why, "R² "+sigfig.Sig(l.R2, 4))
	}
	return strings.Join(why, ", ")
}

// r2Text shows R² with enough nines to tell 0.99990 from 0.999999.
func r2Text(r2 float64) string { return strconv.FormatFloat(r2, 'f', 7, 64) }

// LeftOutText lists the runs the fit left out: "n = 3200: 6033, 5321
// cycles (4 runs kept: 3219–3221); disturbed: RULE"; "" when none.
func (s *Sweep) LeftOutText() string {
	_, unit := s.Primary()
	var parts []string
	for i := 0; i < len(s.Points); {
		j := i
		var vals, kept []float64
		for ; j < len(s.Points) && s.Sizes[j] == s.Sizes[i]; j++ {
			y := s.Points[j].In(unit)
			if s.IsLeftOut(j) {
				vals = append(vals, y)
			} else {
				kept = append(kept, y)
			}
		}
		if len(vals) > 0 {
			vs := make([]string, len(vals))
			for k, v := range vals {
				vs[k] = sigfig.Sig(v, 4)
			}
			within := sigfig.Sig(slices.Min(kept), 4)
			if hi := slices.Max(kept); hi > slices.Min(kept) {
				within += "–" + sigfig.Sig(hi, 4)
			}
			parts = append(parts, fmt.Sprintf("n = %d: %s %s (%d runs kept: %s)", s.Sizes[i], strings.Join(vs, ", "), unit, len(kept), within))
		}
		i = j
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "; disturbed: " + s.LeftOutRule
}

// Heading names the sweep in one line: "Sum1: 10 sizes, 60 runs, n in
// elements, core 1.4 cycles/tick" (the runs when there are more than
// sizes, the ruler when there is one).
func (s *Sweep) Heading() string {
	h := fmt.Sprintf("%s: %d sizes", s.Name, s.SizeCount())
	if len(s.Points) > s.SizeCount() {
		h += fmt.Sprintf(", %d runs", len(s.Points))
	}
	h += ", n in " + s.Unit
	if s.CyclesPerTick > 0 {
		h += ", core " + sigfig.Sig(s.CyclesPerTick, 5) + " cycles/tick"
	}
	return h
}

// FitLines are the fit's figures as label and text, in the order a
// report lists them: the CPE with its 95% interval in the primary unit
// (and, labelled "", the same in the other units), the intercept, R²,
// the outlier sizes and the runs left out. None before a fit.
func (s *Sweep) FitLines() [][2]string {
	if !s.Fitted() {
		return nil
	}
	pf, unit := s.Primary()
	elem := ElementWord(s.Unit)
	lines := [][2]string{{"CPE", fmt.Sprintf("%s ± %s %s/%s (95%% CI)", sigfig.Sig(pf.Slope, 5), sigfig.Sig(pf.SlopeCI, 2), unit, elem)}}
	var also []string
	for _, f := range s.Fits()[1:] {
		if f.Unit != unit {
			also = append(also, fmt.Sprintf("%s ± %s %s/%s", sigfig.Sig(f.Fit.Slope, 5), sigfig.Sig(f.Fit.SlopeCI, 2), f.Unit, elem))
		}
	}
	if len(also) > 0 {
		lines = append(lines, [2]string{"", "= " + strings.Join(also, " = ")})
	}
	lines = append(lines,
		[2]string{"intercept", fmt.Sprintf("%s ± %s %s per call", sigfig.Sig(pf.Intercept, 4), sigfig.Sig(pf.InterceptCI, 2), unit)},
		[2]string{"R²", r2Text(pf.R2)})
	outliers := "none"
	if o := s.SizesOf(pf.Outliers); len(o) > 0 {
		ns := make([]string, len(o))
		for i, n := range o {
			ns[i] = strconv.Itoa(n)
		}
		outliers = "n = " + strings.Join(ns, ", ") + " (residual marked *)"
	}
	lines = append(lines, [2]string{"outliers", outliers})
	if l := s.LeftOutText(); l != "" {
		lines = append(lines, [2]string{"left out", l})
	}
	return lines
}

// FitComments are the linearity verdict and the fits as "#" lines of the
// benchmark format, which benchfmt readers skip and [Parse] reads.
func (s *Sweep) FitComments() []string {
	if !s.Fitted() {
		return []string{fmt.Sprintf("# cpe %s: too few sizes for a fit", s.Name)}
	}
	out := []string{fmt.Sprintf("# cpe %s: %s", s.Name, s.LinearityText())}
	if l := s.LeftOutText(); l != "" {
		out = append(out, fmt.Sprintf("# cpe %s: left out of the fit: %s", s.Name, l))
	}
	for _, f := range s.Fits() {
		out = append(out, fmt.Sprintf("# cpe %s: %s ± %s %s/%s (95%%), intercept %s ± %s %s, R² %s, outlier sizes %v",
			s.Name, sigfig.Sig(f.Fit.Slope, 5), sigfig.Sig(f.Fit.SlopeCI, 2), f.Unit, ElementWord(s.Unit), sigfig.Sig(f.Fit.Intercept, 4), sigfig.Sig(f.Fit.InterceptCI, 2), f.Unit, r2Text(f.Fit.R2), s.SizesOf(f.Fit.Outliers)))
	}
	return out
}

// Measurements are the sweep's points as measurements, one per point.
func (s *Sweep) Measurements() []Measurement {
	ms := make([]Measurement, len(s.Points))
	for i, p := range s.Points {
		ms[i] = Measurement{Result: p, Kernel: s.Kernel, N: s.Sizes[i], Unit: s.Unit, Check: s.Check, Bench: BenchName(p.Name, p.Mode), PerElement: p.Elements > 0, NoTicks: s.NoTicks}
	}
	return ms
}

// LinearityJSON is a fit's linearity verdict in a cpe report.
type LinearityJSON struct {
	Verdict    string  `json:"verdict"`
	Linear     bool    `json:"linear"`
	Reason     string  `json:"reason"`
	R2         float64 `json:"r2"`
	CurvatureP float64 `json:"curvature_p"`
	BreakP     float64 `json:"break_p"`
	BreakAt    float64 `json:"break_at,omitempty"`
	RunsP      float64 `json:"runs_p"`
	// MaxDeviation is the largest departure from the line a test found,
	// relative to the line, and MinChange the practical threshold it was
	// held to (ε).
	MaxDeviation float64 `json:"max_deviation"`
	MinChange    float64 `json:"practical_threshold"`
	// Growth, when the cost is not linear, holds the fits of cost =
	// intercept + coef·f(n) for f = n, n log n, n², best first.
	Growth []stats.ComplexityFit `json:"growth,omitempty"`
}

// KernelJSON is one kernel of a cpe report (-format json): "kernels[]".
type KernelJSON struct {
	Name          string        `json:"name"`
	Unit          string        `json:"unit"`
	Linearity     LinearityJSON `json:"linearity"`
	Sizes         []int         `json:"sizes"`
	CyclesPerTick float64       `json:"core_cycles_per_tick"`
	Fits          []FitJSON     `json:"fits"`
	Points        []ResultJSON  `json:"points"`
	Check         string        `json:"check"`
	Warnings      []string      `json:"warnings"`
	// LeftOut lists the points (by index) the fit left out as disturbed
	// runs, and LeftOutRule the rule; absent for a measured sweep.
	LeftOut     []int  `json:"left_out,omitempty"`
	LeftOutRule string `json:"left_out_rule,omitempty"`
}

// CPEReport is a cpe report: the header and the kernels.
type CPEReport struct {
	Header
	Kernels []KernelJSON `json:"kernels"`
}

// JSON is the sweep as a cpe report writes it.
func (s *Sweep) JSON() KernelJSON {
	l := s.Linearity
	verdict := l.Verdict
	if verdict == "" {
		verdict = stats.LinearityUnchecked
	}
	k := KernelJSON{Name: s.Name, Unit: s.Unit, Sizes: s.Sizes, CyclesPerTick: s.CyclesPerTick,
		Linearity: LinearityJSON{Verdict: verdict, Linear: l.Linear, Reason: s.LinearityText(), R2: l.R2,
			CurvatureP: l.Curvature.PValue, BreakP: l.Break.PValue, BreakAt: l.Break.At, RunsP: l.Runs.PValue,
			MaxDeviation: max(l.Curvature.MaxRel, l.Break.MaxRel, l.MaxRel), MinChange: l.MinChange, Growth: l.Complexity},
		Fits: []FitJSON{}, Points: []ResultJSON{}, Check: s.Check, Warnings: ErrorStrings(s.Warnings)}
	if k.Sizes == nil {
		k.Sizes = []int{}
	}
	for i := range s.Points {
		if s.IsLeftOut(i) {
			k.LeftOut = append(k.LeftOut, i)
		}
	}
	if len(k.LeftOut) > 0 {
		k.LeftOutRule = s.LeftOutRule
	}
	if s.Fitted() {
		for _, f := range s.Fits() {
			k.Fits = append(k.Fits, newFitJSON(f.Unit, f.Fit, s.SizesOf(f.Fit.Outliers)))
		}
	}
	for _, m := range s.Measurements() {
		k.Points = append(k.Points, m.JSON())
	}
	return k
}

// NewCPEReport is the report of sweeps ss under h.
func NewCPEReport(h Header, ss []*Sweep) CPEReport {
	rep := CPEReport{Header: h, Kernels: []KernelJSON{}}
	for _, s := range ss {
		rep.Kernels = append(rep.Kernels, s.JSON())
	}
	return rep
}

// PlotSweeps describes the picture of sweeps measured on cpu for package
// plot: cost per call against n in cycles when every sweep has them (else
// in ticks, else in ns), each fit with its confidence band, the K-th best
// sample of each size as an error bar, the sizes that did not converge
// and the runs a fit left out hollow, the kernels whose cost is not
// linear in n marked so; log axes for log-spaced sizes. ss may not be
// empty.
func PlotSweeps(ss []*Sweep, cpu string, logAxes bool) ([]plot.CPESeries, plot.Options, error) {
	if len(ss) == 0 {
		return nil, plot.Options{}, fmt.Errorf("%w: PlotSweeps needs at least one sweep", ErrBadInput)
	}
	unit := "cycles"
	for _, s := range ss {
		switch {
		case s.NoTicks && !s.HasCycles:
			unit = "ns"
		case !s.HasCycles && unit == "cycles":
			unit = "ticks"
		}
	}
	var series []plot.CPESeries
	for _, s := range ss {
		if len(s.Points) > 0 {
			series = append(series, s.plotSeries(unit))
		}
	}
	opt := plot.Options{}
	if logAxes {
		opt.XScale = plot.ScaleLog
	}
	if cpu == "" {
		cpu = "-"
	}
	elem := ElementWord(ss[0].Unit)
	if s := ss[0]; len(ss) == 1 && s.Fitted() && s.Linearity.Linear {
		f := s.fitIn(unit)
		opt.Title = fmt.Sprintf("%s on %s: CPE %s ± %s %s/%s (95%% CI)", s.Name, cpu, sigfig.Sig(f.Slope, 4), sigfig.Sig(f.SlopeCI, 2), unit, elem)
	} else {
		opt.Title = fmt.Sprintf("CPE on %s (%s per %s, 95%% CI)", cpu, unit, elem)
	}
	return series, opt, nil
}

// plotSeries is the sweep as a plot series in unit.
func (s *Sweep) plotSeries(unit string) plot.CPESeries {
	f := s.fitIn(unit)
	ks := plot.CPESeries{Name: s.Name, Unit: unit, ElementUnit: ElementWord(s.Unit)}
	outlier := map[int]bool{}
	for _, i := range f.Outliers {
		outlier[i] = true
	}
	var xsum float64
	used := 0
	for i, pt := range s.Points {
		y := pt.In(unit)
		cp := plot.CPEPoint{N: float64(s.Sizes[i]), Elements: pt.Elements, Y: y, NotConverged: !pt.Converged, Outlier: outlier[i], LeftOut: s.IsLeftOut(i)}
		// The K-th best sample, per call in the same unit: how far the K
		// samples that agreed spread above the best. Best is in ticks per
		// call, the overhead in ticks per sample of Repeat calls.
		if k := len(pt.Best); k > 0 && pt.Repeat > 0 && pt.Ticks > 0 {
			hi := (pt.Best[k-1] - pt.OverheadTicks/float64(pt.Repeat)) * (y / pt.Ticks)
			if hi >= y {
				cp.YLo, cp.YHi = y, hi
			}
		}
		ks.Points = append(ks.Points, cp)
		if !cp.LeftOut {
			xsum += pt.Elements
			used++
		}
	}
	if s.Fitted() && used > 0 {
		ks.Fit = &plot.Line{Intercept: f.Intercept, Slope: f.Slope, SlopeCI: f.SlopeCI, InterceptCI: f.InterceptCI,
			SlopeSE: f.SlopeSE, InterceptSE: f.InterceptSE, XMean: xsum / float64(used), R2: f.R2}
		switch {
		case s.Linearity.Verdict == stats.LinearityNotLinear:
			ks.Fit.NotLinear = s.NotLinearShort()
		case s.NotCPE:
			ks.Fit.NotLinear = "not a CPE kernel"
		}
	}
	return ks
}

// disturbedShare is the width of a cluster of runs of one size: runs of a
// K-best figure agree within ε (1%) run to run, while a busy machine or
// another code layout or host state moves them by tens of percent.
const disturbedShare = 0.05

// disturbedMany is the share of a family's runs left out above which the
// fit warns: past it the runs do not agree on one figure, and which
// cluster the fit keeps decides the CPE.
const disturbedMany = 0.25

// disturbedRule is the rule of disturbed in words, for a report.
var disturbedRule = fmt.Sprintf("runs outside the largest cluster of their size (runs within %g%% of its fastest); never half of the runs or more", disturbedShare*100)

// disturbed returns, for the runs ys of one size (costs per call), which
// are disturbed: outside the cluster that holds the most runs, a cluster
// being the runs from one run's figure to disturbedShare above it (the
// fastest such cluster on a tie). Other work on the machine makes a run
// slow, but a code layout or a host state makes a fast one as well (five
// runs at 1,760–1,766 and one at 1,598: the one is the outlier), so the
// majority decides, not the fastest run. Runs are left out only when they
// are fewer than half of the size's runs: with no majority there is no
// consensus to fit, and every run stays (two runs that disagree, three
// that all do). Within the share, runs stay in the fit, and their spread
// is in its interval.
func disturbed(ys []float64) []bool {
	out := make([]bool, len(ys))
	if len(ys) < 3 {
		return out
	}
	best, bestN := 0.0, 0
	for _, lo := range ys {
		n := 0
		for _, y := range ys {
			if y >= lo && y <= lo*(1+disturbedShare) {
				n++
			}
		}
		if n > bestN || n == bestN && lo < best {
			best, bestN = lo, n
		}
	}
	if 2*bestN <= len(ys) {
		return out
	}
	for i, y := range ys {
		out[i] = y < best || y > best*(1+disturbedShare)
	}
	return out
}

// fitFamily fits family fam of file f as a measured sweep is fitted, as
// sweep name: every run a point, the disturbed runs of each size left
// out (unless allRuns), in cycles (when every run has them), ticks (when
// the runs have them) and ns, with the same outlier rule and linearity
// test (harness.CPEResult.Fit), to the resolution the file's figures were
// written with. A family with fewer than minSizes sizes gets its
// points and no fit.
func fitFamily(fam Family, f File, name string, allRuns bool) *Sweep {
	unit := fam.Unit
	if unit == "" {
		unit = "elements"
	}
	s := &Sweep{Kernel: name, Unit: unit, Check: "ok", LeftOutRule: disturbedRule}
	s.Name = name
	hasCycles, hasTicks := true, true
	var xs, cpts []float64
	var notConv []string
	for _, p := range fam.Points {
		e := Entry{Name: p.Name, Kernel: fam.Name, Pkg: fam.Pkg, SizeKey: fam.SizeKey, N: p.N, Mode: fam.Mode, Unit: fam.Unit}
		for _, run := range p.Runs {
			res := f.Measurement(e, run).Result
			x := run.Elements
			if x <= 0 {
				x = float64(p.N)
			}
			res.Elements = x
			if run.Elements <= 0 { // per-element figures from the size
				res.NsPerElement, res.TicksPerElement, res.CyclesPerElement = res.Nanoseconds/x, res.Ticks/x, res.Cycles/x
			}
			s.Sizes = append(s.Sizes, int(p.N))
			s.Points = append(s.Points, res)
			xs = append(xs, x)
			hasCycles = hasCycles && run.NoCycles == HasCycles
			hasTicks = hasTicks && run.Ticks > 0
			if res.CyclesPerTick > 0 {
				cpts = append(cpts, res.CyclesPerTick)
			}
			if run.NotConverged {
				notConv = append(notConv, strconv.FormatInt(p.N, 10))
			}
			if run.Check != "" && run.Check != "ok" && s.Check == "ok" {
				s.Check = fmt.Sprintf("n=%d: %s", p.N, run.Check)
			}
		}
	}
	s.HasCycles, s.NoTicks = hasCycles, !hasTicks
	if len(cpts) > 0 {
		s.CyclesPerTick = stats.Median(cpts)
	}
	if !hasCycles {
		for i := range s.Points {
			s.Points[i].CyclesPerTick = 0
		}
	}
	if len(notConv) > 0 {
		s.Warnings = append(s.Warnings, fmt.Errorf("%s: %d of %d runs did not converge (n = %s)", name, len(notConv), len(s.Points), strings.Join(slices.Compact(notConv), ", ")))
	}
	_, punit := s.Primary()
	s.LeftOut = make([]bool, len(s.Points))
	for i := 0; i < len(s.Points) && !allRuns; {
		j := i
		var ys []float64
		for ; j < len(s.Points) && s.Sizes[j] == s.Sizes[i]; j++ {
			ys = append(ys, s.Points[j].In(punit))
		}
		copy(s.LeftOut[i:j], disturbed(ys))
		i = j
	}
	if out := countTrue(s.LeftOut); float64(out) > disturbedMany*float64(len(s.LeftOut)) {
		s.Warnings = append(s.Warnings, fmt.Errorf("%s: %d of %d runs left out as disturbed: the runs of a size disagree (a busy machine, or code whose speed depends on its layout or the host's state), and the fit follows the majority; -all-runs keeps every run", name, out, len(s.LeftOut)))
	}
	if s.SizeCount() < minSizes {
		return s
	}
	eps := f.Settings.Epsilon
	if eps == 0 {
		eps = harness.DefaultConfig().Epsilon
	}
	o := harness.FitOptions{Step: f.Machine.CounterStep, Hz: f.Machine.CounterHz, Epsilon: eps, LeftOut: s.LeftOut, Resolution: f.Resolution}
	if err := s.Fit(xs, o); err != nil {
		s.Warnings = append(s.Warnings, err)
	}
	return s
}

// FitFiles fits every family of files ([families]) whose name filter
// matches (nil: every family) with [fitFamily]; the families of several
// files pool their runs (files of one machine, measured apart). families
// with fewer than minSizes sizes are kept, without a fit, and
// named in a note, as are the benchmarks without a size; none with
// enough sizes is an error wrapping [ErrNoSweep]; files measured on other
// CPUs than the first are named in a note too. The names carry the
// package when the files hold several, and /mode=latency for latency
// families.
func FitFiles(files []File, filter *regexp.Regexp, allRuns bool) ([]*Sweep, []string, error) {
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("%w: FitFiles needs at least one file", ErrBadInput)
	}
	type source struct {
		fam  Family
		file File
	}
	var fams []source
	var unsized []string
	pkgs := map[string]bool{}
	for _, f := range files {
		for _, e := range f.Entries {
			if e.SizeKey == "" && !slices.Contains(unsized, e.Name) {
				unsized = append(unsized, e.Name)
			}
		}
		for _, fam := range families(f.Entries) {
			if filter != nil && !filter.MatchString(fam.Name) {
				continue
			}
			pkgs[fam.Pkg] = true
			if i := slices.IndexFunc(fams, func(s source) bool {
				return s.fam.Name == fam.Name && s.fam.Pkg == fam.Pkg && s.fam.Mode == fam.Mode && s.fam.SizeKey == fam.SizeKey
			}); i >= 0 {
				fams[i].fam = families(append(fams[i].fam.Entries(), fam.Entries()...))[0]
				continue
			}
			fams = append(fams, source{fam, f})
		}
	}
	var notes []string
	for _, f := range files[1:] {
		if f.Machine.CPU != files[0].Machine.CPU {
			notes = append(notes, fmt.Sprintf("%s was measured on %q, %s on %q: families of both are fitted together", files[0].Path, files[0].Machine.CPU, f.Path, f.Machine.CPU))
		}
	}
	if len(unsized) > 0 {
		notes = append(notes, fmt.Sprintf("left out %s: no size part in the name (Name/n=SIZE, size=, len=, elements=), so no family to fit", listSome(unsized, 5)))
	}
	var swept []*Sweep
	var few []string
	for _, src := range fams {
		name := src.fam.Name
		if len(pkgs) > 1 && src.fam.Pkg != "" {
			name = src.fam.Pkg + "." + name
		}
		if src.fam.Mode == Latency {
			name += "/mode=latency"
		}
		if n := len(src.fam.Points); n < minSizes {
			few = append(few, fmt.Sprintf("%s (%d %s)", name, n, map[bool]string{true: "size", false: "sizes"}[n == 1]))
		}
		swept = append(swept, fitFamily(src.fam, src.file, name, allRuns))
	}
	if len(few) > 0 {
		notes = append(notes, fmt.Sprintf("no fit for %s: a fit needs %d sizes or more", strings.Join(few, ", "), minSizes))
	}
	if len(few) == len(swept) {
		var names []string
		for _, f := range files {
			names = append(names, f.Path)
		}
		what := "no family of sub-benchmarks Name/n=SIZE"
		if filter != nil && filter.String() != "." {
			what += fmt.Sprintf(" matching -bench %q", filter)
		}
		if len(few) > 0 {
			what = "no family with " + strconv.Itoa(minSizes) + " sizes or more: " + strings.Join(few, ", ")
		}
		return nil, nil, fmt.Errorf("%w: %s: %s (a fit needs sub-benchmarks Name/n=SIZE at %d sizes or more, such as harness.ReportSweep writes)", ErrNoSweep, strings.Join(names, ", "), what, minSizes)
	}
	return swept, notes, nil
}

// countTrue is the number of true values in bs.
func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
