package realworld

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bisectCase is a corpus project whose history a test makes: its
// pristine files as commit 0, then a commit per change (a line of
// HISTORY), with three faults in it: the Crash edits from commit crashAt
// on, never fixed; the Break edits at commit breakAt alone (the next fixes
// the build); the Unrelated edits, a failing test, at commit unrelatedAt
// alone.
type bisectCase struct {
	Project                 string
	Crash, Break, Unrelated []Edit
	// CrashKind is the failure kind the bad end shows.
	CrashKind string
}

// The history's shape: 24 commits, the crash from commit 10 on, the build
// broken at 5 and a test failing at 8. The search judges 23 (bad), 0
// (good), 11 (bad), 5 (the break: skipped), 6 (good), 8 (the other
// failure: skipped), 9 (good), 10 (bad): every fault is met on the way to
// the crash's commit (the order is internal/bisect's search, pure and
// deterministic; its own tests hold it).
const (
	historyLen    = 24
	crashAt       = 10
	breakAt       = 5
	unrelatedAt   = 8
	bisectTimeout = 10 * time.Minute
)

// The crash, the build break and the unrelated failure of each project.
var (
	uuidBisect = bisectCase{Project: "uuid", CrashKind: "crashed",
		Crash:     []Edit{{"uuid.go", "func MustParse(s string) UUID {\n", "\tif len(s) > 0 {\n\t\tpanic(\"injected panic\")\n\t}\n"}},
		Break:     []Edit{{"uuid.go", "func (uuid UUID) String() string {\n", goUndef}},
		Unrelated: []Edit{{"uuid_test.go", uuidTest, "\tt.Errorf(\"injected failure: got %d, want %d\", 1, 2)\n"}}}
	cjsonBisect = bisectCase{Project: "cjson", CrashKind: "crashed",
		Crash:     []Edit{{"cJSON.c", cjsonLib, cSegv}},
		Break:     []Edit{{"cJSON.c", "CJSON_PUBLIC(const char*) cJSON_Version(void)\n{\n", cUndef}},
		Unrelated: []Edit{{"tests/parse_number.c", cjsonTest, "    TEST_ASSERT_EQUAL_INT_MESSAGE(1, 2, \"injected\");\n"}}}
	semverBisect = bisectCase{Project: "semver", CrashKind: "crashed",
		Crash:     []Edit{{"src/lib.rs", semverLib, "        if VersionReq::STAR.comparators.is_empty() {\n            std::process::abort();\n        }\n"}},
		Break:     []Edit{{"src/lib.rs", semverLib, rsUndef}},
		Unrelated: []Edit{{"tests/test_version.rs", "fn test_eq() {\n", "    assert_eq!(1 + 1, 3, \"injected\");\n"}}}
)

// In a history the test makes of a real project per toolchain (go test;
// CMake and CTest; cargo, offline against Debian's registry), bisect
// names the commit that introduced the crash, skips the commit whose
// build broke and the one with an unrelated failing test (each judged, by
// the shape of the history), and leaves the user's checkout (a stash, a
// staged and an unstaged change, the index file, HEAD and its branch)
// byte for byte as it was.
func TestBisectCorpusGo(t *testing.T)    { bisectCorpus(t, uuidBisect) }
func TestBisectCorpusCMake(t *testing.T) { bisectCorpus(t, cjsonBisect) }
func TestBisectCorpusCargo(t *testing.T) { bisectCorpus(t, semverBisect) }

