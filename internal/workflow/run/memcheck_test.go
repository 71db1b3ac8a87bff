package run_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

func needValgrind(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
}

// runMemcheck calls run on a crasher and returns the answer's lines and
// its memory error.
func runMemcheck(t *testing.T, c *mcptest.Client, prog string, args map[string]any) ([]string, *wire.MemoryError, mcptest.Result) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["program"], args["cwd"] = crashers.Build(t, prog), t.TempDir()
	r := c.Call("run", args)
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED (") {
		t.Fatalf("outcome %q verdict %q, want a crash\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	return strings.Split(r.Text, "\n"), out.Verdict.MemoryError, r
}

// before reports that the line starting with first comes before the one
// starting with then.
func before(lines []string, first, then string) bool {
	at := func(p string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, p) {
				return i
			}
		}
		return -1
	}
	i, j := at(first), at(then)
	return i >= 0 && j >= 0 && i < j
}

// A heap overflow that glibc's malloc dies of later ("malloc(): corrupted
// top size", SIGABRT in main's next malloc) is rerun under memcheck: the
// answer's first finding, under the verdict and above the crash site,
// names the invalid write's file:line and the block's allocation; its
// structured result says the same; valgrind's whole XML is an output the
// agent can read.
func TestRunMemcheckHeapOverflow(t *testing.T) {
	needValgrind(t)
	c := mcptest.Connect(t, nil)
	lines, me, r := runMemcheck(t, c, "heapoverflow", nil)
	want := "memcheck: heap buffer overflow: invalid write of size 1 at heapoverflow.c:7 in fill (heap block of 24 bytes allocated at heapoverflow.c:15 in main, 0 bytes past its end)"
	if !strings.HasPrefix(lines[1], want) || !before(lines, "memcheck: ", "crash site: ") || !before(lines, "memcheck: ", "signal SIGABRT") {
		t.Fatalf("the answer's first finding is not memcheck's %q:\n%s", want, r.Text)
	}
	if !strings.Contains(r.Text, "\n  rerun under valgrind memcheck because glibc reported corrupted memory: malloc(): corrupted top size; took ") {
		t.Errorf("the answer does not say why it reran:\n%s", r.Text)
	}
	if me == nil || me.Outcome != "found" || me.Kind != "heap buffer overflow" || me.Valgrind != "InvalidWrite" || me.Access != "write" || me.Size != 1 ||
		me.Site == nil || me.Site.Function != "fill" || me.Site.Line != 7 || me.Allocated == nil || me.Allocated.Line != 15 ||
		me.Block == nil || me.Block.Size != 24 || me.Block.Relation != "after" || me.OutputID == "" || me.LimitMS != 10000 {
		t.Fatalf("memory_error %+v", me)
	}
	xml := c.Call("output_get", map[string]any{"output_id": me.OutputID, "limit": 10})
	if !strings.Contains(xml.Text, "<valgrindoutput>") {
		t.Errorf("valgrind's XML:\n%s", xml.Text)
	}
}

// A use after free whose block glibc handed out again crashes at a wild
// address; the rerun names the read of the freed node and where it was
// freed and allocated.
func TestRunMemcheckUseAfterFree(t *testing.T) {
	needValgrind(t)
	lines, me, r := runMemcheck(t, mcptest.Connect(t, nil), "useafterfree", nil)
	want := "memcheck: use after free: invalid read of size 8 at useafterfree.c:17 in sum (heap block of 16 bytes freed at useafterfree.c:26 in main, allocated at useafterfree.c:23 in main, 8 bytes into it)"
	if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in sum at useafterfree.c:17") || !strings.HasPrefix(lines[1], want) {
		t.Fatalf("want %q under the verdict:\n%s", want, r.Text)
	}
	if me == nil || me.Kind != "use after free" || me.Freed == nil || me.Freed.Line != 26 || me.Allocated == nil || me.Allocated.Line != 23 ||
		me.Why != "SIGSEGV at a wild address 0x5a5a5a5a5a62 (not NULL, not mapped)" {
		t.Errorf("memory_error %+v", me)
	}
}

// A crash that looks like corruption and is none is said not reproduced,
// not guessed at.
func TestRunMemcheckNotReproduced(t *testing.T) {
	needValgrind(t)
	lines, me, r := runMemcheck(t, mcptest.Connect(t, nil), "fakecorrupt", nil)
	if lines[1] != "memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGSEGV at fakecorrupt.c:9 in main" {
		t.Fatalf("line 2 %q:\n%s", lines[1], r.Text)
	}
	if me == nil || me.Outcome != "clean" || me.Kind != "" || me.OutputID == "" {
		t.Errorf("memory_error %+v", me)
	}
}

// A NULL dereference in the project's code, a stack overflow and an
// assertion are their own causes: no rerun, nothing said of memcheck. A
// heap overflow with memcheck: false is not rerun either.
func TestRunMemcheckNotRerun(t *testing.T) {
	c := mcptest.Connect(t, nil)
	for _, tc := range []struct {
		prog string
		args map[string]any
	}{{"nullderef", nil}, {"stackoverflow", nil}, {"assert", nil}, {"heapoverflow", map[string]any{"memcheck": false}}} {
		t.Run(tc.prog, func(t *testing.T) {
			_, me, r := runMemcheck(t, c, tc.prog, tc.args)
			if me != nil || strings.Contains(r.Text, "memcheck") {
				t.Errorf("rerun under memcheck: %+v\n%s", me, r.Text)
			}
		})
	}
}

// A double free glibc aborts on is rerun under memcheck: the answer names
// the second free's file:line, where the block was freed first and where
// it was allocated.
func TestRunMemcheckDoubleFree(t *testing.T) {
	needValgrind(t)
	lines, me, r := runMemcheck(t, mcptest.Connect(t, nil), "doublefree", nil)
	want := "memcheck: invalid free (double free) at doublefree.c:6 in main (heap block of 32 bytes freed at doublefree.c:5 in main, allocated at doublefree.c:4 in main)"
	if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGABRT, glibc heap corruption) in main at doublefree.c:6") || !strings.HasPrefix(lines[1], want) {
		t.Fatalf("want %q under the verdict:\n%s", want, r.Text)
	}
	if me == nil || me.Freed == nil || me.Freed.Line != 5 || me.Allocated == nil || me.Allocated.Line != 4 || me.Site == nil || me.Site.Line != 6 {
		t.Errorf("memory_error %+v", me)
	}
}

// A stack smash is rerun (it may be a heap overflow's doing), and when
// memcheck sees nothing the answer says that memcheck cannot see stack
// arrays and what can, rather than clearing the program.
func TestRunMemcheckStackSmash(t *testing.T) {
	needValgrind(t)
	lines, me, r := runMemcheck(t, mcptest.Connect(t, nil), "stacksmash", nil)
	want := "memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGABRT at stacksmash.c:"
	if !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], "a build with -fsanitize=address (test's check: memory) names the overflowing write") {
		t.Fatalf("line 2 %q, want %q… and what finds it:\n%s", lines[1], want, r.Text)
	}
	if me == nil || me.Outcome != "clean" {
		t.Errorf("memory_error %+v", me)
	}
}
