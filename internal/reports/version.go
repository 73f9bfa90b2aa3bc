package reports

// The version report of a binary: what cyclebench version prints, read
// from the build information the Go toolchain embeds.

import "runtime/debug"

// VersionReport is the module version, toolchain, platform and revision a
// binary was built from, and, when asked for, its dependencies.
type VersionReport struct {
	Module       string          `json:"module"`
	Version      string          `json:"version"`
	Sum          string          `json:"sum,omitempty"`
	GoVersion    string          `json:"go_version"`
	Platform     string          `json:"platform"`
	VCS          string          `json:"vcs,omitempty"`
	Revision     string          `json:"revision,omitempty"`
	RevisionTime string          `json:"revision_time,omitempty"`
	Modified     bool            `json:"modified,omitempty"`
	Deps         []ModuleVersion `json:"deps,omitempty"`
}

// ModuleVersion is one dependency module.
type ModuleVersion struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Replace string `json:"replace,omitempty"` // path@version or directory it is replaced by
}

// NewVersionReport reads bi (from [debug.ReadBuildInfo]). A binary
// without build information (bi nil: built without module support) still
// gets goVersion and platform ("linux/amd64"), those of the running
// program, and the version "unknown". withDeps lists the dependencies,
// never nil then (JSON shows [] for a binary without any).
func NewVersionReport(bi *debug.BuildInfo, goVersion, platform string, withDeps bool) VersionReport {
	r := VersionReport{
		Module:    "github.com/cyclebench/cyclebench",
		Version:   "unknown",
		GoVersion: goVersion,
		Platform:  platform,
	}
	if bi == nil {
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
		r.Deps = []ModuleVersion{}
		for _, d := range bi.Deps {
			m := ModuleVersion{Path: d.Path, Version: d.Version}
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
