package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/plot"
)

// Metric is the figure a picture of the table shows.
type Metric int

// Metrics of [Table.Comparison] and [Table.HeatMap].
const (
	// MetricRatio: cycles over the baseline machine's (per call; per
	// element for a CPE row), so kernels of any size share one axis.
	MetricRatio Metric = iota
	// MetricCycles: core cycles per call.
	MetricCycles
	// MetricCyclesPerElem: core cycles per element (CPE rows: the fitted
	// slope).
	MetricCyclesPerElem
)

func (m Metric) String() string {
	switch m {
	case MetricRatio:
		return "ratio"
	case MetricCycles:
		return "cycles"
	case MetricCyclesPerElem:
		return "cycles/elem"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// checkRows returns rows, or every row's index when rows is nil; an index
// out of range is an error.
func (t *Table) checkRows(m Metric, rows []int) ([]int, error) {
	if m != MetricRatio && m != MetricCycles && m != MetricCyclesPerElem {
		return nil, fmt.Errorf("%w: metric %d: want MetricRatio, MetricCycles or MetricCyclesPerElem", ErrBadInput, int(m))
	}
	if rows == nil {
		rows = make([]int, len(t.Rows))
		for i := range rows {
			rows[i] = i
		}
	}
	for _, ri := range rows {
		if ri < 0 || ri >= len(t.Rows) {
			return nil, fmt.Errorf("%w: row %d: want 0 to %d", ErrBadInput, ri, len(t.Rows)-1)
		}
	}
	return rows, nil
}

// figure is cell c of row r in metric m: its value and interval, or why
// there is none.
func (t *Table) figure(m Metric, r Row, c Cell) (v, lo, hi float64, why string) {
	if c.Missing {
		return 0, 0, 0, "missing"
	}
	if c.NoCycles != HasCycles {
		return 0, 0, 0, "no cycles"
	}
	var s Stat
	switch m {
	case MetricCycles:
		s = c.Cycles
	case MetricCyclesPerElem:
		s = c.CyclesPerElem
	case MetricRatio:
		base := r.Cells[t.Baseline].value().Median
		if c.Ratio == 0 || !(base > 0) {
			return 0, 0, 0, "no baseline"
		}
		s = c.value()
		return c.Ratio, s.Lo / base, s.Hi / base, ""
	}
	if s.N == 0 {
		if m == MetricCycles && r.Fit {
			return 0, 0, 0, "CPE only"
		}
		return 0, 0, 0, "n/a"
	}
	return s.Median, s.Lo, s.Hi, ""
}

// unitOf labels metric m's axis.
func (t *Table) unitOf(m Metric) string {
	switch m {
	case MetricCycles:
		return "core cycles per call"
	case MetricCyclesPerElem:
		return "core cycles per element"
	}
	return "cycles relative to " + t.Columns[t.Baseline].Name
}

// Comparison is the input of [plot.Compare] for the given rows (indices
// in t.Rows; nil means every row): one group per row, one bar per machine
// in the machine's own colour (column i is Style i+1 in every picture),
// the cell's spread as the error bar (a CPE row's 95% confidence
// interval). Cells without a figure are Missing bars with a note saying
// why: "missing" (the machine lacks the kernel), "no cycles", "no
// baseline" (a ratio whose baseline cell lacks cycles), "CPE only" (a
// fit row has no per-call figure). With MetricRatio the bars are ratios
// to the baseline, growing from 1, and the baseline's own series (bars of
// 1) is left out unless it is the only one. Errors wrap [ErrBadInput] (an unknown
// metric, a row index out of range); plot.Compare reports a chart with no
// bar to draw.
func (t *Table) Comparison(m Metric, rows []int) (plot.Comparison, error) {
	rows, err := t.checkRows(m, rows)
	if err != nil {
		return plot.Comparison{}, err
	}
	c := plot.Comparison{Unit: t.unitOf(m), Ratio: m == MetricRatio}
	for _, ri := range rows {
		c.Groups = append(c.Groups, t.Rows[ri].Label())
	}
	for ci, col := range t.Columns {
		if m == MetricRatio && ci == t.Baseline && len(t.Columns) > 1 {
			continue
		}
		s := plot.BarSeries{Name: col.Name, Style: ci + 1}
		for _, ri := range rows {
			r := t.Rows[ri]
			v, lo, hi, why := t.figure(m, r, r.Cells[ci])
			if why != "" {
				s.Bars = append(s.Bars, plot.Bar{Missing: true, Note: why})
				continue
			}
			b := plot.Bar{Value: v}
			if (lo != v || hi != v) && lo <= v && v <= hi && (m != MetricRatio || lo > 0) {
				b.Lo, b.Hi = lo, hi
			}
			s.Bars = append(s.Bars, b)
		}
		c.Series = append(c.Series, s)
	}
	return c, nil
}

// HeatMap is the input of [plot.Heat] for the given rows (indices in
// t.Rows; nil means every row): one row per benchmark, one column per
// machine. With MetricRatio each cell is coloured by its cycles over the
// baseline's (white at 1, blue for fewer cycles, vermillion for more) and
// labelled with its own figure: cycles per element where the row has
// elements, else cycles per call, or the CPE slope of a fit row. With
// MetricCycles or MetricCyclesPerElem the colour and the label are that
// figure. Cells without it are grey and say why: "missing", "(0.36 ns)"
// for a cell without cycles (its ns per element, or per call), "no
// baseline". Errors wrap [ErrBadInput] (an unknown metric, a row index
// out of range).
func (t *Table) HeatMap(m Metric, rows []int) (plot.HeatMap, error) {
	rows, err := t.checkRows(m, rows)
	if err != nil {
		return plot.HeatMap{}, err
	}
	h := plot.HeatMap{Unit: t.unitOf(m), Ratio: m == MetricRatio}
	if m == MetricRatio {
		h.Unit = "colour: " + h.Unit + "; figures: cycles per element (per call without elements, ns without cycles)"
	}
	for _, col := range t.Columns {
		h.Columns = append(h.Columns, col.Name)
	}
	for _, ri := range rows {
		r := t.Rows[ri]
		h.Rows = append(h.Rows, r.Label())
		cells := make([]plot.HeatCell, len(t.Columns))
		for ci, c := range r.Cells {
			v, _, _, why := t.figure(m, r, c)
			label := ""
			switch {
			case c.Missing:
				label = "missing"
			case c.NoCycles != HasCycles:
				s := c.NsPerElem
				if s.N == 0 {
					s = c.NS
				}
				label = "(" + num(s.Median, 3) + " ns)"
			default:
				s := c.CyclesPerElem
				if s.N == 0 || m == MetricCycles {
					s = c.Cycles
				}
				label = num(s.Median, 3)
			}
			if why != "" {
				if why == "n/a" || why == "CPE only" {
					label = why
				}
				cells[ci] = plot.HeatCell{Missing: true, Text: label}
				continue
			}
			if m == MetricRatio {
				label += " (" + factor(v) + "×)"
				if ci == t.Baseline {
					label = strings.TrimSuffix(label, " ("+factor(v)+"×)")
				}
			}
			cells[ci] = plot.HeatCell{Value: v, Text: label}
		}
		h.Cells = append(h.Cells, cells)
	}
	return h, nil
}

// MarshalText writes the metric's String.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// barRows is how many rows [Table.Picture] draws as grouped bars when asked
// for "auto"; more make a heat map, whose rows stay readable.
const barRows = 16

// Picture is what [Table.Picture] draws: grouped bars or a heat map, one of
// them set, and the picture's title.
type Picture struct {
	Bars  *plot.Comparison
	Heat  *plot.HeatMap
	Title string
}

// Picture describes the picture of the table for package plot, of kind
// "bars", "heat" or "auto" (bars up to barRows rows): grouped bars of core
// cycles per element (per call when some row has no elements) with each
// cell's spread as the error bar, or a heat map of the ratios to the
// baseline (of cycles when the baseline has none) labelled with the
// cells' figures. Another kind is an error wrapping ErrBadInput.
func (t *Table) Picture(kind string) (Picture, error) {
	if len(t.Columns) == 0 || t.Baseline < 0 || t.Baseline >= len(t.Columns) {
		return Picture{}, fmt.Errorf("%w: a table of %d columns with baseline %d: want one made by Matrix", ErrBadInput, len(t.Columns), t.Baseline)
	}
	if kind == "auto" {
		kind = "bars"
		if len(t.Rows) > barRows {
			kind = "heat"
		}
	}
	title := fmt.Sprintf("%d machines, core cycles", len(t.Columns))
	switch kind {
	case "heat":
		m := MetricRatio
		if t.Columns[t.Baseline].NoCycles != HasCycles {
			m = MetricCycles // no ratios without the baseline's cycles
		} else {
			title += ", relative to " + t.Columns[t.Baseline].Name
		}
		h, err := t.HeatMap(m, nil)
		return Picture{Heat: &h, Title: title}, err
	case "bars":
		m := MetricCyclesPerElem
		for _, r := range t.Rows {
			if !slices.ContainsFunc(r.Cells, func(c Cell) bool { return c.CyclesPerElem.N > 0 || c.NsPerElem.N > 0 }) {
				m = MetricCycles
			}
		}
		c, err := t.Comparison(m, nil)
		spread := "min to max of the runs"
		if t.Spread == SpreadIQR {
			spread = "interquartile range of the runs"
		}
		title += fmt.Sprintf(" per %s (medians; bars: %s)", map[bool]string{true: "element", false: "call"}[m == MetricCyclesPerElem], spread)
		return Picture{Bars: &c, Title: title}, err
	}
	return Picture{}, fmt.Errorf("%w: picture kind %q: want auto, bars or heat", ErrBadInput, kind)
}
