//go:build !linux

package harness

import (
	"testing"

	"github.com/cyclebench/cyclebench/affinity"
)

// threadExists cannot tell on this OS; the tests that need it skip.
func threadExists(int) bool { return true }

// checkMeasuringThread has no way to read another thread's state here.
func checkMeasuringThread(*testing.T, int, affinity.State, bool) {}
