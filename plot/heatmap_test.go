package plot

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestHeat(t *testing.T) {
	ok := HeatMap{
		Rows: []string{"Combine4/n=1000", "Combine6/n=1000"}, Columns: []string{"zen5", "zen4", "arm64"},
		Cells: [][]HeatCell{{{Value: 1}, {Value: 1.71, Text: "3.31"}, {Missing: true, Text: "(0.6 ns)"}}, {{Value: 1}, {Value: 0.5}, {Missing: true}}},
		Unit:  "cycles relative to zen5", Ratio: true,
	}
	for _, format := range []string{"svg", "png", "pdf", "PNG"} {
		var b bytes.Buffer
		if err := Heat(&b, format, ok, Options{}); err != nil || b.Len() < 500 {
			t.Errorf("%s: %v (%d bytes)", format, err, b.Len())
		}
	}
	plain := ok
	plain.Ratio = false
	plain.Cells = [][]HeatCell{{{Value: 1}, {Value: 1e6}, {Value: -3}}, {{Value: 0}, {Value: 5}, {Value: 5}}}
	if err := Heat(&bytes.Buffer{}, "svg", plain, Options{}); err != nil {
		t.Errorf("values of both signs: %v", err)
	}
	same := plain
	same.Cells = [][]HeatCell{{{Value: 2}, {Value: 2}, {Value: 2}}, {{Value: 2}, {Value: 2}, {Value: 2}}}
	if err := Heat(&bytes.Buffer{}, "svg", same, Options{}); err != nil {
		t.Errorf("equal values: %v", err)
	}

	tests := []struct {
		name string
		edit func(h *HeatMap)
		opt  Options
		want error
		say  string
	}{
		{"no rows", func(h *HeatMap) { h.Rows, h.Cells = nil, nil }, Options{}, ErrNoData, "0 rows"},
		{"no columns", func(h *HeatMap) { h.Columns = nil }, Options{}, ErrNoData, "0 columns"},
		{"rows of cells", func(h *HeatMap) { h.Cells = h.Cells[:1] }, Options{}, ErrBadInput, "1 rows of cells for 2 rows"},
		{"cells of a row", func(h *HeatMap) { h.Cells[1] = h.Cells[1][:2] }, Options{}, ErrBadInput, `"Combine6/n=1000" has 2 cells for 3 columns`},
		{"NaN", func(h *HeatMap) { h.Cells[0][1].Value = math.NaN() }, Options{}, ErrBadValue, `column "zen4": Value = NaN`},
		{"huge", func(h *HeatMap) { h.Cells[0][1].Value = 1e200 }, Options{}, ErrBadValue, "1e+200"},
		{"ratio 0", func(h *HeatMap) { h.Cells[0][0].Value = 0 }, Options{}, ErrBadValue, "ratio 0"},
		{"all missing", func(h *HeatMap) {
			for _, r := range h.Cells {
				for j := range r {
					r[j].Missing = true
				}
			}
		}, Options{}, ErrNoData, "every cell is missing"},
		{"too small", func(h *HeatMap) {}, Options{Size: Size{Width: 150, Height: 130}}, ErrBadSize, "make the image larger"},
		{"format", func(h *HeatMap) {}, Options{}, ErrFormat, "gif"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := ok
			h.Cells = make([][]HeatCell, len(ok.Cells))
			for i := range ok.Cells {
				h.Cells[i] = append([]HeatCell(nil), ok.Cells[i]...)
			}
			tt.edit(&h)
			format := "svg"
			if tt.want == ErrFormat {
				format = "gif"
			}
			var b bytes.Buffer
			err := Heat(&b, format, h, tt.opt)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("err %v: want %v saying %q", err, tt.want, tt.say)
			}
			if b.Len() != 0 {
				t.Errorf("%d bytes written on error", b.Len())
			}
		})
	}
}

func TestDefaultHeatMapSize(t *testing.T) {
	for _, tt := range []struct {
		rows int
		h    float64
	}{{0, 150}, {2, 150}, {88, 70 + 15*88}, {100000, float64(MaxSide)}} {
		if s := DefaultHeatMapSize(tt.rows); float64(s.Height) != tt.h || s.Width != 600 {
			t.Errorf("DefaultHeatMapSize(%d) = %v, want 600 × %v", tt.rows, s, tt.h)
		}
	}
}
