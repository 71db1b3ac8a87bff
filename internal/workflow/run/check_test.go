package run_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// runChecked calls run on a crasher under check and decodes its answer.
func runChecked(t *testing.T, c *mcptest.Client, prog, check string) (mcptest.Result, run.RunOutput) {
	t.Helper()
	r := c.Call("run", map[string]any{"program": crashers.Build(t, prog), "cwd": t.TempDir(), "check": check})
	var out run.RunOutput
	r.Decode(t, &out)
	return r, out
}

// A program that reads one int past its block and exits 0 is a failure
// under check: memory, ran under memcheck from its start (not a rerun):
// the verdict line names the invalid read's file:line and the block's
// allocation, the program's own exit status is kept, and valgrind's XML
// is an output of its own.
func TestRunCheckMemoryFailsAnExitZero(t *testing.T) {
	needValgrind(t)
	c := mcptest.Connect(t, nil)
	r, out := runChecked(t, c, "oobread", "memory")
	want := "FAILED: memcheck: heap buffer overflow: invalid read of size 4 at oobread.c:7 in sum (heap block of 16 bytes allocated at oobread.c:12 in main, 0 bytes past its end)"
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) || !strings.HasSuffix(r.FirstLine(), "the program exited 0") {
		t.Fatalf("outcome %q, verdict %q, want %q … the program exited 0\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	if !strings.Contains(r.Text, "ran under valgrind memcheck from its start (check: memory)") || strings.Contains(r.Text, "rerun") {
		t.Errorf("the answer does not say it ran under memcheck from the start:\n%s", r.Text)
	}
	me := out.Verdict.MemoryError
	if me == nil || me.Outcome != "found" || me.Kind != "heap buffer overflow" || me.Site == nil || me.Site.Line != 7 || me.OutputID == "" {
		t.Fatalf("memory_error %+v", me)
	}
	if out.Verdict.ExitCode != 0 || out.Verdict.Status != "failure" {
		t.Errorf("verdict status %q exit %d, want failure with the program's exit 0", out.Verdict.Status, out.Verdict.ExitCode)
	}
	if !strings.Contains(r.Text, "done") {
		t.Errorf("the program's output is not in the answer:\n%s", r.Text)
	}
	xml := c.Call("output_get", map[string]any{"output_id": me.OutputID, "limit": 10})
	if !strings.Contains(xml.Text, "<valgrindoutput>") {
		t.Errorf("valgrind's XML:\n%s", xml.Text)
	}
}

// check: leaks reports a definite leak as a failure with its allocation
// site; check: memory does not look for leaks, and says so.
func TestRunCheckLeaks(t *testing.T) {
	needValgrind(t)
	c := mcptest.Connect(t, nil)
	r, out := runChecked(t, c, "leakplain", "leaks")
	want := "FAILED: memcheck: definitely lost: 64 bytes in 1 block, allocated at leak.c:6 in main"
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	if me := out.Verdict.MemoryError; me == nil || me.Valgrind != "Leak_DefinitelyLost" || me.Site == nil || me.Site.Line != 6 {
		t.Fatalf("memory_error %+v", me)
	}
	r, _ = runChecked(t, c, "leakplain", "memory")
	if r.Outcome != "ok" || !strings.Contains(r.Text, "memcheck: no memory error seen in 1 run under memcheck (leaks not checked); ") {
		t.Fatalf("check: memory on a leak: outcome %q\n%s", r.Outcome, r.Text)
	}
}

// A use after free that does not crash under valgrind (its allocator
// does not hand the block out again) is a failure naming the read and the
// free; a crash under check: memory keeps its crash verdict, with
// memcheck's report first under it; undefined, which needs a build, and
// an unknown checker are usage errors that say what to do.
func TestRunCheckCrashAndUsage(t *testing.T) {
	needValgrind(t)
	c := mcptest.Connect(t, nil)
	r, _ := runChecked(t, c, "useafterfree", "memory")
	want := "FAILED: memcheck: use after free: invalid read of size 8 at useafterfree.c:17 in sum (heap block of 16 bytes freed at useafterfree.c:26 in main, allocated at useafterfree.c:23 in main"
	if !strings.HasPrefix(r.FirstLine(), want) {
		t.Errorf("verdict %q, want %q…", r.FirstLine(), want)
	}
	r, out := runChecked(t, c, "segv", "memory")
	if !strings.HasPrefix(r.FirstLine(), "CRASHED") || out.Verdict.MemoryError == nil || out.Verdict.MemoryError.Outcome != "found" {
		t.Fatalf("verdict %q, memory_error %+v\n%s", r.FirstLine(), out.Verdict.MemoryError, r.Text)
	}
	if lines := strings.Split(r.Text, "\n"); !strings.HasPrefix(lines[1], "memcheck: invalid read of size 4 at segv.c:5 in crash_here") {
		t.Errorf("memcheck's report is not the first line under the verdict:\n%s", r.Text)
	}
	for check, want := range map[string]string{
		"undefined": "needs the program built with -fsanitize=undefined",
		"races":     "want memory, leaks, undefined or thread",
	} {
		r := c.Call("run", map[string]any{"program": crashers.Build(t, "segv"), "check": check})
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, want) {
			t.Errorf("check %s: outcome %q, want a usage error saying %q:\n%s", check, r.Outcome, want, r.Text)
		}
	}
}

// An uninitialised field that decides a branch, in a program that exits
// 0, fails under check: memory: the verdict names the branch's file:line
// and the allocation that left the field unset (valgrind's origins).
func TestRunCheckMemoryUninit(t *testing.T) {
	needValgrind(t)
	r, out := runChecked(t, mcptest.Connect(t, nil), "uninit", "memory")
	want := "FAILED: memcheck: uninitialised value decides a branch at uninit.c:17 in main (created by a heap allocation at uninit.c:10 in conf_new)"
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	if me := out.Verdict.MemoryError; me == nil || me.Valgrind != "UninitCondition" || me.Site == nil || me.Site.Line != 17 {
		t.Errorf("memory_error %+v", me)
	}
}
