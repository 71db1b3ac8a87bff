package bisect

import (
	"context"
	"path"
	"strings"

	"github.com/triage-dev/triage/internal/textclip"
)

// MaxDiffBytes bounds the diff an answer quotes of the first bad commit.
const MaxDiffBytes = 4 << 10

// Commit is the first bad commit as the answer shows it.
type Commit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
	Author  string `json:"author"`
	Date    string `json:"date" jsonschema:"the author date, RFC 3339"`
	// Files are the files it changed (against its first parent), with
	// their lines added and deleted.
	Files []FileChange `json:"files,omitempty"`
	// Diff is its diff of the project's own files (under the project's
	// directory, vendored trees left out), cut to MaxDiffBytes; DiffCut
	// says it was cut.
	Diff    string `json:"diff,omitempty"`
	DiffCut bool   `json:"diff_cut,omitempty"`
}

// FileChange is one file a commit changed; a binary file has no line
// counts.
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// describe reads what the answer shows of commit hash. What git cannot
// tell is left out rather than failing the answer: the search is done.
func (r repo) describe(ctx context.Context, hash string) Commit {
	c := Commit{Hash: hash}
	if out, err := r.gitLog(ctx, hash); err == nil {
		f := strings.SplitN(strings.TrimRight(out, "\n"), "\x00", 4)
		if len(f) == 4 {
			c.Subject, c.Author, c.Date = f[0], f[1], f[2]
		}
	}
	if out, err := git(ctx, r.top, "diff", "--numstat", "--no-renames", hash+"^", hash); err == nil {
		c.Files = numstat(out)
	}
	c.Diff, c.DiffCut = r.diff(ctx, hash)
	return c
}

func (r repo) gitLog(ctx context.Context, hash string) (string, error) {
	return git(ctx, r.top, "show", "-s", "--format=%s%x00%an <%ae>%x00%aI%x00", hash)
}

// numstat reads git diff --numstat: added, deleted, path.
func numstat(out string) []FileChange {
	var files []FileChange
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		files = append(files, FileChange{Path: f[2], Added: atoi(f[0]), Deleted: atoi(f[1]), Binary: f[0] == "-"})
	}
	return files
}

// vendored are the trees under a project that hold others' code.
var vendored = []string{"vendor", "third_party", "node_modules", "external"}

// diff is the commit's diff of the project's own files, cut to
// MaxDiffBytes, and whether it was cut.
func (r repo) diff(ctx context.Context, hash string) (string, bool) {
	dir := r.prefix
	if dir == "" {
		dir = "."
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", hash + "^", hash, "--", dir}
	for _, v := range vendored {
		args = append(args, ":(exclude,glob)"+path.Join(dir, "**", v, "**"))
	}
	full, err := git(ctx, r.top, args...)
	if err != nil {
		return "", false
	}
	if len(full) <= MaxDiffBytes {
		return full, false
	}
	s := textclip.Prefix(full, MaxDiffBytes)
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i+1] // whole lines
	}
	return s, true
}
