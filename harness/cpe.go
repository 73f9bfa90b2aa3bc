package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/stats"
)

// Sweep is what a CPE sweep times: a name, its sizes and a function that
// builds the [Target] for one size.
type Sweep struct {
	// Name labels the sweep; point names are Name + "/n=" + size; empty
	// means "sweep1", "sweep2", ... in the order given.
	Name string
	// Sizes are the sizes n to measure: 3 to 1000 sizes, strictly
	// increasing, each from 1 to 2³¹−1 ([ParseSizes] reads them from text).
	Sizes []int
	// Build prepares the target for size n (allocating its input). Its
	// Target's Name is replaced by Name + "/n=" + n and its Elements, when
	// 0, by n; its Check is called after the sweep.
	Build func(n int) (Target, error)
}

// CPEResult is what a CPE sweep found for one kernel: one measurement per
// size and the least-squares lines cost = Intercept + Slope·elements, with
// an intercept (the per-call cost that does not grow with n), in core
// cycles, counter ticks and nanoseconds.
type CPEResult struct {
	Name string
	// Sizes are the sizes measured, ascending; Points[i] is the result for
	// Sizes[i] (per-call figures, overhead subtracted; Points[i].Elements
	// is the fit's x).
	Sizes  []int
	Points []Result
	// Cycles, Ticks and Nanoseconds fit per-call cost against elements:
	// Slope is the cost per element (CPE in Cycles), SlopeCI its 95%
	// half-width, Intercept the per-call cost, R2, Residuals per point.
	// Their Outliers are the indices of points whose residual is an outlier
	// by [stats.Fit.OutliersAbove] with a floor of two counter steps in the
	// fit's unit (the plain MAD rule flags one-step quantization on clean
	// data) and is also larger than Config.Epsilon times the point's value
	// (the K-best tolerance each point is measured to). Cycles is the zero Fit when there is no core-cycle estimate
	// (Config.NoCycles); see HasCycles.
	Cycles, Ticks, Nanoseconds stats.Fit
	// HasCycles reports whether Cycles holds a fit.
	HasCycles bool
	// NoTicks reports that the points carry no tick figures (read from go
	// test output without harness.Report): Ticks is the zero Fit.
	NoTicks bool
	// Linearity says whether the cost grows linearly with the elements
	// over the sizes measured: [stats.LackOfFit] of the cycle figures (the
	// tick figures without a cycle estimate), with a floor of two counter
	// quanta per call at the coarsest size and Config.Epsilon as the
	// practical threshold: a departure from the line that moves the cost at
	// no size by more than ε leaves it linear. When it is not linear (Verdict
	// stats.LinearityNotLinear) the slope is an average over the sizes, not
	// a cost per element, and a warning says why. Its Verdict is "" when
	// there were fewer than 3 points.
	Linearity stats.Linearity
	// CyclesPerTick is the core-clock ratio of the ruler measured in the
	// same rounds as every point (one ruler for the whole sweep); 0 when it
	// was refused.
	CyclesPerTick float64
	// Warnings holds soft problems of the sweep as a whole: pinning,
	// priority, calibration, the ruler, points that did not converge,
	// outlier sizes. Each point's own problems are in its Warnings.
	Warnings []error
}

// Primary is the fit a sweep is reported by, and its unit: cycles when
// measured, else ticks, else (NoTicks) nanoseconds.
func (c CPEResult) Primary() (stats.Fit, string) {
	switch {
	case c.HasCycles:
		return c.Cycles, "cycles"
	case c.NoTicks:
		return c.Nanoseconds, "ns"
	}
	return c.Ticks, "ticks"
}

// OutlierSizes returns the sizes flagged as outliers by the primary fit,
// each once.
func (c CPEResult) OutlierSizes() []int {
	f, _ := c.Primary()
	return c.SizesOf(f.Outliers)
}

// SizesOf returns the sizes of the points at idx (a fit's Outliers), each
// once, in the order of idx.
func (c CPEResult) SizesOf(idx []int) []int {
	out := []int{}
	for _, i := range idx {
		if i >= 0 && i < len(c.Sizes) && !slices.Contains(out, c.Sizes[i]) {
			out = append(out, c.Sizes[i])
		}
	}
	return out
}

