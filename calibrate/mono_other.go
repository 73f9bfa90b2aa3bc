//go:build !linux

package calibrate

const monoSourceName = "the Go runtime's monotonic clock"
