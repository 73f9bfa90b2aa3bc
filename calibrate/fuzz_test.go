package calibrate

import (
	"bufio"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzParseCPUInfoHz feeds arbitrary /proc/cpuinfo text to parseCPUInfoHz:
// it must never panic, every error must wrap ErrNoKernelFigure, and a figure
// it accepts must be a finite, positive frequency taken from a "cpu MHz"
// line of a block whose flags include tsc_known_freq. Its seed corpus in
// testdata/fuzz/FuzzParseCPUInfoHz runs with every go test.
func FuzzParseCPUInfoHz(f *testing.F) {
	f.Add("processor\t: 0\ncpu MHz\t\t: 2445.432\nflags\t\t: fpu tsc constant_tsc tsc_known_freq\n\nprocessor\t: 1\ncpu MHz\t\t: 1.0\n")
	f.Fuzz(func(t *testing.T, text string) {
		hz, err := parseCPUInfoHz(bufio.NewScanner(strings.NewReader(text)))
		if err != nil {
			if !errors.Is(err, ErrNoKernelFigure) {
				t.Fatalf("error %v does not wrap ErrNoKernelFigure", err)
			}
			if hz != 0 {
				t.Fatalf("error %v with a figure %v", err, hz)
			}
			return
		}
		if math.IsNaN(hz) || math.IsInf(hz, 0) || hz <= 0 {
			t.Fatalf("accepted a frequency of %v Hz", hz)
		}
		if !strings.Contains(text, "tsc_known_freq") || !strings.Contains(text, "cpu MHz") {
			t.Fatalf("accepted %v Hz from text without a cpu MHz line and the tsc_known_freq flag", hz)
		}
	})
}
