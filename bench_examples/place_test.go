package benchexamples

import (
	"errors"
	"testing"
	"unsafe"
)

func TestPlaced(t *testing.T) {
	for _, off := range []int{0, 8, 64, 2048, 4088} {
		for _, n := range []int{1, 3, 1000, 5000} {
			f := placed[float64](n, off)
			if len(f) != n || cap(f) != n {
				t.Fatalf("placed[float64](%d, %d): len %d cap %d, want %d", n, off, len(f), cap(f), n)
			}
			if got := int(uintptr(unsafe.Pointer(&f[0])) % pageBoundary); got != off {
				t.Errorf("placed[float64](%d, %d) starts %d bytes past a 4 KiB boundary", n, off, got)
			}
			g := placed[float32](n, off)
			if got := int(uintptr(unsafe.Pointer(&g[0])) % pageBoundary); got != off || len(g) != n {
				t.Errorf("placed[float32](%d, %d): %d past a boundary, len %d", n, off, got, len(g))
			}
		}
	}
	if f := placed[int](10, -1); len(f) != 10 {
		t.Errorf("placed[int](10, -1): len %d", len(f))
	}
}

// TestNewAt: every kernel runs right with its data at another offset, and
// a bad offset is an error naming it.
func TestNewAt(t *testing.T) {
	for _, k := range All() {
		if k.Name == "Sleep" || k.Name == "Factorize" {
			continue
		}
		for _, off := range []int{0, 8, 4088} {
			tg, err := k.NewAt(min(k.DefaultN, 2000), off)
			if err != nil {
				t.Fatalf("%s.NewAt(%d): %v", k.Name, off, err)
			}
			if tg.Setup != nil {
				tg.Setup()
			}
			tg.Run()
			if tg.Check != nil {
				if err := tg.Check(); err != nil {
					t.Errorf("%s at offset %d: %v", k.Name, off, err)
				}
			}
		}
		for _, off := range []int{-2, 4, 4096} {
			if _, err := k.NewAt(k.DefaultN, off); !errors.Is(err, ErrBadOffset) {
				t.Errorf("%s.NewAt(%d) = %v, want ErrBadOffset", k.Name, off, err)
			}
		}
	}
}
