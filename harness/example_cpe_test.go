package harness_test

import (
	"context"
	"fmt"

	"github.com/cyclebench/cyclebench/harness"
	"github.com/cyclebench/cyclebench/stats"
)

var sumToSink float64

// sumTo returns a Target summing n float64s, the loop of CS:APP's
// combine4: one floating-point add per element on the critical path.
func sumTo(n int) (harness.Target, error) {
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i % 16)
	}
	return harness.Target{
		Run: func() {
			s := 0.0
			for _, v := range data {
				s += v
			}
			sumToSink = s
		},
		Elements: float64(n),
	}, nil
}

// A CPE sweep: the slope of cycles against n is the cost per element, the
// intercept the cost per call that does not grow with n.
func ExampleCPE() {
	sizes, err := harness.ParseSizes("200:2000:200")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := harness.CPE(context.Background(), harness.DefaultConfig(), harness.Sweep{Name: "sum", Sizes: sizes, Build: sumTo})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range res.Points {
		fmt.Printf("n=%-5d %8.0f cycles  %.2f cycles/element\n", res.Sizes[i], p.Cycles, p.CyclesPerElement)
	}
	f := res.Cycles
	fmt.Printf("CPE %.3f ± %.3f cycles/element, intercept %.0f cycles, R² %.5f\n", f.Slope, f.SlopeCI, f.Intercept, f.R2)
	fmt.Println("outlier sizes:", res.OutlierSizes())
}

// Several kernels measured interleaved in one loop share one core-clock
// ruler, so their slopes are directly comparable.
func ExampleCPEAll() {
	sizes, _ := harness.ParseSizes("log 100:10000:8")
	res, err := harness.CPEAll(context.Background(), harness.DefaultConfig(), []harness.Sweep{
		{Name: "sum", Sizes: sizes, Build: sumTo},
		{Name: "sum again", Sizes: sizes, Build: sumTo},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: %.2f ± %.2f cycles/element\n", r.Name, r.Cycles.Slope, r.Cycles.SlopeCI)
	}
}

func ExampleCompare() {
	a, _ := sumTo(1000)
	b, _ := sumTo(1100)
	a.Name, b.Name = "sum 1000", "sum 1100"
	c, err := harness.Compare(context.Background(), harness.DefaultConfig(), a, b, harness.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := c.Stats
	fmt.Printf("B/A = %.4f, 95%% CI [%.4f, %.4f], p = %.2g: %s\n", s.Ratio, s.Lo, s.Hi, s.PValue, s.Verdict)
	fmt.Printf("A %.0f cycles, B %.0f cycles, %d pairs of %d calls in %v\n", c.A.Cycles, c.B.Cycles, s.N, c.Repeat, c.Wall)
}

func ExampleCompareCPE() {
	sizes := []int{500, 1000, 2000, 4000}
	c, err := harness.CompareCPE(context.Background(), harness.DefaultConfig(),
		harness.Sweep{Name: "sum", Sizes: sizes, Build: sumTo},
		harness.Sweep{Name: "sum again", Build: sumTo},
		stats.CompareOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slopes %.3f and %.3f %s/element, ratio %.3f, p = %.2g: %s\n",
		c.A.Cycles.Slope, c.B.Cycles.Slope, c.Unit, c.Slopes.Ratio, c.Slopes.PValue, c.Slopes.Verdict)
}

func ExampleParseSizes() {
	for _, s := range []string{"100,200,400", "100:500:100", "log 64:65536:5", "100,50,200", "1,2"} {
		sizes, err := harness.ParseSizes(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(sizes)
	}
	// Output:
	// [100 200 400]
	// [100 200 300 400 500]
	// [64 362 2048 11585 65536]
	// harness: bad sizes: size 50 after 100 (sizes must increase)
	// harness: bad sizes: 2 sizes [1 2] (a fit with a confidence interval needs at least 3)
}

func ExampleCPEResult_OutlierSizes() {
	sw := harness.Sweep{Name: "sum", Sizes: []int{1000, 2000, 4000, 8000, 16000}, Build: sumTo}
	res, err := harness.CPE(context.Background(), harness.DefaultConfig(), sw)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Sizes whose residual is far from the others': typically where the
	// data outgrow a cache level.
	for _, n := range res.OutlierSizes() {
		fmt.Println("off the line:", n)
	}
}
