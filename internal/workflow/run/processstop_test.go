package run_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// startReady starts program in the background and waits until it printed
// "ready" and, when blocked, until one sample of its group shows every
// thread blocked (it may print a moment before it blocks).
func startReady(t *testing.T, c *mcptest.Client, program string, blocked bool) string {
	t.Helper()
	start := c.Call("process_start", map[string]any{"program": program})
	if start.IsError {
		t.Fatal(start.Text)
	}
	id, _ := start.Out["id"].(string)
	pid := int(start.Out["pid"].(float64))
	out := c.Call("process_output", map[string]any{"id": id, "wait_s": 60}).Out
	if lines, _ := out["lines"].([]any); len(lines) == 0 || lines[0] != "ready" {
		t.Fatalf("process_output = %v", out)
	}
	for deadline := time.Now().Add(time.Minute); blocked && !stall.Blocked(stall.Group(pid), 30*time.Second); {
		if time.Now().After(deadline) {
			t.Fatalf("%s never blocked: %+v", program, stall.Group(pid))
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing one
	}
	return id
}

// TestProcessStopStuckTakesStacks: process_stop of a program blocked on a
// pipe nobody writes takes its stacks before the kill, and the verdict
// says where it was stuck.
func TestProcessStopStuckTakesStacks(t *testing.T) {
	if !stall.Supported {
		t.Skip("no stall sampling here")
	}
	c := mcptest.Connect(t, nil)
	p := hangers.PipeReader(t)
	id := startReady(t, c, p.Bin, true)
	began := time.Now()
	stop := c.Call("process_stop", map[string]any{"id": id})
	want := fmt.Sprintf("— process group stopped; it was stuck: in main, blocked in read at piperead.c:%d", p.Line(t, "READ-PIPE"))
	if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") || !strings.HasSuffix(stop.FirstLine(), want) {
		t.Fatalf("verdict %q, want …%q\n%s", stop.FirstLine(), want, stop.Text)
	}
	var out run.RunOutput
	stop.Decode(t, &out)
	if out.Hang == nil || time.Since(began) > time.Minute {
		t.Errorf("hang %+v, stop took %s", out.Hang, time.Since(began))
	}
}

// TestProcessStopRunningTakesNoStacks: a program that computes is stopped
// at once, with no stacks.
func TestProcessStopRunningTakesNoStacks(t *testing.T) {
	c := mcptest.Connect(t, nil)
	id := startReady(t, c, hangers.Spin(t).Bin, false)
	stop := c.Call("process_stop", map[string]any{"id": id})
	var out run.RunOutput
	stop.Decode(t, &out)
	if !strings.HasPrefix(stop.FirstLine(), "INTERRUPTED") || strings.Contains(stop.FirstLine(), "stuck") || out.Hang != nil {
		t.Fatalf("verdict %q, hang %+v\n%s", stop.FirstLine(), out.Hang, stop.Text)
	}
}
