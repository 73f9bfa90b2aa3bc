package reports

import "testing"

// TestShortLine: a warning line's details are cut at a clause boundary,
// its remedy kept whole.
func TestShortLine(t *testing.T) {
	long := "Sum/n=100: harness: two modes: the samples form two clusters, from 2.7127e+07 cycles and from 3.5741e+07 cycles per call (12 and 20 of the lower 90% of 32 samples); the figure is the lower one; remedy: latency mode (-mode latency)"
	got := ShortLine(long, 140)
	if want := "Sum/n=100: harness: two modes: the samples form two clusters, from 2.7127e+07 cycles and from 3.5741e+07 cycles per call …; remedy: latency mode (-mode latency)"; got != want {
		t.Errorf("shortLine = %q, want %q", got, want)
	}
	if short := "Sum: harness: region too short; remedy: a larger n"; ShortLine(short, 140) != short {
		t.Errorf("a short line changed: %q", ShortLine(short, 140))
	}
}
