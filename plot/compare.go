package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/cyclebench/cyclebench/internal/sigfig"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Comparison is a grouped bar chart: one group per kernel (Groups), one
// bar per series in each group (machines, or A and B, or a single ratio
// series).
type Comparison struct {
	// Groups names the groups, in the order they are drawn (left to right,
	// or top to bottom with horizontal bars).
	Groups []string
	// Series are the bars of every group: Series[j].Bars[i] is series j's
	// bar in group i, so each Bars has len(Groups) entries.
	Series []BarSeries
	// Unit labels the value axis: "cycles per call", "ratio B/A".
	Unit string
	// Ratio says the values are ratios: each is drawn as a point with its
	// interval, labelled with both (and the bar's Label), against a
	// baseline at 1, not as a bar: a bar hung from 1 on an axis cut near
	// the ratio would draw a 10% difference as a long bar.
	Ratio bool
	// NoiseBand, with Ratio, shades 1 ± NoiseBand as the band where a ratio
	// counts as no difference (stats.CompareOptions.NoiseBand); 0 means no
	// band.
	NoiseBand float64
}

// BarSeries is one bar in every group.
type BarSeries struct {
	// Name labels the series in the legend ("Zen 5", "B/A"); the legend is
	// left out when there is one series.
	Name string
	// Style, when > 0, draws the series in StyleOf(Style−1), so one
	// machine keeps its colour across plots; 0 means its position.
	Style int
	// Bars holds one bar per group.
	Bars []Bar
}

// Bar is one value with an optional interval.
type Bar struct {
	// Value is the bar's height (a ratio when Comparison.Ratio is set).
	Value float64
	// Lo and Hi bound Value (a confidence interval, or min and max of the
	// runs), drawn as an error bar; both 0 means none. When set,
	// Lo ≤ Value ≤ Hi.
	Lo, Hi float64
	// Missing marks a group this series has no value for: Note, or "n/a"
	// when Note is empty, is drawn instead of a bar.
	Missing bool
	// Note is the text drawn instead of a Missing bar ("no cycles",
	// "missing"); "" means "n/a". It is ignored when Missing is false.
	Note string
	// Label, with Comparison.Ratio, is drawn under the value and its
	// interval beside the point: a verdict such as "faster" or
	// "inconclusive".
	Label string
}

// Compare draws c to w as an svg, png or pdf image (format, any case):
// grouped bars with error bars, in the colours of [Palette]; for ratios,
// points with their intervals, each labelled with its value, interval and
// Label, and a baseline at 1. Bars are vertical unless the group names do not fit
// under them ([Options.Bars]); horizontal bars have each group's name
// above them, left-aligned where they start. The value axis is logarithmic when the
// values are all positive and span more than 30× (a linear axis would
// hide the small ones); bars then grow from the axis' lower end, or from
// 1 for ratios.
//
// Errors wrap [ErrNoData] (no groups or no series), [ErrBadInput] (a
// series whose Bars does not match Groups, NoiseBand without Ratio, bad
// option values), [ErrBadValue] (NaN, ±Inf, beyond ±1e150, Lo ≤ Value ≤ Hi
// violated, a ratio ≤ 0, NoiseBand outside [0, 1)), [ErrBadSize] and [ErrFormat].
// Nothing is written to w on error.
func Compare(w io.Writer, format string, c Comparison, opt Options) error {
	if err := checkComparison(c); err != nil {
		return err
	}
	if _, _, err := opt.resolve(DefaultCompareSize, "svg"); err != nil {
		return err
	}
	return render(w, format, opt, DefaultCompareSize, func(dc draw.Canvas) error {
		return drawComparison(dc, c, opt)
	})
}

