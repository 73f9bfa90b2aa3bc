package results

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
)

var plotsDir = flag.String("plots", "", "write the pictures of the golden tables to this directory as PNG (testdata/plots holds the committed ones)")

// rowsWhere returns the indices of the rows keep accepts.
func rowsWhere(t *Table, keep func(Row) bool) []int {
	var out []int
	for i, r := range t.Rows {
		if keep(r) {
			out = append(out, i)
		}
	}
	return out
}

// pictures are the plots of the golden sets: name, set, metric, rows.
var pictures = []struct {
	name, set string
	metric    Metric
	rows      func(Row) bool
	heat      bool
}{
	{"three-machines-ratio", "three-machines", MetricRatio, nil, false},
	{"three-machines-cpe", "three-machines", MetricCyclesPerElem, func(r Row) bool { _, _, ok := variantOf(r.Kernel); return ok }, false},
	{"bench-count3-cpe", "bench-count3", MetricCyclesPerElem, func(r Row) bool { _, _, ok := variantOf(r.Kernel); return ok }, false},
	{"cpe-fits", "cpe", MetricCyclesPerElem, func(r Row) bool { return r.Fit }, false},
	{"three-machines-heat", "three-machines", MetricRatio, nil, true},
	{"cpe-heat", "cpe", MetricRatio, nil, true},
}

func TestComparisonPictures(t *testing.T) {
	sets := map[string]*Table{}
	for _, gs := range goldenSets {
		tb, err := Matrix(readAll(t, gs.files...), gs.opt)
		if err != nil {
			t.Fatal(err)
		}
		sets[gs.name] = tb
	}
	for _, p := range pictures {
		t.Run(p.name, func(t *testing.T) {
			tb := sets[p.set]
			var rows []int
			if p.rows != nil {
				rows = rowsWhere(tb, p.rows)
			}
			if p.heat {
				heatPicture(t, tb, p.name, p.metric, rows)
				return
			}
			c, err := tb.Comparison(p.metric, rows)
			if err != nil {
				t.Fatal(err)
			}
			series := len(tb.Columns)
			if p.metric == MetricRatio {
				series-- // the baseline's bars of 1 are left out
			}
			if len(c.Series) != series || len(c.Groups) == 0 {
				t.Fatalf("comparison %+v", c)
			}
			for j, s := range c.Series {
				if len(s.Bars) != len(c.Groups) {
					t.Fatalf("series %d: %d bars for %d groups", j, len(s.Bars), len(c.Groups))
				}
				for i, b := range s.Bars {
					if b.Missing != (b.Note != "") || !b.Missing && (b.Lo != 0 || b.Hi != 0) && !(b.Lo <= b.Value && b.Value <= b.Hi) {
						t.Errorf("%s, %s: bar %+v", s.Name, c.Groups[i], b)
					}
				}
			}
			for _, format := range []string{"png", "svg"} {
				var buf bytes.Buffer
				opt := plot.Options{Title: p.name}
				if err := plot.Compare(&buf, format, c, opt); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if buf.Len() < 1000 {
					t.Errorf("%s: %d bytes", format, buf.Len())
				}
				if *plotsDir != "" && format == "png" {
					if err := os.WriteFile(filepath.Join(*plotsDir, p.name+"."+format), buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

func heatPicture(t *testing.T, tb *Table, name string, m Metric, rows []int) {
	t.Helper()
	h, err := tb.HeatMap(m, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Columns) != len(tb.Columns) || len(h.Cells) != len(h.Rows) {
		t.Fatalf("heat map %d columns, %d rows of %d", len(h.Columns), len(h.Cells), len(h.Rows))
	}
	for i, row := range h.Cells {
		for j, c := range row {
			if c.Text == "" || !c.Missing && m == MetricRatio && c.Value != tb.Rows[i].Cells[j].Ratio {
				t.Errorf("%s, %s: cell %+v", h.Rows[i], h.Columns[j], c)
			}
		}
	}
	for _, format := range []string{"png", "svg"} {
		var buf bytes.Buffer
		if err := plot.Heat(&buf, format, h, plot.Options{Title: name}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if *plotsDir != "" && format == "png" {
			if err := os.WriteFile(filepath.Join(*plotsDir, name+"."+format), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestComparisonNotes(t *testing.T) {
	tb, err := Matrix(readAll(t, "kvm-amd-zen5-cpe.json", "synthetic-arm64-cntvct-nocycles-run.json"), MatrixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tb.Comparison(MetricCycles, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]bool{}
	for _, s := range c.Series {
		for _, b := range s.Bars {
			notes[b.Note] = true
		}
	}
	for _, want := range []string{"missing", "no cycles", "CPE only"} {
		if !notes[want] {
			t.Errorf("no bar says %q (notes %v)", want, notes)
		}
	}
	for _, tt := range []struct {
		m    Metric
		rows []int
		say  string
	}{{Metric(9), nil, "metric 9"}, {MetricRatio, []int{len(tb.Rows)}, "row"}, {MetricRatio, []int{-1}, "row -1"}} {
		if _, err := tb.Comparison(tt.m, tt.rows); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("Comparison(%v, %v): err %v, want ErrBadInput saying %q", tt.m, tt.rows, err, tt.say)
		}
	}
}

// TestPicture: auto draws bars up to barRows rows and a heat map beyond,
// per element where every row has elements; an unknown kind is bad input.
func TestPicture(t *testing.T) {
	few := mustMatrix(t, []File{readTestdata(t, "kvm-amd-zen5-run.json"), readTestdata(t, "kvm-amd-zen4-run.json")})
	many := mustMatrix(t, []File{readTestdata(t, "kvm-amd-zen5-cpe.json"), readTestdata(t, "kvm-amd-zen4-cpe.json")})
	tests := []struct {
		name  string
		t     *Table
		kind  string
		heat  bool
		title string
	}{
		{"few rows", few, "auto", false, "2 machines, core cycles per"},
		{"many rows", many, "auto", true, "2 machines, core cycles, relative to"},
		{"bars asked for", many, "bars", false, "per element (medians; bars: min to max of the runs)"},
		{"heat asked for", few, "heat", true, "relative to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.t.Picture(tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if (p.Heat != nil) != tt.heat || (p.Bars != nil) == tt.heat || !strings.Contains(p.Title, tt.title) {
				t.Errorf("heat %v, bars %v, title %q; want heat %v, a title with %q", p.Heat != nil, p.Bars != nil, p.Title, tt.heat, tt.title)
			}
		})
	}
	if _, err := few.Picture("pie"); !errors.Is(err, ErrBadInput) {
		t.Errorf("Picture(pie) = %v, want ErrBadInput", err)
	}
}

func mustMatrix(t *testing.T, files []File) *Table {
	t.Helper()
	m, err := Matrix(files, DefaultMatrixOptions())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPictureAndBenchOfNoTable(t *testing.T) {
	var empty Table
	if _, err := empty.Picture("auto"); !errors.Is(err, ErrBadInput) {
		t.Errorf("Picture of an empty table: %v", err)
	}
	if err := empty.WriteBench(io.Discard, nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("WriteBench of an empty table: %v", err)
	}
}
