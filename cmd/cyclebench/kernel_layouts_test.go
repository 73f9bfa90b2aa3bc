package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLayoutsElsewhere: outside a source checkout, run -layouts says
// it cannot rebuild the kernels and what to do instead, before measuring.
func TestRunLayoutsElsewhere(t *testing.T) {
	t.Chdir(t.TempDir())
	_, _, err := runCLI(t, "run", "-layouts", "2", "-bench", "AddChain")
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "checkout of github.com/cyclebench/cyclebench") || !strings.Contains(err.Error(), "./PKG") {
		t.Errorf("run -layouts outside a checkout: %v, want a usage error naming the checkout and the package mode", err)
	}
	if dir, err := sourceCheckout(); err == nil {
		t.Errorf("sourceCheckout() = %q in an empty directory", dir)
	}
}

func TestRunLayoutsInProcess(t *testing.T) {
	_, _, err := runCLI(t, "run", "-layouts", "2", "-in-process", "-bench", "AddChain")
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-in-process") {
		t.Errorf("run -layouts -in-process: %v, want a usage error", err)
	}
}

// TestSourceCheckout: the tests run in cmd/cyclebench of a checkout.
func TestSourceCheckout(t *testing.T) {
	dir, err := sourceCheckout()
	if err != nil {
		t.Fatalf("sourceCheckout() in the repository: %v", err)
	}
	if want, _ := filepath.Abs(filepath.Join("..", "..")); dir != want {
		t.Errorf("sourceCheckout() = %q, want the repository's root %q", dir, want)
	}
}
