package roundtrip

import (
	"errors"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

func BenchmarkKernel(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), Kernel)
}

func BenchmarkKernelElements(b *testing.B) {
	cfg := harness.DefaultConfig()
	cfg.Elements = Iterations
	harness.Report(b, cfg, Kernel)
}

// SweepSizes are BenchmarkSweep's sizes.
var SweepSizes = []int{250, 500, 1000}

func BenchmarkSweep(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), SweepSizes, func(n int) (harness.Instance, error) {
		return harness.Instance{Run: Chain(n)}, nil
	})
}

// BenchmarkCompare compares the chain of 1000 steps with one of 2000.
func BenchmarkCompare(b *testing.B) {
	harness.ReportCompare(b, harness.DefaultConfig(),
		harness.Instance{Name: "1000", Run: Chain(1000)}, harness.Instance{Name: "2000", Run: Chain(2000)},
		harness.CompareOptions{})
}

func BenchmarkAlloc64(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), Alloc64)
}

// BenchmarkLatency measures the chain of 1000 steps in latency mode: go
// test names its result Latency/mode=latency.
func BenchmarkLatency(b *testing.B) {
	cfg := harness.DefaultConfig()
	cfg.Mode = harness.Latency
	harness.Report(b, cfg, Chain(1000))
}

// The benchmarks below must fail, each with one clear message.

func BenchmarkBadNil(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), nil)
}

func BenchmarkBadConfig(b *testing.B) {
	harness.Report(b, harness.Config{K: -1}, Kernel)
}

func BenchmarkBadLoop(b *testing.B) {
	for b.Loop() {
		harness.Report(b, harness.DefaultConfig(), Kernel)
	}
}

func BenchmarkBadTwice(b *testing.B) {
	for i := 0; i < b.N; i++ {
		harness.Report(b, harness.DefaultConfig(), Kernel)
	}
}

// BenchmarkBadMode is named for throughput and measures latency.
func BenchmarkBadMode(b *testing.B) {
	b.Run("mode=throughput", func(b *testing.B) {
		cfg := harness.DefaultConfig()
		cfg.Mode = harness.Latency
		harness.Report(b, cfg, Kernel)
	})
}

func BenchmarkBadPanic(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), func() { panic("boom") })
}

func BenchmarkBadSweepSizes(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), []int{300, 200, 100}, func(n int) (harness.Instance, error) {
		return harness.Instance{Run: Chain(n)}, nil
	})
}

func BenchmarkBadSweepBuild(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), SweepSizes, func(n int) (harness.Instance, error) {
		if n == 500 {
			return harness.Instance{}, errors.New("no input for 500")
		}
		return harness.Instance{Run: Chain(n)}, nil
	})
}

func BenchmarkBadCompareNil(b *testing.B) {
	harness.ReportCompare(b, harness.DefaultConfig(), harness.Instance{Run: Kernel}, harness.Instance{}, harness.CompareOptions{})
}
