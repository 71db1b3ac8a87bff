package bisect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/textclip"
)

// gitTimeout bounds one git command: none of ours reads more than a
// commit's diff or writes more than a checkout.
const gitTimeout = 5 * time.Minute

// maxGitOutput bounds what one git command's output is read to.
const maxGitOutput = 4 << 20

// repoEnv are the variables that point git at a repository, an index or
// a work tree whatever its directory: inherited (triage run from a git
// hook), they would have a checkout in the worktree write the user's.
var repoEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX"}

// git runs git in dir with args: its standard output, or an error that
// quotes what it printed on its standard error. Hooks are off: a checkout
// in the worktree must run nothing of the user's.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	var out, errOut capped
	out.n, errOut.n = maxGitOutput, 4<<10
	argv := append([]string{"git", "-c", "core.hooksPath=" + os.DevNull, "-c", "advice.detachedHead=false"}, args...)
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Stdout: &out, Stderr: &errOut, Timeout: gitTimeout,
		Env: map[string]string{"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}, Unset: repoEnv})
	if err != nil {
		return "", fault.Unavailablef("git: %v", err)
	}
	if !res.Success() {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = res.String()
		}
		return out.String(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.String(), nil
}

// capped keeps the first n bytes written to it, and takes the rest
// unkept (a full pipe would stall the child).
type capped struct {
	bytes.Buffer
	n   int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.Len(); room < len(p) {
		c.cut = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// repo is the git repository a bisect runs in: its top directory, and
// the project's directory in it (the prefix, "" for the top).
type repo struct {
	top, prefix string
}

// openRepo finds the repository that holds dir.
func openRepo(ctx context.Context, dir string) (repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return repo{}, fault.Usagef("project_dir %s is not in a git work tree: %v", dir, err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	r := repo{top: lines[0]}
	if len(lines) > 1 {
		r.prefix = strings.TrimSuffix(lines[1], "/")
	}
	return r, nil
}

// commit is the full hash of rev, a usage error naming it when there is
// no such commit.
func (r repo) commit(ctx context.Context, name, rev string) (string, error) {
	out, err := git(ctx, r.top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || strings.TrimSpace(out) == "" {
		return "", fault.Usagef("%s %q is not a commit of %s", name, rev, r.top)
	}
	return strings.TrimSpace(out), nil
}

// Rev is one revision of the range: its hash and subject.
type Rev struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// revisions is the range a bisect searches, oldest first: good, then
// the commits on bad's first-parent line that descend from good, bad
// last. A first-parent line keeps the range one line, over which a
// binary search holds; a merge that brought a bad change in is its
// first bad commit.
func (r repo) revisions(ctx context.Context, good, bad string) ([]Rev, error) {
	if good == bad {
		return nil, fault.Usagef("the good and bad revisions are the same commit %s", short(good))
	}
	if _, err := git(ctx, r.top, "merge-base", "--is-ancestor", good, bad); err != nil {
		return nil, fault.Usagef("the good revision %s is not an ancestor of the bad one %s: give a good revision older than the bad", short(good), short(bad))
	}
	out, err := git(ctx, r.top, "log", "--first-parent", "--ancestry-path", "--reverse", "--format=%H %s", good+".."+bad)
	if err != nil {
		return nil, err
	}
	first, _ := r.gitLog(ctx, good)
	revs := []Rev{{Hash: good, Subject: strings.SplitN(first, "\x00", 2)[0]}}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		hash, subject, _ := strings.Cut(line, " ")
		revs = append(revs, Rev{Hash: hash, Subject: subject})
	}
	if revs[len(revs)-1].Hash != bad {
		return nil, fmt.Errorf("git log %s..%s did not end at the bad revision", short(good), short(bad))
	}
	return revs, nil
}

// worktree is a worktree of the repository's own, detached at one
// revision after another.
type worktree struct {
	repo  repo
	dir   *scratch.Owned
	path  string // the worktree's top
	added bool
}

// addWorktree adds a detached worktree at rev under a scratch directory
// of triage's. The user's checkout, index and stashes are not touched:
// a worktree has its own HEAD and index.
func (r repo) addWorktree(ctx context.Context, rev string) (*worktree, error) {
	d, err := scratch.Dir("", "bisect")
	if err != nil {
		return nil, err
	}
	w := &worktree{repo: r, dir: d, path: filepath.Join(d.Path, "tree")}
	if _, err := git(ctx, r.top, "worktree", "add", "--detach", "--quiet", w.path, rev); err != nil {
		w.remove()
		return nil, err
	}
	w.added = true
	return w, nil
}

// projectDir is the project's directory in the worktree.
func (w *worktree) projectDir() string { return filepath.Join(w.path, w.repo.prefix) }

// checkout detaches the worktree at rev. Untracked files stay, the build
// directories among them (incremental builds); tracked files a build
// changed are reset.
func (w *worktree) checkout(ctx context.Context, rev string) error {
	_, err := git(ctx, w.path, "checkout", "--detach", "--force", "--quiet", rev)
	return err
}

// remove removes the worktree and its scratch directory, also after
// cancellation: git forgets it, and nothing of it is left on disk.
func (w *worktree) remove() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(context.Background()), gitTimeout)
	defer cancel()
	if w.added {
		if _, err := git(ctx, w.repo.top, "worktree", "remove", "--force", "--force", w.path); err != nil {
			os.RemoveAll(w.path)
			git(ctx, w.repo.top, "worktree", "prune") //nolint:errcheck // best effort, after the removal failed
		}
	}
	w.dir.Remove()
}

// short is a hash's first 10 digits.
func short(hash string) string { return textclip.Prefix(hash, 10) }

// atoi is n's number, 0 when it is none ("-" for a binary file's lines).
func atoi(n string) int {
	v, _ := strconv.Atoi(n)
	return v
}
