package blockrec

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []Block{
		{Kind: "aa", At: 0.5, A: []float64{1000.25, 1001}, B: []float64{999.5, 1000}, TicksA: 1000.1, TicksB: 999.9,
			SpreadA: 0.001, SpreadB: 0.002, Converged: true, Quantum: 0.026, R: 1000, ImulAdd: 3.01, Wall: 0.02, Lagged: true},
		{Kind: "ab", A: []float64{1}, B: []float64{2}, R: 1},
	}
	var buf bytes.Buffer
	for _, b := range in {
		if err := Write(&buf, b); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != len(in) {
		t.Fatalf("%d lines for %d blocks:\n%s", n, len(in), buf.String())
	}
	if strings.Contains(strings.Split(buf.String(), "\n")[1], "imul_add") {
		t.Errorf("a block without a ruler ratio writes imul_add: %s", buf.String())
	}
	out, err := Read(strings.NewReader("\n" + buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("read %+v, want %+v", out, in)
	}
}

func TestReadBadLine(t *testing.T) {
	_, err := Read(strings.NewReader(`{"kind":"aa"}` + "\n" + `{"kind":` + "\n"))
	if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Read of a broken second line: %v, want ErrSyntax naming line 2", err)
	}
}
