package reports_test

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/cyclebench/cyclebench/internal/reports"
)

func TestNewVersionReport(t *testing.T) {
	release := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "example.com/x", Version: "v1.2.3", Sum: "h1:abc="},
		Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.49.0"},
			{Path: "gonum.org/v1/gonum", Version: "v0.17.0", Replace: &debug.Module{Path: "../gonum"}},
			{Path: "a.org/b", Version: "v1.0.0", Replace: &debug.Module{Path: "c.org/d", Version: "v1.1.0"}}},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "linux"}},
	}
	tests := []struct {
		name     string
		bi       *debug.BuildInfo
		withDeps bool
		want     reports.VersionReport
	}{
		{"no build information", nil, true, reports.VersionReport{Module: "github.com/cyclebench/cyclebench", Version: "unknown",
			GoVersion: "go1.0", Platform: "plan9/mips"}},
		{"empty build information", &debug.BuildInfo{}, true, reports.VersionReport{Module: "github.com/cyclebench/cyclebench", Version: "unknown",
			GoVersion: "go1.0", Platform: "plan9/mips", Deps: []reports.ModuleVersion{}}},
		{"release without deps", release, false, reports.VersionReport{Module: "example.com/x", Version: "v1.2.3", Sum: "h1:abc=",
			GoVersion: "go1.26.8", Platform: "plan9/mips", VCS: "git", Revision: "0123", RevisionTime: "2026-01-02T03:04:05Z", Modified: true}},
		{"release with deps", release, true, reports.VersionReport{Module: "example.com/x", Version: "v1.2.3", Sum: "h1:abc=",
			GoVersion: "go1.26.8", Platform: "plan9/mips", VCS: "git", Revision: "0123", RevisionTime: "2026-01-02T03:04:05Z", Modified: true,
			Deps: []reports.ModuleVersion{{Path: "golang.org/x/sys", Version: "v0.49.0"}, {Path: "gonum.org/v1/gonum", Version: "v0.17.0", Replace: "../gonum"},
				{Path: "a.org/b", Version: "v1.0.0", Replace: "c.org/d@v1.1.0"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reports.NewVersionReport(tt.bi, "go1.0", "plan9/mips", tt.withDeps)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func ExampleNewVersionReport() {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/cyclebench/cyclebench", Version: "v1.2.0"}}
	r := reports.NewVersionReport(bi, "go1.26.0", "linux/amd64", false)
	fmt.Println(r.Version, r.GoVersion, r.Platform)
	// Output: v1.2.0 go1.26.0 linux/amd64
}
