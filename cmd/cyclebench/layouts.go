package main

import (
	"fmt"
	"strconv"

	"github.com/cyclebench/cyclebench/internal/revision"
)

// layoutsValue is the -layouts L flag of run, cpe and compare with
// packages: L code layouts, the seeds 1 to L (revision.Seeds); 0 (the
// default) builds the one binary in the linker's default layout.
type layoutsValue struct{ seeds *[]int64 }

func (v layoutsValue) String() string {
	if v.seeds == nil || len(*v.seeds) == 0 {
		return "0"
	}
	return strconv.Itoa(len(*v.seeds))
}

func (v layoutsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > revision.MaxLayouts {
		return fmt.Errorf("%q: want a number of layouts from 0 to %d", s, revision.MaxLayouts)
	}
	*v.seeds = nil
	if n > 0 {
		*v.seeds = revision.Seeds(n)
	}
	return nil
}

// layoutsUsage is the -layouts flag's help.
const layoutsUsage = "build each package's test binary in `L` code layouts (go test -c -ldflags=-randlayout=N, N from 1 to L)\n" +
	"and take each run from the binary of its own layout, so that the spread between runs includes the layout;\n" +
	"the runs are then at least L; 0, the default, builds one binary in the linker's layout"