func checkComparison(c Comparison) error {
	if len(c.Groups) == 0 {
		return fmt.Errorf("%w: a comparison without groups", ErrNoData)
	}
	if len(c.Series) == 0 {
		return fmt.Errorf("%w: a comparison without series", ErrNoData)
	}
	if math.IsNaN(c.NoiseBand) || c.NoiseBand < 0 || c.NoiseBand >= 1 {
		return fmt.Errorf("%w: NoiseBand %v: want 0 ≤ NoiseBand < 1", ErrBadValue, c.NoiseBand)
	}
	if c.NoiseBand != 0 && !c.Ratio {
		return fmt.Errorf("%w: NoiseBand %v without Ratio: a noise band is drawn around a ratio of 1", ErrBadInput, c.NoiseBand)
	}
	present := false
	for j, s := range c.Series {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("series %d", j+1)
		}
		if len(s.Bars) != len(c.Groups) {
			return fmt.Errorf("%w: %s has %d bars for %d groups: want one bar per group (Missing for a gap)", ErrBadInput, name, len(s.Bars), len(c.Groups))
		}
		for i, b := range s.Bars {
			if b.Missing {
				continue
			}
			present = true
			where := fmt.Sprintf("%s, group %q", name, c.Groups[i])
			for _, v := range []struct {
				field string
				v     float64
			}{{"Value", b.Value}, {"Lo", b.Lo}, {"Hi", b.Hi}} {
				if !drawable(v.v) {
					return fmt.Errorf("%w: %s: %s = %v, want a finite number within ±%g", ErrBadValue, where, v.field, v.v, maxMagnitude)
				}
			}
			if (b.Lo != 0 || b.Hi != 0) && !(b.Lo <= b.Value+tol(b.Value) && b.Value <= b.Hi+tol(b.Value)) {
				return fmt.Errorf("%w: %s: Value %v outside [Lo, Hi] = [%v, %v]", ErrBadValue, where, b.Value, b.Lo, b.Hi)
			}
			if c.Ratio && (b.Value <= 0 || b.Lo < 0) {
				return fmt.Errorf("%w: %s: ratio %v (interval [%v, %v]): want a positive ratio", ErrBadValue, where, b.Value, b.Lo, b.Hi)
			}
		}
	}
	if !present {
		return fmt.Errorf("%w: every bar is missing", ErrNoData)
	}
	return nil
}

