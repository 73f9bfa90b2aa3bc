package harness

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cyclebench/cyclebench/stats"
)

// ErrBadSizes: a size list, range or log spacing for a CPE sweep is empty,
// unsorted, has a duplicate or a size below 1, has fewer than [MinSizes]
// sizes, or does not parse.
var ErrBadSizes = errors.New("harness: bad sizes")

// Limits of a sweep's size list.
const (
	// MinSizes is the fewest sizes a CPE fit accepts: a line with a
	// confidence interval needs N−2 ≥ 1 degrees of freedom.
	MinSizes = 3
	// MaxSizes bounds the length of a size list, so a range such as
	// 1:1000000000:1 is refused instead of allocating and measuring for hours.
	MaxSizes = 1000
	// MaxSize is the largest size accepted (2³¹−1, so it is an int on every
	// platform).
	MaxSize = math.MaxInt32
)

// Sweep is one kernel of a CPE sweep: a name, its sizes and a function that
// builds the instance for one size.
type Sweep struct {
	// Name labels the sweep; point names are Name + "/n=" + size.
	Name string
	// Sizes are the sizes n to measure, as [CheckSizes] requires.
	Sizes []int
	// Build prepares the function for size n (allocating its input). Its
	// Instance's Name is ignored.
	Build func(n int) (Instance, error)
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
	// there were fewer than MinSizes points.
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

// CPE measures build(n) for every size n and fits per-call cost against
// elements with an intercept (see [CPEResult]). It is [CPEAll] with one
// sweep; cfg.Name names it.
func CPE(cfg Config, sizes []int, build func(n int) (Instance, error)) (CPEResult, error) {
	rs, err := CPEAll(cfg, []Sweep{{Name: cfg.Name, Sizes: sizes, Build: build}})
	if len(rs) == 0 {
		return CPEResult{Name: cfg.Name}, err
	}
	return rs[0], err
}

// CPEAll measures every size of every sweep and fits each sweep's line.
//
// All instances are built first (an error from a Build is returned
// wrapped with the sweep's name and size). Then the sweeps are measured one
// after another, each on a goroutine pinned like [Measure]'s, with its
// sizes interleaved in one loop: each round samples every size not yet
// converged forward and then backward (1 2 … n n … 2 1), each sample
// preceded by one untimed call (or Setup) so that the other sizes' data do
// not leave it with a cold cache, then the empty loops and the ruler's
// chains; every other round runs in the reverse order. So a slow drift of
// the core clock or of the machine's load affects every size alike, and
// one ruler converts every size of a sweep to cycles. Every size is
// sampled in every round until each one's K best samples agree (or it has
// taken MaxSamples samples), so all sizes' best samples come from the same
// stretch of time; a sweep's loop ends then, once the empty loops and the
// ruler have converged too, or after cfg.MaxTime. Different sweeps are not interleaved with each other: a
// kernel run between the samples of another can change how the other runs
// (branch and memory-dependence predictors), which was seen to make
// CS:APP's combine1 bimodal.
//
// cfg is used as by Measure, except that Name, Elements and Setup are
// ignored (they come from the sweeps) and Repeat, when not 0, applies to
// every size. cfg.Progress, when set, gets Name = the sweep's name,
// Samples = sizes finished over all sweeps and Max = sizes in all.
//
// On a cancelled context the results hold the sweeps measured so far, the
// last one with the points it has (fits only when at least [MinSizes]
// points have samples), with an error.
func CPEAll(cfg Config, sweeps []Sweep) ([]CPEResult, error) {
	if len(sweeps) == 0 {
		return nil, fmt.Errorf("%w: no sweep given", ErrBadSizes)
	}
	insts := make([][]Instance, len(sweeps))
	xs := make([][]float64, len(sweeps))
	total := 0
	for i, sw := range sweeps {
		if sw.Build == nil {
			return nil, fmt.Errorf("%w: sweep %q has no Build function", ErrNilFunc, sw.Name)
		}
		if err := CheckSizes(sw.Sizes); err != nil {
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
			if in.Run == nil {
				return nil, fmt.Errorf("%w: %s/n=%d built no Run function", ErrNilFunc, name, n)
			}
			if math.IsNaN(in.Elements) || math.IsInf(in.Elements, 0) || in.Elements < 0 {
				return nil, fmt.Errorf("%w: %s/n=%d has Elements %v (allowed: ≥ 0, finite; 0 means n)", ErrBadConfig, name, n, in.Elements)
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
	cfg.Name, cfg.Elements, cfg.Setup = "", 0, nil
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}

	results := make([]CPEResult, 0, len(sweeps))
	var firstErr error
	before := 0 // sizes of the sweeps already measured
	for i, sw := range sweeps {
		c := cfg
		c.Name = sw.Name
		progress := func(e *engine) (int, int) {
			done := before
			for _, t := range e.targets {
				if t.kb.Converged() || t.taken >= c.MaxSamples {
					done++
				}
			}
			return done, total
		}
		e, abandoned, runErr := measureInstances(c, insts[i], false, nil, progress)
		if e == nil || abandoned {
			return results, runErr
		}
		res, err := cpeResult(c, sw, e, xs[i])
		results = append(results, res)
		if runErr != nil {
			return results, runErr
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
	c := CPEResult{Name: sw.Name, CyclesPerTick: e.cpt, HasCycles: !cfg.NoCycles && e.cpt > 0}
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
	if len(px) >= MinSizes {
		if err := c.Fit(px, FitOptions{Step: e.step, Hz: e.hz, Epsilon: cfg.Epsilon}); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("harness: %s: %w", sw.Name, err)
		}
	}
	return c, firstErr
}

// FitOptions says how [CPEResult.Fit] judges the points of a sweep.
type FitOptions struct {
	// Step is the counter step in ticks and Hz the counter frequency: a
	// residual is an outlier only above DefaultAbsSteps steps in the fit's
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
	floor := DefaultAbsSteps * o.Step // ticks
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
// with a floor of DefaultAbsSteps counter quanta per call at the coarsest
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
			floor = math.Max(floor, DefaultAbsSteps*math.Max(math.Max(p.Quantum, p.Step), step)/float64(p.Repeat)*scale)
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

// CheckSizes returns nil when sizes can be a sweep: at least [MinSizes] and
// at most [MaxSizes] sizes, each from 1 to [MaxSize], strictly increasing.
// Otherwise the error wraps [ErrBadSizes] and names the offending value.
func CheckSizes(sizes []int) error {
	switch {
	case len(sizes) == 0:
		return fmt.Errorf("%w: empty size list (want at least %d sizes)", ErrBadSizes, MinSizes)
	case len(sizes) > MaxSizes:
		return fmt.Errorf("%w: %d sizes (allowed: at most %d)", ErrBadSizes, len(sizes), MaxSizes)
	}
	for i, n := range sizes {
		if n < 1 || n > MaxSize {
			return fmt.Errorf("%w: size %d (allowed: 1 to %d)", ErrBadSizes, n, MaxSize)
		}
		if i > 0 && n == sizes[i-1] {
			return fmt.Errorf("%w: duplicate size %d", ErrBadSizes, n)
		}
		if i > 0 && n < sizes[i-1] {
			return fmt.Errorf("%w: size %d after %d (sizes must increase)", ErrBadSizes, n, sizes[i-1])
		}
	}
	if len(sizes) < MinSizes {
		return fmt.Errorf("%w: %d sizes %v (a fit with a confidence interval needs at least %d)", ErrBadSizes, len(sizes), sizes, MinSizes)
	}
	return nil
}

// ParseSizes parses a sweep's sizes in any of three forms:
//
//	100,200,400,800     a list ([ParseSizeList])
//	100:2000:100        a range from:to:step ([ParseSizeRange])
//	log 64:65536:16     count sizes spaced evenly on a log scale ([ParseSizeLog])
//
// The result satisfies [CheckSizes]; errors wrap [ErrBadSizes].
func ParseSizes(s string) ([]int, error) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "log"); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == '\t') {
		return ParseSizeLog(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
	}
	if strings.Contains(t, ":") {
		return ParseSizeRange(t)
	}
	return ParseSizeList(t)
}

// ParseSizeList parses a comma-separated list of sizes, "100,200,400"
// (spaces around items allowed). The sizes must satisfy [CheckSizes]: no
// empty item, each an integer from 1 to [MaxSize], strictly increasing, at
// least [MinSizes]. Errors wrap [ErrBadSizes].
func ParseSizeList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty size list (want e.g. 100,200,400)", ErrBadSizes)
	}
	items := strings.Split(s, ",")
	if len(items) > MaxSizes {
		return nil, fmt.Errorf("%w: %d sizes (allowed: at most %d)", ErrBadSizes, len(items), MaxSizes)
	}
	sizes := make([]int, 0, len(items))
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, fmt.Errorf("%w: %q: item %d is empty", ErrBadSizes, s, i+1)
		}
		n, err := parseSize(it)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	if err := CheckSizes(sizes); err != nil {
		return nil, err
	}
	return sizes, nil
}

