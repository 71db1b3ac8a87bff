package run_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// startChecked starts a crasher in the background under check and waits
// (long-polling process_output) until it has ended; the last page's text.
func startChecked(t *testing.T, c *mcptest.Client, prog, check string) (id, page string) {
	t.Helper()
	start := c.Call("process_start", map[string]any{"program": crashers.Build(t, prog), "cwd": t.TempDir(), "check": check})
	if start.IsError {
		t.Fatal(start.Text)
	}
	id, _ = start.Out["id"].(string)
	for range 60 {
		out := c.Call("process_output", map[string]any{"id": id, "wait_s": 60})
		if running, _ := out.Out["running"].(bool); !running {
			return id, out.Text
		}
	}
	t.Fatalf("%s never ended", prog)
	return "", ""
}

// A background program under check: memory runs under memcheck from its
// start: its report (the kind, the access, the block's allocation and
// free) is in process_output's page once it has ended and in
// process_stop's answer, and fails its verdict though it exited 0.
func TestProcessStartCheckMemory(t *testing.T) {
	needValgrind(t)
	c := mcptest.Connect(t, nil)
	id, page := startChecked(t, c, "oobread", "memory")
	want := "FAILED: memcheck: heap buffer overflow: invalid read of size 4 at oobread.c:7 in sum (heap block of 16 bytes allocated at oobread.c:12 in main, 0 bytes past its end)"
	if !strings.Contains(page, "ended: "+want) || !strings.Contains(page, "ran under valgrind memcheck from its start (check: memory)") {
		t.Errorf("process_output's page lacks the report:\n%s", page)
	}
	stop := c.Call("process_stop", map[string]any{"id": id})
	var out run.RunOutput
	stop.Decode(t, &out)
	if stop.Outcome != "failed" || !strings.HasPrefix(stop.FirstLine(), want) || !strings.HasSuffix(stop.FirstLine(), "the program exited 0") {
		t.Fatalf("process_stop: outcome %q verdict %q, want %q…\n%s", stop.Outcome, stop.FirstLine(), want, stop.Text)
	}
	if me := out.Verdict.MemoryError; me == nil || me.Kind != "heap buffer overflow" || me.Site == nil || me.Site.Line != 7 || me.OutputID == "" {
		t.Errorf("memory_error %+v", me)
	}

	id, _ = startChecked(t, c, "useafterfree", "memory")
	stop = c.Call("process_stop", map[string]any{"id": id})
	want = "FAILED: memcheck: use after free: invalid read of size 8 at useafterfree.c:17 in sum (heap block of 16 bytes freed at useafterfree.c:26 in main, allocated at useafterfree.c:23 in main"
	if !strings.HasPrefix(stop.FirstLine(), want) {
		t.Errorf("verdict %q, want %q…\n%s", stop.FirstLine(), want, stop.Text)
	}
	r := c.Call("process_start", map[string]any{"program": crashers.Build(t, "segv"), "check": "races"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "want memory, leaks, undefined or thread") {
		t.Errorf("check races: %q\n%s", r.Outcome, r.Text)
	}
}
