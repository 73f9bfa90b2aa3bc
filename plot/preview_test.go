package plot_test

import (
	"encoding/json"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/cyclebench/cyclebench/plot"
	"github.com/cyclebench/cyclebench/stats"
)

// -preview writes the pictures a reviewer should look at into
// testdata/preview (not committed): go test ./plot -run Preview -preview
var preview = flag.Bool("preview", false, "write preview PNGs to testdata/preview")

// zen5 returns the CPE sweeps of testdata/zen5-cpe.json: the cycle
// figures of /work/shared/results/kvm-amd-zen5-cpe.json (a KVM guest on an
// AMD EPYC Zen 5, `cyclebench cpe -bench 'Combine|Psum' -format json`),
// converted to plot.CPESeries; YHi is the K-th best sample.
func zen5(t *testing.T) []plot.CPESeries {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "zen5-cpe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s []plot.CPESeries
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// quadratic returns a series whose cost grows as n² (an O(n²) kernel),
// fitted with a line and marked not linear.
func quadratic(t *testing.T, logSpaced bool) plot.CPESeries {
	t.Helper()
	var xs, ys []float64
	for k := 0; k < 12; k++ {
		n := 50 + 50*float64(k)
		if logSpaced {
			n = 16 * math.Pow(2, float64(k))
		}
		xs = append(xs, n)
		ys = append(ys, 40+3*n+0.02*n*n*(1+0.01*math.Sin(float64(7*k))))
	}
	return series(t, "Quadratic", xs, ys, "O(n²) kernel")
}

// series fits ys against xs with stats.LinearFit, as the CLI does.
func series(t *testing.T, name string, xs, ys []float64, notLinear string) plot.CPESeries {
	t.Helper()
	f, err := stats.LinearFit(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	s := plot.CPESeries{Name: name, Unit: "cycles", Fit: &plot.Line{
		Intercept: f.Intercept, Slope: f.Slope, SlopeCI: f.SlopeCI, InterceptCI: f.InterceptCI,
		SlopeSE: f.SlopeSE, InterceptSE: f.InterceptSE, R2: f.R2, NotLinear: notLinear}}
	out := map[int]bool{}
	for _, i := range f.Outliers {
		out[i] = true
	}
	for i := range xs {
		s.Points = append(s.Points, plot.CPEPoint{N: xs[i], Y: ys[i], Outlier: out[i]})
	}
	return s
}

// runs returns a sweep of six runs at each of eight sizes, as
// `cyclebench cpe -count 6` makes it: 1.536 cycles per element and 200 per
// call, ±0.3% from run to run, and at three sizes one run 9% slower that
// the fit left out; notLinear marks the fit not linear, as a rule that
// left out the wrong runs would.
func runs(t *testing.T, notLinear string) plot.CPESeries {
	t.Helper()
	var xs, ys []float64
	var out []bool
	for k := 1; k <= 8; k++ {
		n := 250 * float64(k)
		for r := 0; r < 6; r++ {
			y := (200 + 1.536*n) * (1 + 0.003*math.Sin(float64(13*k+7*r)))
			left := r == 2 && k%3 == 0
			if left {
				y *= 1.09
			}
			xs, ys, out = append(xs, n), append(ys, y), append(out, left)
		}
	}
	var kx, ky []float64
	for i := range xs {
		if !out[i] {
			kx, ky = append(kx, xs[i]), append(ky, ys[i])
		}
	}
	s := series(t, "SweepSum4", kx, ky, notLinear)
	s.Points = nil
	var xsum float64
	for i := range xs {
		s.Points = append(s.Points, plot.CPEPoint{N: xs[i], Y: ys[i], LeftOut: out[i]})
	}
	for _, x := range kx {
		xsum += x
	}
	s.Fit.XMean = xsum / float64(len(kx))
	return s
}

// machines is a comparison of 3 machines × 5 kernels: cycles per call
// with the spread of 5 runs (illustrative figures, of the size the
// example kernels have on the machines of DESIGN.md).
func machines() plot.Comparison {
	bar := func(v, rel float64) plot.Bar { return plot.Bar{Value: v, Lo: v * (1 - rel), Hi: v * (1 + rel)} }
	return plot.Comparison{
		Groups: []string{"AddChain", "Psum1", "Combine4", "MemcpyL2", "SortInts"},
		Unit:   "core cycles per call",
		Series: []plot.BarSeries{
			{Name: "Intel Xeon (KVM)", Bars: []plot.Bar{bar(1003, 0.004), bar(12480, 0.02), bar(3050, 0.01), bar(5400, 0.05), bar(14100, 0.03)}},
			{Name: "AMD Zen 3 (KVM)", Bars: []plot.Bar{bar(1001, 0.002), bar(12460, 0.015), bar(2105, 0.012), bar(4800, 0.04), bar(12900, 0.025)}},
			{Name: "AMD Zen 5 (KVM)", Bars: []plot.Bar{bar(998, 0.003), bar(12457, 0.014), bar(2029, 0.016), {Missing: true}, bar(11800, 0.02)}},
		},
	}
}

func TestPreview(t *testing.T) {
	if !*preview {
		t.Skip("writes pictures for a person to look at; run with -preview")
	}
	dir := filepath.Join("testdata", "preview")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	all := zen5(t)
	combine, psum := all[2:8], all[0:2]
	ratio := machines()
	ratio.Unit, ratio.Ratio, ratio.NoiseBand = "ratio to Intel Xeon", true, 0.02
	base := append([]plot.Bar(nil), ratio.Series[0].Bars...)
	for j := range ratio.Series {
		for i, b := range ratio.Series[j].Bars {
			if !b.Missing {
				r := b.Value / base[i].Value
				ratio.Series[j].Bars[i] = plot.Bar{Value: r, Lo: b.Lo / base[i].Value, Hi: b.Hi / base[i].Value}
			}
		}
	}
	ratio.Series = ratio.Series[1:]
	long := machines()
	long.Groups = []string{"AddChain (1000 dependent ADDs)", "Psum1 (prefix sum, 1000 elements)", "Combine4 (accumulate in a register)", "MemcpyL2 (copy 64 KiB)", "SortInts (sort.Ints, 1000 ints)"}
	cases := []struct {
		name string
		draw func(f *os.File) error
	}{
		{"cpe-combine.png", func(f *os.File) error {
			return plot.CPE(f, "png", combine, plot.Options{Title: "CPE on AMD EPYC Zen 5 (cycles per element, 95% CI)"})
		}},
		{"cpe-psum.png", func(f *os.File) error { return plot.CPE(f, "png", psum, plot.Options{}) }},
		{"cpe-all8.png", func(f *os.File) error {
			return plot.CPE(f, "png", all, plot.Options{Title: "CPE on AMD EPYC Zen 5 (cycles per element, 95% CI)", Size: plot.Size{Width: 720, Height: 540}})
		}},
		{"cpe-notconverged.png", func(f *os.File) error {
			nc := []plot.CPESeries{psum[0], psum[1]}
			nc[1].Points = append([]plot.CPEPoint(nil), nc[1].Points...)
			nc[1].Points[3].NotConverged, nc[1].Points[8].NotConverged = true, true
			return plot.CPE(f, "png", nc, plot.Options{Lower: plot.PanelResiduals})
		}},
		{"cpe-psum-residuals.png", func(f *os.File) error {
			return plot.CPE(f, "png", psum, plot.Options{Lower: plot.PanelResiduals})
		}},
		{"cpe-quadratic.png", func(f *os.File) error {
			return plot.CPE(f, "png", []plot.CPESeries{quadratic(t, false)}, plot.Options{})
		}},
		{"cpe-quadratic-log.png", func(f *os.File) error {
			return plot.CPE(f, "png", []plot.CPESeries{quadratic(t, true)}, plot.Options{})
		}},
		{"cpe-runs.png", func(f *os.File) error {
			return plot.CPE(f, "png", []plot.CPESeries{runs(t, "")}, plot.Options{})
		}},
		{"cpe-runs-notlinear.png", func(f *os.File) error {
			return plot.CPE(f, "png", []plot.CPESeries{runs(t, "curved residuals")}, plot.Options{})
		}},
		{"compare-machines.png", func(f *os.File) error {
			return plot.Compare(f, "png", machines(), plot.Options{Title: "Example kernels on three machines"})
		}},
		{"compare-ratio.png", func(f *os.File) error { return plot.Compare(f, "png", ratio, plot.Options{}) }},
		{"compare-long-names.png", func(f *os.File) error { return plot.Compare(f, "png", long, plot.Options{}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.draw(f); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := png.Decode(r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		})
	}
}
