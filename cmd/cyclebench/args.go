package main

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/cyclebench/cyclebench/internal/gotest"
)

// checkPaths is a *usageError naming the first positional argument of
// args that is a directory pattern (./x, ../x, /abs/x) naming no
// directory: go test, outside a module, would say it in its own words
// and exit 1. Patterns with "..." and import paths are left to the go
// command, and -h is answered whatever the arguments (cyclebench run
// ./mypkg -h).
func checkPaths(args []string) error {
	if slices.ContainsFunc(args, func(a string) bool { return slices.Contains([]string{"-h", "-help", "--h", "--help"}, a) }) {
		return nil
	}
	for _, p := range positionals(args) {
		if strings.Contains(p, "...") {
			continue
		}
		_, err := os.Stat(p)
		if !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if gotest.IsPackagePattern(p) {
			return usageErrorf("%s: no such directory (a package is a directory: ./dir, ../dir, or a pattern with /...)", p)
		}
	}
	return nil
}

// filesExist is a *usageError naming the first of paths that does not
// exist, before they are counted ("1 file given" for a misspelt second
// file would send a user looking for the wrong mistake).
func filesExist(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return usageErrorf("%s: no such file", p)
		}
	}
	return nil
}
