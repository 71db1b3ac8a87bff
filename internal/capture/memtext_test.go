package capture

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/spawn"
)

// text is what WriteText writes.
func text(m *MemcheckRun) string {
	var b strings.Builder
	m.WriteText(&b)
	return b.String()
}

// A rerun's text says each outcome in its own words: the clean rerun's
// "no memory error seen in 1 rerun under memcheck" with how the program
// ended this time, why there is no verdict, why valgrind did not run; the
// last line says why the crash was rerun, its time and its limit, and
// where the XML is (or why it is not kept).
func TestMemcheckRunText(t *testing.T) {
	why := "glibc reported corrupted memory: free(): invalid pointer"
	for _, tc := range []struct {
		name string
		m    *MemcheckRun
		want string
	}{
		{"clean", &MemcheckRun{Why: why, Limit: 10 * time.Second, Took: 1234 * time.Millisecond, OutputID: "o-1",
			Result: &memcheck.Result{Outcome: memcheck.Clean, Signal: &memcheck.Signal{Name: "SIGSEGV", At: -1}, Process: &spawn.Result{Signaled: true, SignalName: "SIGSEGV"}}},
			"memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGSEGV\n" +
				"  rerun under valgrind memcheck because " + why + "; took 1.2s of its 10s limit; valgrind's XML: o-1\n"},
		{"a stack smash", &MemcheckRun{Why: "glibc reported corrupted memory: *** stack smashing detected ***: terminated", Limit: 10 * time.Second, Took: time.Second,
			Result: &memcheck.Result{Outcome: memcheck.Clean, Signal: &memcheck.Signal{Name: "SIGABRT", At: -1}, Process: &spawn.Result{Signaled: true, SignalName: "SIGABRT"}}},
			"memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGABRT; memcheck does not see writes past an array on the stack: " +
				"a build with -fsanitize=address (test's check: memory) names the overflowing write\n" +
				"  rerun under valgrind memcheck because glibc reported corrupted memory: *** stack smashing detected ***: terminated; took 1s of its 10s limit\n"},
		{"timed out", &MemcheckRun{Why: why, Limit: 10 * time.Second, Took: 10 * time.Second, OutputID: "o-2",
			Result: &memcheck.Result{Reason: "timed out after 10s before valgrind finished the program; no memory error seen until then", Process: &spawn.Result{TimedOut: true}}},
			"memcheck: no verdict: timed out after 10s before valgrind finished the program; no memory error seen until then\n" +
				"  rerun under valgrind memcheck because " + why + "; took 10s of its 10s limit; valgrind's XML: o-2\n"},
		{"the store failed", &MemcheckRun{Why: why, Limit: time.Minute, Took: time.Second, StoreErr: errors.New("disk full"),
			Result: &memcheck.Result{Outcome: memcheck.Clean, Process: &spawn.Result{Exited: true}}},
			"memcheck: no memory error seen in 1 rerun under memcheck; the program exited with status 0\n" +
				"  rerun under valgrind memcheck because " + why + "; took 1s of its 1m0s limit; valgrind's XML not kept: disk full\n"},
		{"valgrind missing", &MemcheckRun{Why: why, Limit: 10 * time.Second, Missing: true, NotRun: "valgrind not found in PATH (apt-get install valgrind)"},
			"memcheck: not rerun: valgrind not found in PATH (apt-get install valgrind)\n" +
				"  the crash looks like memory corruption: " + why + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := text(tc.m); got != tc.want {
				t.Errorf("text\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if text(nil) != "" {
		t.Error("a run without a rerun says something of it")
	}
}

// A found error's stacks are cut to memcheckDetailLines under the summary,
// and the cut is said.
func TestMemcheckRunTextBounded(t *testing.T) {
	var stack []memcheck.Frame
	for i := range 30 {
		stack = append(stack, memcheck.Frame{Function: fmt.Sprintf("f%d", i), File: "deep.c", Line: i + 1})
	}
	rep := memcheck.Report{Kind: "InvalidWrite", What: "Invalid write of size 4", Words: "heap buffer overflow: invalid write of size 4",
		Access: &memcheck.Access{Op: "write", Size: 4}, Stack: stack, At: 0, Block: &memcheck.Block{Relation: "after", Size: 8}}
	for range 3 {
		rep.Aux = append(rep.Aux, memcheck.Stack{What: "Block was alloc'd at", Role: memcheck.Allocated, Frames: stack, At: 2})
	}
	m := &MemcheckRun{Why: "w", Limit: 10 * time.Second, Result: &memcheck.Result{Outcome: memcheck.Found, Errors: []memcheck.Report{rep}, Seen: 1}}
	lines := strings.Split(strings.TrimSuffix(text(m), "\n"), "\n")
	if len(lines) != 1+memcheckDetailLines+2 || lines[0] != m.Result.Summary() ||
		!strings.HasPrefix(lines[memcheckDetailLines+1], "  … ") || !strings.HasSuffix(lines[memcheckDetailLines+1], " more lines in valgrind's XML") {
		t.Errorf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[0], "memcheck: heap buffer overflow: invalid write of size 4 at deep.c:1 in f0") {
		t.Errorf("summary %q", lines[0])
	}
}
