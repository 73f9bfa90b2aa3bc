package main

// CPE plots with gonum.org/v1/plot: measured points and fitted lines.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotFormats maps the extensions -plot accepts to gonum's format names.
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

// plotSeries is one kernel on a CPE plot: points (x elements, y cost per
// call) and the fitted line.
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
	Log                   bool // log-log axes (for log-spaced sizes)
}

// render draws p in format ("svg" or "png"). gonum/plot panics on some
// inputs (a non-positive value on a log axis); that becomes an error.
func (p cpePlot) render(format string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the plot: %v", r)
		}
	}()
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	// Lines of cost against n rise to the right: the top left is free.
	// The legend is placed relative to the whole canvas vertically, so it
	// moves down past the title.
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.XOffs, pl.Legend.YOffs = vg.Points(10), -vg.Points(22)
	pl.Add(plotter.NewGrid())
	if p.Log {
		pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	} else {
		// Show the origin, so the intercept (the line extended to n = 0,
		// dashed) can be seen.
		pl.X.Min, pl.Y.Min = 0, 0
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plainTicks{}, plainTicks{}
	}
	for i, s := range p.Series {
		var pts, outl, line plotter.XYs
		lo, hi := math.Inf(1), math.Inf(-1)
		for j := range s.X {
			if p.Log && (s.X[j] <= 0 || s.Y[j] <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
			lo, hi = math.Min(lo, s.X[j]), math.Max(hi, s.X[j])
		}
		for _, j := range s.Outliers {
			if j >= 0 && j < len(s.X) && (!p.Log || s.X[j] > 0 && s.Y[j] > 0) {
				outl = append(outl, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		// The fitted line, sampled so it stays straight on log axes too.
		const steps = 64
		for k := 0; k <= steps; k++ {
			x := lo + (hi-lo)*float64(k)/steps
			if p.Log {
				x = lo * math.Pow(hi/lo, float64(k)/steps)
			}
			if y := s.Intercept + s.Slope*x; !p.Log || y > 0 {
				line = append(line, plotter.XY{X: x, Y: y})
			}
		}
		c := plotutil.Color(i)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = c
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(2.5)
		pl.Add(sc)
		if !p.Log && lo > 0 {
			ext, err := plotter.NewLine(plotter.XYs{{X: 0, Y: s.Intercept}, {X: lo, Y: s.Intercept + s.Slope*lo}})
			if err != nil {
				return nil, err
			}
			ext.LineStyle.Color = c
			ext.LineStyle.Width = vg.Points(0.75)
			ext.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			pl.Add(ext)
			pl.Y.Min = math.Min(pl.Y.Min, s.Intercept)
		}
		if len(line) > 1 {
			ln, err := plotter.NewLine(line)
			if err != nil {
				return nil, err
			}
			ln.LineStyle.Color = c
			ln.LineStyle.Width = vg.Points(1)
			pl.Add(ln)
			pl.Legend.Add(s.Label, sc, ln)
		} else {
			pl.Legend.Add(s.Label, sc)
		}
		if len(outl) > 0 {
			ring, err := plotter.NewScatter(outl)
			if err != nil {
				return nil, err
			}
			ring.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
			pl.Add(ring)
		}
	}
	w, h := 18*vg.Centimeter, 12*vg.Centimeter
	wt, err := pl.WriterTo(w, h, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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

// plainTicks are gonum's default ticks labelled without trailing zeros
// (2500, not 2500.00).
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = sig(ts[i].Value, 6)
		}
	}
	return ts
}
