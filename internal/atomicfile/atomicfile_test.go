package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/atomicfile"
)

// TestWriteFile writes a file whole, replaces it, leaves no temporary
// file, and refuses a missing directory and a directory in the way.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	for _, text := range []string{"first\n", "second\n"} {
		if err := atomicfile.WriteFile(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != text {
			t.Errorf("read %q, %v; want %q", b, err, text)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode(), err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in %s, want 1 (a temporary file left?)", len(es), dir)
	}
	for _, bad := range []struct{ path, says string }{
		{filepath.Join(dir, "no", "r.json"), "does not exist"},
		{dir, "is a directory"},
	} {
		if err := atomicfile.WriteFile(bad.path, nil); !errors.Is(err, atomicfile.ErrBadPath) || !strings.Contains(err.Error(), bad.path) || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("WriteFile(%s) = %v, want ErrBadInput naming it and saying %q", bad.path, err, bad.says)
		}
	}
}