func bisectCorpus(t *testing.T, c bisectCase) {
	if _, err := exec.LookPath("git"); err != nil {
		missing(t, "git is not installed")
	}
	p := projects[c.Project]
	for _, tool := range p.Tools {
		needTool(t, tool)
	}
	h := makeHistory(t, p, c)
	before := h.state()
	store := filepath.Join(t.TempDir(), "out.db")
	r := bisectCall(t, store, map[string]any{"project_dir": h.dir, "good": h.hashes[0], "toolchain": p.Toolchain})
	after := h.state()
	checkBisect(t, c, h, r)
	if after != before {
		t.Errorf("the user's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// bisectCall runs `triage call bisect --workflows bisect` against store.
func bisectCall(t *testing.T, store string, args map[string]any) toolResult {
	t.Helper()
	js, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bisectTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, triageBin, "call", "bisect", "--workflows", "bisect", "--store", store, "--output", "json", "--json", string(js))
	out, err := cmd.Output()
	var r toolResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("triage call bisect %s: %v (exit %v)\nstdout: %s", js, jerr, err, out)
	}
	r.Exit = exitCode(err)
	return r
}

// bisectOutput is the part of bisect's structured answer the test reads.
type bisectOutput struct {
	Status   string `json:"status"`
	FirstBad *struct {
		Hash    string `json:"hash"`
		Subject string `json:"subject"`
		Diff    string `json:"diff"`
	} `json:"first_bad"`
	Steps []struct {
		Revision string `json:"revision"`
		Mark     string `json:"mark"`
		Why      string `json:"why"`
		Verdict  string `json:"verdict"`
		OutputID string `json:"output_id"`
		Failure  *struct {
			Kind  string   `json:"kind"`
			Sites []string `json:"sites"`
		} `json:"failure"`
	} `json:"steps"`
}

// checkBisect checks that r names the crash's commit of h, with the
// build break and the unrelated failure skipped for what they are.
func checkBisect(t *testing.T, c bisectCase, h *history, r toolResult) {
	t.Helper()
	var out bisectOutput
	if err := json.Unmarshal(r.Output, &out); err != nil {
		t.Fatalf("output: %v\n%s", err, r.Text)
	}
	marks := map[string]string{}
	for _, s := range out.Steps {
		t.Logf("%s %s %s: %s", s.Revision, s.Mark, s.Why, s.Verdict)
		marks[s.Revision] = s.Mark + " " + s.Why
		if s.OutputID == "" {
			t.Errorf("step at %s has no stored output", s.Revision)
		}
	}
	want := "FIRST BAD COMMIT: " + h.hashes[crashAt][:10] + " " + subject(crashAt)
	if out.Status != "found" || out.FirstBad == nil || out.FirstBad.Hash != h.hashes[crashAt] || !strings.HasPrefix(r.Text, want) {
		t.Fatalf("want %q (exit %d):\n%s", want, r.Exit, r.Text)
	}
	if first := out.Steps[0]; first.Failure == nil || first.Failure.Kind != c.CrashKind {
		t.Errorf("the bad end's failure %+v, want %s", first.Failure, c.CrashKind)
	}
	if m := marks[h.hashes[breakAt][:10]]; !strings.HasPrefix(m, "skip ") || !strings.Contains(m, "build") {
		t.Errorf("the build break (commit %d) was %q, want skipped as a build failure", breakAt, m)
	}
	if m := marks[h.hashes[unrelatedAt][:10]]; !strings.HasPrefix(m, "skip another failure (tests failed") {
		t.Errorf("the unrelated failing test (commit %d) was %q, want skipped as another failure", unrelatedAt, m)
	}
	if d := out.FirstBad.Diff; !strings.Contains(d, "+"+strings.SplitN(c.Crash[0].Insert, "\n", 2)[0]) {
		t.Errorf("the first bad commit's diff lacks the crash:\n%s", d)
	}
	if len(out.Steps) > 10 {
		t.Errorf("%d steps for %d revisions", len(out.Steps), historyLen)
	}
}

func subject(i int) string {
	switch i {
	case 0:
		return "import the project"
	case crashAt:
		return "change 10: the crash"
	case breakAt:
		return "change 5: the build break"
	case breakAt + 1:
		return "change 6: the build fixed"
	case unrelatedAt:
		return "change 8: an unrelated failing test"
	case unrelatedAt + 1:
		return "change 9: the unrelated test fixed"
	}
	return fmt.Sprintf("change %d", i)
}

// history is a test-made git repository of a corpus project.
type history struct {
	t      *testing.T
	dir    string
	hashes []string
}

func (h *history) git(args ...string) string {
	h.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Triage Test", "-c", "user.email=test@triage.invalid"}, args...)...)
	cmd.Dir = h.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// makeHistory commits a fresh copy of p's corpus entry as commit 0, then
// historyLen-1 changes with c's faults, and leaves the checkout as a user
// at work has it: a stash, a staged change and an unstaged one.
func makeHistory(t *testing.T, p Project, c bisectCase) *history {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	h := &history{t: t, dir: copyProject(t, p.source(t))}
	pristine := map[string]string{}
	for _, e := range append(append(append([]Edit(nil), c.Crash...), c.Break...), c.Unrelated...) {
		b, err := os.ReadFile(filepath.Join(h.dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		pristine[e.File] = string(b)
	}
	h.git("init", "-q", "-b", "main")
	for i := range historyLen {
		var edits []Edit
		switch {
		case i == breakAt:
			edits = append(edits, c.Break...)
		case i == unrelatedAt:
			edits = append(edits, c.Unrelated...)
		}
		if i >= crashAt {
			edits = append(edits, c.Crash...)
		}
		h.write(pristine, edits, i)
		h.git("add", "-A")
		h.git("commit", "-q", "-m", subject(i))
		h.hashes = append(h.hashes, strings.TrimSpace(h.git("rev-parse", "HEAD")))
	}
	h.writeFile("HISTORY", "stashed work\n")
	h.git("stash", "push", "-q", "-m", "work in progress")
	h.writeFile("NOTES", "staged work\n")
	h.git("add", "NOTES")
	h.writeFile("HISTORY", "uncommitted work\n")
	h.git("status") // the index's stat data refreshed once, as any status does
	return h
}

// write makes commit i's files: the faulted files from their pristine
// text with edits applied, and HISTORY's i-th line.
func (h *history) write(pristine map[string]string, edits []Edit, i int) {
	h.t.Helper()
	text := map[string]string{}
	for f, s := range pristine {
		text[f] = s
	}
	for _, e := range edits {
		if strings.Count(text[e.File], e.Anchor) != 1 {
			h.t.Fatalf("%s: anchor %q is not there once", e.File, e.Anchor)
		}
		text[e.File] = strings.Replace(text[e.File], e.Anchor, e.Anchor+e.Insert, 1)
	}
	for f, s := range text {
		h.writeFile(f, s)
	}
	var b strings.Builder
	for j := 1; j <= i; j++ {
		fmt.Fprintf(&b, "%s\n", subject(j))
	}
	h.writeFile("HISTORY", b.String())
}

func (h *history) writeFile(name, text string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// state is what of the user's checkout a bisect must leave as it was:
// HEAD and its branch, the status, the index's and the work tree's
// changes, the stashes and their contents, the changed files' bytes, the
// index file itself and the worktrees git knows.
func (h *history) state() string {
	h.t.Helper()
	files := []string{h.git("symbolic-ref", "HEAD"), h.git("rev-parse", "HEAD"), h.git("status", "--porcelain=v2", "--untracked-files=all"),
		h.git("diff"), h.git("diff", "--cached"), h.git("stash", "list"), h.git("stash", "show", "-p", "stash@{0}"),
		h.git("worktree", "list", "--porcelain"), h.git("for-each-ref")}
	for _, f := range []string{"HISTORY", "NOTES", filepath.Join(".git", "index")} {
		b, err := os.ReadFile(filepath.Join(h.dir, f))
		if err != nil {
			h.t.Fatal(err)
		}
		files = append(files, fmt.Sprintf("%s: %x", f, b))
	}
	return strings.Join(files, "\n--\n")
}
