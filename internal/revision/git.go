package revision

// Git and the go command, run as child processes.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cyclebench/cyclebench/results"
)

// ErrGit: git could not be run, or refused (not a repository, an
// unknown revision). ErrBuild: a test binary could not be built.
var (
	ErrGit   = errors.New("revision: git failed")
	ErrBuild = errors.New("revision: build failed")
)

// git runs git with args in dir and returns its trimmed stdout; an error
// wrapping ErrGit with what git said.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: git %s in %s: %v: %s", ErrGit, strings.Join(args, " "), dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Toplevel is the root of the git working tree that holds dir.
func Toplevel(ctx context.Context, dir string) (string, error) {
	return git(ctx, dir, "rev-parse", "--show-toplevel")
}

// Commit is the full commit hash ref names in the repository of dir.
func Commit(ctx context.Context, dir, ref string) (string, error) {
	return git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
}

// Dirty reports whether the working tree of dir has changes to tracked
// files or untracked files that are not ignored.
func Dirty(ctx context.Context, dir string) (bool, error) {
	out, err := git(ctx, dir, "status", "--porcelain")
	return out != "", err
}

// ModulePath is the module path of the go.mod that holds dir (dir or the
// nearest parent with one), "" when there is none.
func ModulePath(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if f, err := os.Open(filepath.Join(d, "go.mod")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
					return strings.Trim(strings.TrimSpace(rest), `"`)
				}
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Describe is the provenance of the code in dir measured now: its
// module, and where dir is in a git working tree, the commit checked out
// and whether the tree is dirty. Git's absence or refusal leaves the
// revision out (the code need not be in a repository).
func Describe(ctx context.Context, dir string, start time.Time, commandLine, tool string) results.Provenance {
	p := results.Provenance{Module: ModulePath(dir), Date: start.UTC().Truncate(time.Second), CommandLine: commandLine, Tool: tool}
	if rev, err := Commit(ctx, dir, "HEAD"); err == nil {
		p.Revision = rev
		p.Dirty, _ = Dirty(ctx, dir)
	}
	return p
}
