package main

// Plots: -plot and -plot-size, and writing what package plot draws (from
// what package results describes: results.PlotSweeps, Table.Comparison,
// Comparison.Bars) to the file.

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cyclebench/cyclebench/plot"
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
