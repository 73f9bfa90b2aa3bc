// Package atomicfile writes a file whole or not at all: to a temporary
// file beside it, renamed over it. The CLI's -o files go through it, so a
// crash or a signal never leaves one half-written.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrBadPath: the path cannot be written as asked (a missing directory, a
// directory in the way, a directory that cannot be written): the caller's
// input, not the system's failure.
var ErrBadPath = errors.New("atomicfile: bad path")

// ErrWrite: the file could not be written (the operating system's error
// follows).
var ErrWrite = errors.New("atomicfile: cannot write")

// WriteFile writes data to a temporary file beside path ([CreateTemp])
// and renames it over path, so that a reader (or a crash, or a signal)
// never sees a half-written file and an existing file is never left
// truncated. A device or a pipe (/dev/null, /dev/stdout) is written in
// place: a rename would put a regular file where it was. Errors name the
// path and wrap ErrBadPath (see CreateTemp) or ErrWrite.
func WriteFile(path string, data []byte) error {
	var f *os.File
	var err error
	if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	} else if f, err = CreateTemp(path); err != nil {
		return err
	}
	if err == nil {
		_, err = f.Write(data)
		if err == nil && f.Name() != path {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && f.Name() != path {
			err = os.Rename(f.Name(), path)
		}
		if err != nil && f.Name() != path {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	return nil
}

// CreateTemp opens a temporary file, mode 0644, in path's directory,
// named after path. A missing directory, a directory in the way, or one
// that cannot be written is an error wrapping ErrBadPath naming path.
func CreateTemp(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s: directory %s does not exist", ErrBadPath, path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%w: %s: is a directory (want a file name)", ErrBadPath, path)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: cannot write in %s: %v", ErrBadPath, path, dir, err)
	}
	// CreateTemp makes the file 0600; results are for others to read.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	return f, nil
}
