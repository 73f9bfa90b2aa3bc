// Package sums adds up a slice of int64 two ways: with one accumulator,
// whose adds form one dependent chain (each add waits for the one before,
// so at best one element per core cycle), and with four, whose four chains
// run side by side. It is the example module of cyclebench's go test
// workflow: its benchmarks sweep both sums over sizes and compare them
// (see bench_test.go, and cyclebench's guide docs/go-test.md).
package sums

// Sum1 returns the sum of s (wrapping on overflow) with one accumulator.
func Sum1(s []int64) int64 {
	var t int64
	for _, v := range s {
		t += v
	}
	return t
}

// Sum4 returns the sum of s (wrapping on overflow, as Sum1) with four
// accumulators, each adding every fourth element.
func Sum4(s []int64) int64 {
	var t0, t1, t2, t3 int64
	for len(s) >= 4 {
		t0 += s[0]
		t1 += s[1]
		t2 += s[2]
		t3 += s[3]
		s = s[4:]
	}
	for _, v := range s {
		t0 += v
	}
	return t0 + t1 + t2 + t3
}
