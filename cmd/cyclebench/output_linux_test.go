//go:build linux

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileAtomicPipe: -o naming a pipe or a device (/dev/null,
// /dev/stdout) writes into it; the atomic rename would have put a regular
// file in its place.
func TestWriteFileAtomicPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := writeFileAtomic(path, "-o", []byte("results\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "results\n" {
		t.Errorf("the reader of the pipe got %q", s)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a pipe: %v %v", path, st.Mode(), err)
	}
}
