package main

import "testing"

// TestNoiseBandValue: -noise reads a band, refuses what is not one, and
// its zero value says auto.
func TestNoiseBandValue(t *testing.T) {
	var band float64
	v := noiseBandValue{Band: &band}
	if err := v.Set("0.002"); err != nil || band != 0.002 || v.String() != "0.002" {
		t.Errorf("Set(0.002): band %v, %v, String %q", band, err, v.String())
	}
	if err := v.Set("2"); err == nil {
		t.Error("Set(2): no error")
	}
	if (noiseBandValue{}).String() != "auto" {
		t.Error("the zero value does not say auto")
	}
}
