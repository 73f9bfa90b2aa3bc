// Package plain holds benchmarks written as most Go code has them, with
// b.Loop and b.N and no cyclebench helper, beside the same functions
// measured with harness.Report: cyclebench run ./examples/plain gives the
// plain ones cycles/op from their ns/op and the core clock read around
// their run, to set against Report's figures (docs/go-test.md).
package plain