// ParseSizeRange parses "from:to:step": from, from+step, … up to and
// including to when the steps reach it. Each part is an integer; from ≥ 1,
// to ≥ from, step ≥ 1, and the range must hold [MinSizes] to [MaxSizes]
// sizes. Errors wrap [ErrBadSizes].
func ParseSizeRange(s string) ([]int, error) {
	a, b, step, err := parseTriple(s, "from:to:step", "100:2000:100")
	if err != nil {
		return nil, err
	}
	return SizeRange(a, b, step)
}

// SizeRange returns from, from+step, … ≤ to, checked like [ParseSizeRange].
func SizeRange(from, to, step int) ([]int, error) {
	switch {
	case from < 1 || from > MaxSize:
		return nil, fmt.Errorf("%w: range from %d (allowed: 1 to %d)", ErrBadSizes, from, MaxSize)
	case to < from || to > MaxSize:
		return nil, fmt.Errorf("%w: range to %d (allowed: %d to %d, at least from)", ErrBadSizes, to, from, MaxSize)
	case step < 1:
		return nil, fmt.Errorf("%w: range step %d (allowed: ≥ 1)", ErrBadSizes, step)
	}
	count := (to-from)/step + 1
	if count > MaxSizes {
		return nil, fmt.Errorf("%w: range %d:%d:%d has %d sizes (allowed: at most %d)", ErrBadSizes, from, to, step, count, MaxSizes)
	}
	if count < MinSizes {
		return nil, fmt.Errorf("%w: range %d:%d:%d has %d sizes (a fit needs at least %d)", ErrBadSizes, from, to, step, count, MinSizes)
	}
	sizes := make([]int, 0, count)
	for i := 0; i < count; i++ {
		sizes = append(sizes, from+i*step)
	}
	return sizes, nil
}