// CPE measures sw.Build(n) for every size n of sw.Sizes and fits per-call
// cost against elements with an intercept (see [CPEResult]). It is
// [CPEAll] with one sweep.
func CPE(ctx context.Context, cfg Config, sw Sweep) (CPEResult, error) {
	rs, err := CPEAll(ctx, cfg, []Sweep{sw})
	if len(rs) == 0 {
		return CPEResult{Name: sw.Name}, err
	}
	return rs[0], err
}

// CPEAll measures every size of every sweep and fits each sweep's line.
//
// All targets are built first (an error from a Build is returned
// wrapped with the sweep's name and size). Then the sweeps are measured one
// after another, each on a goroutine pinned like [Measure]'s, with its
// sizes interleaved in one loop: each round samples every size not yet
// converged forward and then backward (1 2 … n n … 2 1), each sample
// preceded by one untimed call (or Setup) so that the other sizes' data do
// not leave it with a cold cache, then the empty loops and the ruler's
// chains; every other round runs in the reverse order. So a slow drift of
// the core clock or of the machine's load affects every size alike, and
// one ruler converts every size of a sweep to cycles. Every size is
// sampled in every round until each one has converged (see
// [Result.Converged]) or taken MaxSamples samples, so all sizes' best
// samples come from the same stretch of time; a sweep's loop ends then,
// once the empty loops and the ruler have converged too, or after
// cfg.MaxTime. Different sweeps are not interleaved with each other: a
// kernel run between the samples of another can change how the other runs
// (branch and memory-dependence predictors), enough to make CS:APP's
// combine1 bimodal.
//
// cfg is used as by Measure; Repeat, when not 0, applies to every size.
// The progress hook of ctx ([WithProgress]) gets Name = the sweep's name,
// Samples = sizes finished over all sweeps and Max = sizes in all. After
// the measurement each size's Check, when there is one, is called; the
// first that fails is the error.
//
// On a cancelled context the results hold the sweeps measured so far, the
// last one with the points it has (fits only when at least 3 points have
// samples), with an error.
func CPEAll(ctx context.Context, cfg Config, sweeps []Sweep) ([]CPEResult, error) {
	if len(sweeps) == 0 {
		return nil, fmt.Errorf("%w: no sweep given", ErrBadSizes)
	}
	insts := make([][]Target, len(sweeps))
	xs := make([][]float64, len(sweeps))
	total := 0
	for i, sw := range sweeps {
		if sw.Build == nil {
			return nil, fmt.Errorf("%w: sweep %q has no Build function (allowed: a function that returns the Target for size n)", ErrBadConfig, sw.Name)
		}
		if err := checkSizes(sw.Sizes); err != nil {
			return nil, fmt.Errorf("sweep %q: %w", sw.Name, err)
		}
		name := sw.Name
		if name == "" {
			name = fmt.Sprintf("sweep%d", i+1)
			sweeps[i].Name = name
		}
		for _, n := range sw.Sizes {
			in, err := sw.Build(n)
			if err != nil {
				return nil, fmt.Errorf("harness: %s/n=%d: %w", name, n, err)
			}
			if err := in.validate(cfg, fmt.Sprintf("%s/n=%d", name, n)); err != nil {
				return nil, err
			}
			if in.Elements == 0 {
				in.Elements = float64(n)
			}
			in.Name = fmt.Sprintf("%s/n=%d", name, n)
			insts[i] = append(insts[i], in)
			xs[i] = append(xs[i], in.Elements)
		}
		total += len(sw.Sizes)
	}
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}

	results := make([]CPEResult, 0, len(sweeps))
	var firstErr error
	before := 0 // sizes of the sweeps already measured
	// The sweeps of one call share their count of waits in vain for the
	// ruler (Waits): a lag that outlasts the wait of two sweeps is not
	// waited for again in this call.
	var waits Waits
	for i, sw := range sweeps {
		c := cfg
		progress := func(e *engine) (int, int) {
			done := before
			for _, t := range e.targets {
				if t.kb.Converged() || t.taken >= c.MaxSamples {
					done++
				}
			}
			return done, total
		}
		e, abandoned, runErr := measureTargets(ctx, c, runSpec{name: sw.Name, targets: insts[i], progress: progress, waits: &waits})
		if e == nil || abandoned {
			return results, runErr
		}
		res, err := cpeResult(c, sw, e, xs[i])
		results = append(results, res)
		if runErr != nil {
			return results, runErr
		}
		for _, t := range insts[i] {
			if cerr := t.check(); cerr != nil && err == nil {
				err = cerr
			}
		}
		if firstErr == nil {
			firstErr = err
		}
		before += len(sw.Sizes)
	}
	return results, firstErr
}

