package calibrate

import "testing"

// BenchmarkMeasure shows what a calibration costs (ns/op) with the fast
// options Get uses and with the full defaults, and the worst frequency
// uncertainty each reached (ppm). Pin the process (taskset) for figures
// that match a pinned harness.
func BenchmarkMeasure(b *testing.B) {
	for _, bc := range []struct {
		name string
		o    Options
	}{{"fast", FastOptions}, {"full", DefaultOptions}} {
		b.Run(bc.name, func(b *testing.B) {
			var worst float64
			for b.Loop() {
				c, err := Measure(bc.o)
				if err != nil {
					b.Fatal(err)
				}
				worst = max(worst, c.Frequency.PPM)
			}
			b.ReportMetric(worst, "ppm")
		})
	}
}

// BenchmarkKernelFrequency is the cost of reading the kernel's figure,
// its clocksource and its NTP state.
func BenchmarkKernelFrequency(b *testing.B) {
	for b.Loop() {
		KernelFrequency()
	}
}
