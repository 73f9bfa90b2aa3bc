package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/cyclebench/cyclebench/internal/sigfig"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatMap is a table drawn as coloured cells: one row per kernel, one
// column per machine, each cell coloured by its value and labelled with
// its text. It reads better than grouped bars when there are many rows
// (a CPE sweep of every kernel at ten sizes on several machines).
type HeatMap struct {
	// Rows and Columns name the rows (top to bottom) and the columns (left
	// to right).
	Rows, Columns []string
	// Cells[i][j] is the cell of row i and column j: len(Rows) slices of
	// len(Columns) cells.
	Cells [][]HeatCell
	// Unit labels the colour scale: "cycles relative to zen5".
	Unit string
	// Ratio says the values are ratios: the colours diverge from white at
	// 1, blue below and vermillion above, on a logarithmic scale symmetric
	// about 1 (0.5 and 2 are equally strong). Otherwise the colours run
	// from white to blue over the values' range, logarithmic when the
	// values are positive and span more than 30×.
	Ratio bool
}

// HeatCell is one cell of a heat map.
type HeatCell struct {
	// Value sets the cell's colour.
	Value float64
	// Text is written in the cell; "" means Value with three significant
	// digits (or "n/a" when Missing).
	Text string
	// Missing marks a cell without a value: drawn light grey, with Text
	// (or "n/a").
	Missing bool
}

// DefaultHeatMapSize is the size of a heat map when Options.Size is zero:
// 600 points wide, and 70 points plus 15 per row high (at most MaxSide).
func DefaultHeatMapSize(rows int) Size {
	h := min(70+15*vg.Length(rows), MaxSide)
	return Size{Width: 600, Height: max(h, 150)}
}

// Heat draws h to w as an svg, png or pdf image (format, any case): the
// row names on the left, the column names on top, the cells coloured by
// value with their text, and a colour scale below.
//
// Errors wrap [ErrNoData] (no rows, no columns, every cell missing),
// [ErrBadInput] (Cells not len(Rows) × len(Columns)), [ErrBadValue] (a
// NaN, ±Inf or a value beyond ±1e150, a ratio ≤ 0), [ErrBadSize] (cells
// too small for their text: make the image larger) and [ErrFormat].
// Nothing is written to w on error.
func Heat(w io.Writer, format string, h HeatMap, opt Options) error {
	lo, hi, err := checkHeatMap(h)
	if err != nil {
		return err
	}
	def := DefaultHeatMapSize(len(h.Rows))
	if _, _, err := opt.resolve(def, "svg"); err != nil {
		return err
	}
	return render(w, format, opt, def, func(dc draw.Canvas) error {
		return drawHeatMap(dc, h, lo, hi, opt)
	})
}