// cpeResult turns one sweep's loop into its points and fits.
func cpeResult(cfg Config, sw Sweep, e *engine, xs []float64) (CPEResult, error) {
	c := CPEResult{Name: sw.Name, CyclesPerTick: e.rl.cpt, HasCycles: !cfg.NoCycles && e.rl.cpt > 0}
	c.Warnings = append(c.Warnings, e.warnings...)
	var firstErr error
	var px []float64
	var notConv []string
	for k, n := range sw.Sizes {
		res, err := e.result(e.targets[k])
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		c.Sizes = append(c.Sizes, n)
		c.Points = append(c.Points, res)
		px = append(px, xs[k])
		if !res.Converged {
			notConv = append(notConv, strconv.Itoa(n))
		}
	}
	if len(notConv) > 0 {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: %s: %d of %d sizes (n = %s)", ErrNotConverged, sw.Name, len(notConv), len(sw.Sizes), strings.Join(notConv, ", ")))
	}
	if len(px) >= minSizes {
		if err := c.Fit(px, FitOptions{Step: e.ctr.step, Hz: e.ctr.hz, Epsilon: cfg.Epsilon}); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("harness: %s: %w", sw.Name, err)
		}
	}
	return c, firstErr
}

// FitOptions says how [CPEResult.Fit] judges the points of a sweep.
type FitOptions struct {
	// Step is the counter step in ticks and Hz the counter frequency: a
	// residual is an outlier only above two counter steps in the fit's
	// unit (ticks; cycles at CyclesPerTick; ns at Hz, no floor without it).
	Step, Hz float64
	// Epsilon: and only when it is also larger than Epsilon of the point's
	// value (the K-best tolerance each point is measured to: with
	// log-spaced sizes the large sizes' residuals are large in absolute
	// terms only). It is also the practical threshold of the linearity
	// test (stats.LinearityOptions.MinChange, below 1): a departure from
	// the line counts only when it moves the cost at some size by more
	// than each point is measured to.
	Epsilon float64
	// LeftOut, when not nil, marks the points kept out of the fits (a
	// file's disturbed runs); their residuals are still measured from the
	// line.
	LeftOut []bool
	// Resolution, when not nil, gives the resolution a value was recorded
	// with (a file's printed digits): every floor is at least that.
	Resolution func(y float64) float64
}

