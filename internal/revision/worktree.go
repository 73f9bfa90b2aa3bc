package revision

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Worktree is a revision checked out in a temporary git worktree, apart
// from the user's working tree and index, which it leaves untouched.
type Worktree struct {
	// Dir is the worktree's directory; Commit the commit checked out.
	Dir, Commit string
	repo        string
}

// AddWorktree checks commit out, detached, in a new temporary directory
// next to nothing of the user's: git worktree add --detach. The caller
// removes it with [Worktree.Remove], also after an error or a signal.
func AddWorktree(ctx context.Context, repo, commit string) (*Worktree, error) {
	dir, err := os.MkdirTemp("", "cyclebench-rev-")
	if err != nil {
		return nil, fmt.Errorf("%w: a directory for the worktree: %w", ErrGit, err)
	}
	if _, err := git(ctx, repo, "worktree", "add", "--detach", "--quiet", dir, commit); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Worktree{Dir: dir, Commit: commit, repo: repo}, nil
}

// Remove deletes the worktree and git's record of it. It runs without
// the caller's context, which a signal may have cancelled: the cleanup
// must still happen (bounded by a minute, for a git that hangs).
func (w *Worktree) Remove() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := git(ctx, w.repo, "worktree", "remove", "--force", w.Dir)
	if rerr := os.RemoveAll(w.Dir); err == nil && rerr != nil {
		err = fmt.Errorf("%w: removing %s: %w", ErrGit, w.Dir, rerr)
	}
	git(ctx, w.repo, "worktree", "prune")
	return err
}