// drawComparison draws the checked comparison c on dc.
func drawComparison(dc draw.Canvas, c Comparison, opt Options) error {
	leg := &legend{}
	if len(c.Series) > 1 {
		for j, s := range c.Series {
			name := s.Name
			if name == "" {
				name = fmt.Sprintf("series %d", j+1)
			}
			leg.add(name, &plotter.Polygon{Color: s.style(j).Color})
		}
	}
	if c.NoiseBand > 0 {
		leg.add(fmt.Sprintf("no difference: 1 ± %s", sigfig.Sig(c.NoiseBand, 2)), &plotter.Polygon{Color: color.Gray{Y: 0xdd}})
	}
	title := opt.Title
	if title == "" {
		title = "Comparison"
		if c.Unit != "" {
			title += " (" + c.Unit + ")"
		}
	}
	body := frame(dc, title, leg)
	W, H := body.Max.X-body.Min.X, body.Max.Y-body.Min.Y
	if W < 60 || H < 60 {
		return fmt.Errorf("%w: the title and legend leave %.0f×%.0f points for the data: make the image larger", ErrBadSize, float64(W), float64(H))
	}

	horizontal := opt.Bars == BarsHorizontal
	if opt.Bars == BarsAuto {
		sty := textStyle(tickFont)
		var widest vg.Length
		for _, g := range c.Groups {
			widest = max(widest, sty.Width(g))
		}
		// Viewers without Liberation Sans substitute a font up to about
		// 15% wider (DejaVu Sans): names that fit only in it would overlap.
		horizontal = 1.15*widest > 0.9*(W-60)/vg.Length(len(c.Groups))
	}

	// The value range: bars, intervals, the base (0 or 1), the band.
	lo, hi := math.Inf(1), math.Inf(-1)
	grow := func(v float64) { lo, hi = math.Min(lo, v), math.Max(hi, v) }
	for _, s := range c.Series {
		for _, b := range s.Bars {
			if b.Missing {
				continue
			}
			grow(b.Value)
			if b.Lo != 0 || b.Hi != 0 {
				grow(b.Lo)
				grow(b.Hi)
			}
		}
	}
	logv := lo >= minLog && hi/lo > 30
	base := 0.0
	if c.Ratio {
		base = 1
		grow(1)
		if c.NoiseBand > 0 {
			grow(1 - c.NoiseBand)
			grow(1 + c.NoiseBand)
		}
		// Room for the labels beside the points: above them, or to their
		// right with horizontal bars.
		if !logv {
			hi += map[bool]float64{false: 0.3, true: 0.45}[horizontal] * (hi - lo)
		}
	}
	// A label every 40 points up a vertical axis, every 70 along a
	// horizontal one (labels are wider than tall).
	count := max(3, int(H/vg.Length(40)))
	if horizontal {
		count = max(3, int(W/vg.Length(70)))
	}
	var vt gplot.Ticker
	if logv {
		lo, hi = logRange(lo, hi)
		vt = SILogTicks{Count: count}
		if !c.Ratio {
			base = lo
		}
	} else {
		if !c.Ratio {
			grow(0)
		}
		// Room above the tallest error bar.
		span := hi - lo
		if hi > base {
			hi += 0.04 * span
		}
		if lo < base {
			lo -= 0.04 * span
		}
		lo, hi = SITicks{Count: count}.niceRange(lo, hi)
		vt = SITicks{Count: count}
	}

	p := newPlot()
	n := len(c.Groups)
	// pos maps group i to its place on the category axis: left to right,
	// or top to bottom.
	pos := func(i int) float64 { return float64(i) }
	names := c.Groups
	if horizontal {
		pos = func(i int) float64 { return float64(n - 1 - i) }
		names = make([]string, n)
		for i, g := range c.Groups {
			names[n-1-i] = g
		}
	}
	// xy builds a point from (category, value) in the chart's orientation.
	xy := func(cat, v float64) plotter.XY {
		if horizontal {
			return plotter.XY{X: v, Y: cat}
		}
		return plotter.XY{X: cat, Y: v}
	}
	valueAxis, catAxis := &p.Y, &p.X
	// rows is the group's layout along the category axis: its bars and,
	// with horizontal bars, its name above them.
	rows := groupRows{bars: 0.8}
	if horizontal {
		valueAxis, catAxis = &p.X, &p.Y
		// The names go above their bars, starting where the bars do, not
		// right-aligned before them: a viewer that draws them in a wider
		// font than the layout measured would run them into the bars.
		p.NominalY(make([]string, n)...)
		rows = horizontalRows(textStyle(tickFont).Height("Xg"), (H-xAxisHeight)/vg.Length(n))
	} else {
		p.NominalX(names...)
	}
	valueAxis.Label.Text = c.Unit
	valueAxis.Tick.Marker = vt
	if logv {
		valueAxis.Scale = gplot.LogScale{}
	}
	if horizontal {
		p.Add(gridLines{X: vt})
	} else {
		p.Add(gridLines{Y: vt})
	}

	if c.NoiseBand > 0 {
		a, b := 1-c.NoiseBand, 1+c.NoiseBand
		pg, err := plotter.NewPolygon(plotter.XYs{xy(-0.5, a), xy(float64(n)-0.5, a), xy(float64(n)-0.5, b), xy(-0.5, b)})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDraw, err)
		}
		pg.Color, pg.LineStyle.Width = color.Gray{Y: 0xdd}, 0
		p.Add(pg)
	}

	S := len(c.Series)
	slot := rows.bars / float64(S)
	var naPts plotter.XYs
	var naLabels []string
	var valPts plotter.XYs
	var valLabels []string
	for j, s := range c.Series {
		st := s.style(j)
		var bars plotter.XYs
		var errs plotter.Errors
		for i, b := range s.Bars {
			center := pos(i) - 0.4 + (float64(j)+0.5)*slot
			if horizontal {
				center = pos(i) + rows.barsTop - (float64(j)+0.5)*slot
			}
			if b.Missing {
				naPts = append(naPts, xy(center, base))
				note := b.Note
				if note == "" {
					note = "n/a"
				}
				naLabels = append(naLabels, note)
				continue
			}
			if c.Ratio {
				sc, err := plotter.NewScatter(plotter.XYs{xy(center, b.Value)})
				if err != nil {
					return fmt.Errorf("%w: %v", ErrDraw, err)
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: 4.5, Shape: glyph{shape: st.Shape}}
				p.Add(sc)
				// Stacked above the point; on one line beside it when the
				// groups are rows.
				sep := "\n"
				if horizontal {
					sep = "  "
				}
				top := b.Value
				text := ratioText(b.Value, b.Value, b.Value)
				if b.Lo != 0 || b.Hi != 0 {
					text = ratioText(b.Value, b.Lo, b.Hi) + sep + "[" + ratioText(b.Lo, b.Lo, b.Hi) + ", " + ratioText(b.Hi, b.Lo, b.Hi) + "]"
					top = b.Hi
				}
				if b.Label != "" {
					text += sep + b.Label
				}
				valPts, valLabels = append(valPts, xy(center, top)), append(valLabels, text)
			} else {
				h := 0.42 * slot
				pg, err := plotter.NewPolygon(plotter.XYs{xy(center-h, base), xy(center+h, base), xy(center+h, b.Value), xy(center-h, b.Value)})
				if err != nil {
					return fmt.Errorf("%w: %v", ErrDraw, err)
				}
				pg.Color = st.Color
				pg.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: 0.5}
				p.Add(pg)
			}
			if b.Lo != 0 || b.Hi != 0 {
				bars = append(bars, xy(center, b.Value))
				errs = append(errs, struct{ Low, High float64 }{b.Value - b.Lo, b.Hi - b.Value})
			}
		}
		if len(bars) == 0 {
			continue
		}
		sty := draw.LineStyle{Color: color.Black, Width: 1}
		if horizontal {
			eb, err := plotter.NewXErrorBars(xErr{bars, plotter.XErrors(errs)})
			if err != nil {
				return fmt.Errorf("%w: %v", ErrDraw, err)
			}
			eb.LineStyle, eb.CapWidth = sty, vg.Points(4)
			p.Add(eb)
		} else {
			eb, err := plotter.NewYErrorBars(yErr{bars, plotter.YErrors(errs)})
			if err != nil {
				return fmt.Errorf("%w: %v", ErrDraw, err)
			}
			eb.LineStyle, eb.CapWidth = sty, vg.Points(4)
			p.Add(eb)
		}
	}
	if c.Ratio {
		l, err := plotter.NewLine(plotter.XYs{xy(-0.5, 1), xy(float64(n)-0.5, 1)})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDraw, err)
		}
		l.LineStyle = draw.LineStyle{Color: color.Black, Width: 1, Dashes: []vg.Length{5, 3}}
		p.Add(l)
	}
	if err := addLabels(p, valPts, valLabels, 6, 8, horizontal); err != nil {
		return err
	}
	if err := addLabels(p, naPts, naLabels, 3, 3, horizontal); err != nil {
		return err
	}
	if horizontal {
		pts := make(plotter.XYs, n)
		for i := range n {
			pts[i] = plotter.XY{X: lo, Y: pos(i) + 0.5 - rows.gap}
		}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: c.Groups})
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDraw, err)
		}
		lb.Offset = vg.Point{X: 2}
		for k := range lb.TextStyle {
			lb.TextStyle[k] = textStyle(tickFont)
			lb.TextStyle[k].XAlign, lb.TextStyle[k].YAlign = draw.XLeft, draw.YTop
		}
		p.Add(lb)
	}
	catAxis.Min, catAxis.Max = -0.5, float64(n)-0.5
	valueAxis.Min, valueAxis.Max = lo, hi
	p.Draw(body)
	return nil
}

