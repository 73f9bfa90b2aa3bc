package revision

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Toolchain is what a build depends on besides the source: the go
// command and the Go version and platform it builds for, which key the
// cache.
type Toolchain struct {
	Go                      string // the go command; "" means "go"
	GoVersion, GOOS, GOARCH string
}

func (t Toolchain) command() string {
	if t.Go == "" {
		return "go"
	}
	return t.Go
}

// DetectToolchain asks the go command in dir for its version and
// platform (go env GOVERSION GOOS GOARCH).
func DetectToolchain(ctx context.Context, goCmd, dir string) (Toolchain, error) {
	t := Toolchain{Go: goCmd}
	cmd := exec.CommandContext(ctx, t.command(), "env", "GOVERSION", "GOOS", "GOARCH")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return t, fmt.Errorf("%w: go env in %s: %w", ErrBuild, dir, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return t, fmt.Errorf("%w: go env in %s printed %q (want GOVERSION, GOOS and GOARCH)", ErrBuild, dir, out)
	}
	t.GoVersion, t.GOOS, t.GOARCH = f[0], f[1], f[2]
	return t, nil
}

// BuildArgs is the go command's argument list that builds the test
// binary of package pkg (a pattern where the go command runs) into out,
// its code laid out by the linker's -randlayout=seed (0: the default
// layout, no flag).
func BuildArgs(pkg, out string, seed int64) []string {
	a := []string{"test", "-c", "-o", out}
	if seed != 0 {
		a = append(a, "-ldflags=-randlayout="+strconv.FormatInt(seed, 10))
	}
	return append(a, pkg)
}

// CachePath is where the test binary of package importPath at commit,
// in layout seed, built by t, is kept under cacheDir:
// cacheDir/builds/COMMIT-SEED/GOVERSION-GOOS-GOARCH/PKG.test, PKG the
// import path with its separators replaced.
func CachePath(cacheDir, commit string, seed int64, t Toolchain, importPath string) string {
	pkg := strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(importPath)
	return filepath.Join(cacheDir, "builds", fmt.Sprintf("%s-%d", commit, seed), t.GoVersion+"-"+t.GOOS+"-"+t.GOARCH, pkg+".test")
}

// build builds package pkg (its import path, its pattern relative to
// modDir) into out, or takes it from the cache when cachePath is not ""
// and holds it (then cached is true). A new build goes into the cache
// through a temporary name, so that an interrupted build never leaves a
// truncated binary there.
func build(ctx context.Context, t Toolchain, modDir, pkg, out, cachePath string, seed int64) (cached bool, err error) {
	if cachePath != "" {
		if st, err := os.Stat(cachePath); err == nil && st.Mode().IsRegular() {
			return true, copyFile(cachePath, out)
		}
	}
	cmd := exec.CommandContext(ctx, t.command(), BuildArgs(pkg, out, seed)...)
	cmd.Dir = modDir
	msgs, err := cmd.CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("%w: go %s in %s: %w: %s", ErrBuild, strings.Join(BuildArgs(pkg, out, seed), " "), modDir, err, bytes.TrimSpace(msgs))
	}
	if _, err := os.Stat(out); err != nil {
		return false, fmt.Errorf("%w: go test -c wrote no test binary for %s in %s (a package without tests?)", ErrBuild, pkg, modDir)
	}
	if cachePath != "" {
		// A cache that cannot be written costs the next run a build,
		// nothing else.
		if os.MkdirAll(filepath.Dir(cachePath), 0o755) == nil {
			tmp := cachePath + ".tmp" + strconv.Itoa(os.Getpid())
			if copyFile(out, tmp) == nil {
				os.Rename(tmp, cachePath)
			}
			os.Remove(tmp)
		}
	}
	return false, nil
}

// copyFile copies the executable from to to.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
