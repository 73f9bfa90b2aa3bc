package main

// Plots: a thin adapter from the harness's CPE results to package plot,
// which draws them (the same code library users call).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// plotFormats maps the extensions -plot accepts to package plot's format
// names. (plot also writes .pdf; the CLI's tests pin .pdf as an error.)
var plotFormats = map[string]string{".svg": "svg", ".png": "png"}

// checkPlotPath returns the image format for path, or a *usageError when
// the extension is not .svg or .png, the directory does not exist, or a
// file cannot be created in it. It runs before measuring, so a typo does
// not cost a sweep; it leaves nothing behind.
func checkPlotPath(path string) (string, error) {
	format, ok := plotFormats[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return "", usageErrorf("-plot %s: unknown image format %q (want a name ending in .svg or .png)", path, filepath.Ext(path))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", usageErrorf("-plot %s: directory %s does not exist", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", usageErrorf("-plot %s: is a directory", path)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe-*")
	if err != nil {
		return "", usageErrorf("-plot %s: cannot write in %s: %v", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return format, nil
}

// plotSizeUsage is the usage of a -plot-size flag. plot.Size is a
// flag.Value (WxH in pixels, or with a unit; "" means the default), so a
// subcommand binds it in one line, and a bad value is a usage error naming
// the flag like every flag's:
//
//	fs.Var(&p.Size, "plot-size", plotSizeUsage)
var plotSizeUsage = fmt.Sprintf("size of the -plot image: WxH in pixels (e.g. 1200x800) or with a unit (16x10cm, 6x4in); \"\" means %s", plot.DefaultCPESize)

// plotSeries is one kernel on a CPE plot: points (x elements, y cost per
// call) and the fitted line. It is the older, thinner description of a
// series; cpePlotFor fills cpePlot.Kernels with the whole of it.
type plotSeries struct {
	Label            string
	X, Y             []float64
	Slope, Intercept float64
	Outliers         []int // indices into X and Y, drawn as rings
}

// cpePlot describes a whole plot.
type cpePlot struct {
	Title, XLabel, YLabel string
	Series                []plotSeries
	Log                   bool // log-spaced sizes: logarithmic n axis
	// Kernels, when set, is what is drawn (Series, XLabel and YLabel are
	// then ignored): the sweeps with their fits' confidence bands, the
	// sizes that did not converge and the K-th best samples.
	Kernels []plot.CPESeries
	// Size is the image size; the zero Size means plot.DefaultCPESize.
	Size plot.Size
}

// series returns what package plot draws: Kernels, or Series converted.
func (p cpePlot) series() []plot.CPESeries {
	if len(p.Kernels) > 0 {
		return p.Kernels
	}
	unit := strings.TrimSuffix(p.YLabel, " per call")
	elem := "element"
	if _, rest, ok := strings.Cut(p.XLabel, "("); ok {
		if u, _, ok := strings.Cut(rest, " per call"); ok && u != "" {
			elem = elemWord(u)
		}
	}
	out := make([]plot.CPESeries, len(p.Series))
	for i, s := range p.Series {
		name, _, _ := strings.Cut(s.Label, ":")
		ks := plot.CPESeries{Name: name, Unit: unit, ElementUnit: elem,
			Fit: &plot.Line{Slope: s.Slope, Intercept: s.Intercept}}
		outlier := map[int]bool{}
		for _, j := range s.Outliers {
			outlier[j] = true
		}
		for j := range min(len(s.X), len(s.Y)) {
			ks.Points = append(ks.Points, plot.CPEPoint{N: s.X[j], Y: s.Y[j], Outlier: outlier[j]})
		}
		out[i] = ks
	}
	return out
}

// options returns the plot's options. A log-spaced sweep gets a log n
// axis; a linear one lets package plot choose.
func (p cpePlot) options() plot.Options {
	o := plot.Options{Title: p.Title, Size: p.Size}
	if p.Log {
		o.XScale = plot.ScaleLog
		for _, s := range p.series() {
			for _, pt := range s.Points {
				if pt.N <= 0 && pt.Elements <= 0 {
					o.XScale = plot.ScaleLinear // n = 0 has no place on a log axis
				}
			}
		}
	}
	return o
}

// render draws p in format ("svg" or "png").
func (p cpePlot) render(format string) ([]byte, error) {
	var b bytes.Buffer
	if err := plot.CPE(&b, format, p.series(), p.options()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// cpePlotFor describes the plot of a sweep for package plot: cost per call
// against n in cycles when every kernel has them (else in ticks), each
// fit with its confidence band, the K-th best sample of each size as an
// error bar, the sizes that did not converge hollow, the kernels that are
// not CPE kernels marked not linear in n. It has cpePlotOf's signature and
// replaces it.
func cpePlotFor(h header, swept []*sweptKernel, logAxes bool) cpePlot {
	unit := "cycles"
	for _, s := range swept {
		if !s.res.HasCycles {
			unit = "ticks"
		}
	}
	p := cpePlot{Log: logAxes}
	for _, s := range swept {
		p.Kernels = append(p.Kernels, cpeSeriesOf(s, unit))
	}
	cpu := orDash(h.CPU)
	if len(swept) == 1 && len(swept[0].res.Points) >= harness.MinSizes && swept[0].kernel.CPE {
		f := fitIn(swept[0].res, unit)
		p.Title = fmt.Sprintf("%s on %s: CPE %s ± %s %s/%s (95%% CI)", swept[0].res.Name, cpu, sig(f.Slope, 4), sig(f.SlopeCI, 2), unit, elemWord(swept[0].kernel.Unit))
	} else {
		p.Title = fmt.Sprintf("CPE on %s (%s per %s, 95%% CI)", cpu, unit, elemWord(swept[0].kernel.Unit))
	}
	return p
}

// fitIn returns r's fit in unit ("cycles" or "ticks").
func fitIn(r harness.CPEResult, unit string) stats.Fit {
	if unit == "cycles" {
		return r.Cycles
	}
	return r.Ticks
}

// cpeSeriesOf converts one swept kernel to a plot series in unit.
func cpeSeriesOf(s *sweptKernel, unit string) plot.CPESeries {
	r := s.res
	f := fitIn(r, unit)
	ks := plot.CPESeries{Name: r.Name, Unit: unit, ElementUnit: elemWord(s.kernel.Unit)}
	outlier := map[int]bool{}
	for _, i := range f.Outliers {
		outlier[i] = true
	}
	var xsum float64
	for i, pt := range r.Points {
		y := pt.Ticks
		if unit == "cycles" {
			y = pt.Cycles
		}
		n := pt.Elements
		if i < len(r.Sizes) {
			n = float64(r.Sizes[i])
		}
		cp := plot.CPEPoint{N: n, Elements: pt.Elements, Y: y, NotConverged: !pt.Converged, Outlier: outlier[i]}
		// The K-th best sample, per call in the same unit: how far the K
		// samples that agreed spread above the best.
		if k := len(pt.Best); k > 0 && pt.Repeat > 0 && pt.Ticks > 0 {
			hi := (pt.Best[k-1] - pt.OverheadTicks) / float64(pt.Repeat) * (y / pt.Ticks)
			if hi >= y {
				cp.YLo, cp.YHi = y, hi
			}
		}
		ks.Points = append(ks.Points, cp)
		xsum += pt.Elements
	}
	if len(r.Points) >= harness.MinSizes {
		ks.Fit = &plot.Line{Intercept: f.Intercept, Slope: f.Slope, SlopeCI: f.SlopeCI, InterceptCI: f.InterceptCI,
			SlopeSE: f.SlopeSE, InterceptSE: f.InterceptSE, XMean: xsum / float64(len(r.Points)), R2: f.R2}
		if !s.kernel.CPE {
			ks.Fit.NotLinear = "not a CPE kernel"
		}
	}
	return ks
}

// writePlot renders p and writes it to path atomically: a reader never
// sees a half-written image, and an existing file is replaced only by a
// complete one.
func writePlot(path, format string, p cpePlot) error {
	img, err := p.render(format)
	if err != nil {
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	f, err := createAtomic(path)
	if err != nil {
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; an image is for others to see.
	if _, err := f.Write(img); err != nil || f.Chmod(0o644) != nil {
		f.Abort()
		if err == nil {
			err = errors.New("cannot set the file's mode")
		}
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	return f.Commit()
}
