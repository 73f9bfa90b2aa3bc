package main

import (
	"io"
	"runtime/debug"
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
	return s.report(r, r.table, nil)
}

// versionReport is what version prints.
type versionReport struct {
	Module       string       `json:"module"`
	Version      string       `json:"version"`
	Sum          string       `json:"sum,omitempty"`
	GoVersion    string       `json:"go_version"`
	Platform     string       `json:"platform"`
	VCS          string       `json:"vcs,omitempty"`
	Revision     string       `json:"revision,omitempty"`
	RevisionTime string       `json:"revision_time,omitempty"`
	Modified     bool         `json:"modified,omitempty"`
	Deps         []moduleInfo `json:"deps,omitempty"`
}

// moduleInfo is one dependency module.
type moduleInfo struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Replace string `json:"replace,omitempty"` // path@version or directory it is replaced by
}

// gatherVersion reads the build information embedded in the binary. A
// binary without it (built without module support) still gets the Go
// version and platform of the running program.
func gatherVersion(withDeps bool) versionReport {
	r := versionReport{
		Module:    "github.com/cyclebench/cyclebench",
		Version:   "unknown",
		GoVersion: sys.goVersion,
		Platform:  sys.goos + "/" + sys.goarch,
	}
	bi, ok := readBuildInfo()
	if !ok {
		return r
	}
	if bi.Main.Path != "" {
		r.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		r.Version = bi.Main.Version
	}
	r.Sum = bi.Main.Sum
	if bi.GoVersion != "" {
		r.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs":
			r.VCS = s.Value
		case "vcs.revision":
			r.Revision = s.Value
		case "vcs.time":
			r.RevisionTime = s.Value
		case "vcs.modified":
			r.Modified = s.Value == "true"
		}
	}
	if withDeps {
		r.Deps = []moduleInfo{} // JSON shows [] for a binary without dependencies
		for _, d := range bi.Deps {
			m := moduleInfo{Path: d.Path, Version: d.Version}
			if d.Replace != nil {
				m.Replace = d.Replace.Path
				if d.Replace.Version != "" {
					m.Replace += "@" + d.Replace.Version
				}
			}
			r.Deps = append(r.Deps, m)
		}
	}
	return r
}

// table lays r out as a key/value table.
func (r versionReport) table() *table {
	t := kvTable()
	t.kv("cyclebench", "%s", r.Version)
	t.kv("module", "%s", r.Module)
	if r.Sum != "" {
		t.kv("sum", "%s", r.Sum)
	}
	t.kv("go", "%s", r.GoVersion)
	t.kv("platform", "%s", r.Platform)
	if r.Revision != "" {
		rev := r.Revision
		if r.VCS != "" {
			rev = r.VCS + " " + rev
		}
		if r.Modified {
			rev += " (modified)"
		}
		t.kv("revision", "%s", rev)
		if r.RevisionTime != "" {
			t.kv("revision time", "%s", r.RevisionTime)
		}
	}
	if r.Deps != nil {
		t.blank()
		if len(r.Deps) == 0 {
			t.kv("deps", "none recorded")
		}
		for _, d := range r.Deps {
			v := d.Version
			if d.Replace != "" {
				v += " => " + d.Replace
			}
			t.kv(d.Path, "%s", v)
		}
	}
	return t
}
