package bisect_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/bisect"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil"
)

// TestMain fails the package when its tests leave a process running or a
// triage-* entry (a worktree's scratch directory) in the temporary
// directory.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// gitRepo is a test's git repository, its commits' hashes in order.
type gitRepo struct {
	t      testing.TB
	dir    string
	hashes []string
}

// newRepo makes a repository on branch main, git configured by the test
// alone (the machine's global and system configuration unread).
func newRepo(t testing.TB) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.git("init", "-q", "-b", "main")
	return g
}

func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Triage Test", "-c", "user.email=test@triage.invalid"}, args...)...)
	cmd.Dir = g.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (g *gitRepo) write(files map[string]string) {
	g.t.Helper()
	for name, text := range files {
		path := filepath.Join(g.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
}

// commit writes files and commits every change as subject.
func (g *gitRepo) commit(subject string, files map[string]string) {
	g.t.Helper()
	g.write(files)
	g.git("add", "-A")
	g.git("commit", "-q", "-m", subject)
	g.hashes = append(g.hashes, strings.TrimSpace(g.git("rev-parse", "HEAD")))
}

// state is what of the user's checkout a bisect must leave as it was:
// HEAD and its branch, the index and work tree's changes, the stashes, a
// changed file's bytes, and the worktrees git knows.
func (g *gitRepo) state(changed string) string {
	g.t.Helper()
	text, err := os.ReadFile(filepath.Join(g.dir, changed))
	if err != nil {
		g.t.Fatal(err)
	}
	return strings.Join([]string{g.git("symbolic-ref", "HEAD"), g.git("rev-parse", "HEAD"), g.git("status", "--porcelain=v2"),
		g.git("diff"), g.git("diff", "--cached"), g.git("stash", "list"), string(text), g.git("worktree", "list", "--porcelain")}, "\n--\n")
}

// dirty gives the user's checkout a stash, a staged change and an
// uncommitted one, as a bisect finds it in a working session.
func (g *gitRepo) dirty(staged, unstaged string) {
	g.t.Helper()
	g.write(map[string]string{unstaged: "stashed work\n"})
	g.git("stash", "push", "-q", "-m", "work in progress")
	g.write(map[string]string{staged: "staged work\n"})
	g.git("add", staged)
	g.write(map[string]string{unstaged: "uncommitted work\n"})
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "out.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// calcHistory is a Go module's history of 10 commits: 0 passes; 4 does
// not build (fixed in 5); 6 makes Add subtract (TestAdd fails from then
// on); 7 makes Mul panic, which TestMul runs before TestAdd (fixed in 8).
func calcHistory(t *testing.T) *gitRepo {
	g := newRepo(t)
	add, mul := "a + b", "a * b"
	for i := range 10 {
		version := fmt.Sprint(i)
		switch i {
		case 4:
			version = "undefinedVersion"
		case 6:
			add = "a - b"
		case 7:
			mul = "*(*int)(nil)"
		case 8:
			mul = "a * b"
		}
		g.commit(fmt.Sprintf("commit %d", i), map[string]string{
			"go.mod":       "module example.com/calc\n\ngo 1.21\n",
			"version.go":   "package calc\n\n// Version is the version.\nconst Version = " + version + "\n",
			"calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn " + add + "\n}\n\n// Mul multiplies.\nfunc Mul(a, b int) int {\n\treturn " + mul + "\n}\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"Mul(2, 3) != 6\")\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
		})
	}
	return g
}

// progressLog keeps a bisect's progress messages and whether the steps
// done it said always rose.
type progressLog struct {
	msgs []string
	done []float64
}

func (p *progressLog) add(done float64, _ int, msg string) {
	p.msgs, p.done = append(p.msgs, msg), append(p.done, done)
}

var stepDone = regexp.MustCompile(`^step (\d+) of ~(\d+): ([0-9a-f]{10}) (good|bad|skip)$`)

// ended are the progress messages that end a step.
func (p *progressLog) ended() []string {
	var out []string
	for _, m := range p.msgs {
		if stepDone.MatchString(m) {
			out = append(out, m)
		}
	}
	return out
}

// TestBisectGoTests: the commit that broke TestAdd is found in a
// worktree of the bisect's own, through go test's verdicts; the commit
// that does not build is skipped, and Mul's panic is skipped as another
// failure (or, with any failure bad, judged bad: the answer is the same).
// The user's checkout (branch, index, a change, a stash) is as it was,
// and no worktree is left.
func TestBisectGoTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	g := calcHistory(t)
	g.dirty("notes.txt", "calc.go")
	before := g.state("calc.go")
	st := openStore(t)
	for _, anyFailure := range []bool{false, true} {
		t.Run(fmt.Sprintf("any=%v", anyFailure), func(t *testing.T) {
			var prog progressLog
			rep, err := bisect.Run(context.Background(), bisect.Request{ProjectDir: g.dir, Good: g.hashes[0], What: bisect.WhatTest, Any: anyFailure,
				Call:     pipeline.Call{Tool: "bisect", Store: st, Budget: 8 << 10, Level: logfilter.Standard, Timeout: 5 * time.Minute},
				Progress: prog.add})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s", rep.Line)
			for _, s := range rep.Steps {
				t.Logf("step %d %s %s %s: %s (%s) %s", s.Step, s.Revision, s.Subject, s.Mark, s.Verdict, s.Why, s.OutputID)
			}
			checkFound(t, g, rep, 6)
			checkSteps(t, st, g, rep, &prog)
			skip := stepAt(t, rep, g.hashes[4])
			if skip.Mark != "skip" || skip.Why != "the build failed" {
				t.Errorf("the commit that does not build: %+v", skip)
			}
			panicked := stepAt(t, rep, g.hashes[7])
			switch {
			case anyFailure && panicked.Mark != "bad":
				t.Errorf("with any failure bad, Mul's panic: %+v", panicked)
			case !anyFailure && (panicked.Mark != "skip" || !strings.HasPrefix(panicked.Why, "another failure (crashed")):
				t.Errorf("Mul's panic, another failure: %+v", panicked)
			}
			if want := []string{"example.com/calc/TestAdd"}; !anyFailure && (rep.Sought == nil || rep.Sought.Kind != bisect.KindTests || !slices.Equal(rep.Sought.Sites, want)) {
				t.Errorf("failure sought %+v, want tests failed: %v", rep.Sought, want)
			}
		})
	}
	if after := g.state("calc.go"); after != before {
		t.Errorf("the user's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// checkFound checks that rep names commit k of g as the first bad one,
// with its author, files and diff, the step before it good and its own
// bad.
func checkFound(t *testing.T, g *gitRepo, rep *bisect.Report, k int) {
	t.Helper()
	if rep.Status != "found" || rep.First == nil || rep.First.Hash != g.hashes[k] {
		t.Fatalf("report %s: %+v\nsteps %+v", rep.Line, rep.First, rep.Steps)
	}
	c := rep.First
	if c.Subject != fmt.Sprintf("commit %d", k) || c.Author != "Triage Test <test@triage.invalid>" || c.Date == "" {
		t.Errorf("commit %+v", c)
	}
	if !strings.HasPrefix(rep.Line, "FIRST BAD COMMIT: "+g.hashes[k][:10]+" commit "+fmt.Sprint(k)) {
		t.Errorf("verdict %q", rep.Line)
	}
	if rep.Before == nil || rep.Before.Mark != "good" || rep.Before.Revision != g.hashes[k-1][:10] {
		t.Errorf("before: %+v", rep.Before)
	}
	if rep.At == nil || rep.At.Mark != "bad" || rep.At.Revision != g.hashes[k][:10] || rep.At.Verdict == "" {
		t.Errorf("at: %+v", rep.At)
	}
	if rep.Revisions != len(g.hashes) {
		t.Errorf("%d revisions, want %d", rep.Revisions, len(g.hashes))
	}
}

// checkSteps checks each step's report, stored output and progress.
func checkSteps(t *testing.T, st *store.Store, g *gitRepo, rep *bisect.Report, prog *progressLog) {
	t.Helper()
	done := prog.ended()
	if len(done) != len(rep.Steps) || len(rep.Steps) > 2+4+2 {
		t.Errorf("%d steps, %d progress messages ending one:\n%s", len(rep.Steps), len(done), strings.Join(prog.msgs, "\n"))
	}
	for i := 1; i < len(prog.done); i++ {
		if prog.done[i] <= prog.done[i-1] {
			t.Errorf("progress fell or stood at message %d (%q): %v", i, prog.msgs[i], prog.done)
			break
		}
	}
	for i, s := range rep.Steps {
		if s.Step != i+1 || s.Verdict == "" || s.OutputID == "" {
			t.Errorf("step %+v", s)
			continue
		}
		if i < len(done) && !strings.HasSuffix(done[i], ": "+s.Revision+" "+s.Mark) {
			t.Errorf("progress %q for step %+v", done[i], s)
		}
		ans, err := st.Result(context.Background(), s.OutputID)
		if err != nil || !strings.Contains(string(ans), `"bisect":"step `+fmt.Sprint(s.Step)+" of ~") {
			t.Errorf("step %d's stored answer %s, %v", s.Step, ans, err)
		}
	}
	if rep.Steps[0].Revision != g.hashes[len(g.hashes)-1][:10] || rep.Steps[0].Mark != "bad" || rep.Steps[1].Mark != "good" {
		t.Errorf("the ends are judged first, bad then good: %+v", rep.Steps[:2])
	}
}

// stepAt is the step that judged hash; it fails the test when none did.
func stepAt(t *testing.T, rep *bisect.Report, hash string) bisect.StepReport {
	t.Helper()
	for _, s := range rep.Steps {
		if s.Revision == hash[:10] {
			return s
		}
	}
	t.Fatalf("no step judged %s: %+v", hash[:10], rep.Steps)
	return bisect.StepReport{}
}

// crashHistory is a C program's history of 7 commits: from commit 4 on,
// store_value writes through a null pointer.
func crashHistory(t *testing.T) *gitRepo {
	g := newRepo(t)
	target := "&slot"
	for i := range 7 {
		if i == 4 {
			target = "0"
		}
		g.commit(fmt.Sprintf("commit %d", i), map[string]string{
			".gitignore": "/prog\n",
			"prog.c": "#include <stdio.h>\n\nstatic int slot;\n\n// version " + fmt.Sprint(i) + "\n" +
				"static void store_value(int *p, int v) { *p = v; }\n\n" +
				"int main(void) {\n\tint *target = " + target + ";\n\tstore_value(target, 42);\n\tprintf(\"stored\\n\");\n\treturn 0;\n}\n",
		})
	}
	return g
}

// TestBisectCrashingRun: a program built by a gcc command and run finds
// the commit from which it crashes with SIGSEGV; each step's build and
// run are stored apart. A bad revision that does not fail is said so,
// and a cancelled bisect leaves no worktree either; git's variables of
// the user's checkout in the environment change none of this.
func TestBisectCrashingRun(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	g := crashHistory(t)
	g.dirty("notes.txt", "prog.c")
	// As in a git hook: variables that point git at the user's checkout
	// whatever the directory must not reach the worktree's.
	t.Setenv("GIT_DIR", filepath.Join(g.dir, ".git"))
	t.Setenv("GIT_WORK_TREE", g.dir)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(g.dir, ".git", "index"))
	before := g.state("prog.c")
	st := openStore(t)
	req := bisect.Request{ProjectDir: g.dir, Good: g.hashes[0], What: bisect.WhatRun,
		Call: pipeline.Call{Tool: "bisect", Store: st, Budget: 8 << 10, Level: logfilter.Standard, Timeout: 2 * time.Minute,
			Argv: []string{"gcc", "-g", "-O0", "-o", "prog", "prog.c"}},
		Run: bisect.RunSpec{Program: "./prog", Timeout: time.Minute}}
	var prog progressLog
	req.Progress = prog.add
	rep, err := bisect.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\nat: %+v", rep.Line, rep.At)
	checkFound(t, g, rep, 4)
	checkSteps(t, st, g, rep, &prog)
	if f := rep.At.Failure; f == nil || f.Kind != bisect.KindCrash || !strings.Contains(rep.At.Verdict, "SIGSEGV") {
		t.Errorf("the crash: %+v", rep.At)
	}
	for _, s := range rep.Steps {
		if s.BuildID == "" || s.BuildID == s.OutputID {
			t.Errorf("step %d: build %q, run %q: want both stored apart", s.Step, s.BuildID, s.OutputID)
		}
	}
	if d := rep.First.Diff; !strings.Contains(d, "-\tint *target = &slot;") || !strings.Contains(d, "+\tint *target = 0;") {
		t.Errorf("diff:\n%s", d)
	}
	if len(rep.First.Files) != 1 || rep.First.Files[0] != (bisect.FileChange{Path: "prog.c", Added: 2, Deleted: 2}) {
		t.Errorf("files %+v", rep.First.Files)
	}

	req.Bad, req.Progress = g.hashes[2], nil
	rep, err = bisect.Run(context.Background(), req)
	if err != nil || rep.Status != "not_bad" || len(rep.Steps) != 1 || !strings.HasPrefix(rep.Line, "NOT BISECTED: the bad revision "+g.hashes[2][:10]+" does not fail") {
		t.Errorf("a bad revision that passes: %+v, %v", rep, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req.Bad, req.Progress = "", func(_ float64, _ int, msg string) {
		if strings.HasPrefix(msg, "step 2 of ") {
			cancel()
		}
	}
	if rep, err := bisect.Run(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled bisect answered %+v, %v", rep, err)
	}
	if after := g.state("prog.c"); after != before {
		t.Errorf("the user's checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestBisectBuild: bisecting the build itself, a failure is bad only with
// an error in a file the bad revision's errors are in: a.c's break at
// commit 4 is skipped, b.c's (from commit 6 on) is found, and commit 7,
// with both, is bad.
func TestBisectBuild(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	g := newRepo(t)
	for i := range 10 {
		a, b := "int a(void) { return 1; }\n", "int b(void) { return 2; }\n"
		if i == 4 || i == 7 {
			a = "int a(void) { return undefined_a; }\n"
		}
		if i >= 6 {
			b = "int b(void) { return undefined_b; }\n"
		}
		g.commit(fmt.Sprintf("commit %d", i), map[string]string{
			".gitignore": "*.o\n", "a.c": fmt.Sprintf("// %d\n", i) + a, "b.c": b,
		})
	}
	st := openStore(t)
	rep, err := bisect.Run(context.Background(), bisect.Request{ProjectDir: g.dir, Good: g.hashes[0], What: bisect.WhatBuild,
		Call: pipeline.Call{Tool: "bisect", Store: st, Budget: 8 << 10, Level: logfilter.Standard, Timeout: 2 * time.Minute,
			Argv: []string{"gcc", "-c", "a.c", "b.c"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		t.Logf("step %d %s %s %s: %s (%s)", s.Step, s.Revision, s.Subject, s.Mark, s.Verdict, s.Why)
	}
	checkFound(t, g, rep, 6)
	if rep.Sought == nil || rep.Sought.String() != "build failed: b.c" {
		t.Errorf("failure sought %v, want b.c's", rep.Sought)
	}
	if s := stepAt(t, rep, g.hashes[4]); s.Mark != "skip" || s.Why != "another failure (build failed: a.c)" {
		t.Errorf("a.c's break: %+v", s)
	}
	if s := stepAt(t, rep, g.hashes[7]); s.Mark != "bad" {
		t.Errorf("a.c's and b.c's break: %+v", s)
	}
}

// TestBisectCMakeReusesBuildDir: a CMake project's tests are bisected
// with one build directory for the worktree: only the first step
// configures from nothing (CMake identifies the compiler once), and the
// commit that broke the ctest test is found.
func TestBisectCMakeReusesBuildDir(t *testing.T) {
	for _, tool := range []string{"cmake", "ctest", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	g := newRepo(t)
	for i := range 6 {
		want := "6"
		if i >= 2 {
			want = "7"
		}
		g.commit(fmt.Sprintf("commit %d", i), map[string]string{
			"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(twice C)\nenable_testing()\nadd_executable(t_twice t_twice.c)\nadd_test(NAME twice COMMAND t_twice)\n",
			"t_twice.c":      fmt.Sprintf("// %d\nstatic int twice(int n) { return n * 2; }\nint main(void) { return twice(3) != %s; }\n", i, want),
		})
	}
	st := openStore(t)
	rep, err := bisect.Run(context.Background(), bisect.Request{ProjectDir: g.dir, Good: g.hashes[0], What: bisect.WhatTest,
		Call: pipeline.Call{Tool: "bisect", Store: st, Budget: 8 << 10, Level: logfilter.Standard, Timeout: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, g, rep, 2)
	for _, s := range rep.Steps {
		var raw strings.Builder
		if err := st.WriteRaw(context.Background(), s.OutputID, &raw); err != nil {
			t.Fatal(err)
		}
		identified := strings.Contains(raw.String(), "The C compiler identification")
		if identified != (s.Step == 1) {
			t.Errorf("step %d (%s): configured from nothing %v, want only the first step to:\n%s", s.Step, s.Verdict, identified, raw.String())
		}
	}
}
