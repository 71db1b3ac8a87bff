package run_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// TestProcessTimeoutNamesLimit: a background process that runs out of its
// timeout_s says so, and a process_output wait that ends with no new
// output says which limit it waited out.
func TestProcessTimeoutNamesLimit(t *testing.T) {
	c := mcptest.Connect(t, nil)
	p := hangers.PipeReader(t)
	start := c.Call("process_start", map[string]any{"program": p.Bin, "timeout_s": 1})
	if start.IsError {
		t.Fatal(start.Text)
	}
	id, _ := start.Out["id"].(string)
	// The program prints "ready" then blocks: the next wait can only time out.
	if out := c.Call("process_output", map[string]any{"id": id, "wait_s": 60}).Out; out["next_cursor"] != float64(1) {
		t.Fatalf("process_output = %v", out)
	}
	w := c.Call("process_output", map[string]any{"id": id, "cursor": 1, "wait_s": 0.2})
	if want := "no new output after 200ms (wait_s, at most 60)"; w.Out["running"] == true && !strings.Contains(w.Text, want) {
		t.Errorf("a wait that ran out, want %q:\n%s", want, w.Text)
	}
	for w.Out["running"] == true {
		w = c.Call("process_output", map[string]any{"id": id, "cursor": 1, "wait_s": 60})
	}
	if want := "TIMED OUT after 1s (timeout_s)"; !strings.HasPrefix(w.Out["verdict"].(string), want) {
		t.Errorf("verdict %q, want %q\n%s", w.Out["verdict"], want, w.Text)
	}
}
