package main

import (
	"io"
	"runtime/debug"

	"github.com/cyclebench/cyclebench/internal/reports"
)

const versionDescription = `
version prints the module version this binary was built from (a release
tag such as v1.2.0 after go install ...@version, a pseudo-version, or
(devel) for a build without one), the Go toolchain that built it, its
platform, and the version-control revision when the build recorded one.
-deps adds every dependency module with its version.`

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func runVersion(args []string, stdout, stderr io.Writer) error {
	s := newSession("version", "[-deps] [-format table|json|csv]", versionDescription, stdout)
	s.o = addOutputFlags(s.fs, stdout, stderr, false, formatTable, formatJSON, formatCSV)
	deps := s.fs.Bool("deps", false, "also list the dependency modules and their versions")
	s.fs.example("cyclebench version", "this binary's version, Go version and revision (also: cyclebench --version)")
	s.fs.example("cyclebench version -deps -json", "with every dependency module, as JSON")
	if err := s.open(args, false); err != nil {
		return err
	}
	defer s.close()
	r := gatherVersion(*deps)
	return s.report(r, func() *table { return versionTable(r) }, nil)
}

// gatherVersion reads the build information embedded in the binary
// (reports.NewVersionReport), on the platform sys says.
func gatherVersion(withDeps bool) reports.VersionReport {
	bi, ok := readBuildInfo()
	if !ok {
		bi = nil
	}
	return reports.NewVersionReport(bi, sys.goVersion, sys.goos+"/"+sys.goarch, withDeps)
}

// versionTable lays r out as a key/value table.
func versionTable(r reports.VersionReport) *table {
	t := kvTable()
	t.KV("cyclebench", "%s", r.Version)
	t.KV("module", "%s", r.Module)
	if r.Sum != "" {
		t.KV("sum", "%s", r.Sum)
	}
	t.KV("go", "%s", r.GoVersion)
	t.KV("platform", "%s", r.Platform)
	if r.Revision != "" {
		rev := r.Revision
		if r.VCS != "" {
			rev = r.VCS + " " + rev
		}
		if r.Modified {
			rev += " (modified)"
		}
		t.KV("revision", "%s", rev)
		if r.RevisionTime != "" {
			t.KV("revision time", "%s", r.RevisionTime)
		}
	}
	if r.Deps != nil {
		t.Blank()
		if len(r.Deps) == 0 {
			t.KV("deps", "none recorded")
		}
		for _, d := range r.Deps {
			v := d.Version
			if d.Replace != "" {
				v += " => " + d.Replace
			}
			t.KV(d.Path, "%s", v)
		}
	}
	return t
}