// ParseSizeLog parses "from:to:count": count sizes from from to to
// inclusive, spaced evenly on a logarithmic scale and rounded to integers
// (from·(to/from)^(i/(count−1))). from ≥ 1, to > from, MinSizes ≤ count ≤
// MaxSizes; an error names the count when rounding would make two sizes
// equal (too many sizes for the range). Errors wrap [ErrBadSizes].
func ParseSizeLog(s string) ([]int, error) {
	a, b, count, err := parseTriple(s, "from:to:count", "64:65536:16")
	if err != nil {
		return nil, err
	}
	return SizeLog(a, b, count)
}

// SizeLog returns count log-spaced sizes from from to to, checked like
// [ParseSizeLog].
func SizeLog(from, to, count int) ([]int, error) {
	switch {
	case from < 1 || from > MaxSize:
		return nil, fmt.Errorf("%w: log from %d (allowed: 1 to %d)", ErrBadSizes, from, MaxSize)
	case to <= from || to > MaxSize:
		return nil, fmt.Errorf("%w: log to %d (allowed: more than from = %d, at most %d)", ErrBadSizes, to, from, MaxSize)
	case count < MinSizes || count > MaxSizes:
		return nil, fmt.Errorf("%w: log count %d (allowed: %d to %d)", ErrBadSizes, count, MinSizes, MaxSizes)
	}
	sizes := make([]int, count)
	ratio := math.Log(float64(to) / float64(from))
	for i := range sizes {
		sizes[i] = int(math.Round(float64(from) * math.Exp(ratio*float64(i)/float64(count-1))))
	}
	sizes[0], sizes[count-1] = from, to
	for i := 1; i < count; i++ {
		if sizes[i] <= sizes[i-1] {
			distinct := len(slices.Compact(slices.Clone(sizes)))
			return nil, fmt.Errorf("%w: log %d:%d:%d: rounding to integers makes sizes repeat (%d and %d), leaving %d distinct sizes; use a smaller count or a wider range", ErrBadSizes, from, to, count, sizes[i-1], sizes[i], distinct)
		}
	}
	return sizes, nil
}

// parseTriple parses "a:b:c" of integers.
func parseTriple(s, form, example string) (a, b, c int, err error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return 0, 0, 0, fmt.Errorf("%w: %q (want %s, e.g. %s)", ErrBadSizes, s, form, example)
	}
	var v [3]int
	for i, p := range parts {
		if v[i], err = parseSize(strings.TrimSpace(p)); err != nil {
			return 0, 0, 0, fmt.Errorf("%w (in %q, want %s)", err, s, form)
		}
	}
	return v[0], v[1], v[2], nil
}

// parseSize parses one integer of a size specification; the caller checks
// its range.
func parseSize(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: size %s out of range (allowed: 1 to %d)", ErrBadSizes, s, MaxSize)
		}
		return 0, fmt.Errorf("%w: %q is not an integer", ErrBadSizes, s)
	}
	if n < 1 || n > MaxSize {
		return 0, fmt.Errorf("%w: size %d (allowed: 1 to %d)", ErrBadSizes, n, MaxSize)
	}
	return int(n), nil
}
