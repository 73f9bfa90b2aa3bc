package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// render checks format and the options, draws with fn on a canvas of the
// chosen size, and writes the encoded image to w. Nothing is written to w
// unless drawing and encoding succeeded. A panic inside gonum/plot (which
// the callers' checks should have made impossible) becomes an error
// wrapping ErrDraw.
func render(w io.Writer, format string, opt Options, def Size, fn func(dc draw.Canvas) error) (err error) {
	f, err := checkFormat(format)
	if err != nil {
		return err
	}
	sz, dpi, err := opt.resolve(def, f)
	if err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	switch f {
	case "svg":
		c = vgsvg.New(sz.Width, sz.Height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(sz.Width, sz.Height), vgimg.UseDPI(dpi))}
	default: // pdf
		c = vgpdf.New(sz.Width, sz.Height)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrDraw, r)
		}
	}()
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if err := fn(dc); err != nil {
		return err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fmt.Errorf("%w: encoding %s: %v", ErrDraw, f, err)
	}
	img := b.Bytes()
	if f == "svg" {
		// The layout is measured with Liberation Sans, which few viewers
		// have; Arial has the same metrics and Helvetica nearly so, so
		// name them as fallbacks rather than let a wider font overrun the
		// legend.
		img = bytes.ReplaceAll(img, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	}
	_, err = w.Write(img)
	return err
}

// margin is the white space around a figure, so no label touches the
// image's edge.
const margin = vg.Length(10)

// legend is a figure's legend: an optional heading and entries, drawn
// either in a column right of the panels or in a block of up to four
// columns under the title, whichever leaves the panels more room.
type legend struct {
	heading string
	entries []legendEntry
}

type legendEntry struct {
	text   string
	thumbs []gplot.Thumbnailer
}

// add appends an entry.
func (l *legend) add(text string, thumbs ...gplot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{text, thumbs})
}

// columns returns the entries split into cols gonum legends, filled
// column by column.
func (l *legend) columns(cols int) []*gplot.Legend {
	rows := (len(l.entries) + cols - 1) / cols
	var out []*gplot.Legend
	for k := 0; k < len(l.entries); k += rows {
		g := gplot.NewLegend()
		g.TextStyle.Font = legFont
		g.ThumbnailWidth = vg.Points(30)
		g.Padding = vg.Points(1.5)
		g.Top, g.Left = true, true
		for _, e := range l.entries[k:min(k+rows, len(l.entries))] {
			g.Add(e.text, e.thumbs...)
		}
		out = append(out, &g)
	}
	return out
}

// frame draws the figure's title and legend in dc and returns the canvas
// left for the panels.
func frame(dc draw.Canvas, title string, leg *legend) draw.Canvas {
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	if title != "" {
		sty := textStyle(titleFont)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		title = wrap(sty, title, dc.Max.X-dc.Min.X)
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, title)
		dc = draw.Crop(dc, 0, 0, 0, -(sty.Height(title) + 8))
	}
	if leg == nil || len(leg.entries) == 0 {
		return dc
	}
	W, H := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
	hsty := textStyle(legFont)
	hsty.YAlign = draw.YTop
	var headH vg.Length
	if leg.heading != "" {
		headH = hsty.Height(leg.heading) + 3
	}
	const gap = vg.Length(20)

	// The right column: as wide as the widest entry.
	one := leg.columns(1)[0]
	r := one.Rectangle(dc).Size()
	rightW := max(r.X, hsty.Width(leg.heading)) + 12
	rightLoss := float64(rightW * H)
	if rightW > 0.4*W {
		rightLoss = math.Inf(1)
	}
	// The block under the title: the fewest rows whose columns fit.
	var block []*gplot.Legend
	blockH, blockLoss := vg.Length(0), math.Inf(1)
	for cols := 4; cols >= 1; cols-- {
		ls := leg.columns(cols)
		var w, h vg.Length
		for _, g := range ls {
			sz := g.Rectangle(dc).Size()
			w += sz.X + gap
			h = max(h, sz.Y)
		}
		if w-gap <= W {
			block, blockH = ls, headH+h+8
			blockLoss = float64(blockH * W)
			break
		}
	}
	if blockH > 0.4*H {
		blockLoss = math.Inf(1)
	}
	switch {
	case rightLoss <= blockLoss && !math.IsInf(rightLoss, 1):
		c := draw.Crop(dc, W-rightW+12, 0, 0, -4)
		if leg.heading != "" {
			c.FillText(hsty, vg.Point{X: c.Min.X + one.ThumbnailWidth + hsty.Width(" "), Y: c.Max.Y}, leg.heading)
			c = draw.Crop(c, 0, 0, 0, -headH)
		}
		one.Draw(c)
		return draw.Crop(dc, 0, -rightW, 0, 0)
	case !math.IsInf(blockLoss, 1):
		c := dc
		if leg.heading != "" {
			c.FillText(hsty, vg.Point{X: c.Min.X, Y: c.Max.Y}, leg.heading)
			c = draw.Crop(c, 0, 0, 0, -headH)
		}
		for _, g := range block {
			g.Draw(c)
			c = draw.Crop(c, g.Rectangle(c).Size().X+gap, 0, 0, 0)
		}
		return draw.Crop(dc, 0, 0, 0, -blockH)
	}
	// Neither fits: the legend is dropped rather than drawn over the data.
	return dc
}

// wrap breaks s at spaces so that no line is wider than width (a word
// longer than width stays whole). Existing newlines are kept.
func wrap(sty text.Style, s string, width vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && sty.Width(line+" "+w) > width {
				out = append(out, line)
				line = w
				continue
			}
			if line == "" {
				line = w
			} else {
				line += " " + w
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// alignX crops each canvas so that the plots' data areas share their left
// and right edges (the panels of a figure share the n axis). The canvases
// must start level: they are cropped, never moved.
func alignX(plots []*gplot.Plot, cs []draw.Canvas) {
	for range 2 { // the padding depends weakly on the width: twice is enough
		left, right := vg.Length(math.Inf(-1)), vg.Length(math.Inf(1))
		for i, p := range plots {
			d := p.DataCanvas(cs[i])
			left, right = max(left, d.Min.X), min(right, d.Max.X)
		}
		for i, p := range plots {
			d := p.DataCanvas(cs[i])
			cs[i] = draw.Crop(cs[i], left-d.Min.X, right-d.Max.X, 0, 0)
		}
	}
}

// withAlpha returns c with opacity a (0–255; NRGBA is not premultiplied,
// so the colour channels stay as they are).
func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}
