package roundtrip

import (
	"errors"
	"testing"

	"github.com/cyclebench/cyclebench/harness"
)

func BenchmarkKernel(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: Kernel})
}

func BenchmarkKernelElements(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: Kernel, Elements: Iterations})
}

// SweepSizes are BenchmarkSweep's sizes.
var SweepSizes = []int{250, 500, 1000}

func BenchmarkSweep(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), SweepSizes, func(n int) (harness.Target, error) {
		return harness.Target{Run: Chain(n)}, nil
	})
}

// BenchmarkCompare compares the chain of 1000 steps with one of 2000.
func BenchmarkCompare(b *testing.B) {
	harness.ReportCompare(b, harness.DefaultConfig(),
		harness.Target{Name: "1000", Run: Chain(1000)}, harness.Target{Name: "2000", Run: Chain(2000)},
		harness.CompareOptions{})
}

func BenchmarkAlloc64(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: Alloc64})
}

// BenchmarkLatency measures the chain of 1000 steps in latency mode: go
// test names its result Latency/mode=latency.
func BenchmarkLatency(b *testing.B) {
	cfg := harness.DefaultConfig()
	cfg.Mode = harness.Latency
	harness.Report(b, cfg, harness.Target{Run: Chain(1000)})
}

// The benchmarks below must fail, each with one clear message.

func BenchmarkBadNil(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{})
}

func BenchmarkBadConfig(b *testing.B) {
	harness.Report(b, harness.Config{K: -1}, harness.Target{Run: Kernel})
}

func BenchmarkBadLoop(b *testing.B) {
	for b.Loop() {
		harness.Report(b, harness.DefaultConfig(), harness.Target{Run: Kernel})
	}
}

func BenchmarkBadTwice(b *testing.B) {
	for i := 0; i < b.N; i++ {
		harness.Report(b, harness.DefaultConfig(), harness.Target{Run: Kernel})
	}
}

// BenchmarkBadMode is named for throughput and measures latency.
func BenchmarkBadMode(b *testing.B) {
	b.Run("mode=throughput", func(b *testing.B) {
		cfg := harness.DefaultConfig()
		cfg.Mode = harness.Latency
		harness.Report(b, cfg, harness.Target{Run: Kernel})
	})
}

func BenchmarkBadPanic(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), harness.Target{Run: func() { panic("boom") }})
}

func BenchmarkBadSweepSizes(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), []int{300, 200, 100}, func(n int) (harness.Target, error) {
		return harness.Target{Run: Chain(n)}, nil
	})
}

func BenchmarkBadSweepBuild(b *testing.B) {
	harness.ReportSweep(b, harness.DefaultConfig(), SweepSizes, func(n int) (harness.Target, error) {
		if n == 500 {
			return harness.Target{}, errors.New("no input for 500")
		}
		return harness.Target{Run: Chain(n)}, nil
	})
}

func BenchmarkBadCompareNil(b *testing.B) {
	harness.ReportCompare(b, harness.DefaultConfig(), harness.Target{Run: Kernel}, harness.Target{}, harness.CompareOptions{})
}
