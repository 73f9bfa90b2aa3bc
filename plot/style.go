package plot

import (
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the colour cycle of the plots: Okabe and Ito's set, chosen
// to stay distinct under the common forms of colour blindness, with
// their yellow darkened so it shows on white. Series i gets colour
// i mod 8, together with Glyphs and Dashes that cycle on their own (see
// [Style]) so that no two of the first 64 series look alike even
// where their lines overlap. Treat it as read-only.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xB8, 0xA3, 0x00, 0xff}, // yellow, darkened from F0E442
}

// Shape is a marker shape: filled for a converged point, hollow
// (white inside) for one that did not converge.
type Shape int

// The marker shapes, in the order series use them.
const (
	ShapeCircle Shape = iota
	ShapeSquare
	ShapeTriangleUp
	ShapeDiamond
	ShapeTriangleDown
	ShapeStar
	ShapePentagon
	ShapeTriangleLeft
	numShapes
)

// Dashes are the line patterns series cycle through, in points: solid,
// dashed, dotted, dash-dot, long dash, dash-dot-dot, short dash,
// long-short. Treat it as read-only.
var Dashes = [][]vg.Length{
	nil,
	{6, 3},
	{1.5, 2.5},
	{7, 2.5, 1.5, 2.5},
	{12, 4},
	{7, 2.5, 1.5, 2.5, 1.5, 2.5},
	{3, 2},
	{12, 3, 4, 3},
}

// Style is how one series is drawn.
type Style struct {
	Color color.NRGBA
	Shape Shape
	Dash  []vg.Length
}

// StyleOf returns series i's style: colour i mod 8, and shape and dash
// pattern shifted by i/8 and 3·(i/8) so the ninth series does not repeat
// the first. Negative i counts as 0.
func StyleOf(i int) Style {
	i = max(i, 0)
	r := i / len(Palette)
	return Style{
		Color: Palette[i%len(Palette)],
		Shape: Shape((i + r) % int(numShapes)),
		Dash:  Dashes[(i+3*r)%len(Dashes)],
	}
}

// glyph draws a Shape, filled or hollow.
type glyph struct {
	shape  Shape
	hollow bool
	// crossed draws an × over the hollow shape: a point whose measurement
	// did not converge, apart from one that is only left out of a fit.
	crossed bool
}

var _ draw.GlyphDrawer = glyph{}

// DrawGlyph implements draw.GlyphDrawer.
func (g glyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	var p vg.Path
	poly := func(n int, start float64, radii ...vg.Length) {
		for k := 0; k < n; k++ {
			a := start + 2*math.Pi*float64(k)/float64(n)
			rr := radii[k%len(radii)]
			q := vg.Point{X: pt.X + rr*vg.Length(math.Cos(a)), Y: pt.Y + rr*vg.Length(math.Sin(a))}
			if k == 0 {
				p.Move(q)
			} else {
				p.Line(q)
			}
		}
		p.Close()
	}
	switch g.shape {
	case ShapeCircle:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
		p.Close()
	case ShapeSquare:
		poly(4, math.Pi/4, r*1.1)
	case ShapeTriangleUp:
		poly(3, math.Pi/2, r*1.3)
	case ShapeDiamond:
		poly(4, 0, r*1.3)
	case ShapeTriangleDown:
		poly(3, -math.Pi/2, r*1.3)
	case ShapeStar:
		poly(10, math.Pi/2, r*1.45, r*0.6)
	case ShapePentagon:
		poly(5, math.Pi/2, r*1.15)
	default: // ShapeTriangleLeft
		poly(3, math.Pi, r*1.3)
	}
	if g.hollow || g.crossed {
		c.SetColor(color.White)
		c.Fill(p)
		c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.1)})
		c.Stroke(p)
		if g.crossed {
			var x vg.Path
			d := r * 0.8
			x.Move(vg.Point{X: pt.X - d, Y: pt.Y - d})
			x.Line(vg.Point{X: pt.X + d, Y: pt.Y + d})
			x.Move(vg.Point{X: pt.X - d, Y: pt.Y + d})
			x.Line(vg.Point{X: pt.X + d, Y: pt.Y - d})
			c.Stroke(x)
		}
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}

// fonts of the plots: sans serif, sized for a figure about 600 points
// wide.
var (
	sans      = font.Font{Typeface: "Liberation", Variant: "Sans"}
	titleFont = font.From(sans, 12)
	labelFont = font.From(sans, 10.5)
	tickFont  = font.From(sans, 9.5)
	legFont   = font.From(sans, 9.5)
)

// textStyle returns a text style in f, black, left and bottom aligned.
func textStyle(f font.Font) text.Style {
	return text.Style{Color: color.Black, Font: f, Handler: gplot.DefaultTextHandler}
}

// newPlot returns a gonum plot in the package's style: sans-serif text,
// light grey axes, a grid added by the caller.
func newPlot() *gplot.Plot {
	p := gplot.New()
	p.Title.TextStyle.Font = titleFont
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = labelFont
		a.Tick.Label.Font = tickFont
		a.Tick.Length = vg.Points(4)
		a.Padding = vg.Points(2)
		a.Label.Padding = vg.Points(3)
		a.Color = color.Gray{0x55}
		a.Tick.Color = color.Gray{0x55}
	}
	p.Legend.TextStyle.Font = legFont
	return p
}

// gridLines draws light lines at the labelled ticks of X and Y (gonum's
// Grid also draws the minor ones, which crowds a plot with many ticks).
// It takes its own Tickers because the upper CPE panel hides its n
// labels.
type gridLines struct{ X, Y gplot.Ticker }

// Plot implements gplot.Plotter.
func (g gridLines) Plot(c draw.Canvas, p *gplot.Plot) {
	sty := draw.LineStyle{Color: color.Gray{Y: 0xe2}, Width: vg.Points(0.6)}
	trX, trY := p.Transforms(&c)
	if g.X != nil {
		for _, t := range g.X.Ticks(p.X.Min, p.X.Max) {
			if !t.IsMinor() && t.Value >= p.X.Min && t.Value <= p.X.Max {
				x := trX(t.Value)
				c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
			}
		}
	}
	if g.Y != nil {
		for _, t := range g.Y.Ticks(p.Y.Min, p.Y.Max) {
			if !t.IsMinor() && t.Value >= p.Y.Min && t.Value <= p.Y.Max {
				y := trY(t.Value)
				c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
			}
		}
	}
}
