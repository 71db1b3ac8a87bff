package capture_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

func needValgrind(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
}

// storedRun runs argv (in dir, with stdin) through RunStored with the
// memcheck settings m, and returns the outcome the answer saw.
func storedRun(t *testing.T, st *store.Store, m capture.Memcheck, dir, stdin string, argv ...string) *capture.Outcome {
	t.Helper()
	spec := spawn.Spec{Argv: argv, Dir: dir, CoreDumps: true}
	if stdin != "" {
		spec.Stdin = strings.NewReader(stdin)
	}
	var seen *capture.Outcome
	_, err := capture.RunStored(context.Background(), capture.StoredRun{Tool: "run", Store: st, Budget: 4096, Memcheck: m,
		Request: capture.Request{Spec: spec, ProjectDir: filepath.Dir(argv[0])},
		Answer:  func(o *capture.Outcome, _ capture.Result) any { seen = o; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

// A heap overflow that glibc's malloc dies of later is rerun under
// memcheck, with the input the run had (the overflow's length comes from
// stdin), before the answer is rendered: the answer names the invalid
// write and the block's allocation; the call's progress says the rerun
// started; valgrind's XML is an output of its own. memcheck off, there is
// no rerun.
func TestRunStoredMemcheckFound(t *testing.T) {
	needValgrind(t)
	st, _ := openStore(t)
	exe := crashers.Build(t, "heapoverflow")
	var said []string
	o := storedRun(t, st, capture.Memcheck{Notify: func(m string) { said = append(said, m) }}, t.TempDir(), "40\n", exe, "-")
	m := o.Memcheck
	if m == nil || m.Result == nil || m.Result.Outcome != memcheck.Found {
		t.Fatalf("rerun %+v (verdict %q)", m, o.Verdict.Line)
	}
	want := "memcheck: heap buffer overflow: invalid write of size 1 at heapoverflow.c:7 in fill (heap block of 24 bytes allocated at heapoverflow.c:15 in main, 0 bytes past its end)"
	if !strings.HasPrefix(m.Summary(), want) {
		t.Errorf("summary %q\nwant %q", m.Summary(), want)
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "rerunning "+filepath.Base(exe)+" under valgrind memcheck (limit 10s): glibc reported corrupted memory: malloc(): corrupted top size") {
		t.Errorf("progress %q", said)
	}
	ctx := context.Background()
	e, err := st.Info(ctx, m.OutputID)
	if err != nil || e.Tool != "memcheck" || e.Status != "failure" || e.VerdictLine != m.Result.Summary() {
		t.Fatalf("XML entry %+v, %v", e, err)
	}
	if p, err := st.Page(ctx, m.OutputID, 0, 5); err != nil || !strings.Contains(strings.Join(p.Lines, "\n"), "<valgrindoutput>") {
		t.Errorf("XML's first lines %+v, %v", p, err)
	}
	if o := storedRun(t, st, capture.Memcheck{Off: true}, t.TempDir(), "40\n", exe, "-"); o.Memcheck != nil {
		t.Errorf("memcheck off, yet rerun: %+v", o.Memcheck)
	}
}

// A crash that looks like corruption and is none (glibc's words printed,
// then kill) is said not reproduced; the vgcore valgrind writes in the
// program's directory when the program dies of a signal under it (core
// dumps allowed) is not left there.
func TestRunStoredMemcheckNotReproduced(t *testing.T) {
	needValgrind(t)
	st, _ := openStore(t)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &old); err != nil || old.Max < 64<<20 {
		t.Skipf("core size limit %+v, %v: valgrind would write no vgcore", old, err)
	}
	raised := syscall.Rlimit{Cur: old.Max, Max: old.Max} // our children's limit: no test runs beside this one
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &raised); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_CORE, &old)
	dir := t.TempDir()
	o := storedRun(t, st, capture.Memcheck{}, dir, "", crashers.Build(t, "fakecorrupt"))
	m := o.Memcheck
	if m == nil || m.Result == nil || m.Result.Outcome != memcheck.Clean ||
		m.Summary() != "memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGSEGV at fakecorrupt.c:9 in main" {
		t.Fatalf("rerun %+v: %q", m, m.Summary())
	}
	if e, err := st.Info(context.Background(), m.OutputID); err != nil || e.Status != "success" {
		t.Errorf("XML entry %+v, %v", e, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "vgcore.*")); len(left) > 0 {
		t.Errorf("valgrind's cores left in the program's directory: %v", left)
	}
}

// Without valgrind, the crash is not rerun: the answer says why and the
// hints say what to install.
func TestRunStoredMemcheckMissing(t *testing.T) {
	st, _ := openStore(t)
	exe := crashers.Build(t, "heapoverflow")
	t.Setenv("PATH", t.TempDir()) // no valgrind (nor gdb: glibc's words decide)
	o := storedRun(t, st, capture.Memcheck{Notify: func(string) { t.Error("progress for a rerun that cannot run") }}, t.TempDir(), "", exe)
	m := o.Memcheck
	if m == nil || m.Result != nil || !m.Missing || !strings.HasPrefix(m.Summary(), "memcheck: not rerun: valgrind not found in PATH (apt-get install valgrind)") {
		t.Fatalf("rerun %+v", m)
	}
	if len(o.Verdict.Hints) == 0 || !strings.HasPrefix(o.Verdict.Hints[0].Text, "install valgrind (apt-get install valgrind)") {
		t.Errorf("hints %+v", o.Verdict.Hints)
	}
}