// groupRows is the layout of a group along the category axis, in units
// of a group's width (1): bars is the room its bars share, barsTop where
// the first bar begins above the group's centre, gap the space above the
// group's name.
type groupRows struct{ bars, barsTop, gap float64 }

// horizontalRows lays out a group of horizontal bars row points tall with
// its name, lineH points tall, above the bars: the bars keep 80% of what
// the name leaves, at most 80% of the row, as vertical bars do.
func horizontalRows(lineH, row vg.Length) groupRows {
	const gap = 0.04
	name := math.Min(float64(lineH+2)/math.Max(float64(row), 1), 0.45)
	top := 0.5 - gap - name - gap
	bars := math.Min(0.8, top+0.4)
	return groupRows{bars: bars, barsTop: top, gap: gap}
}

// ratioText formats a ratio v of an interval [lo, hi] with the decimals
// the interval's width needs (at least 3, at most 6): 0.965, 1.0001.
func ratioText(v, lo, hi float64) string {
	d := 3
	if w := hi - lo; w > 0 {
		d = min(6, max(3, int(math.Ceil(-math.Log10(w)))+1))
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// style returns the series' Style, or the one of position j.
func (s BarSeries) style(j int) Style {
	if s.Style > 0 {
		return StyleOf(s.Style - 1)
	}
	return StyleOf(j)
}

// addLabels writes labels at pts (none when pts is empty), offset by dy
// above each point, or dx to its right on a horizontal plot.
func addLabels(p *gplot.Plot, pts plotter.XYs, labels []string, dy, dx vg.Length, horizontal bool) error {
	if len(pts) == 0 {
		return nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrDraw, err)
	}
	lb.Offset = vg.Point{Y: dy}
	if horizontal {
		lb.Offset = vg.Point{X: dx}
	}
	for k := range lb.TextStyle {
		lb.TextStyle[k] = textStyle(tickFont)
		lb.TextStyle[k].XAlign = draw.XCenter
		if horizontal {
			lb.TextStyle[k].XAlign = draw.XLeft
			lb.TextStyle[k].YAlign = draw.YCenter
		}
	}
	p.Add(lb)
	return nil
}
