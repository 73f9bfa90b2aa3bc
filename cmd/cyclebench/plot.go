package main

// Plots: a thin adapter from the harness's results to package plot, which
// draws them (the same code library users call).

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// plotFlags are -plot and -plot-size.
type plotFlags struct {
	path   string
	size   plot.Size
	format string // from path's extension, set by check
}

func addPlotFlags(fs *flagSet, what string, def plot.Size) *plotFlags {
	p := &plotFlags{}
	fs.StringVar(&p.path, "plot", "", "draw "+what+" to `FILE`: .svg, .png or .pdf")
	fs.Var(&p.size, "plot-size", "size of the -plot image: `WxH` in pixels (1200x800) or with a unit (16x10cm, 6x4in) (default "+def.String()+")")
	return p
}

// check returns a *usageError when -plot names no known image format, a
// directory that does not exist or cannot be written; it runs before
// measuring, so a typo does not cost a sweep, and leaves nothing behind.
func (p *plotFlags) check() error {
	if p.path == "" {
		return nil
	}
	var err error
	if p.format, err = plot.FormatOf(p.path); err != nil {
		return usageErrorf("-plot %s: unknown image format (want a name ending in .svg, .png or .pdf)", p.path)
	}
	return checkWritable(p.path, "-plot")
}

// write draws with draw and writes the image atomically to -plot; it says
// "wrote FILE" on o's stderr.
func (p *plotFlags) write(o *out, draw func(io.Writer, string, plot.Options) error, opt plot.Options) error {
	if p.path == "" {
		return nil
	}
	opt.Size = p.size
	var b bytes.Buffer
	if err := draw(&b, p.format, opt); err != nil {
		return fmt.Errorf("-plot %s: %w", p.path, err)
	}
	if err := writeFileAtomic(p.path, "-plot", b.Bytes()); err != nil {
		return err
	}
	o.note("wrote %s", p.path)
	return nil
}

// cpePlot describes the picture of a sweep for package plot: cost per call
// against n in cycles when every kernel has them (else in ticks, else in
// ns), each fit with its confidence band, the K-th best sample of each
// size as an error bar, the sizes that did not converge and the runs the
// fit left out hollow, the kernels whose cost is not linear in n marked
// so.
func cpePlot(h header, swept []*sweptKernel, logAxes bool) ([]plot.CPESeries, plot.Options) {
	unit := "cycles"
	for _, s := range swept {
		switch {
		case s.res.NoTicks && !s.res.HasCycles:
			unit = "ns"
		case !s.res.HasCycles && unit == "cycles":
			unit = "ticks"
		}
	}
	var series []plot.CPESeries
	for _, s := range swept {
		if len(s.res.Points) > 0 {
			series = append(series, cpeSeriesOf(s, unit))
		}
	}
	opt := plot.Options{}
	if logAxes {
		opt.XScale = plot.ScaleLog
	}
	cpu := orDash(h.CPU)
	if len(swept) == 1 && swept[0].fitted() && swept[0].res.Linearity.Linear {
		f := fitIn(swept[0].res, unit)
		opt.Title = fmt.Sprintf("%s on %s: CPE %s ± %s %s/%s (95%% CI)", swept[0].res.Name, cpu, sig(f.Slope, 4), sig(f.SlopeCI, 2), unit, elemWord(swept[0].kernel.Unit))
	} else {
		opt.Title = fmt.Sprintf("CPE on %s (%s per %s, 95%% CI)", cpu, unit, elemWord(swept[0].kernel.Unit))
	}
	return series, opt
}

// fitIn returns r's fit in unit ("cycles", "ticks" or "ns").
func fitIn(r harness.CPEResult, unit string) stats.Fit {
	switch unit {
	case "cycles":
		return r.Cycles
	case "ns":
		return r.Nanoseconds
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
	used := 0
	for i, pt := range r.Points {
		y := map[string]float64{"cycles": pt.Cycles, "ticks": pt.Ticks, "ns": pt.Nanoseconds}[unit]
		cp := plot.CPEPoint{N: float64(r.Sizes[i]), Elements: pt.Elements, Y: y, NotConverged: !pt.Converged, Outlier: outlier[i], LeftOut: s.isLeftOut(i)}
		// The K-th best sample, per call in the same unit: how far the K
		// samples that agreed spread above the best.
		if k := len(pt.Best); k > 0 && pt.Repeat > 0 && pt.Ticks > 0 {
			hi := (pt.Best[k-1] - pt.OverheadTicks) / float64(pt.Repeat) * (y / pt.Ticks)
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
	if s.fitted() && used > 0 {
		ks.Fit = &plot.Line{Intercept: f.Intercept, Slope: f.Slope, SlopeCI: f.SlopeCI, InterceptCI: f.InterceptCI,
			SlopeSE: f.SlopeSE, InterceptSE: f.InterceptSE, XMean: xsum / float64(used), R2: f.R2}
		switch {
		case r.Linearity.Verdict == stats.LinearityNotLinear:
			ks.Fit.NotLinear = linearityShort(r.Linearity)
		case !s.kernel.CPE:
			ks.Fit.NotLinear = "not a CPE kernel"
		}
	}
	return ks
}
