package roundtrip

import (
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

func BenchmarkBadPanic(b *testing.B) {
	harness.Report(b, harness.DefaultConfig(), func() { panic("boom") })
}
