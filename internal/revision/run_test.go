package revision_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cyclebench/cyclebench/internal/revision"
)

// gitRepo makes a git repository in a temporary directory with a module
// holding package sum and a benchmark, in two commits: the second adds
// an unused function in another file. It returns the repository's
// directory and an uncommitted change left in the working tree. It skips
// the test where git or the go command is missing.
func gitRepo(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("sum/sum.go", "package sum\n\n// Sum adds xs.\nfunc Sum(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n")
	write("sum/sum_test.go", "package sum\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkSum(b *testing.B) {\n\txs := make([]int, 100)\n\tfor i := 0; i < b.N; i++ {\n\t\tsink += Sum(xs)\n\t}\n}\n")
	run("git", "init", "-q", "-b", "main")
	run("git", "add", ".")
	run("git", "commit", "-q", "-m", "one")
	run("git", "tag", "base")
	write("sum/unused.go", "package sum\n\n// Unused moves the layout.\nfunc Unused(x int) int { return x * 3 }\n")
	run("git", "add", ".")
	run("git", "commit", "-q", "-m", "two")
	write("notes.txt", "uncommitted\n")
	return dir
}

// TestRevisionsEndToEnd compares two commits of a tiny repository in 3
// layouts with 100 iterations a run: both sides measured in every layout,
// the user's working tree, index and worktree list untouched, and the
// base's builds cached for the next run.
func TestRevisionsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := gitRepo(t)
	ctx := context.Background()
	tc, err := revision.DetectToolchain(ctx, "", dir)
	if err != nil {
		t.Skipf("no go toolchain: %v", err)
	}
	before, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	cache := t.TempDir()
	r := revision.Revisions{Toolchain: tc, Repo: dir, Patterns: []string{"./sum"}, Base: "base", Seeds: revision.Seeds(3), Count: 1,
		BinaryArgs: []string{"-test.run", "^$", "-test.bench", ".", "-test.benchtime", "100x"}, CacheDir: cache}
	o, err := r.Run(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "exec format error") {
			t.Skipf("the test binaries cannot be started here (%v): user-mode emulation without binfmt_misc", err)
		}
		t.Fatal(err)
	}
	if len(o.Benchmarks) != 1 || o.Benchmarks[0].Name != "Sum" || o.Benchmarks[0].Unit != "ns/op" {
		t.Fatalf("benchmarks %+v, want Sum in ns/op", o.Benchmarks)
	}
	for side, layouts := range o.Benchmarks[0].Figures {
		if len(layouts) != 3 {
			t.Errorf("side %d: %d layouts, want 3", side, len(layouts))
		}
		for l, figs := range layouts {
			if len(figs) != 1 || !(figs[0] > 0) {
				t.Errorf("side %d layout %d: figures %v, want one positive", side, l, figs)
			}
		}
	}
	if !o.HeadDirty || o.BaseCommit == "" || o.HeadCommit == o.BaseCommit || o.Builds != 6 || o.Cached != 0 {
		t.Errorf("outcome %+v: want a dirty head, two commits, 6 builds, none cached", o)
	}
	after, _ := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	if string(after) != string(before) {
		t.Errorf("the working tree changed: %q, was %q", after, before)
	}
	if wt, _ := exec.Command("git", "-C", dir, "worktree", "list").Output(); strings.Count(string(wt), "\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", wt)
	}
	o, err = r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Cached != 3 {
		t.Errorf("second run: %d of %d builds from the cache, want the base's 3", o.Cached, o.Builds)
	}
	c, err := revision.CompareLayouts(o.Benchmarks[0].Unit, o.Benchmarks[0].Figures[revision.A], o.Benchmarks[0].Figures[revision.B], revision.Options{})
	if err != nil || !(c.Ratio > 0) {
		t.Errorf("compare: %+v, %v", c, err)
	}
}

// TestRevisionsCancelled: a run cancelled (as SIGINT cancels the CLI's
// context) after its worktree was made removes it too.
func TestRevisionsCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := gitRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := revision.Revisions{Repo: dir, Patterns: []string{"./sum"}, Base: "base", Seeds: revision.Seeds(2), Count: 1,
		Progress: func(what string, done, total int) {
			if done == 1 {
				cancel() // after the first build: the worktree exists
			}
		}}
	o, err := r.Run(ctx)
	if err != nil || !o.Interrupted {
		t.Errorf("cancelled run: %v, interrupted %v; want no error and Interrupted", err, o.Interrupted)
	}
	if wt, _ := exec.Command("git", "-C", dir, "worktree", "list").Output(); strings.Count(string(wt), "\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", wt)
	}
}

// TestRevisionsBadRef: an unknown base is an error naming it.
func TestRevisionsBadRef(t *testing.T) {
	dir := gitRepo(t)
	r := revision.Revisions{Repo: dir, Patterns: []string{"./sum"}, Base: "no-such-ref", Seeds: revision.Seeds(2), Count: 1}
	if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no-such-ref") {
		t.Errorf("error %v, want one naming the ref", err)
	}
}
