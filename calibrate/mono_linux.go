//go:build linux

package calibrate

const monoSourceName = "CLOCK_MONOTONIC via the Go runtime"