// Fit fits c.Points against x (their elements) in nanoseconds, ticks
// (unless NoTicks) and cycles (with HasCycles), marks the outliers and tests
// linearity in the primary unit, with a warning for each problem: the rules
// [CPE] applies, for points read back from files too. Points of one size
// (several runs, their Sizes adjacent) enter the linearity test as one, the
// median of their kept runs: they share that size's deviation from the
// line, and the test would take them for independent points. A fit that
// cannot be made is left zero and named in the error.
func (c *CPEResult) Fit(x []float64, o FitOptions) error {
	if len(x) != len(c.Points) || len(c.Sizes) != len(c.Points) {
		return fmt.Errorf("harness: %s: %d x values and %d sizes for %d points", c.Name, len(x), len(c.Sizes), len(c.Points))
	}
	resolution := func(y float64) float64 {
		if o.Resolution == nil {
			return 0
		}
		return o.Resolution(y)
	}
	var keep []int
	for i := range c.Points {
		if i >= len(o.LeftOut) || !o.LeftOut[i] {
			keep = append(keep, i)
		}
	}
	var errs []error
	fit := func(unit string, floor float64) stats.Fit {
		ys := make([]float64, len(c.Points))
		var kx, ky []float64
		for i, p := range c.Points {
			ys[i] = p.In(unit)
		}
		for _, i := range keep {
			kx, ky = append(kx, x[i]), append(ky, ys[i])
			floor = math.Max(floor, resolution(ys[i]))
		}
		fk, err := stats.LinearFit(kx, ky)
		if err != nil {
			errs = append(errs, fmt.Errorf("no fit in %s: %w", unit, err))
			return stats.Fit{}
		}
		out := fk
		out.Residuals = make([]float64, len(ys))
		for i := range ys {
			out.Residuals[i] = ys[i] - fk.Predict(x[i])
		}
		out.Outliers = nil
		for _, k := range fk.OutliersAbove(floor) {
			if i := keep[k]; math.Abs(fk.Residuals[k]) > o.Epsilon*math.Abs(ys[i]) {
				out.Outliers = append(out.Outliers, i)
			}
		}
		return out
	}
	floor := defaultAbsSteps * o.Step // ticks
	c.Ticks, c.Cycles = stats.Fit{}, stats.Fit{}
	c.Nanoseconds = fit("ns", 0)
	if o.Hz > 0 {
		c.Nanoseconds = fit("ns", floor/o.Hz*1e9)
	}
	if !c.NoTicks {
		c.Ticks = fit("ticks", floor)
	}
	if c.HasCycles {
		c.Cycles = fit("cycles", floor*c.CyclesPerTick)
	}
	c.checkLinearity(x, keep, o.Step, min(max(o.Epsilon, 0), 0.5), resolution)
	if out := c.OutlierSizes(); len(out) > 0 {
		c.Warnings = append(c.Warnings, fmt.Errorf("harness: %s: sizes off the line (outlier residuals): %v", c.Name, out))
	}
	return errors.Join(errs...)
}

// checkLinearity fills c.Linearity from the kept points' cost in the
// primary unit against x, one point per size (the median of its runs),
// with a floor of defaultAbsSteps counter quanta per call at the coarsest
// point (at least the resolution the values were recorded with) and the
// practical threshold minChange (FitOptions.Epsilon).
func (c *CPEResult) checkLinearity(x []float64, keep []int, step, minChange float64, resolution func(float64) float64) {
	_, unit := c.Primary()
	var kx, ky []float64
	floor := 0.0
	for k := 0; k < len(keep); {
		j := k
		var xs, ys []float64
		for ; j < len(keep) && c.Sizes[keep[j]] == c.Sizes[keep[k]]; j++ {
			xs, ys = append(xs, x[keep[j]]), append(ys, c.Points[keep[j]].In(unit))
		}
		kx, ky = append(kx, stats.Median(xs)), append(ky, stats.Median(ys))
		floor = math.Max(floor, resolution(ky[len(ky)-1]))
		k = j
	}
	for _, i := range keep {
		if p := c.Points[i]; p.Repeat > 0 && unit != "ns" {
			scale := 1.0
			if unit == "cycles" {
				scale = p.CyclesPerTick
			}
			floor = math.Max(floor, defaultAbsSteps*math.Max(math.Max(p.Quantum, p.Step), step)/float64(p.Repeat)*scale)
		}
	}
	l, err := stats.LackOfFit(kx, ky, stats.LinearityOptions{Floor: floor, MinChange: minChange})
	if err != nil {
		c.Warnings = append(c.Warnings, fmt.Errorf("harness: %s: no linearity test: %w", c.Name, err))
		return
	}
	c.Linearity = l
	if l.Verdict == stats.LinearityNotLinear {
		c.Warnings = append(c.Warnings, fmt.Errorf("harness: %s: the cost is %s; the slope is an average over the sizes, not a cost per element", c.Name, l.Reason))
	}
}
