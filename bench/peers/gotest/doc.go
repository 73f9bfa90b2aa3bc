// Package gotest holds the benchmarks that the peers driver runs through
// `go test -bench` (compiled once with go test -c): BenchmarkKernel for the
// accuracy and spread tables, BenchmarkChain for detection (its -n flag sets
// the chain's length, so that two runs with different -n compare under one
// benchmark name, as benchstat needs) and for start-up.
package gotest
