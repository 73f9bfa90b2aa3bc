package results_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cyclebench/cyclebench/results"
)

func TestErrorStrings(t *testing.T) {
	if got := results.ErrorStrings(nil); got == nil || len(got) != 0 {
		t.Errorf("ErrorStrings(nil) = %#v, want an empty slice (JSON [])", got)
	}
	if got := results.ErrorStrings([]error{errors.New("a"), errors.New("b")}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ErrorStrings = %q, want [a b]", got)
	}
}