// checkHeatMap checks h and returns the range of its values.
func checkHeatMap(h HeatMap) (lo, hi float64, err error) {
	if len(h.Rows) == 0 || len(h.Columns) == 0 {
		return 0, 0, fmt.Errorf("%w: a heat map with %d rows and %d columns", ErrNoData, len(h.Rows), len(h.Columns))
	}
	if len(h.Cells) != len(h.Rows) {
		return 0, 0, fmt.Errorf("%w: %d rows of cells for %d rows: want one per row", ErrBadInput, len(h.Cells), len(h.Rows))
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, row := range h.Cells {
		if len(row) != len(h.Columns) {
			return 0, 0, fmt.Errorf("%w: row %q has %d cells for %d columns: want one per column (Missing for a gap)", ErrBadInput, h.Rows[i], len(row), len(h.Columns))
		}
		for j, c := range row {
			if c.Missing {
				continue
			}
			if !drawable(c.Value) {
				return 0, 0, fmt.Errorf("%w: row %q, column %q: Value = %v, want a finite number within ±%g", ErrBadValue, h.Rows[i], h.Columns[j], c.Value, maxMagnitude)
			}
			if h.Ratio && c.Value <= 0 {
				return 0, 0, fmt.Errorf("%w: row %q, column %q: ratio %v: want a positive ratio", ErrBadValue, h.Rows[i], h.Columns[j], c.Value)
			}
			lo, hi = math.Min(lo, c.Value), math.Max(hi, c.Value)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, fmt.Errorf("%w: every cell is missing", ErrNoData)
	}
	return lo, hi, nil
}

// heatScale maps a value to a colour and back to a position on the scale.
type heatScale struct {
	ratio  bool
	log    bool
	lo, hi float64 // the scale's ends (for ratio: the log span s, 1/s..s)
}

func newHeatScale(h HeatMap, lo, hi float64) heatScale {
	if h.Ratio {
		span := math.Max(math.Max(hi, 1/lo), 1.25) // at least 0.8×–1.25×, so noise stays pale
		return heatScale{ratio: true, log: true, lo: 1 / span, hi: span}
	}
	s := heatScale{lo: lo, hi: hi}
	if lo > minLog && hi/lo > 30 {
		s.log = true
	}
	if s.hi == s.lo {
		s.hi = s.lo + math.Max(1, math.Abs(s.lo))
		if s.log {
			s.hi = s.lo * 2
		}
	}
	return s
}

// pos returns v's place on the scale, 0 to 1.
func (s heatScale) pos(v float64) float64 {
	var p float64
	if s.log {
		p = (math.Log(v) - math.Log(s.lo)) / (math.Log(s.hi) - math.Log(s.lo))
	} else {
		p = (v - s.lo) / (s.hi - s.lo)
	}
	return math.Min(math.Max(p, 0), 1)
}

// color returns v's colour: a blend from white.
func (s heatScale) color(v float64) color.NRGBA {
	p := s.pos(v)
	if s.ratio {
		if p < 0.5 {
			return blend(Palette[0], 1-2*p)
		}
		return blend(Palette[1], 2*p-1)
	}
	return blend(Palette[0], 0.08+0.92*p)
}

// blend mixes c with white: share 0 is white, 1 is c.
func blend(c color.NRGBA, share float64) color.NRGBA {
	mix := func(x uint8) uint8 { return uint8(math.Round(255 - share*(255-float64(x)))) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// dark reports whether black text would be hard to read on c.
func dark(c color.NRGBA) bool {
	return 0.2126*float64(c.R)+0.7152*float64(c.G)+0.0722*float64(c.B) < 110
}

// fit shortens s with "…" until sty draws it within width.
func fit(sty textStyleWidth, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; sty.Width(t) <= width {
			return t
		}
	}
	return string(r)
}

type textStyleWidth interface{ Width(string) vg.Length }

func drawHeatMap(dc draw.Canvas, h HeatMap, lo, hi float64, opt Options) error {
	title := opt.Title
	if title == "" {
		title = "Heat map"
		if h.Unit != "" {
			title += " (" + h.Unit + ")"
		}
	}
	body := frame(dc, title, nil)
	W, H := body.Max.X-body.Min.X, body.Max.Y-body.Min.Y
	sty := textStyle(tickFont)
	lineH := sty.Height("Mg")

	// Row names: up to 40% of the width.
	var labelW vg.Length
	for _, r := range h.Rows {
		labelW = max(labelW, sty.Width(r))
	}
	labelW = min(labelW+6, 0.4*W)
	headH := lineH + 6
	us := textStyle(labelFont)
	us.XAlign, us.YAlign = draw.XCenter, draw.YTop
	unit := wrap(us, h.Unit, W)
	scaleH := lineH + 22
	if unit != "" {
		scaleH += us.Height(unit) + 2
	}
	cellW := (W - labelW) / vg.Length(len(h.Columns))
	cellH := (H - headH - scaleH) / vg.Length(len(h.Rows))
	if cellH < lineH+1 || cellW < 30 {
		return fmt.Errorf("%w: %d rows × %d columns leave cells of %.0f×%.0f points: make the image larger (the default size grows with the rows)", ErrBadSize, len(h.Rows), len(h.Columns), float64(cellW), float64(cellH))
	}
	cellH = min(cellH, 2.2*lineH)
	x0 := body.Min.X + labelW
	yTop := body.Max.Y - headH

	// Column names, centred over their cells.
	hs := sty
	hs.XAlign, hs.YAlign = draw.XCenter, draw.YBottom
	for j, c := range h.Columns {
		cx := x0 + (vg.Length(j)+0.5)*cellW
		body.FillText(hs, vg.Point{X: cx, Y: yTop + 3}, fit(hs, c, cellW-4))
	}
	sc := newHeatScale(h, lo, hi)
	rs := sty
	rs.XAlign, rs.YAlign = draw.XRight, draw.YCenter
	cs := sty
	cs.XAlign, cs.YAlign = draw.XCenter, draw.YCenter
	grey := color.NRGBA{0xe4, 0xe4, 0xe4, 0xff}
	for i, name := range h.Rows {
		y1 := yTop - vg.Length(i)*cellH
		y0 := y1 - cellH
		body.FillText(rs, vg.Point{X: x0 - 6, Y: (y0 + y1) / 2}, fit(rs, name, labelW-6))
		for j, c := range h.Cells[i] {
			xa := x0 + vg.Length(j)*cellW
			rect := vg.Rectangle{Min: vg.Point{X: xa, Y: y0}, Max: vg.Point{X: xa + cellW, Y: y1}}
			fill := grey
			text := c.Text
			if c.Missing {
				if text == "" {
					text = "n/a"
				}
			} else {
				fill = sc.color(c.Value)
				if text == "" {
					text = sigfig.Sig(c.Value, 3)
				}
			}
			body.SetColor(fill)
			body.Fill(rect.Path())
			body.SetLineStyle(draw.LineStyle{Color: color.White, Width: 1})
			body.Stroke(rect.Path())
			ts := cs
			if dark(fill) {
				ts.Color = color.White
			}
			if c.Missing {
				ts.Color = color.Gray{0x66}
			}
			body.FillText(ts, vg.Point{X: xa + cellW/2, Y: (y0 + y1) / 2}, fit(ts, text, cellW-4))
		}
	}

	// The colour scale: a bar of 60 steps with labels at its ends and
	// middle (ratios: 1/s, 1, s).
	yBar := yTop - vg.Length(len(h.Rows))*cellH - 12
	barW := min(W-labelW, 300)
	bx := x0 + (W-labelW-barW)/2
	const steps = 60
	for k := 0; k < steps; k++ {
		p := (float64(k) + 0.5) / steps
		var v float64
		if sc.log {
			v = math.Exp(math.Log(sc.lo) + p*(math.Log(sc.hi)-math.Log(sc.lo)))
		} else {
			v = sc.lo + p*(sc.hi-sc.lo)
		}
		r := vg.Rectangle{Min: vg.Point{X: bx + vg.Length(k)*barW/steps, Y: yBar - 8}, Max: vg.Point{X: bx + vg.Length(k+1)*barW/steps + 0.3, Y: yBar}}
		body.SetColor(sc.color(v))
		body.Fill(r.Path())
	}
	body.SetLineStyle(draw.LineStyle{Color: color.Gray{0x88}, Width: 0.5})
	body.Stroke(vg.Rectangle{Min: vg.Point{X: bx, Y: yBar - 8}, Max: vg.Point{X: bx + barW, Y: yBar}}.Path())
	ls := sty
	ls.YAlign = draw.YTop
	mid := (sc.lo + sc.hi) / 2
	if sc.log {
		mid = math.Sqrt(sc.lo * sc.hi)
	}
	for _, t := range []struct {
		x     vg.Length
		v     float64
		align draw.XAlignment
	}{{bx, sc.lo, draw.XLeft}, {bx + barW/2, mid, draw.XCenter}, {bx + barW, sc.hi, draw.XRight}} {
		ls.XAlign = t.align
		label := FormatSI(t.v)
		if sc.ratio {
			label = sigfig.Sig(t.v, 2) + "×"
		}
		body.FillText(ls, vg.Point{X: t.x, Y: yBar - 10}, label)
	}
	if unit != "" {
		body.FillText(us, vg.Point{X: body.Min.X + W/2, Y: yBar - 12 - lineH}, unit)
	}
	return nil
}
