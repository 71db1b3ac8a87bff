package run_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// TestRunStallHung: under run's default ten-minute limit, a program
// blocked on a pipe nobody writes ends HUNG after stall_s, with the
// stacks a timeout takes.
func TestRunStallHung(t *testing.T) {
	c := mcptest.Connect(t, nil)
	p := hangers.PipeReader(t)
	r := c.Call("run", map[string]any{"program": p.Bin, "stall_s": 2})
	want := fmt.Sprintf("HUNG: no progress for 2s; in main, blocked in read at piperead.c:%d", p.Line(t, "READ-PIPE"))
	if r.IsError || r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	if !strings.Contains(r.Text, "stall: no output, no CPU time and every thread blocked for 2s: 1 in read of a pipe") {
		t.Errorf("no stall evidence:\n%s", r.Text)
	}
	if !out.TimedOut || out.Hang == nil || out.DurationMS > 120_000 {
		t.Errorf("timed_out %v, hang %+v, after %d ms", out.TimedOut, out.Hang, out.DurationMS)
	}
}

// TestRunStallOff: stall_s 0 waits for the time limit.
func TestRunStallOff(t *testing.T) {
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": hangers.PipeReader(t).Bin, "stall_s": 0, "timeout_s": 3})
	if !strings.HasPrefix(r.FirstLine(), "TIMED OUT after 3s") {
		t.Fatalf("verdict %q, want a timeout\n%s", r.FirstLine(), r.Text)
	}
}

func TestRunStallBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	for _, v := range []any{-1, 1e12} {
		r := c.Call("run", map[string]any{"program": "true", "stall_s": v})
		if !r.IsError || !strings.Contains(r.Text, "stall_s") {
			t.Errorf("stall_s %v: isError %v text %q", v, r.IsError, r.Text)
		}
	}
}
